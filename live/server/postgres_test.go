package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// postgresTestDir is a fresh folder for one instance that the postgres
// system user can reach when the test runs as root (t.TempDir's parent
// is 0700).
func postgresTestDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, GrantSearch(filepath.Dir(dir)))
	require.NoError(t, GrantSearch(dir))
	return dir
}

// startPostgres starts an instance in a fresh folder and stops it when
// the test ends, whatever happens; it skips, naming the package, when
// PostgreSQL is not installed.
func startPostgres(t testing.TB, opts PostgresOptions) *Postgres {
	t.Helper()
	if err := PostgresInstalled(); err != nil {
		t.Skip(err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p, err := StartPostgres(ctx, filepath.Join(postgresTestDir(t), "postgres"), opts)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Stop()) })
	return p
}

func connectPostgres(ctx context.Context, t *testing.T, addr string) *pgx.Conn {
	t.Helper()
	cfg, err := PostgresClientConfig(addr)
	require.NoError(t, err)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

func TestPostgresKillRestartKeepsDataAndWipeDropsIt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	begin := time.Now()
	p := startPostgres(t, PostgresOptions{})
	t.Logf("StartPostgres with initdb: %v", time.Since(begin))

	assert.True(t, strings.HasPrefix(p.Version(), "postgres 15"), "version %q", p.Version())
	probed, err := PostgresVersion(ctx)
	require.NoError(t, err)
	assert.Equal(t, p.Version(), probed, "--version names the server as server_version does")
	assert.True(t, strings.HasPrefix(p.Addr(), "127.0.0.1:"), "addr %q", p.Addr())
	conn := connectPostgres(ctx, t, p.Addr())
	pids := p.Pids()
	require.Greater(t, len(pids), 2, "the postmaster, its helpers and the test's backend")
	if os.Geteuid() == 0 {
		var st syscall.Stat_t
		require.NoError(t, syscall.Stat("/proc/"+strconv.Itoa(pids[0]), &st))
		assert.NotZero(t, st.Uid, "as root, postgres runs as the postgres system user")
	}
	entries, err := os.ReadDir(filepath.Join(p.dir, "run"))
	require.NoError(t, err)
	assert.NotEmpty(t, entries, "the unix socket is in the instance's own folder")

	_, err = conn.Exec(ctx, "CREATE TABLE durable (id INT PRIMARY KEY, v BIGINT NOT NULL)")
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "INSERT INTO durable VALUES (1, 41)")
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "UPDATE durable SET v = 42 WHERE id = 1")
	require.NoError(t, err)

	require.NoError(t, p.Kill())
	assert.Empty(t, p.Pids(), "no process while killed")
	for _, pid := range pids {
		assert.False(t, alive(pid), "process %d (a backend) ended with the postmaster", pid)
	}
	assert.Error(t, conn.Ping(ctx), "nothing serves while killed")
	require.Error(t, p.Kill(), "a second kill has nothing to kill")

	begin = time.Now()
	require.NoError(t, p.Restart(ctx, false))
	t.Logf("Restart after SIGKILL (WAL recovery): %v", time.Since(begin))
	conn = connectPostgres(ctx, t, p.Addr())
	var v int64
	require.NoError(t, conn.QueryRow(ctx, "SELECT v FROM durable WHERE id = 1").Scan(&v))
	assert.Equal(t, int64(42), v, "the committed update survived SIGKILL")
	assert.Error(t, p.Restart(ctx, false), "restart of a running server")

	require.NoError(t, p.Kill())
	require.NoError(t, p.Restart(ctx, true))
	conn = connectPostgres(ctx, t, p.Addr())
	var n int
	require.NoError(t, conn.QueryRow(ctx, "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'durable'").Scan(&n))
	assert.Zero(t, n, "a wiped restart starts from an empty database")

	require.NoError(t, p.Stop())
	_, err = os.Stat(p.dir)
	assert.True(t, errors.Is(err, os.ErrNotExist), "Stop removes the folder: %v", err)
	assert.NoError(t, p.Stop(), "Stop is idempotent")
}

func TestPostgresTemplateStartsInstancesThatDoNotShareData(t *testing.T) {
	if err := PostgresInstalled(); err != nil {
		t.Skip(err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	tmpl, err := PreparePostgresTemplate(ctx, filepath.Join(postgresTestDir(t), "template"))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, tmpl.Remove()) })
	begin := time.Now()
	a := startPostgres(t, PostgresOptions{Name: "postgres-a", Template: tmpl})
	t.Logf("StartPostgres from the template: %v", time.Since(begin))
	b := startPostgres(t, PostgresOptions{Name: "postgres-b", Template: tmpl})
	assert.NotEqual(t, a.Addr(), b.Addr())

	connA := connectPostgres(ctx, t, a.Addr())
	_, err = connA.Exec(ctx, "CREATE TABLE only_a (id INT PRIMARY KEY)")
	require.NoError(t, err)
	connB := connectPostgres(ctx, t, b.Addr())
	var n int
	require.NoError(t, connB.QueryRow(ctx, "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'only_a'").Scan(&n))
	assert.Zero(t, n, "b's copy of the template does not see a's table")
}

func TestPostgresClientConfigRefusesBadAddresses(t *testing.T) {
	for _, bad := range []string{"", "nohost", ":5432", "127.0.0.1:0", "127.0.0.1:99999", "127.0.0.1:x", "postgres://%zz"} {
		_, err := PostgresClientConfig(bad)
		assert.Error(t, err, "%q", bad)
	}
	cfg, err := PostgresClientConfig("127.0.0.1:5433")
	require.NoError(t, err)
	assert.Equal(t, uint16(5433), cfg.Port)
	assert.Equal(t, PostgresUser, cfg.User)
	assert.Equal(t, pgx.QueryExecModeSimpleProtocol, cfg.DefaultQueryExecMode, "no prepared statement survives a transaction pooler")
}

func TestRunAsNeedsAnUnprivilegedSystemUser(t *testing.T) {
	cred, err := runAs(1000, "nobody-at-all-here")
	assert.NoError(t, err)
	assert.Nil(t, cred, "a non-root user runs the service as itself")
	_, err = runAs(0, "nobody-at-all-here")
	assert.ErrorContains(t, err, "missing")
	_, err = runAs(0, "root")
	assert.ErrorContains(t, err, "not an unprivileged account")
}

func TestCheckReachableRefusesAFolderOthersCannotSearch(t *testing.T) {
	dir := t.TempDir()
	closed := filepath.Join(dir, "closed")
	require.NoError(t, os.Mkdir(closed, 0o700))
	cred := &syscall.Credential{Uid: 65534, Gid: 65534}
	require.NoError(t, os.Chmod(filepath.Dir(dir), 0o711))
	require.NoError(t, os.Chmod(dir, 0o711))
	assert.ErrorContains(t, checkReachable(filepath.Join(closed, "pg"), cred), "closed")
	require.NoError(t, os.Chmod(closed, 0o711))
	assert.NoError(t, checkReachable(filepath.Join(closed, "pg"), cred))
	assert.NoError(t, checkReachable(filepath.Join(closed, "pg"), nil), "as oneself nothing to check")
}

func TestPostgresSocketDirFallsBackToTCPOnly(t *testing.T) {
	assert.Equal(t, "/tmp/x/run", postgresSocketDir("/tmp/x/run", 5432))
	long := "/tmp/" + strings.Repeat("d", 100) + "/run"
	assert.Equal(t, "", postgresSocketDir(long, 5432), "a socket path over 107 bytes: no unix socket")
}
