package server

import (
	"context"
	"database/sql"
	"errors"
	"github.com/fencelab/fencelab/internal/testexec"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireMariaDB skips the test, in one line naming the package, when
// MariaDB is not installed.
func requireMariaDB(t testing.TB) {
	t.Helper()
	if err := MariaDBInstalled(); err != nil {
		t.Skip(err.Error())
	}
}

// startMariaDB starts an instance in a fresh temporary folder and stops it
// when the test ends, whatever happens.
func startMariaDB(t testing.TB, opts MariaDBOptions) *MariaDB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m, err := StartMariaDB(ctx, filepath.Join(t.TempDir(), "mariadb"), opts)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, m.Stop()) })
	return m
}

// counterValue reads the test table's value over TCP as the clients do.
func counterValue(ctx context.Context, t *testing.T, m *MariaDB) int64 {
	t.Helper()
	db, err := sql.Open("mysql", m.DSN())
	require.NoError(t, err)
	defer db.Close()
	var v int64
	require.NoError(t, db.QueryRowContext(ctx, "SELECT v FROM durable WHERE id = 1").Scan(&v))
	return v
}

func TestMariaDBKillRestartKeepsDataAndWipeDropsIt(t *testing.T) {
	requireMariaDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	begin := time.Now()
	m := startMariaDB(t, MariaDBOptions{})
	t.Logf("StartMariaDB with mariadb-install-db: %v", time.Since(begin))

	assert.True(t, strings.HasPrefix(m.Version(), "mariadbd 1"), "version %q", m.Version())
	probed, err := MariaDBVersion(ctx)
	require.NoError(t, err)
	assert.Equal(t, m.Version(), probed, "--version names the server as SELECT VERSION() does")
	assert.True(t, strings.HasPrefix(m.Addr(), "127.0.0.1:"), "addr %q", m.Addr())
	assert.Equal(t, "mariadb", m.Name())
	pids := m.Pids()
	require.Len(t, pids, 1)

	db, err := sql.Open("mysql", m.DSN())
	require.NoError(t, err)
	defer db.Close()
	_, err = db.ExecContext(ctx, "CREATE TABLE durable (id INT PRIMARY KEY, v BIGINT NOT NULL) ENGINE=InnoDB")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, "INSERT INTO durable VALUES (1, 41)")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, "UPDATE durable SET v = 42 WHERE id = 1")
	require.NoError(t, err)

	require.NoError(t, m.Kill())
	assert.Empty(t, m.Pids(), "no process while killed")
	assert.Error(t, db.PingContext(ctx), "nothing serves while killed")
	require.Error(t, m.Kill(), "a second kill has nothing to kill")

	begin = time.Now()
	require.NoError(t, m.Restart(ctx, false))
	t.Logf("Restart after SIGKILL (InnoDB crash recovery): %v", time.Since(begin))
	assert.NotEqual(t, pids, m.Pids(), "a new process serves")
	assert.Equal(t, int64(42), counterValue(ctx, t, m), "the committed update survived SIGKILL")
	assert.Error(t, m.Restart(ctx, false), "restart of a running server")

	require.NoError(t, m.Kill())
	require.NoError(t, m.Restart(ctx, true))
	var n int
	require.NoError(t, db.QueryRowContext(ctx,
		"SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'fencelab'").Scan(&n))
	assert.Zero(t, n, "a wiped restart starts from an empty database")

	require.NoError(t, m.Stop())
	_, err = os.Stat(m.dir)
	assert.True(t, errors.Is(err, os.ErrNotExist), "Stop removes the folder: %v", err)
	assert.NoError(t, m.Stop(), "Stop is idempotent")
}

func TestMariaDBTemplateStartsInstancesThatDoNotShareData(t *testing.T) {
	requireMariaDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	begin := time.Now()
	tmpl, err := PrepareMariaDBTemplate(ctx, filepath.Join(t.TempDir(), "template"))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, tmpl.Remove()) })
	t.Logf("PrepareMariaDBTemplate: %v", time.Since(begin))

	begin = time.Now()
	a := startMariaDB(t, MariaDBOptions{Name: "mariadb-a", Template: tmpl})
	t.Logf("StartMariaDB from the template: %v", time.Since(begin))
	b := startMariaDB(t, MariaDBOptions{Name: "mariadb-b", Template: tmpl})
	assert.NotEqual(t, a.Addr(), b.Addr())

	dbA, err := sql.Open("mysql", a.DSN())
	require.NoError(t, err)
	defer dbA.Close()
	_, err = dbA.ExecContext(ctx, "CREATE TABLE only_a (id INT PRIMARY KEY)")
	require.NoError(t, err)
	dbB, err := sql.Open("mysql", b.DSN())
	require.NoError(t, err)
	defer dbB.Close()
	var n int
	require.NoError(t, dbB.QueryRowContext(ctx,
		"SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'fencelab'").Scan(&n))
	assert.Zero(t, n, "b's copy of the template does not see a's table")

	// A wiped restart of an instance made from a template copies it again.
	require.NoError(t, a.Kill())
	require.NoError(t, a.Restart(ctx, true))
	require.NoError(t, dbA.QueryRowContext(ctx,
		"SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'fencelab'").Scan(&n))
	assert.Zero(t, n)
}

// A relative folder is made absolute: mariadbd runs inside it and would
// read a relative --datadir from there.
func TestStartMariaDBInARelativeFolder(t *testing.T) {
	requireMariaDB(t)
	t.Chdir(t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m, err := StartMariaDB(ctx, "relative", MariaDBOptions{})
	require.NoError(t, err)
	defer func() { assert.NoError(t, m.Stop()) }()
	assert.True(t, filepath.IsAbs(m.dir), m.dir)
	_, err = os.Stat(filepath.Join("relative", "data", "mysql"))
	assert.NoError(t, err, "the data folder is where the caller asked")
}

func TestStartMariaDBRefusesAFolderItDidNotMake(t *testing.T) {
	requireMariaDB(t)
	dir := t.TempDir()
	mine := filepath.Join(dir, "keep.txt")
	require.NoError(t, os.WriteFile(mine, []byte("not the server's"), 0o600))
	_, err := StartMariaDB(context.Background(), dir, MariaDBOptions{})
	require.ErrorContains(t, err, "not empty")
	_, err = os.Stat(mine)
	assert.NoError(t, err, "the caller's file is still there")

	_, err = StartMariaDB(context.Background(), "", MariaDBOptions{})
	assert.ErrorContains(t, err, "no data folder")
	_, err = PrepareMariaDBTemplate(context.Background(), dir)
	assert.ErrorContains(t, err, "not empty")
}

func TestMariaDBBinariesMissingNamesThePackage(t *testing.T) {
	empty := t.TempDir()
	_, _, err := mariadbBinaries([]string{empty})
	var missing *MissingError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, MariaDBPackage, missing.Package)
	assert.Contains(t, err.Error(), MariaDBPackage)
	assert.NotContains(t, err.Error(), "\n", "one line")

	// Not executable: not found. Executable, both: found.
	notExec := t.TempDir()
	for _, name := range []string{mariadbInstallDB, mariadbServerBin} {
		require.NoError(t, os.WriteFile(filepath.Join(notExec, name), nil, 0o644))
	}
	_, _, err = mariadbBinaries([]string{empty, notExec})
	require.ErrorAs(t, err, &missing)
	onlyInstall := t.TempDir()
	testexec.Write(t, filepath.Join(onlyInstall, mariadbInstallDB), nil)
	_, _, err = mariadbBinaries([]string{onlyInstall})
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, mariadbServerBin, missing.Program)
	testexec.Write(t, filepath.Join(onlyInstall, mariadbServerBin), nil)
	install, srv, err := mariadbBinaries([]string{empty, onlyInstall})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(onlyInstall, mariadbInstallDB), install)
	assert.Equal(t, filepath.Join(onlyInstall, mariadbServerBin), srv)
}

func TestMariaDBClientConfig(t *testing.T) {
	for _, tc := range []struct {
		in      string
		addr    string
		user    string
		wantErr string
	}{
		{in: "127.0.0.1:3307", addr: "127.0.0.1:3307", user: MariaDBUser},
		{in: "u:p@tcp(127.0.0.1:3308)/db", addr: "127.0.0.1:3308", user: "u"},
		{in: "127.0.0.1", wantErr: "want host:port"},
		{in: ":3306", wantErr: "want host:port"},
		{in: "127.0.0.1:99999", wantErr: "bad port"},
		{in: "u@tcp(127.0.0.1:1)/db?clientFoundRows=maybe", wantErr: "DSN"},
		{in: strings.Repeat("x", 500), wantErr: "want host:port"},
	} {
		t.Run(tc.in[:min(len(tc.in), 40)], func(t *testing.T) {
			cfg, err := MariaDBClientConfig(tc.in)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				assert.Less(t, len(err.Error()), 200, "the message echoes a bounded prefix")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.addr, cfg.Addr)
			assert.Equal(t, tc.user, cfg.User)
			assert.NotZero(t, cfg.Timeout, "a dial timeout is always set")
		})
	}
}

// BenchmarkStartMariaDB measures an instance's start-up, with
// mariadb-install-db and from a template.
func BenchmarkStartMariaDB(b *testing.B) {
	requireMariaDB(b)
	ctx := context.Background()
	tmpl, err := PrepareMariaDBTemplate(ctx, filepath.Join(b.TempDir(), "template"))
	require.NoError(b, err)
	defer tmpl.Remove()
	for _, bc := range []struct {
		name string
		opts MariaDBOptions
	}{
		{"install-db", MariaDBOptions{}},
		{"template", MariaDBOptions{Template: tmpl}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				m, err := StartMariaDB(ctx, filepath.Join(b.TempDir(), "m"), bc.opts)
				require.NoError(b, err)
				require.NoError(b, m.Stop())
			}
		})
	}
}

// TestMariaDBTemplatesSideBySide: templates prepared at once (the
// campaigns of matrix --parallel) each succeed: every bootstrap has a
// temporary folder of its own (in the shared /tmp, 1 of 4 concurrent
// installs failed: "Unknown table 'mysql.tmp_user_sys'").
func TestMariaDBTemplatesSideBySide(t *testing.T) {
	requireMariaDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const n = 6
	errs := make(chan error, n)
	root := t.TempDir()
	for i := range n {
		go func() {
			tmpl, err := PrepareMariaDBTemplate(ctx, filepath.Join(root, "template-"+string(rune('a'+i))))
			if err == nil {
				err = tmpl.Remove()
			}
			errs <- err
		}()
	}
	for range n {
		assert.NoError(t, <-errs)
	}
}
