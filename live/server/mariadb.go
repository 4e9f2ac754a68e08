package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fencelab/fencelab/internal/quote"
	"github.com/go-sql-driver/mysql"
)

// MariaDB's private instance: the account the clients use over TCP, made
// when the data folder is initialised. The instance listens on 127.0.0.1
// only and lives in a temporary folder, so a fixed password protects
// nothing worth more than a stable DSN.
const (
	MariaDBUser     = "fencelab"
	MariaDBPassword = "fencelab"
	MariaDBDatabase = "fencelab"
	// MariaDBPackage is the Debian package that provides mariadbd and
	// mariadb-install-db.
	MariaDBPackage = "mariadb-server"
)

// mariadbDialTimeout bounds a client's TCP connect to the instance.
const mariadbDialTimeout = 5 * time.Second

// MariaDB's programs, and where the Debian package puts them. Only these
// folders are searched, not $PATH (which often lacks /usr/sbin for a
// non-root user): the package is what fencelab supports.
const (
	mariadbInstallDB = "mariadb-install-db"
	mariadbServerBin = "mariadbd"
)

func mariadbDirs() []string { return []string{"/usr/sbin", "/usr/bin"} }

// mariadbBinaries finds mariadb-install-db and mariadbd in dirs.
func mariadbBinaries(dirs []string) (installDB, server string, err error) {
	look := func(name string) (string, error) {
		for _, dir := range dirs {
			p := filepath.Join(dir, name)
			if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
				return p, nil
			}
		}
		return "", &MissingError{Program: name, Package: MariaDBPackage,
			Err: fmt.Errorf("%s not found in %s", name, strings.Join(dirs, ", "))}
	}
	if installDB, err = look(mariadbInstallDB); err != nil {
		return "", "", err
	}
	if server, err = look(mariadbServerBin); err != nil {
		return "", "", err
	}
	return installDB, server, nil
}

// MariaDBInstalled returns nil when the MariaDB binaries are present, or a
// *MissingError naming the package.
func MariaDBInstalled() error {
	_, _, err := mariadbBinaries(mariadbDirs())
	return err
}

// mariadbdVersion matches "Ver 10.11.19-MariaDB-0+deb12u1" in mariadbd
// --version's output.
var mariadbdVersion = regexp.MustCompile(`Ver ([0-9][0-9A-Za-z.+~\-]*)`)

// MariaDBVersion runs `mariadbd --version` without starting a server and
// names it as Version does ("mariadbd 10.11.19-MariaDB-0+deb12u1"), or
// returns a *MissingError naming the package.
func MariaDBVersion(ctx context.Context) (string, error) {
	_, serverBin, err := mariadbBinaries(mariadbDirs())
	if err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, serverBin, "--no-defaults", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("mariadbd --version: %w", err)
	}
	m := mariadbdVersion.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("mariadbd --version: no version in %s", quote.Q(string(out)))
	}
	return "mariadbd " + string(m[1]), nil
}

// MariaDBOptions tunes StartMariaDB.
type MariaDBOptions struct {
	// Name is the instance's name in histories ("mariadb" if empty).
	Name string
	// Template, if set, is an initialised data folder copied into the
	// instance instead of running mariadb-install-db (about 0.7 s on this
	// machine, against about 0.03 s for the copy).
	Template *MariaDBTemplate
	// ReadyTimeout bounds start-up (DefaultReadyTimeout if zero).
	ReadyTimeout time.Duration
	// WaitTimeout, if set, is the server's wait_timeout (whole seconds,
	// at least 1): a session idle that long is ended, and the locks it
	// held with it. Zero keeps MariaDB's eight hours.
	WaitTimeout time.Duration
}

// MariaDB is a private mariadbd instance: its data folder, socket, pid
// file and log all live in the folder given to StartMariaDB; it listens
// on 127.0.0.1 on a free port and never reads the system's option files
// (--no-defaults), /var/lib/mysql or the system socket.
//
// Layout of its folder: data/ (the datadir, where the socket
// mariadbd.sock lives too), tmp/, mariadbd.pid and mariadb.log (stdout and
// stderr, which is where mariadbd logs without --log-error).
type MariaDB struct {
	name     string
	dir      string
	template *MariaDBTemplate
	install  string // mariadb-install-db
	proc     *Proc

	mu      sync.Mutex
	version string
}

var _ Server = (*MariaDB)(nil)

// StartMariaDB initialises a data folder in dir (from opts.Template, or
// with mariadb-install-db) and starts mariadbd on a free port of
// 127.0.0.1. dir must be absent or empty: from the call on it belongs to
// the instance, which removes it on failure and on Stop.
func StartMariaDB(ctx context.Context, dir string, opts MariaDBOptions) (*MariaDB, error) {
	name := opts.Name
	if name == "" {
		name = "mariadb"
	}
	installDB, serverBin, err := mariadbBinaries(mariadbDirs())
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	// A failed start removes dir, so a retry claims it afresh.
	return retryOnPortInUse(func() (*MariaDB, error) {
		return startMariaDBOnce(ctx, dir, name, installDB, serverBin, opts)
	})
}

func startMariaDBOnce(ctx context.Context, dir, name, installDB, serverBin string, opts MariaDBOptions) (*MariaDB, error) {
	dir, err := claimEmptyDir(dir)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	m := &MariaDB{name: name, dir: dir, template: opts.Template, install: installDB}
	fail := func(err error) (*MariaDB, error) {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	if err := m.initData(ctx); err != nil {
		return fail(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o700); err != nil {
		return fail(err)
	}
	port, err := FreePort()
	if err != nil {
		return fail(err)
	}
	// StartProc removes dir itself when it fails.
	proc, err := StartProc(ctx, ProcSpec{
		Name: name,
		Dir:  dir,
		Path: serverBin,
		Args: append([]string{
			"--no-defaults", // never read /etc/mysql
			"--datadir=" + filepath.Join(dir, "data"),
			// Relative to the datadir (mariadbd changes into it), so the
			// socket path stays short whatever dir is, and the default
			// system socket (/run/mysqld) is never used.
			"--socket=mariadbd.sock",
			"--pid-file=" + filepath.Join(dir, "mariadbd.pid"),
			"--tmpdir=" + filepath.Join(dir, "tmp"),
			"--port=" + strconv.Itoa(port),
			"--bind-address=127.0.0.1",
			"--skip-name-resolve",
			// Small buffers: start-up in about 0.1 s and little memory.
			"--innodb-buffer-pool-size=8M",
			"--innodb-log-file-size=4M",
			"--max-connections=200",
			// Durable commits, the default, said explicitly: the restart
			// story relies on it.
			"--innodb-flush-log-at-trx-commit=1",
		}, append(waitTimeoutArgs(opts.WaitTimeout), runAsArgs(os.Geteuid())...)...),
		Port:         port,
		Ready:        m.ready,
		ReadyTimeout: opts.ReadyTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	m.proc = proc
	return m, nil
}

// waitTimeoutArgs is the --wait-timeout option for d (none for 0):
// MariaDB counts it in whole seconds, so d is rounded up, to 1 at least.
func waitTimeoutArgs(d time.Duration) []string {
	if d <= 0 {
		return nil
	}
	return []string{"--wait-timeout=" + strconv.FormatInt(int64(max((d+time.Second-1)/time.Second, 1)), 10)}
}

// runAsArgs is the --user option mariadbd and mariadb-install-db need
// for the effective user id euid: as root they refuse to run without
// --user=root; as anyone else they run as that user, and --user=root
// would make them try to switch to root and fail.
func runAsArgs(euid int) []string {
	if euid == 0 {
		return []string{"--user=root"}
	}
	return nil
}

// claimEmptyDir makes dir, or accepts it if it exists and is empty: a
// server never removes a folder holding what it did not put there. It
// returns dir made absolute, since mariadbd and mariadb-install-db run in
// it and would read a relative path from there.
func claimEmptyDir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no data folder given")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("the data folder: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("making the data folder: %w", err)
	}
	f, err := os.Open(dir)
	if err != nil {
		return "", fmt.Errorf("opening the data folder: %w", err)
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); !errors.Is(err, io.EOF) {
		if err == nil {
			return "", fmt.Errorf("the data folder %s is not empty", quote.Q(dir))
		}
		return "", fmt.Errorf("reading the data folder: %w", err)
	}
	return dir, nil
}

// initData fills dir/data: a copy of the template, or a fresh
// mariadb-install-db.
func (m *MariaDB) initData(ctx context.Context) error {
	data := filepath.Join(m.dir, "data")
	if m.template != nil {
		return copyTree(m.template.dataDir(), data)
	}
	return installMariaDB(ctx, m.install, m.dir)
}

// ready checks that the account works over TCP and learns the version.
func (m *MariaDB) ready(ctx context.Context, addr string) error {
	db, err := openMariaDB(addr)
	if err != nil {
		return err
	}
	defer db.Close()
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return fmt.Errorf("SELECT VERSION(): %w", err)
	}
	m.mu.Lock()
	m.version = version
	m.mu.Unlock()
	return nil
}

// Name is the instance's name.
func (m *MariaDB) Name() string { return m.name }

// Addr is 127.0.0.1:port.
func (m *MariaDB) Addr() string { return m.proc.Addr() }

// DSN is the data source name clients use to reach the instance's database
// over TCP (see MariaDBClientConfig).
func (m *MariaDB) DSN() string { return MariaDBDSN(m.Addr()) }

// Version is "mariadbd " and what SELECT VERSION() answered.
func (m *MariaDB) Version() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return "mariadbd " + m.version
}

// Running is server.Runner's: a paused process runs.
func (m *MariaDB) Running() bool { return m.proc.Running() }

// Pids is mariadbd's process (one process, many threads).
func (m *MariaDB) Pids() []int { return m.proc.Pids() }

// Kill ends mariadbd at once (SIGKILL); the data folder stays. InnoDB
// recovers every committed transaction on Restart: a commit is in the
// redo log (innodb_flush_log_at_trx_commit=1) before its client hears OK.
// Every session ends, and with it every GET_LOCK lock.
func (m *MariaDB) Kill() error { return m.proc.Kill() }

// Restart starts a killed mariadbd again on the same port. With wipe the
// data folder is initialised afresh first (a restart that lost its
// disk): the database is empty again, with the account in place.
func (m *MariaDB) Restart(ctx context.Context, wipe bool) error {
	if m.proc.Running() {
		return fmt.Errorf("restart %s: it is already running", m.name)
	}
	if wipe {
		if err := os.RemoveAll(filepath.Join(m.dir, "data")); err != nil {
			return fmt.Errorf("restart %s: wiping its data: %w", m.name, err)
		}
		if err := m.initData(ctx); err != nil {
			return fmt.Errorf("restart %s: %w", m.name, err)
		}
	}
	return m.proc.Restart(ctx)
}

// Stop ends mariadbd and removes its folder. Idempotent.
func (m *MariaDB) Stop() error { return m.proc.Stop() }

// MariaDBDSN is the DSN of the fencelab account on the instance at addr
// (host:port).
func MariaDBDSN(addr string) string { return mariadbConfig(addr).FormatDSN() }

// mariadbConfig is the driver configuration for the fencelab account at
// addr.
func mariadbConfig(addr string) *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User = MariaDBUser
	cfg.Passwd = MariaDBPassword
	cfg.Net = "tcp"
	cfg.Addr = addr
	cfg.DBName = MariaDBDatabase
	cfg.Timeout = mariadbDialTimeout
	cfg.Logger = &mysql.NopLogger{}
	return cfg
}

// MariaDBClientConfig parses what a client was given to reach MariaDB:
// either a full DSN (user:password@tcp(host:port)/db?...) or a bare
// host:port, which means the fencelab account of an instance this package
// started. The caller sets the flags its recipe needs on the result.
func MariaDBClientConfig(addrOrDSN string) (*mysql.Config, error) {
	if strings.ContainsAny(addrOrDSN, "@/") {
		cfg, err := mysql.ParseDSN(addrOrDSN)
		if err != nil {
			return nil, fmt.Errorf("MariaDB DSN %s: %w", quote.Q(addrOrDSN), err)
		}
		if cfg.Timeout == 0 {
			cfg.Timeout = mariadbDialTimeout
		}
		// The driver logs a dropped connection on stderr: a restart or a
		// killed session is an expected event here, told by the errors.
		cfg.Logger = &mysql.NopLogger{}
		return cfg, nil
	}
	host, port, err := net.SplitHostPort(addrOrDSN)
	if err != nil || host == "" {
		return nil, fmt.Errorf("MariaDB address %s: want host:port or a DSN", quote.Q(addrOrDSN))
	}
	if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
		return nil, fmt.Errorf("MariaDB address %s: bad port", quote.Q(addrOrDSN))
	}
	return mariadbConfig(addrOrDSN), nil
}

// openMariaDB opens a pool on the fencelab account at addr.
func openMariaDB(addr string) (*sql.DB, error) {
	connector, err := mysql.NewConnector(mariadbConfig(addr))
	if err != nil {
		return nil, fmt.Errorf("MariaDB at %s: %w", addr, err)
	}
	return sql.OpenDB(connector), nil
}

// MariaDBTemplate is a data folder initialised once by mariadb-install-db
// (system tables, the fencelab database and account) and copied into each
// instance started with it: a campaign of many runs pays install-db once.
type MariaDBTemplate struct {
	dir string
}

// PrepareMariaDBTemplate runs mariadb-install-db into dir (absent or
// empty; it belongs to the template from the call on and is removed on
// failure and by Remove).
func PrepareMariaDBTemplate(ctx context.Context, dir string) (*MariaDBTemplate, error) {
	installDB, _, err := mariadbBinaries(mariadbDirs())
	if err != nil {
		return nil, fmt.Errorf("preparing a MariaDB template: %w", err)
	}
	dir, err = claimEmptyDir(dir)
	if err != nil {
		return nil, fmt.Errorf("preparing a MariaDB template: %w", err)
	}
	if err := installMariaDB(ctx, installDB, dir); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("preparing a MariaDB template: %w", err)
	}
	return &MariaDBTemplate{dir: dir}, nil
}

func (t *MariaDBTemplate) dataDir() string { return filepath.Join(t.dir, "data") }

// Remove deletes the template's folder.
func (t *MariaDBTemplate) Remove() error { return os.RemoveAll(t.dir) }

// mariadbInitSQL runs at the end of mariadb-install-db's bootstrap. The
// bootstrap server runs with the grant tables off; FLUSH PRIVILEGES loads
// them so that CREATE USER works.
const mariadbInitSQL = "FLUSH PRIVILEGES;\n" +
	"CREATE DATABASE " + MariaDBDatabase + ";\n" +
	"CREATE USER '" + MariaDBUser + "'@'127.0.0.1' IDENTIFIED BY '" + MariaDBPassword + "';\n" +
	"GRANT ALL ON " + MariaDBDatabase + ".* TO '" + MariaDBUser + "'@'127.0.0.1';\n"

// groupGuard is a shell script that runs its arguments as a child and
// waits for it, exiting with its status; on SIGTERM (its parent-death
// signal) or SIGHUP it kills its own process group, itself and whatever
// its child forked included. A trapped signal interrupts wait at once.
const groupGuard = `trap 'kill -KILL 0' TERM HUP; "$@" & wait $!`

// installTimeout bounds mariadb-install-db (about 0.7 s here).
const installTimeout = 60 * time.Second

// installMariaDB runs mariadb-install-db into dir/data, with its own
// process group so that a cancelled ctx also ends the bootstrap mariadbd
// the script starts. Its output goes to dir/install.log, quoted on
// failure.
func installMariaDB(ctx context.Context, installDB, dir string) error {
	ctx, cancel := context.WithTimeout(ctx, installTimeout)
	defer cancel()
	initFile := filepath.Join(dir, "init.sql")
	if err := os.WriteFile(initFile, []byte(mariadbInitSQL), 0o600); err != nil {
		return err
	}
	defer os.Remove(initFile)
	// A temporary folder of its own: the bootstrap's temporary tables in
	// the shared /tmp collided when campaigns installed side by side
	// (matrix --parallel: "Unknown table 'mysql.tmp_user_sys'", 1 of 4
	// concurrent installs).
	// Not "tmp": a server installed in its own folder makes that one.
	tmp := filepath.Join(dir, "install-tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	logPath := filepath.Join(dir, "install.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	args := append([]string{
		"--no-defaults",
		"--datadir=" + filepath.Join(dir, "data"),
		"--auth-root-authentication-method=normal",
		"--skip-test-db",
		"--skip-name-resolve",
		"--extra-file=" + initFile,
		"--tmpdir=" + tmp,
		// Passed on to the bootstrap mariadbd: the redo log is made at the
		// size the server runs with, so the first start does not resize it.
		"--innodb-buffer-pool-size=8M",
		"--innodb-log-file-size=4M",
	}, runAsArgs(os.Geteuid())...)
	// The script forks the bootstrap mariadbd (and a few helpers): a
	// parent-death signal reaches only the direct child, so the direct
	// child is a guard shell that, on it (SIGTERM), kills its whole group.
	// Killed without it, the script and the bootstrap ran on for about
	// 10 s after this process died (SIGKILL, where no clean-up runs).
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", groupGuard, mariadbInstallDB, installDB}, args...)...)
	cmd.Dir = dir
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		tail := (&Proc{logPath: logPath}).LogTail()
		return fmt.Errorf("mariadb-install-db: %w; %s", err, logEnd(tail))
	}
	return nil
}

// copyTree copies the directory src to dst (which must not exist):
// directories and regular files only, modes kept.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(target, info.Mode().Perm())
		case info.Mode().IsRegular():
			return copyFile(path, target, info.Mode().Perm())
		default:
			return nil // a socket or a link: nothing an instance needs
		}
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
