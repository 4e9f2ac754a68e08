// Package servertest starts real services for the live module's tests:
// one private instance per test, stopped when the test ends whatever
// happens, or a one-line skip naming the Debian package when the service
// is not installed.
package servertest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/server"
)

// MariaDB starts one private mariadbd for t and its subtests.
func MariaDB(t testing.TB) *server.MariaDB {
	t.Helper()
	if err := server.MariaDBInstalled(); err != nil {
		t.Skip(err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m, err := server.StartMariaDB(ctx, filepath.Join(t.TempDir(), "mariadb"), server.MariaDBOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, m.Stop()) })
	return m
}

// Postgres starts one private postgres for t and its subtests (as root, as
// the postgres system user, its folder made reachable for it).
func Postgres(t testing.TB) *server.Postgres {
	t.Helper()
	if err := server.PostgresInstalled(); err != nil {
		t.Skip(err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	require.NoError(t, server.GrantSearch(filepath.Dir(dir)))
	require.NoError(t, server.GrantSearch(dir))
	p, err := server.StartPostgres(ctx, filepath.Join(dir, "postgres"), server.PostgresOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Stop()) })
	return p
}

// PgBouncer starts a pgbouncer in transaction pooling in front of pg for
// t, stopped when the test ends.
func PgBouncer(t testing.TB, pg *server.Postgres) *server.PgBouncer {
	t.Helper()
	if err := server.PgBouncerInstalled(); err != nil {
		t.Skip(err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	require.NoError(t, server.GrantSearch(filepath.Dir(dir)))
	require.NoError(t, server.GrantSearch(dir))
	b, err := server.StartPgBouncer(ctx, filepath.Join(dir, "pgbouncer"), pg.Addr(), server.PgBouncerOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, b.Stop()) })
	return b
}
