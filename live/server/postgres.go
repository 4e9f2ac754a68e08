package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencelab/fencelab/internal/quote"
)

// PostgreSQL's private instance. initdb makes the superuser PostgresUser
// with trust authentication: the instance listens on 127.0.0.1 only and
// lives in a temporary folder, so a password would protect nothing.
const (
	PostgresUser     = "fencelab"
	PostgresDatabase = "postgres"
	// PostgresPackage is the Debian package that provides initdb and
	// postgres (postgresql-15, pulled in by postgresql).
	PostgresPackage = "postgresql"
	// PostgresSystemUser is the account the Debian package creates and
	// the one postgres runs as when fencelab runs as root: postgres (and
	// initdb) refuse to run as root.
	PostgresSystemUser = "postgres"
)

// postgresDialTimeout bounds a client's TCP connect to the instance.
const postgresDialTimeout = 5 * time.Second

// postgresBinDir is where the Debian package puts PostgreSQL 15's
// programs (not on $PATH; /usr/bin/pg_* are wrappers that pick a cluster).
func postgresDirs() []string { return []string{"/usr/lib/postgresql/15/bin"} }

// postgresBinaries finds initdb and postgres in dirs.
func postgresBinaries(dirs []string) (initdb, server string, err error) {
	if initdb, err = lookProgram(dirs, "initdb", PostgresPackage); err != nil {
		return "", "", err
	}
	if server, err = lookProgram(dirs, "postgres", PostgresPackage); err != nil {
		return "", "", err
	}
	return initdb, server, nil
}

// lookProgram finds the executable name in dirs, or returns a
// *MissingError naming pkg.
func lookProgram(dirs []string, name, pkg string) (string, error) {
	for _, dir := range dirs {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &MissingError{Program: name, Package: pkg,
		Err: fmt.Errorf("%s not found in %s", name, strings.Join(dirs, ", "))}
}

// PostgresInstalled returns nil when initdb and postgres are present, or a
// *MissingError naming the package.
func PostgresInstalled() error {
	_, _, err := postgresBinaries(postgresDirs())
	return err
}

// postgresVersionRE matches "postgres (PostgreSQL) 15.18 (Debian ...)".
var postgresVersionRE = regexp.MustCompile(`\(PostgreSQL\) ([0-9][0-9A-Za-z.+~\-]*)`)

// PostgresVersion runs `postgres --version` without starting a server
// ("postgres 15.18"), or returns a *MissingError naming the package.
func PostgresVersion(ctx context.Context) (string, error) {
	_, serverBin, err := postgresBinaries(postgresDirs())
	if err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, serverBin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("postgres --version: %w", err)
	}
	m := postgresVersionRE.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("postgres --version: no version in %s", quote.Q(string(out)))
	}
	return "postgres " + string(m[1]), nil
}

// runAs is who a service that refuses root runs as: nil (this process's
// user) unless this process is root, then the system user name (uid and
// gid from the password database), or an error saying it is missing.
func runAs(euid int, name string) (*syscall.Credential, error) {
	if euid != 0 {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("running as root, and the service refuses root: it would run as the system user %s, which is missing (%w)", quote.Q(name), err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil || uid == 0 {
		return nil, fmt.Errorf("the system user %s has uid %s, gid %s: not an unprivileged account", quote.Q(name), u.Uid, u.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// giveTo makes the tree at dir the credential's (nil: nothing to do), so
// that a service run as another user can write its own folder.
func giveTo(dir string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	return filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(cred.Uid), int(cred.Gid))
	})
}

// checkReachable says whether the user of cred can reach dir: every
// folder above it must let others search it (the run's own folder is
// made 0700 by MkdirTemp; whoever made it grants the search, see
// GrantSearch). A clear refusal beats postgres's "could not change
// directory".
func checkReachable(dir string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if err != nil {
			return err
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		searchable := info.Mode()&0o001 != 0 ||
			ok && st.Uid == cred.Uid && info.Mode()&0o100 != 0 ||
			ok && st.Gid == cred.Gid && info.Mode()&0o010 != 0
		if !searchable {
			return fmt.Errorf("the folder %q does not let the user (uid %d) that runs the service search it; grant it (chmod o+x) or run as another user than root", p, cred.Uid)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// GrantSearch lets other users search dir (o+x, no listing): a run's
// folder is 0700, and as root, postgres and pgbouncer run as the postgres
// system user and must reach their folders inside it. As another user
// nothing changes.
func GrantSearch(dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	return os.Chmod(dir, info.Mode().Perm()|0o001)
}

// PostgresOptions tunes StartPostgres.
type PostgresOptions struct {
	// Name is the instance's name in histories ("postgres" if empty).
	Name string
	// Template, if set, is an initialised data folder copied into the
	// instance instead of running initdb (seconds under load, against
	// milliseconds for the copy).
	Template *PostgresTemplate
	// ReadyTimeout bounds start-up (DefaultReadyTimeout if zero).
	ReadyTimeout time.Duration
	// IdleTimeout, if set, ends a session idle that long, in a
	// transaction or not (idle_in_transaction_session_timeout and
	// idle_session_timeout, whole milliseconds): the session of a client
	// stopped while it holds an advisory lock, and the lock with it.
	IdleTimeout time.Duration
}

// Postgres is a private postgres instance: its data folder, its unix
// socket and its log live in the folder given to StartPostgres; it listens
// on 127.0.0.1 on a free port and reads no system configuration
// (/etc/postgresql is the Debian clusters', never used here). As root it
// runs as the postgres system user, its folder chowned to it.
//
// Layout of its folder: data/ (PGDATA), run/ (the unix socket) and
// postgres.log.
type Postgres struct {
	name     string
	dir      string
	template *PostgresTemplate
	initdb   string
	cred     *syscall.Credential
	proc     *Proc

	mu      sync.Mutex
	version string
}

var _ Server = (*Postgres)(nil)

// StartPostgres initialises a data folder in dir (from opts.Template, or
// with initdb) and starts postgres on a free port of 127.0.0.1. dir must
// be absent or empty: from the call on it belongs to the instance, which
// removes it on failure and on Stop.
func StartPostgres(ctx context.Context, dir string, opts PostgresOptions) (*Postgres, error) {
	name := opts.Name
	if name == "" {
		name = "postgres"
	}
	initdb, serverBin, err := postgresBinaries(postgresDirs())
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	cred, err := runAs(os.Geteuid(), PostgresSystemUser)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	return retryOnPortInUse(func() (*Postgres, error) {
		return startPostgresOnce(ctx, dir, name, initdb, serverBin, cred, opts)
	})
}

func startPostgresOnce(ctx context.Context, dir, name, initdb, serverBin string, cred *syscall.Credential, opts PostgresOptions) (*Postgres, error) {
	dir, err := claimEmptyDir(dir)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Postgres{name: name, dir: dir, template: opts.Template, initdb: initdb, cred: cred}
	fail := func(err error) (*Postgres, error) {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	if err := checkReachable(dir, cred); err != nil {
		return fail(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "run"), 0o700); err != nil {
		return fail(err)
	}
	// Given to the service's user before initdb (which writes in it) and
	// again after a copy (which this process's user made).
	if err := giveTo(dir, cred); err != nil {
		return fail(err)
	}
	if err := p.initData(ctx); err != nil {
		return fail(err)
	}
	if err := giveTo(dir, cred); err != nil {
		return fail(err)
	}
	port, err := FreePort()
	if err != nil {
		return fail(err)
	}
	proc, err := StartProc(ctx, ProcSpec{
		Name: name,
		Dir:  dir,
		Path: serverBin,
		Args: append([]string{
			"-D", filepath.Join(dir, "data"),
			"-p", strconv.Itoa(port),
			"-c", "listen_addresses=127.0.0.1",
			"-c", "unix_socket_directories=" + postgresSocketDir(filepath.Join(dir, "run"), port),
			// Durable commits, the defaults, said explicitly: the restart
			// story (a kill, then recovery from the WAL) relies on them.
			"-c", "fsync=on",
			"-c", "synchronous_commit=on",
			"-c", "full_page_writes=on",
			// Small: start-up in a fraction of a second, little memory.
			"-c", "shared_buffers=16MB",
			"-c", "max_connections=100",
			"-c", "logging_collector=off",
			"-c", "log_destination=stderr",
		}, idleTimeoutArgs(opts.IdleTimeout)...),
		Port:         port,
		Ready:        p.ready,
		ReadyTimeout: opts.ReadyTimeout,
		Credential:   cred,
	})
	if err != nil {
		return nil, err // it names the instance
	}
	p.proc = proc
	return p, nil
}

// idleTimeoutArgs are the settings of PostgresOptions.IdleTimeout (none
// when it is zero).
func idleTimeoutArgs(d time.Duration) []string {
	if d <= 0 {
		return nil
	}
	ms := strconv.FormatInt(max(1, d.Milliseconds()), 10)
	return []string{"-c", "idle_session_timeout=" + ms, "-c", "idle_in_transaction_session_timeout=" + ms}
}

// maxSocketPath is the longest unix socket path postgres takes (107 bytes
// of sun_path).
const maxSocketPath = 107

// postgresSocketDir is dir, where the instance's unix socket goes, or ""
// (no unix socket: the clients use TCP anyway) when the socket's path
// would be longer than a unix socket's path may be — a run's folder deep
// in a test's temporary folder — and postgres would refuse to start.
func postgresSocketDir(dir string, port int) string {
	if len(filepath.Join(dir, ".s.PGSQL."+strconv.Itoa(port))) > maxSocketPath {
		return ""
	}
	return dir
}

// initData fills dir/data: a copy of the template, or a fresh initdb.
func (p *Postgres) initData(ctx context.Context) error {
	data := filepath.Join(p.dir, "data")
	if p.template != nil {
		return copyTree(p.template.dataDir(), data)
	}
	return runInitdb(ctx, p.initdb, p.dir, p.cred)
}

// ready checks that the superuser can run a query over TCP and learns the
// version (the port accepts before recovery has finished).
func (p *Postgres) ready(ctx context.Context, addr string) error {
	conn, err := pgx.ConnectConfig(ctx, PostgresConnConfigAt(addr))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var version string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&version); err != nil {
		return fmt.Errorf("SHOW server_version: %w", err)
	}
	p.mu.Lock()
	p.version = strings.Fields(version + " ")[0]
	p.mu.Unlock()
	return nil
}

// Name is the instance's name.
func (p *Postgres) Name() string { return p.name }

// Addr is 127.0.0.1:port.
func (p *Postgres) Addr() string { return p.proc.Addr() }

// Version is "postgres " and the server_version it reports.
func (p *Postgres) Version() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return "postgres " + p.version
}

// Running is server.Runner's: a paused process runs.
func (p *Postgres) Running() bool { return p.proc.Running() }

// Pids are the postmaster and its children (backends, checkpointer, WAL
// writer...). Each child calls setsid() and leads a process group of its
// own, so the postmaster's group holds the postmaster alone: a pause must
// stop the children one by one.
func (p *Postgres) Pids() []int {
	pids := p.proc.Pids()
	if len(pids) == 0 {
		return nil
	}
	return append(pids[:1], childrenOf(pids[0])...)
}

// Kill ends postgres at once, the postmaster and every child (SIGKILL),
// and waits until they are gone; the data folder stays. Restart recovers
// every committed transaction from the WAL (fsync and synchronous_commit
// on). Every session ends, and with it every advisory lock.
//
// A kill of the postmaster's group alone leaves the backends (each in a
// group of its own) running until they notice the postmaster died: a
// client's session kept answering, and a restart found the shared memory
// still attached and refused to start. So the postmaster is stopped
// first (it forks and reaps nothing more, so the children's pids stay
// theirs), its children are killed, then the postmaster's group.
func (p *Postgres) Kill() error {
	if err := p.proc.Pause(); err != nil {
		return p.proc.Kill() // not running, or exited by itself: its error
	}
	pids := p.Pids()
	for _, pid := range pids[1:] {
		_ = syscall.Kill(pid, syscall.SIGKILL) // a child that already exited is a zombie: nothing to do
	}
	err := p.proc.Kill()
	deadline := time.Now().Add(groupGoneTimeout)
	for _, pid := range pids[1:] {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(readyPoll)
		}
		if alive(pid) {
			err = errors.Join(err, fmt.Errorf("kill %s: its child %d still there after %v", p.name, pid, groupGoneTimeout))
		}
	}
	return err
}

// childrenOf lists the live children of pid, read from /proc (field 4 of
// /proc/<pid>/stat, the parent's pid).
func childrenOf(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f, ok := procStat(child); ok && len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(pid) {
			pids = append(pids, child)
		}
	}
	return pids
}

// alive: pid names a process that is not a zombie.
func alive(pid int) bool {
	f, ok := procStat(pid)
	return ok && f[0] != "Z"
}

// Restart starts a killed postgres again on the same port. With wipe the
// data folder is initialised afresh first (a restart that lost its disk):
// the database is empty again, with the superuser in place.
func (p *Postgres) Restart(ctx context.Context, wipe bool) error {
	if p.proc.Running() {
		return fmt.Errorf("restart %s: it is already running", p.name)
	}
	if wipe {
		if err := os.RemoveAll(filepath.Join(p.dir, "data")); err != nil {
			return fmt.Errorf("restart %s: wiping its data: %w", p.name, err)
		}
		if err := p.initData(ctx); err != nil {
			return fmt.Errorf("restart %s: %w", p.name, err)
		}
		if err := giveTo(filepath.Join(p.dir, "data"), p.cred); err != nil {
			return fmt.Errorf("restart %s: %w", p.name, err)
		}
	}
	return p.proc.Restart(ctx)
}

// Stop ends postgres, its children included (Kill), and removes its
// folder. Idempotent.
func (p *Postgres) Stop() error {
	var err error
	if p.proc.Running() {
		if err = p.Kill(); errors.Is(err, ErrNotRunning) {
			err = nil
		}
	}
	return errors.Join(err, p.proc.Stop())
}

// PostgresConnConfigAt is the pgx configuration of the superuser on the
// instance at addr (host:port). It uses the simple query protocol: no
// prepared statement outlives its statement, which a transaction pooler
// (PgBouncer 1.18) needs, and which costs nothing here.
func PostgresConnConfigAt(addr string) *pgx.ConnConfig {
	cfg, err := pgx.ParseConfig("")
	if err != nil {
		// ParseConfig("") reads only PG* environment variables; a bad one
		// is the environment's error, and Fill's defaults stand in.
		cfg = &pgx.ConnConfig{}
	}
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.ParseUint(port, 10, 16)
	cfg.Host, cfg.Port = host, uint16(p)
	cfg.User, cfg.Database, cfg.Password = PostgresUser, PostgresDatabase, ""
	cfg.TLSConfig, cfg.Fallbacks = nil, nil
	cfg.ConnectTimeout = postgresDialTimeout
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	cfg.RuntimeParams = map[string]string{"application_name": "fencelab"}
	return cfg
}

// PostgresClientConfig parses what a client was given to reach
// PostgreSQL: a connection string (postgres://... or key=value) or a bare
// host:port, which means the superuser of an instance this package
// started.
func PostgresClientConfig(addrOrURL string) (*pgx.ConnConfig, error) {
	if strings.Contains(addrOrURL, "://") || strings.Contains(addrOrURL, "=") {
		cfg, err := pgx.ParseConfig(addrOrURL)
		if err != nil {
			return nil, fmt.Errorf("PostgreSQL connection string: %w", err)
		}
		if cfg.ConnectTimeout == 0 {
			cfg.ConnectTimeout = postgresDialTimeout
		}
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		return cfg, nil
	}
	host, port, err := net.SplitHostPort(addrOrURL)
	if err != nil || host == "" {
		return nil, fmt.Errorf("PostgreSQL address %s: want host:port or a connection string", quote.Q(addrOrURL))
	}
	if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
		return nil, fmt.Errorf("PostgreSQL address %s: bad port", quote.Q(addrOrURL))
	}
	return PostgresConnConfigAt(addrOrURL), nil
}

// PostgresTemplate is a data folder initialised once by initdb and copied
// into each instance started with it: a run pays initdb once, and a wiped
// restart copies instead of initialising.
type PostgresTemplate struct {
	dir string
}

// PreparePostgresTemplate runs initdb into dir (absent or empty; it
// belongs to the template from the call on and is removed on failure and
// by Remove).
func PreparePostgresTemplate(ctx context.Context, dir string) (*PostgresTemplate, error) {
	initdb, _, err := postgresBinaries(postgresDirs())
	if err != nil {
		return nil, fmt.Errorf("preparing a PostgreSQL template: %w", err)
	}
	cred, err := runAs(os.Geteuid(), PostgresSystemUser)
	if err != nil {
		return nil, fmt.Errorf("preparing a PostgreSQL template: %w", err)
	}
	dir, err = claimEmptyDir(dir)
	if err != nil {
		return nil, fmt.Errorf("preparing a PostgreSQL template: %w", err)
	}
	err = checkReachable(dir, cred)
	if err == nil {
		err = giveTo(dir, cred)
	}
	if err == nil {
		err = runInitdb(ctx, initdb, dir, cred)
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("preparing a PostgreSQL template: %w", err)
	}
	return &PostgresTemplate{dir: dir}, nil
}

func (t *PostgresTemplate) dataDir() string { return filepath.Join(t.dir, "data") }

// Remove deletes the template's folder.
func (t *PostgresTemplate) Remove() error { return os.RemoveAll(t.dir) }

// runInitdb runs initdb into dir/data (dir is cred's when cred is set) in
// a process group of its own, so that a cancelled ctx also ends the
// bootstrap backend it forks. Its output goes to dir/initdb.log, quoted on
// failure.
func runInitdb(ctx context.Context, initdb, dir string, cred *syscall.Credential) error {
	ctx, cancel := context.WithTimeout(ctx, installTimeout)
	defer cancel()
	logPath := filepath.Join(dir, "initdb.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer os.Remove(logPath)
	defer logFile.Close()
	// initdb forks its bootstrap backend: a parent-death signal reaches
	// only the direct child, so the direct child is the guard shell that
	// kills its whole group on it (see groupGuard).
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", groupGuard, "initdb", initdb,
		"-D", filepath.Join(dir, "data"),
		"-U", PostgresUser,
		"--auth=trust",
		"--encoding=UTF8",
		"--locale=C",
		// The template is copied, never run: its files need not reach the
		// disk now (a run's instance is started from a copy and syncs
		// what it writes).
		"--no-sync",
	)
	cmd.Dir = dir
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM, Credential: cred}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		tail := (&Proc{logPath: logPath}).LogTail()
		return fmt.Errorf("initdb: %w; %s", err, logEnd(tail))
	}
	return nil
}

// PostgresRaced says whether err is what the loser of two sessions'
// concurrent CREATE ... IF NOT EXISTS gets (a unique violation on the
// catalog, or "already exists"): the object exists, which is what the
// statement wanted.
func PostgresRaced(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "23505" || pgErr.Code == "42P07")
}
