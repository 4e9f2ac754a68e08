package run_test

import (
	"context"
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoryThinkFollowsStartUp: a run of a restart story measures its
// servers' start-up and gives its clients the think derived from it
// (setup.Setup.StoryThink), not the story's think before any start-up:
// a service slow to start gets a longer window, the result says why, and
// every client thought that long between its read and its write.
func TestStoryThinkFollowsStartUp(t *testing.T) {
	const slow = 300 * time.Millisecond
	s := livetest.MustSetup(t, livetest.Toy(), "toy", "all")
	s.TTL = 2 * time.Second // a lease the derived think fits under
	start := s.Start
	s.Start = func(ctx context.Context, env setup.StartEnv) (*setup.Deployment, error) {
		// A service that takes this long to start, as ZooKeeper's JVM or
		// MariaDB do: the start-up the margin must follow.
		time.Sleep(slow)
		return start(ctx, env)
	}
	// A restart that keeps the lock: the toy's wipe hands token 1 out
	// again, whose release by the old holder frees the new one's lock,
	// an overlap beside this test's point.
	f := history.FaultRestartKeep
	s.Faults = append(s.Faults, f)
	cfg := livetest.Config(t, s, f)
	cfg.Think, cfg.StoryThink = s.ScriptedThink(f), true
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err)
	require.GreaterOrEqual(t, res.StartUp, slow)
	assert.Equal(t, s.StoryThink(f, res.StartUp), res.Think)
	assert.GreaterOrEqual(t, res.Think.Time, 2*res.StartUp, "2 × the start-up and a round")
	assert.Greater(t, res.Think.Time, cfg.Think, "longer than the story's think before any start-up")
	assert.Contains(t, res.Think.Why, "start-up "+res.StartUp.Round(time.Millisecond).String())
	thought := 0
	lastRead := map[int]int64{}
	for _, r := range res.History.Records {
		switch {
		case r.Op == history.OpRead && r.Ev == history.Return && r.OK:
			lastRead[r.Client] = r.Wall
		case r.Op == history.OpWrite && r.Ev == history.Call && lastRead[r.Client] != 0:
			assert.GreaterOrEqual(t, time.Duration(r.Wall-lastRead[r.Client]), res.Think.Time, "%s's think", history.ClientName(r.Client))
			delete(lastRead, r.Client)
			thought++
		}
	}
	assert.Positive(t, thought, "some section thought and wrote")
}
