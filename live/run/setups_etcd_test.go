package run_test

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
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
		want   livetest.Story
		fenced bool
	}{
		{"mutex", impl.DesignRenewal, livetest.Story{
			Violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate, linearizability.SectionsLinearizable},
			Holds:    []string{linearizability.RegisterLinearizable},
		}, false},
		{"lease", impl.DesignFenceNone, livetest.Story{
			Violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate, impl.NoActionPastValidity, linearizability.SectionsLinearizable},
			Holds:    []string{linearizability.RegisterLinearizable},
		}, false},
		{"mutex-revision", impl.DesignRevision, livetest.Story{
			Violated: []string{impl.AtMostOneClientHoldLock},
			Holds:    []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
		}, true},
		{"lock-guarded", impl.DesignSequencer, livetest.Story{
			Violated: []string{impl.AtMostOneClientHoldLock},
			Holds:    []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
		}, true},
		{"contrib-lock", impl.DesignVersionEquality, livetest.Story{
			Violated: []string{impl.AtMostOneClientHoldLock},
			Holds:    []string{impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
		}, true},
	} {
		t.Run(tc.setup, func(t *testing.T) {
			s := livetest.MustSetup(t, setup.All(), "etcd", tc.setup)
			require.Equal(t, tc.design, s.Design)
			if s.Leased {
				// Its lease has a fixed end: the checked client gives up
				// on resuming; the story is the unchecked client's.
				s = s.WithUncheckedClient()
			}
			res := livetest.CheckStory(t, livetest.Config(t, s, history.FaultClientPause), tc.want, tc.fenced)
			assert.Contains(t, res.Versions, server.EtcdVersion())
		})
	}
}
