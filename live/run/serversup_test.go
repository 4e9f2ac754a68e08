package run

import (
	"testing"

	"github.com/fencelab/fencelab/live/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeServer is a server.Server that runs or not.
type fakeServer struct {
	server.Server
	name    string
	running bool
}

func (f fakeServer) Name() string  { return f.name }
func (f fakeServer) Running() bool { return f.running }
func (f fakeServer) Pids() []int {
	if f.running {
		return []int{1}
	}
	return nil
}

// TestServersUpNamesEveryServerThatExited: a server down when the run
// ends (the nemesis brought back every one it killed) exited by itself;
// the run's error names each such server, and only them.
func TestServersUpNamesEveryServerThatExited(t *testing.T) {
	for _, tc := range []struct {
		name    string
		servers []server.Server
		down    []string
	}{
		{"none", nil, nil},
		{"all up", []server.Server{fakeServer{name: "redis-1", running: true}, fakeServer{name: "redis-2", running: true}}, nil},
		{"one down", []server.Server{fakeServer{name: "redis-1", running: true}, fakeServer{name: "redis-2", running: false}}, []string{"redis-2"}},
		{"both down", []server.Server{fakeServer{name: "etcd", running: false}, fakeServer{name: "redis-2", running: false}}, []string{"etcd", "redis-2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := serversUp(tc.servers)
			if tc.down == nil {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, s := range tc.servers {
				if s.(fakeServer).running {
					assert.NotContains(t, err.Error(), s.Name())
				} else {
					assert.Contains(t, err.Error(), s.Name())
				}
			}
			assert.Contains(t, err.Error(), "exited by itself")
		})
	}
}
