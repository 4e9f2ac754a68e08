package sim

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

// oneCrash is the schedule the shrinker reduced seed 7's first failing
// run of restart-volatile to: the service down for 1ms, 10.7ms into the
// run, while c1 holds lease 1 in its first section.
func oneCrash() *Schedule {
	return &Schedule{Version: ScheduleVersion, Seed: 7, Faults: []Fault{
		{Kind: FaultCrash, Node: impl.ServiceNode, At: 10666511 * time.Nanosecond, Duration: time.Millisecond},
	}}
}

// TestOneCrashLosesAnUpdateOnlyWithAVolatileCounter: the same crash, one
// row at a time. With the counter in memory the restarted service hands
// out token 1 again while c1 still uses it, and check all (>=) accepts
// both holders' operations: an update is lost and tokens stay in order.
// With the counter persisted the next token is fresh: nothing is lost,
// and the section under way at the crash is fenced off or commits.
// Without crashes in its row (design all) the schedule is refused.
func TestOneCrashLosesAnUpdateOnlyWithAVolatileCounter(t *testing.T) {
	for _, tc := range []struct {
		design   impl.Design
		lostOnly bool
	}{{impl.DesignRestartVolatile, true}, {impl.DesignRestartDurable, false}} {
		t.Run(tc.design.String(), func(t *testing.T) {
			c := DefaultConfig()
			c.Design = tc.design
			require.NoError(t, oneCrash().Validate(c))
			r, err := NewRunner(c)
			require.NoError(t, err)
			res := r.Run(oneCrash())
			r.Check(&res, 0)
			assert.Equal(t, tc.lostOnly, res.Violated(impl.NoLostUpdate), "NoLostUpdate: %+v", res)
			assert.False(t, res.Violated(impl.TokenIsMonotonical), "check all keeps tokens in order whatever they are")
			assert.Empty(t, res.Stall)
			assert.Positive(t, res.Committed, "sections commit across the crash")
			// The restart is a step of the service, told in the trace.
			_, tr, _ := r.Record(oneCrash(), "crash", impl.NoLostUpdate)
			var restarted, crashed bool
			for _, s := range tr.Steps {
				restarted = restarted || s.Actor == "service" && s.Action == "restart after a crash"
				crashed = crashed || s.Action == "crashed (fault)"
			}
			assert.True(t, crashed && restarted, "the trace shows the crash and the restart")
		})
	}
	c := DefaultConfig()
	assert.ErrorContains(t, oneCrash().Validate(c), "design all assumes the service never crashes")
}

// TestCrashesComeWithTheirRowOnly: a seed's schedule is the same NPC
// faults in every row of one lock service (the Redlock rows, with more
// nodes to strike, share theirs); the restart rows add crashes of the
// service (Redlock: of any lock node) on top, drawn from their own
// stream, and none without faults.
func TestCrashesComeWithTheirRowOnly(t *testing.T) {
	base := DefaultConfig()
	redlock := base
	redlock.Design = impl.DesignRedlock
	for seed := uint64(1); seed <= 200; seed++ {
		npc := Generate(seed, base)
		npcRedlock := generateNPC(seed, redlock)
		for _, d := range impl.Designs() {
			c := base
			c.Design = d
			s := Generate(seed, c)
			want := npc
			if d.Redlock() {
				want = npcRedlock
			}
			var crashes, others []Fault
			for _, f := range s.Faults {
				if f.Kind == FaultCrash {
					crashes = append(crashes, f)
					if d.Redlock() {
						assert.True(t, f.Node.IsLockNode() && f.Node.LockIndex() < c.LockNodes(), "%s crashed", f.Node)
					} else {
						assert.Equal(t, impl.ServiceNode, f.Node)
					}
					assert.Positive(t, f.Duration)
				} else {
					others = append(others, f)
				}
			}
			assert.Equal(t, want.Faults, others, "seed %d, %s: the NPC faults of the seed", seed, d)
			if d.Restart() == impl.NoRestart {
				assert.Empty(t, crashes, "seed %d, %s", seed, d)
			} else {
				assert.NotEmpty(t, crashes, "seed %d, %s", seed, d)
				assert.LessOrEqual(t, len(crashes), c.MaxFaults)
			}
			c.Faults = NoFaults
			assert.Empty(t, Generate(seed, c).Faults, "no faults, no crash")
		}
	}
}

func TestCrashScheduleJSON(t *testing.T) {
	c := DefaultConfig()
	c.Design = impl.DesignRestartDurable
	var b bytes.Buffer
	require.NoError(t, oneCrash().WriteJSON(&b))
	assert.Contains(t, b.String(), `"kind": "crash"`)
	back, err := ReadSchedule(&b, c)
	require.NoError(t, err)
	assert.Equal(t, oneCrash(), back)
	for _, tc := range []struct{ name, json, want string }{
		{"a client", `{"version":1,"seed":1,"faults":[{"kind":"crash","node":"c1","at":"1s","duration":"1s"}]}`, "only the service (or a Redlock row's lock node) crashes"},
		{"no downtime", `{"version":1,"seed":1,"faults":[{"kind":"crash","node":"service","at":"1s"}]}`, "duration must be positive"},
	} {
		_, err := ReadSchedule(strings.NewReader(tc.json), c)
		assert.ErrorContains(t, err, tc.want, tc.name)
	}
}
