package bounds

import (
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

// nominalTicks are the timed models' constants (impl's timedConstants)
// with margin m and lock-delay l.
func nominalTicks(m, l int64) Ticks { return Ticks{Q: 4, R: 1, J: 1, P: 1, D: 1, TTL: 8, M: m, L: l} }

// TestCheckTicksAgainstCheck: the discrete condition at worked points —
// where ⌈(TTL−M+J)/(Q−R)⌉ is exact (M = 3) it is Check's, and where it
// rounds (M = 5) it is stricter: Check calls L = 5..8 safe for
// AtMostOneClientHoldLock and the spec finds a violation up to L = 8. The
// discrete condition never calls safe what Check calls unsafe.
func TestCheckTicksAgainstCheck(t *testing.T) {
	for _, tc := range []struct {
		m, l       int64
		due, next  int64
		safe, cont [2]bool // ticks', Check's; Properties order
	}{
		{3, 8, 2, 3, [2]bool{false, false}, [2]bool{false, false}},
		{3, 9, 2, 4, [2]bool{true, false}, [2]bool{true, false}},
		{3, 18, 2, 5, [2]bool{true, false}, [2]bool{true, false}},
		{3, 19, 2, 6, [2]bool{true, true}, [2]bool{true, true}},
		{5, 4, 2, 3, [2]bool{false, false}, [2]bool{false, false}},
		{5, 5, 2, 3, [2]bool{false, false}, [2]bool{true, false}},
		{5, 6, 2, 3, [2]bool{false, false}, [2]bool{true, false}},
		{5, 8, 2, 3, [2]bool{false, false}, [2]bool{true, false}},
		{5, 9, 2, 4, [2]bool{true, false}, [2]bool{true, false}},
		{5, 14, 2, 5, [2]bool{true, false}, [2]bool{true, false}},
		{5, 15, 2, 5, [2]bool{true, false}, [2]bool{true, true}},
		{5, 18, 2, 5, [2]bool{true, false}, [2]bool{true, true}},
		{5, 19, 2, 6, [2]bool{true, true}, [2]bool{true, true}},
	} {
		ticks := nominalTicks(tc.m, tc.l)
		got, err := CheckTicks(ticks)
		require.NoError(t, err)
		cont, err := Check(ticks.Bounds(time.Millisecond))
		require.NoError(t, err)
		for k := range got {
			assert.Equal(t, tc.due, got[k].Due, "M %d L %d", tc.m, tc.l)
			assert.Equal(t, tc.next, got[k].Next, "M %d L %d", tc.m, tc.l)
			assert.Equal(t, tc.safe[k], got[k].Safe, "M %d L %d %s: ticks", tc.m, tc.l, got[k].Property)
			assert.Equal(t, tc.cont[k], cont[k].Safe, "M %d L %d %s: Check", tc.m, tc.l, cont[k].Property)
			if got[k].Safe {
				assert.True(t, cont[k].Safe, "the discrete condition is the stricter")
			}
		}
	}
	_, err := CheckTicks(Ticks{Q: 4, R: 4, TTL: 8})
	assert.ErrorContains(t, err, "R < Q")
	_, err = CheckTicks(Ticks{Q: 4, R: 1, TTL: 8, M: 8})
	assert.ErrorContains(t, err, "less than TTL")
}

// TestCheckTicksIsStricterEverywhere: over a grid of constants, the
// discrete condition's safe implies Check's (events on ticks come at the
// derivation's moments rounded: the old holder's later, the next grant's
// later too, but a whole tick of rounding can only cost), and with
// ⌈⌉ exact on both sides they agree.
func TestCheckTicksIsStricterEverywhere(t *testing.T) {
	differ := 0
	// Q whose R/Q are finite decimals (Bounds' ρ is a float64, read as
	// the decimal that prints it).
	for _, q := range []int64{2, 4, 5, 8} {
		for r := int64(0); 2*r < q; r++ { // ρ below MaxDrift
			for m := int64(0); m < 8; m++ {
				for l := int64(0); l <= 24; l++ {
					for _, pd := range [][2]int64{{0, 0}, {1, 1}, {2, 0}} {
						ticks := Ticks{Q: q, R: r, J: 1, P: pd[0], D: pd[1], TTL: 8, M: m, L: l}
						got, err := CheckTicks(ticks)
						require.NoError(t, err)
						cont, err := Check(ticks.Bounds(time.Millisecond))
						require.NoError(t, err)
						exact := (ticks.TTL-m+ticks.J)%(q-r) == 0 && (ticks.TTL+l-ticks.J)%(q+r) == 0
						for k := range got {
							if got[k].Safe {
								require.True(t, cont[k].Safe, "%+v %s", ticks, got[k].Property)
							}
							if exact {
								require.Equal(t, cont[k].Safe, got[k].Safe, "%+v %s", ticks, got[k].Property)
							}
							if got[k].Safe != cont[k].Safe {
								differ++
							}
						}
					}
				}
			}
		}
	}
	assert.Positive(t, differ, "the grid has points where the two differ")
}

// TestTimedModelsFollowCheckTicks: every timed model of the rows (the
// manifest's family "timed", cmd/specgen writes them from the rows)
// expects the verdict CheckTicks gives its constants — violated where the
// discrete condition is unsafe, holds where it is safe — and lets the
// other client ask late enough to reach the next grant; the models where
// Check (real time) differs from it are there, named _M5_, and expect
// the discrete verdict. Fencing all keeps NoLostUpdate whatever the
// bounds; witnesses are checked elsewhere (their constants are a
// checked model's).
func TestTimedModelsFollowCheckTicks(t *testing.T) {
	checked, differ := 0, 0
	for _, d := range impl.Designs() {
		for _, s := range d.Specs() {
			if !s.Timed {
				continue
			}
			for _, m := range s.Models {
				if strings.HasSuffix(m.Suffix, "Witness") {
					continue
				}
				consts := map[string]string{}
				for _, c := range append(append([]impl.Constant(nil), s.Constants...), m.Set...) {
					consts[c.Name] = c.Value
				}
				num := func(name string) int64 {
					n, err := strconv.ParseInt(consts[name], 10, 64)
					require.NoError(t, err, "%s: %s", m.Name(s), name)
					return n
				}
				ticks := Ticks{Q: num("Q"), R: num("R"), J: num("J"), P: num("P"), D: num("D"), TTL: num("TTL"), M: num("M"), L: num("L")}
				verdicts, err := CheckTicks(ticks)
				require.NoError(t, err)
				cont, err := Check(ticks.Bounds(time.Millisecond))
				require.NoError(t, err)
				for k, v := range verdicts {
					if !contains(m.Invariants, v.Property) {
						continue
					}
					checked++
					want := !v.Safe
					if consts["Fencing"] == `"all"` && v.Property == impl.NoLostUpdate {
						want = false
					}
					assert.Equal(t, want, m.Violates == v.Property, "%s: %s expected %v by CheckTicks %+v", m.Name(s), v.Property, want, v)
					assert.GreaterOrEqual(t, num("MaxStart"), v.MaxStart, "%s: the other client may ask by the next grant", m.Name(s))
					if cont[k].Safe != v.Safe && consts["Fencing"] == `"off"` {
						differ++
						assert.Contains(t, m.Suffix, "_M5_", "%s: a point where the conditions differ", m.Name(s))
					}
				}
			}
		}
	}
	assert.GreaterOrEqual(t, checked, 10)
	assert.Equal(t, 2, differ, "the manifest's points where Check and CheckTicks differ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestCheckTickIsCheckTicks: CheckTick on a Ticks' constants in real time
// (a clock unit of 1ms, a tick of Q ms) is CheckTicks, over the grid of
// TestCheckTicksIsStricterEverywhere; and the point: M = 5, L = 6
// with a clock unit of 1s is safe by 1.07s in real time, violated on
// ticks of 4s.
func TestCheckTickIsCheckTicks(t *testing.T) {
	for _, q := range []int64{2, 4, 5, 8} {
		for r := int64(0); 2*r < q; r++ {
			for m := int64(0); m < 8; m++ {
				for l := int64(0); l <= 24; l++ {
					for _, pd := range [][2]int64{{0, 0}, {1, 1}, {2, 0}} {
						ticks := Ticks{Q: q, R: r, J: 1, P: pd[0], D: pd[1], TTL: 8, M: m, L: l}
						want, err := CheckTicks(ticks)
						require.NoError(t, err)
						got, err := CheckTick(ticks.Bounds(time.Millisecond), time.Duration(q)*time.Millisecond)
						require.NoError(t, err)
						require.Equal(t, want, got, "%+v", ticks)
					}
				}
			}
		}
	}
	b := nominalTicks(5, 6).Bounds(time.Second)
	cont, err := Check(b)
	require.NoError(t, err)
	assert.True(t, cont[0].Safe)
	assert.Equal(t, "1.066666667s", cont[0].Slack.String())
	tick, err := CheckTick(b, 4*time.Second)
	require.NoError(t, err)
	assert.False(t, tick[0].Safe)
	assert.Equal(t, [3]int64{2, 3, 1}, [3]int64{tick[0].Due, tick[0].Next, tick[0].X})
	_, err = CheckTick(b, 0)
	assert.ErrorContains(t, err, "tick must be positive")
}

// TestCheckTickRoundsPausesAndDelaysUp: in the timed spec a pause and a
// delay last whole ticks, so CheckTick rounds each up to a tick — a real
// delay of a tick and a nanosecond may take two ticks, and rounding it
// down (or to the nearest) would call safe a spec that is not (issue 36:
// every pause and delay the tests gave was a whole number of ticks, so
// any rounding passed). Boundary classes around each multiple of the tick:
// zero, just above zero, just below, exactly, just above. The base is
// nominalTicks(3, 19) on a 1ms unit: Due 2, Next 6, so NoLostUpdate is
// safe while 2P + D < 4 and AtMostOneClientHoldLock while P < 4.
func TestCheckTickRoundsPausesAndDelaysUp(t *testing.T) {
	const tick = 4 * time.Millisecond
	for _, tc := range []struct {
		name         string
		pause, delay time.Duration
		p, d         int64   // in ticks, rounded up
		safe         [2]bool // Properties order
	}{
		{"no pause, no delay", 0, 0, 0, 0, [2]bool{true, true}},
		{"delay 1ns", 0, 1, 0, 1, [2]bool{true, true}},
		{"delay just below a tick", 0, tick - 1, 0, 1, [2]bool{true, true}},
		{"delay a tick", 0, tick, 0, 1, [2]bool{true, true}},
		{"delay just above a tick", 0, tick + 1, 0, 2, [2]bool{true, true}},
		{"delay just below 2 ticks", 0, 2*tick - 1, 0, 2, [2]bool{true, true}},
		{"delay 2 ticks", 0, 2 * tick, 0, 2, [2]bool{true, true}},
		{"delay just above 3 ticks", 0, 3*tick + 1, 0, 4, [2]bool{true, false}},
		{"pause 1ns", 1, 0, 1, 0, [2]bool{true, true}},
		{"pause just below a tick", tick - 1, tick, 1, 1, [2]bool{true, true}},
		{"pause a tick", tick, tick, 1, 1, [2]bool{true, true}},
		{"pause just above a tick", tick + 1, tick, 2, 1, [2]bool{true, false}},
		{"pause and delay just above a tick", tick + 1, tick + 1, 2, 2, [2]bool{true, false}},
		{"pause just above 3 ticks", 3*tick + 1, 0, 4, 0, [2]bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := nominalTicks(3, 19).Bounds(time.Millisecond)
			b.Pause, b.Delay = tc.pause, tc.delay
			got, err := CheckTick(b, tick)
			require.NoError(t, err)
			require.Len(t, got, 2)
			for k, x := range []int64{tc.p, 2*tc.p + tc.d} {
				assert.Equal(t, [3]int64{2, 6, x}, [3]int64{got[k].Due, got[k].Next, got[k].X}, got[k].Property)
				assert.Equal(t, tc.safe[k], got[k].Safe, got[k].Property)
			}
		})
	}
}

// TestCeilDiv: ⌈a/b⌉ for b > 0 at each class of a: a multiple of b, just
// above and just below one, zero, and the same below zero, where Go's
// division truncates up already — by ceilDiv (CheckTicks) and ceilRat
// (CheckTick) alike.
func TestCeilDiv(t *testing.T) {
	for _, tc := range []struct{ a, b, want int64 }{
		{8, 4, 2}, {9, 4, 3}, {7, 4, 2}, {1, 4, 1}, {0, 4, 0},
		{-1, 4, 0}, {-4, 4, -1}, {-5, 4, -1}, {-7, 4, -1}, {-8, 4, -2},
		{13, 5, 3}, {4, 3, 2}, {5, 1, 5},
	} {
		assert.Equal(t, tc.want, ceilDiv(tc.a, tc.b), "ceilDiv: ⌈%d/%d⌉", tc.a, tc.b)
		assert.Equal(t, tc.want, ceilRat(big.NewRat(tc.a, tc.b)), "ceilRat: ⌈%d/%d⌉", tc.a, tc.b)
	}
}
