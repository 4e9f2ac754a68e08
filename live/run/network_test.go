package run_test

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNetworkStories: the scripted delay and blackhole of the first
// reader's own links to the lock service, against real etcd and
// ZooKeeper, each client its own process and its own proxy. The holder's
// renewals (etcd's keepalive stream, ZooKeeper's pings) are lost or late,
// its lease or session ends at the server, another client is granted
// over its healthy link while the holder thinks, and the holder's write
// reaches the register (its link stays up): a lost update unfenced, the
// stale write refused fenced. The matrix's workload (ScriptedWorkload),
// with two clients where the holder's write is not refused.
func TestNetworkStories(t *testing.T) {
	unfenced := livetest.Story{Violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate}}
	fenced := livetest.Story{
		Violated: []string{impl.AtMostOneClientHoldLock},
		Holds:    []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.RegisterLinearizable},
	}
	for _, tc := range []struct {
		service, setup string
		fault          history.Fault
		want           livetest.Story
		fenced         bool
	}{
		{"etcd", "mutex", history.FaultBlackhole, unfenced, false},
		{"etcd", "mutex-revision", history.FaultDelay, fenced, true},
		{"zookeeper", "zxid-none", history.FaultDelay, unfenced, false},
		{"zookeeper", "zxid-revision", history.FaultBlackhole, fenced, true},
	} {
		t.Run(tc.service+"/"+tc.setup+"/"+string(tc.fault), func(t *testing.T) {
			if tc.service == "zookeeper" {
				livetest.NeedZooKeeper(t)
			}
			s := livetest.MustSetup(t, setup.All(), tc.service, tc.setup)
			require.Contains(t, s.Faults, tc.fault, "in the scripted matrix")
			cfg := livetest.Config(t, s, tc.fault)
			cfg.Clients, cfg.Sections = nemesis.ScriptedWorkload(tc.fault)
			cfg.Think = s.ScriptedThink(tc.fault)
			if !tc.fenced {
				cfg.Clients = 2 // both sections commit: a third adds nothing but time
			}
			res := livetest.CheckStory(t, cfg, tc.want, tc.fenced)
			// The fault was aimed at the first reader's links, and another
			// client was granted while they were cut.
			f := res.History.Faults[0]
			first := livetest.FirstReader(res.History)
			assert.Equal(t, history.ClientName(first), f.Target)
			assert.True(t, grantedDuring(res.History, first, f.Start, f.End), "another client was granted while %s's links were cut: %v", f.Target, res.Judgement.Beliefs)
			livetest.NothingLeft(t, cfg.TempRoot)
		})
	}
}

// grantedDuring reports whether a client other than c returned from an
// acquire with a grant between start and end.
func grantedDuring(h *history.History, c int, start, end int64) bool {
	for _, r := range h.Records {
		if r.Client != c && r.Op == history.OpAcquire && r.Ev == history.Return && r.OK && r.Wall >= start && r.Wall <= end {
			return true
		}
	}
	return false
}
