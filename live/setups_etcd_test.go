package live

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEtcdPauseStories runs each etcd setup once under the scripted client
// pause against a real etcd child: the unfenced rows lose an update, the
// fenced ones refuse the paused holder's stale operation and lose nothing.
func TestEtcdPauseStories(t *testing.T) {
	for _, tc := range []struct {
		setup  string
		design impl.Design
		want   story
		fenced bool
	}{
		{"mutex", impl.DesignRenewal, story{
			violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate, linearizability.SectionsLinearizable},
			holds:    []string{linearizability.RegisterLinearizable},
		}, false},
		{"lease", impl.DesignFenceNone, story{
			violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate, linearizability.SectionsLinearizable},
			holds:    []string{linearizability.RegisterLinearizable},
		}, false},
		{"mutex-revision", impl.DesignRevision, story{
			violated: []string{impl.AtMostOneClientHoldLock},
			holds:    []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
		}, true},
		{"lock-guarded", impl.DesignSequencer, story{
			violated: []string{impl.AtMostOneClientHoldLock},
			holds:    []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
		}, true},
		{"contrib-lock", impl.DesignVersionEquality, story{
			violated: []string{impl.AtMostOneClientHoldLock},
			holds:    []string{impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
		}, true},
	} {
		t.Run(tc.setup, func(t *testing.T) {
			s := mustSetup(t, setup.All(), "etcd", tc.setup)
			require.Equal(t, tc.design, s.Design)
			res := checkStory(t, testRun(t, s, history.FaultClientPause), tc.want, tc.fenced)
			assert.Contains(t, res.Versions, server.EtcdVersion())
		})
	}
}
