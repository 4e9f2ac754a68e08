package server

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fencelab/fencelab/internal/quote"
)

// PgBouncerPackage is the Debian package that provides pgbouncer.
const PgBouncerPackage = "pgbouncer"

func pgbouncerDirs() []string { return []string{"/usr/sbin", "/usr/bin"} }

// PgBouncerInstalled returns nil when pgbouncer is present, or a
// *MissingError naming the package.
func PgBouncerInstalled() error {
	_, err := lookProgram(pgbouncerDirs(), "pgbouncer", PgBouncerPackage)
	return err
}

// pgbouncerVersionRE matches "PgBouncer 1.18.0" in pgbouncer --version.
var pgbouncerVersionRE = regexp.MustCompile(`PgBouncer ([0-9][0-9A-Za-z.+~\-]*)`)

// PgBouncerVersion runs `pgbouncer --version` ("pgbouncer 1.18.0"), or
// returns a *MissingError naming the package.
func PgBouncerVersion(ctx context.Context) (string, error) {
	bin, err := lookProgram(pgbouncerDirs(), "pgbouncer", PgBouncerPackage)
	if err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("pgbouncer --version: %w", err)
	}
	m := pgbouncerVersionRE.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("pgbouncer --version: no version in %s", quote.Q(string(out)))
	}
	return "pgbouncer " + string(m[1]), nil
}

// PgBouncerOptions tunes StartPgBouncer.
type PgBouncerOptions struct {
	// Name is the instance's name in histories ("pgbouncer" if empty).
	Name string
	// PoolMode is pgbouncer's pool_mode: "session", "transaction" or
	// "statement" ("transaction" if empty).
	PoolMode string
	// PoolSize is default_pool_size, the server connections per database
	// and user (1 if zero).
	PoolSize int
	// ReadyTimeout bounds start-up (DefaultReadyTimeout if zero).
	ReadyTimeout time.Duration
}

// PgBouncer is a private pgbouncer in front of one PostgreSQL: its
// configuration, user list and log live in the folder given to
// StartPgBouncer; it listens on 127.0.0.1 on a free port and lets the
// superuser in with trust authentication, as the instance behind it does.
// As root it runs as the postgres system user (pgbouncer refuses root).
type PgBouncer struct {
	name string
	proc *Proc

	mu      sync.Mutex
	version string
}

var _ Server = (*PgBouncer)(nil)

// StartPgBouncer writes a configuration in dir (absent or empty; it
// belongs to the instance from the call on) that pools connections to the
// PostgreSQL at upstream (host:port) and starts pgbouncer on a free port.
func StartPgBouncer(ctx context.Context, dir, upstream string, opts PgBouncerOptions) (*PgBouncer, error) {
	name := opts.Name
	if name == "" {
		name = "pgbouncer"
	}
	bin, err := lookProgram(pgbouncerDirs(), "pgbouncer", PgBouncerPackage)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	switch opts.PoolMode {
	case "":
		opts.PoolMode = "transaction"
	case "session", "transaction", "statement":
	default:
		return nil, fmt.Errorf("starting %s: pool mode %.20q: want session, transaction or statement", name, opts.PoolMode)
	}
	if opts.PoolSize == 0 {
		opts.PoolSize = 1
	}
	if opts.PoolSize < 0 {
		return nil, fmt.Errorf("starting %s: pool size %d", name, opts.PoolSize)
	}
	upCfg, err := PostgresClientConfig(upstream)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	cred, err := runAs(os.Geteuid(), PostgresSystemUser)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	return retryOnPortInUse(func() (*PgBouncer, error) {
		dir, err := claimEmptyDir(dir)
		if err != nil {
			return nil, fmt.Errorf("starting %s: %w", name, err)
		}
		fail := func(err error) (*PgBouncer, error) {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("starting %s: %w", name, err)
		}
		if err := checkReachable(dir, cred); err != nil {
			return fail(err)
		}
		port, err := FreePort()
		if err != nil {
			return fail(err)
		}
		ini := filepath.Join(dir, "pgbouncer.ini")
		users := filepath.Join(dir, "userlist.txt")
		conf := fmt.Sprintf(`[databases]
%s = host=%s port=%d dbname=%s user=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
pidfile = %s
auth_type = trust
auth_file = %s
pool_mode = %s
default_pool_size = %d
min_pool_size = 0
reserve_pool_size = 0
max_client_conn = 200
server_round_robin = 0
ignore_startup_parameters = extra_float_digits
`, PostgresDatabase, upCfg.Host, upCfg.Port, PostgresDatabase, PostgresUser,
			port, filepath.Join(dir, "pgbouncer.pid"), users, opts.PoolMode, opts.PoolSize)
		if err := os.WriteFile(ini, []byte(conf), 0o600); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(users, []byte(strconv.Quote(PostgresUser)+` ""`+"\n"), 0o600); err != nil {
			return fail(err)
		}
		if err := giveTo(dir, cred); err != nil {
			return fail(err)
		}
		b := &PgBouncer{name: name}
		proc, err := StartProc(ctx, ProcSpec{
			Name:         name,
			Dir:          dir,
			Path:         bin,
			Args:         []string{ini},
			Port:         port,
			Ready:        b.ready,
			ReadyTimeout: opts.ReadyTimeout,
			Credential:   cred,
		})
		if err != nil {
			return nil, fmt.Errorf("starting %s: %w", name, err)
		}
		b.proc = proc
		return b, nil
	})
}

// ready runs a query through the pooler (which connects to the server
// behind it) and learns pgbouncer's version.
func (b *PgBouncer) ready(ctx context.Context, addr string) error {
	conn, err := pgx.ConnectConfig(ctx, PostgresConnConfigAt(addr))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SELECT 1"); err != nil {
		return fmt.Errorf("SELECT 1 through pgbouncer: %w", err)
	}
	v, err := PgBouncerVersion(ctx)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.version = v
	b.mu.Unlock()
	return nil
}

// Name is the instance's name.
func (b *PgBouncer) Name() string { return b.name }

// Addr is 127.0.0.1:port, where clients connect instead of PostgreSQL.
func (b *PgBouncer) Addr() string { return b.proc.Addr() }

// Version is "pgbouncer 1.18.0".
func (b *PgBouncer) Version() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.version
}

// Running is server.Runner's: a paused process runs.
func (b *PgBouncer) Running() bool { return b.proc.Running() }

// Pids is pgbouncer's one process.
func (b *PgBouncer) Pids() []int { return b.proc.Pids() }

// Kill ends pgbouncer at once; every client connection and every pooled
// server connection (and so its session's advisory locks) ends with it.
func (b *PgBouncer) Kill() error { return b.proc.Kill() }

// Restart starts a killed pgbouncer again; it keeps no data, so wipe
// changes nothing.
func (b *PgBouncer) Restart(ctx context.Context, _ bool) error {
	if b.proc.Running() {
		return fmt.Errorf("restart %s: it is already running", b.name)
	}
	return b.proc.Restart(ctx)
}

// Stop ends pgbouncer and removes its folder. Idempotent.
func (b *PgBouncer) Stop() error { return b.proc.Stop() }
