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
