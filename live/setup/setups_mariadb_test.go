package setup

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The deployment with a store server apart: only the lock's server is
// faulted; everything goes on Stop, and on a failed start. (The stories
// above start the one-server deployment.)
func TestMariaDBDeploymentWithAStoreServer(t *testing.T) {
	if err := server.MariaDBInstalled(); err != nil {
		t.Skip(err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	dep, err := startMariaDBDeployment(true)(ctx, StartEnv{Dir: dir})
	require.NoError(t, err)
	stopped := false
	defer func() {
		if !stopped {
			assert.NoError(t, dep.Stop())
		}
	}()
	require.Len(t, dep.Servers, 1, "only the lock's server is faulted")
	require.Len(t, dep.LockAddrs, 1)
	require.Len(t, dep.StoreAddrs, 1)
	assert.Equal(t, dep.Servers[0].Addr(), dep.LockAddrs[0])
	assert.NotEqual(t, dep.LockAddrs[0], dep.StoreAddrs[0], "the store has a server of its own")

	require.NoError(t, dep.Stop())
	stopped = true
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "both servers and the template removed")

	// A start that fails (cancelled) leaves nothing behind.
	dir = t.TempDir()
	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	_, err = startMariaDBDeployment(true)(cancelled, StartEnv{Dir: dir})
	require.Error(t, err)
	entries, err = os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}
