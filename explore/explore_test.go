package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/golden"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/verdict"
)

// matrixRows are the models of DESIGN.md's table that no pinned test
// (pins_*_test.go) explores:
// the 2-client rows with client symmetry. The pinned tests check every
// other row of the matrix — 2 clients, and 3 clients with and without
// symmetry — with the same checks as this one (checkMatrixRow) besides
// their figures, so that each model is explored once per build: under
// -race the 3-client searches cost seconds each. The 3-client rows without
// symmetry (1.1 million states for off, none and writes, 451,000 for all)
// run at full size only (pins_full_test.go); the reduced size checks
// their symmetric versions (75,000 to 191,000 states).
func matrixRows() []Config {
	var rows []Config
	for _, d := range rowDesigns() {
		sym := DefaultConfig(d, 2)
		sym.Symmetry = true
		rows = append(rows, sym)
	}
	return rows
}

// TestMatrix is the point of the explorer: every verdict of DESIGN.md's
// table, reached by exploring the Go implementation exhaustively (here
// the rows no pinned test covers; checkPinned runs checkMatrixRow on the
// others).
func TestMatrix(t *testing.T) {
	testbuild.SkipUnderRace(t)
	for _, cfg := range matrixRows() {
		t.Run(fmt.Sprintf("%s/%dc/symmetry=%v", cfg.Design, cfg.Clients, cfg.Symmetry), func(t *testing.T) {
			t.Parallel()
			res, _ := runShared(t, cfg)
			checkMatrixRow(t, cfg, res)
		})
	}
}

// checkMatrixRow: a complete search of cfg reached every verdict of
// DESIGN.md's table, each counterexample replays to a violating state, and
// no reachable state is stuck.
func checkMatrixRow(t *testing.T, cfg Config, res *Result) {
	t.Helper()
	require.True(t, res.Complete)
	require.Len(t, res.Findings, len(impl.Checked()))
	for _, v := range res.Findings {
		want := impl.Expected(cfg.Design, v.Property)
		assert.True(t, v.Agrees(want), "%s: explorer says %s, DESIGN.md's table says %s", v.Property, v.Status, want)
		if v.Status == verdict.Violated {
			checkTrace(t, cfg, v)
		}
	}
	assert.Equal(t, verdict.Holds, res.Deadlock.Status, "no reachable state may be stuck with an unfinished client")
	assert.Nil(t, res.Deadlock.Trace)
}

// checkTrace: a counterexample's trace has one step per action plus the
// initial state, names the property at its last step, and its path really
// ends in a violating state (replayed here independently of Run).
func checkTrace(t *testing.T, cfg Config, v Finding) {
	t.Helper()
	require.NotNil(t, v.Trace, "%s violated without a trace", v.Property)
	assert.Len(t, v.Trace.Steps, v.Steps()+1)
	require.NotNil(t, v.Trace.Violation)
	assert.Equal(t, v.Property, v.Trace.Violation.Property)
	assert.Equal(t, len(v.Trace.Steps), v.Trace.Violation.Step)
	assert.Equal(t, "explorer", string(v.Trace.Source))

	m := &sysModel{cfg: cfg.Config}
	s := m.New()
	for k, i := range v.Path {
		require.Less(t, i, m.Actions(s), "step %d of the path is not enabled", k+1)
		m.Apply(s, i)
	}
	inv, err := impl.LookupInvariant(v.Property)
	require.NoError(t, err)
	assert.NotNil(t, inv.Check(s.Sys), "%s's trace ends in a state that satisfies it: %s", v.Property, s.Sys)
}

// naiveBFS explores m with a Go map of whole encodings, level by level —
// slow, simple and independent of the fingerprint table and the frontier
// arenas — and returns the number of distinct and generated states, the
// depth, and for each property the least depth of a violating state (-1
// when none).
func naiveBFS(m *sysModel) (distinct, generated, depth int, firstViolation []int) {
	firstViolation = make([]int, len(m.invs))
	for k := range firstViolation {
		firstViolation[k] = -1
	}
	seen := map[string]bool{}
	visit := func(s *impl.World, d int) bool {
		generated++
		key := string(m.Encode(nil, s))
		if seen[key] {
			return false
		}
		seen[key] = true
		for k := range m.invs {
			if firstViolation[k] < 0 && !m.Holds(s, k) {
				firstViolation[k] = d
			}
		}
		return true
	}
	init := m.New()
	visit(init, 0)
	level := []*impl.World{init}
	for d := 1; len(level) > 0; d++ {
		var next []*impl.World
		for _, s := range level {
			for i := range m.Actions(s) {
				succ := m.New()
				m.Copy(succ, s)
				m.Apply(succ, i)
				if visit(succ, d) {
					next = append(next, succ)
				}
			}
		}
		if len(next) > 0 {
			depth = d
		}
		level = next
	}
	return len(seen), generated, depth, firstViolation
}

// TestRunAgreesWithNaiveBFS: the explorer's figures equal those of a
// naive search, and every counterexample is as short as the shallowest
// violating state: the traces are shortest.
func TestRunAgreesWithNaiveBFS(t *testing.T) {
	testbuild.SkipUnderRace(t)
	for _, d := range naiveDesigns() {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig(d, 2)
			res, _ := runShared(t, cfg)
			m := &sysModel{cfg: cfg.Config}
			for _, inv := range impl.Invariants() {
				if inv.AppliesTo(d) {
					m.invs = append(m.invs, inv)
				}
			}
			distinct, generated, depth, first := naiveBFS(m)
			assert.Equal(t, distinct, res.Distinct, "distinct")
			assert.Equal(t, generated, res.Generated, "generated")
			assert.Equal(t, depth, res.Depth, "depth")
			for k, inv := range m.invs {
				v, ok := res.Verdict(inv.Name)
				require.True(t, ok)
				if first[k] < 0 {
					assert.Equal(t, verdict.Holds, v.Status, inv.Name)
					continue
				}
				assert.Equal(t, verdict.Violated, v.Status, inv.Name)
				assert.Equal(t, first[k], v.Steps(), "%s: the trace must be as short as the shallowest violation", inv.Name)
			}
		})
	}
}

// naiveState is the model's state the obvious way: messages in flight in
// arrival order, duplicates kept; timers in the order set.
type naiveState struct {
	sys      *impl.System
	inflight []impl.Message
	timers   []impl.PendingTimer
	restarts int    // the service's restarts so far (designs whose service restarts)
	held     uint64 // the clients that held the lock at a restart
}

// canonical is a naive state's identity, built independently of the
// model's sort orders: messages and timers sorted by their printed form.
func canonical(sys *impl.System, inflight []impl.Message, timers []impl.PendingTimer) string {
	var msgs, tms []string
	for _, m := range inflight {
		msgs = append(msgs, fmt.Sprintf("%+v", m))
	}
	for _, tm := range timers {
		tms = append(tms, fmt.Sprintf("%+v", tm))
	}
	slices.Sort(msgs)
	slices.Sort(tms)
	return fmt.Sprintf("%x|%s|%s", sys.Encode(nil), strings.Join(msgs, ","), strings.Join(tms, ","))
}

// naiveSuccessors: every idle client may start, every message in flight
// (each copy) may be delivered, every pending timer may fire, and in a
// design whose service restarts the service may restart, UntimedRestarts
// times at most while a client has not finished.
func naiveSuccessors(cfg impl.Config, s *naiveState) []*naiveState {
	var succ []*naiveState
	step := func(n impl.NodeID, in impl.Input, msgIndex, timerIndex int) *naiveState {
		sys, err := impl.NewSystem(cfg)
		if err != nil {
			panic(err)
		}
		sys.CopyFrom(s.sys)
		next := &naiveState{sys: sys, restarts: s.restarts, held: s.held}
		if in.Kind == impl.InputRestart {
			next.restarts++
			for i := range s.sys.Clients {
				if s.sys.Clients[i].Holds() {
					next.held |= 1 << i
				}
			}
		}
		for i, m := range s.inflight {
			if i != msgIndex {
				next.inflight = append(next.inflight, m)
			}
		}
		for i, tm := range s.timers {
			if i != timerIndex {
				next.timers = append(next.timers, tm)
			}
		}
		var out impl.Effects
		sys.Step(n, &in, &out)
		next.inflight = append(next.inflight, out.Send...)
		for _, ts := range out.Set {
			if !slices.Contains(next.timers, impl.PendingTimer{Node: n, Timer: ts.Timer}) {
				next.timers = append(next.timers, impl.PendingTimer{Node: n, Timer: ts.Timer})
			}
		}
		for _, tm := range out.Cancel {
			next.timers = slices.DeleteFunc(next.timers, func(p impl.PendingTimer) bool { return p == impl.PendingTimer{Node: n, Timer: tm} })
		}
		return next
	}
	for i := range s.sys.Clients {
		if s.sys.Clients[i].Phase() == impl.Idle {
			succ = append(succ, step(impl.ClientNode(i), impl.Input{Kind: impl.InputStart}, -1, -1))
		}
	}
	for i, m := range s.inflight {
		succ = append(succ, step(m.To, impl.Input{Kind: impl.InputMessage, Msg: m}, i, -1))
	}
	for i, tm := range s.timers {
		succ = append(succ, step(tm.Node, impl.Input{Kind: impl.InputTimer, Timer: tm.Timer}, -1, i))
	}
	if cfg.Design.Restart() != impl.NoRestart && s.restarts < impl.UntimedRestarts && !s.sys.AllDone() {
		// Any lock node: the service, or a Redlock row's others.
		for k := range s.sys.NumLockNodes() {
			succ = append(succ, step(impl.LockNode(k), impl.Input{Kind: impl.InputRestart}, -1, -1))
		}
	}
	return succ
}

// drawConfig draws a small model: any design, 2 to 4 clients, 1 or 2
// sections, 0 to 2 retries, with or without a lock-delay.
func drawConfig(t *rapid.T) Config {
	return Config{Config: UntimedConfig(impl.Config{
		Design:    rapid.SampledFrom(impl.Designs()).Draw(t, "design"),
		Clients:   rapid.IntRange(MinClients, MaxClients).Draw(t, "clients"),
		Sections:  rapid.IntRange(1, 2).Draw(t, "sections"),
		Retries:   rapid.IntRange(0, 2).Draw(t, "retries"),
		LockDelay: rapid.SampledFrom([]time.Duration{0, 5 * time.Second}).Draw(t, "lockDelay"),
	})}
}

// TestModelSuccessorsAreTheNaiveOnes checks the model's semantics — which
// actions exist, what they do to messages and timers, and that the
// canonical form loses nothing — against naiveSuccessors, in states
// reached by random walks.
func TestModelSuccessorsAreTheNaiveOnes(t *testing.T) {
	testbuild.SkipUnderRace(t)
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		m := &sysModel{cfg: cfg.Config}
		s := &naiveState{sys: m.New().Sys}
		for range rapid.IntRange(0, 40).Draw(t, "steps") {
			want := map[string]bool{}
			succ := naiveSuccessors(m.cfg, s)
			for _, n := range succ {
				want[canonical(n.sys, n.inflight, n.timers)+fmt.Sprint("|", n.restarts, "|", n.held)] = true
			}
			ms := m.New()
			ms.Sys.CopyFrom(s.sys)
			ms.InFlight = append(ms.InFlight, s.inflight...)
			ms.Timers = append(ms.Timers, s.timers...)
			ms.Restarts, ms.HeldAtRestart = s.restarts, s.held
			ms.Canonicalize()
			got := map[string]bool{}
			for i := range m.Actions(ms) {
				n := m.New()
				m.Copy(n, ms)
				m.Apply(n, i)
				// Through the encoding and back, so Decode is checked too.
				dec := m.New()
				require.NoError(t, m.Decode(dec, m.Encode(nil, n)))
				got[canonical(dec.Sys, dec.InFlight, dec.Timers)+fmt.Sprint("|", dec.Restarts, "|", dec.HeldAtRestart)] = true
			}
			require.Equal(t, want, got)
			if len(succ) == 0 {
				return
			}
			s = succ[rapid.IntRange(0, len(succ)-1).Draw(t, "choice")]
		}
	})
}

// rejectsLost is the reference implementation on a network that never
// delivers a rejection: a rejected client waits for an answer forever,
// seed 000's deadlock. It shows the deadlock check can fail.
type rejectsLost struct{ *sysModel }

func (m rejectsLost) allowed(s *impl.World) []int {
	var acts []int
	for i := range m.sysModel.Actions(s) {
		if in := s.Action(i).Input; in.Kind != impl.InputMessage || in.Msg.Kind != impl.MsgReject {
			acts = append(acts, i)
		}
	}
	return acts
}

func (m rejectsLost) Actions(s *impl.World) int  { return len(m.allowed(s)) }
func (m rejectsLost) Apply(s *impl.World, i int) { m.sysModel.Apply(s, m.allowed(s)[i]) }

func TestDeadlockIsDetected(t *testing.T) {
	cfg := DefaultConfig(impl.DesignFenceAll, 2)
	m := rejectsLost{&sysModel{cfg: cfg.Config}}
	out, err := Search[*impl.World](m, Options{})
	require.NoError(t, err)
	require.NotNil(t, out.Deadlock)
	s := m.New()
	for _, i := range out.Deadlock.Path {
		m.Apply(s, i)
	}
	assert.Zero(t, m.Actions(s))
	assert.False(t, s.Done())
	assert.True(t, slices.ContainsFunc(s.InFlight, func(msg impl.Message) bool { return msg.Kind == impl.MsgReject }),
		"the stuck client's rejection is in flight: %v", s.InFlight)
	// Shortest, counted by hand: both clients start and their acquires
	// arrive (4 steps: c2 must be rejected while c1 holds the lock); c1's
	// grant arrives, its read is delivered, and the quickest way to end its
	// section is an abort: its validity timer fires and the read's reply
	// then finds it no longer holding (4 steps); its release must still be
	// delivered (1 step) for nothing to be in flight but the rejection.
	golden.Check(t, *update, cfg.Design.String(), "explore.2c.rejects-lost.deadlock.shortest", len(out.Deadlock.Path))
}

// TestRunIsDeterministic: verdicts, figures and traces are identical run to
// run (only the wall time may differ).
func TestRunIsDeterministic(t *testing.T) {
	t.Parallel()
	plain := DefaultConfig(impl.DesignFenceWrites, 2)
	plain.LockDelay = 5 * time.Second
	symmetric := DefaultConfig(impl.DesignFenceNone, 2)
	symmetric.Symmetry = true
	for _, cfg := range []Config{plain, symmetric} {
		t.Run(cfg.Describe(), func(t *testing.T) {
			var first []byte
			for range 2 {
				res, err := Run(cfg)
				require.NoError(t, err)
				res.Elapsed = 0
				b, err := json.Marshal(res)
				require.NoError(t, err)
				if first == nil {
					first = b
					continue
				}
				assert.True(t, bytes.Equal(first, b), "two runs differ")
			}
			assert.Contains(t, string(first), "NoLostUpdate")
		})
	}
}

func TestRunSelectsInvariants(t *testing.T) {
	cfg := DefaultConfig(impl.DesignFenceNone, 2)
	cfg.Invariants = []string{impl.NoLostUpdate}
	res, err := Run(cfg)
	require.NoError(t, err)
	want := map[string]verdict.Status{
		impl.AtMostOneClientHoldLock: verdict.NotChecked,
		impl.TokenIsMonotonical:      verdict.NotChecked,
		impl.NoLostUpdate:            verdict.Violated,
	}
	for name, status := range want {
		v, ok := res.Verdict(name)
		require.True(t, ok)
		assert.Equal(t, status, v.Status, name)
	}
	assert.Equal(t, verdict.Holds, res.Deadlock.Status)
}

func TestRunIncompleteIsUnknown(t *testing.T) {
	cfg := DefaultConfig(impl.DesignFenceAll, 2)
	cfg.MaxStates = 100
	res, err := Run(cfg)
	require.NoError(t, err)
	assert.False(t, res.Complete)
	for _, name := range []string{impl.TokenIsMonotonical, impl.NoLostUpdate, Deadlock} {
		v, _ := res.Verdict(name)
		assert.Equal(t, verdict.Unknown, v.Status, "%s: a stopped search must not claim it holds", name)
		assert.False(t, v.Agrees(verdict.Holds))
	}
}

func TestConfigValidate(t *testing.T) {
	ok := DefaultConfig(impl.DesignFenceAll, 2)
	tests := []struct {
		name   string
		change func(*Config)
		errSub string
	}{
		{"default", func(*Config) {}, ""},
		{"one client", func(c *Config) { c.Clients = 1 }, "clients must be between 2 and 4 for the explorer"},
		{"five clients", func(c *Config) { c.Clients = 5 }, "clients must be between 2 and 4 for the explorer"},
		{"no clients", func(c *Config) { c.Clients = 0 }, "clients must be between 1 and"},
		{"negative lock-delay", func(c *Config) { c.LockDelay = -1 }, "lock-delay must not be negative"},
		{"no section", func(c *Config) { c.Sections = 0 }, "sections"},
		{"negative retries", func(c *Config) { c.Retries = -1 }, "retries"},
		{"zero retries", func(c *Config) { c.Retries = 0 }, ""},
		{"negative max states", func(c *Config) { c.MaxStates = -1 }, "max-states"},
		{"unknown invariant", func(c *Config) { c.Invariants = []string{"Nope"} }, "unknown invariant"},
		{"unknown design", func(c *Config) { c.Design = impl.Design(len(impl.Designs())) }, "unknown design"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.change(&c)
			err := c.Validate()
			if tc.errSub == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.errSub)
			_, err = Run(c)
			assert.Error(t, err)
		})
	}
}

func TestRunTokensOnlyInvariantWithoutTokens(t *testing.T) {
	cfg := DefaultConfig(impl.DesignNoFencing, 2)
	cfg.Invariants = []string{impl.TokenIsMonotonical}
	res, err := Run(cfg)
	require.NoError(t, err)
	v, _ := res.Verdict(impl.TokenIsMonotonical)
	assert.Equal(t, verdict.NotApplicable, v.Status)
	v, _ = res.Verdict(impl.NoLostUpdate)
	assert.Equal(t, verdict.NotChecked, v.Status)
	assert.Equal(t, verdict.Holds, res.Deadlock.Status)
}

// opsRejected adds two properties to the model, "no read rejected" and "no
// write rejected", to see which fencing checks the explorer exercises.
type opsRejected struct{ *sysModel }

func (m opsRejected) Properties() []string { return []string{"no read rejected", "no write rejected"} }
func (m opsRejected) Holds(s *impl.World, k int) bool {
	kind := []impl.OpKind{impl.OpRead, impl.OpWrite}[k]
	for _, op := range s.Sys.Resource.Log() {
		if op.Kind == kind && !op.Accepted {
			return false
		}
	}
	return true
}

// TestEveryFencingCheckIsExercised: the models are not vacuous — the
// explorer reaches states where the resource rejects exactly what its mode
// says it may: nothing for none, writes (never reads) for writes, both for
// all. (That none and writes have equally many states is no accident: a
// rejected write and an accepted one lead the client to the same control
// flow — release, then finish — so their state graphs have the same shape.)
func TestEveryFencingCheckIsExercised(t *testing.T) {
	tests := []struct {
		design                      impl.Design
		readRejected, writeRejected bool
	}{
		{impl.DesignNoFencing, false, false},
		{impl.DesignFenceNone, false, false},
		{impl.DesignFenceWrites, false, true},
		{impl.DesignFenceAll, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.design.String(), func(t *testing.T) {
			m := opsRejected{&sysModel{cfg: DefaultConfig(tc.design, 2).Config}}
			out, err := Search[*impl.World](m, Options{})
			require.NoError(t, err)
			assert.Equal(t, tc.readRejected, out.Violations[0] != nil, "a read rejected")
			assert.Equal(t, tc.writeRejected, out.Violations[1] != nil, "a write rejected")
		})
	}
}
