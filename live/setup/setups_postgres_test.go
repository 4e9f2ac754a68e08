package setup

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/server"
)

// Each layout starts its servers, gives the clients one address, and
// leaves nothing behind on Stop; the PgBouncer layout puts the pooler
// first, the address the clients dial, and declares the deployment a
// fault.
func TestPostgresDeployments(t *testing.T) {
	if err := server.PostgresInstalled(); err != nil {
		t.Skip(err.Error())
	}
	if err := server.PgBouncerInstalled(); err != nil {
		t.Skip(err.Error())
	}
	for _, tc := range []struct {
		layout       postgresDeployment
		servers      int
		proxied      bool
		storeApart   bool
		firstService string
	}{
		{postgresOne, 1, true, false, "postgres"},
		{postgresSeparateStore, 1, true, true, "postgres"},
		{postgresBehindPgBouncer, 2, false, false, "pgbouncer"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		dir := t.TempDir()
		// A run's folder is made in the temporary folder, which everyone
		// may search; t.TempDir's parent is 0700.
		require.NoError(t, server.GrantSearch(filepath.Dir(dir)))
		dep, err := startPostgresDeployment(tc.layout)(ctx, StartEnv{Dir: dir})
		cancel()
		require.NoError(t, err)
		require.Len(t, dep.Servers, tc.servers)
		assert.Equal(t, tc.firstService, dep.Servers[0].Name())
		if tc.proxied {
			assert.NotNil(t, dep.Network, "delay and blackhole go through per-client proxies")
			assert.Nil(t, dep.LockAddrs)
		} else {
			assert.Nil(t, dep.Network)
			require.Equal(t, []string{dep.Servers[0].Addr()}, dep.LockAddrs, "the clients dial the pooler")
		}
		require.Len(t, dep.StoreAddrs, 1)
		assert.Equal(t, tc.storeApart, dep.StoreAddrs[0] != dep.Servers[len(dep.Servers)-1].Addr())
		require.NoError(t, dep.Stop())
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, entries, "servers and template removed")
	}
}

func TestPostgresSetupsRows(t *testing.T) {
	byName := map[string]Setup{}
	for _, s := range postgresSetups() {
		byName[s.Name] = s
		assert.Equal(t, "postgres", s.Service)
		assert.Equal(t, "github.com/jackc/pgx/v5", s.Library)
		for _, f := range s.Faults {
			if f == history.FaultRestartKeep || f == history.FaultRestartWipe {
				assert.Equal(t, postgresRestartThink, s.ScriptedThink(f), "%s: PostgreSQL's restart needs the longer think", s.Name)
			}
		}
		assert.Equal(t, 150*time.Millisecond, s.ScriptedThink(history.FaultClientPause))
	}
	require.Len(t, byName, 4)
	assert.NotEmpty(t, byName["advisory-pgbouncer"].Deployed, "PgBouncer's setup declares its deployment a fault")
	for _, n := range []string{"advisory", "xact-durable", "xact-volatile"} {
		assert.Empty(t, byName[n].Deployed, "%s makes no holders of its own", n)
	}
	assert.Equal(t, postgresRestartThink, byName["advisory"].ScriptedThink(history.FaultRestartKeep))
	assert.Equal(t, postgresRestartThink, byName["xact-volatile"].ScriptedThink(history.FaultRestartWipe))
}
