package bounds

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/fencelab/fencelab/impl"
)

// Ticks are the constants of the timed spec (specs/DistLockTimed.tla): real
// time in integer ticks, a perfect clock running Q units a tick and any
// clock Q−R to Q+R (ρ = R/Q); TTL, M, L and J in clock units, P and D in
// ticks.
type Ticks struct {
	Q, R, J, P, D, TTL, M, L int64
}

// Validate reports the first constant out of the spec's ASSUME.
func (t Ticks) Validate() error {
	switch {
	case t.Q <= 0 || t.R < 0 || t.R >= t.Q:
		return fmt.Errorf("ticks: want 0 <= R < Q, got Q %d, R %d", t.Q, t.R)
	case t.J < 0 || t.P < 0 || t.D < 0 || t.L < 0 || t.M < 0:
		return fmt.Errorf("ticks: J, P, D, L and M must be at least 0")
	case t.M >= t.TTL:
		return fmt.Errorf("ticks: M (%d) must be less than TTL (%d)", t.M, t.TTL)
	}
	return nil
}

// Bounds are t in the derivation's terms with one clock unit = unit of
// time: ρ = R/Q, a tick is Q units of real time.
func (t Ticks) Bounds(unit time.Duration) Bounds {
	tick := time.Duration(t.Q) * unit
	return Bounds{
		Drift: float64(t.R) / float64(t.Q), Jump: time.Duration(t.J) * unit,
		Pause: time.Duration(t.P) * tick, Delay: time.Duration(t.D) * tick,
		TTL: time.Duration(t.TTL) * unit, Margin: time.Duration(t.M) * unit, LockDelay: time.Duration(t.L) * unit,
	}
}

// TickVerdict is the timed spec's own, discrete condition for one property.
type TickVerdict struct {
	Property string
	// X is P (AtMostOneClientHoldLock) or 2P + D (NoLostUpdate), in ticks.
	X int64
	// Due is the first tick at which the old holder's validity timer can
	// be due, counted from its send at tick 0, at the latest:
	// ⌈(TTL − M + J)/(Q − R)⌉ (its clock slow and stepped back J).
	Due int64
	// Next is the first tick at which the service, having granted at tick
	// 0, may grant again, at the earliest: ⌈(TTL + L − J)/(Q + R)⌉ (its
	// clock fast and stepped forward J).
	Next int64
	// Safe is Next > Due + X: the old holder's belief (handled at most P
	// ticks after Due) — or its write (sent by then, landing P + D ticks
	// later at most) — is over before the tick of the next grant. Events
	// happen on ticks, so the spec's moments are the derivation's rounded
	// up to a tick: Safe implies Check's verdict, not the converse.
	Safe bool
	// MaxStart is the tick by which the other client must ask so that the
	// models reach the next grant: Next.
	MaxStart int64
}

// CheckTicks evaluates the timed spec's discrete condition for every
// property (Properties' order), without renewal. With renewal the bound is
// the same, counted from the latest renewal (DistLockTimed.tla's header):
// the models then need MaxStart to reach past the renewal too.
func CheckTicks(t Ticks) ([]TickVerdict, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	due := ceilDiv(t.TTL-t.M+t.J, t.Q-t.R)
	next := ceilDiv(t.TTL+t.L-t.J, t.Q+t.R)
	var out []TickVerdict
	for _, p := range []struct {
		name string
		x    int64
	}{{impl.AtMostOneClientHoldLock, t.P}, {impl.NoLostUpdate, 2*t.P + t.D}} {
		out = append(out, TickVerdict{Property: p.name, X: p.x, Due: due, Next: next, Safe: next > due+p.x, MaxStart: max(next, 0)})
	}
	return out, nil
}

// ceilDiv is ⌈a/b⌉ for b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a > 0) == (b > 0) {
		q++
	}
	return q
}

// CheckTick is the discrete condition for bounds b in real time, one tick
// being tick: the timed spec's, whose timers fire and grants happen only
// on ticks, so that the old holder's window and the service's wait each
// end on the first tick at or after their real-time end, and a pause (a
// delay) lasts a whole number of ticks, rounded up. For b made of a
// Ticks' constants (Ticks.Bounds, a tick of Q units) it is CheckTicks.
// MaxStart is Next. b.MinDelay is not used: the spec's legs are
// instantaneous.
func CheckTick(b Bounds, tick time.Duration) ([]TickVerdict, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if tick <= 0 {
		return nil, fmt.Errorf("tick must be positive, got %v", tick)
	}
	rho, err := exactFraction(b.Drift)
	if err != nil {
		return nil, err
	}
	one := big.NewRat(1, 1)
	tau := ns(tick)
	window := quo(add(sub(ns(b.TTL), ns(b.Margin)), ns(b.Jump)), new(big.Rat).Sub(one, rho))
	next := quo(sub(add(ns(b.TTL), ns(b.LockDelay)), ns(b.Jump)), new(big.Rat).Add(one, rho))
	due, nxt := ceilRat(quo(window, tau)), ceilRat(quo(next, tau))
	p, d := ceilRat(quo(ns(b.Pause), tau)), ceilRat(quo(ns(b.Delay), tau))
	var out []TickVerdict
	for _, pr := range []struct {
		name string
		x    int64
	}{{impl.AtMostOneClientHoldLock, p}, {impl.NoLostUpdate, 2*p + d}} {
		out = append(out, TickVerdict{Property: pr.name, X: pr.x, Due: due, Next: nxt, Safe: nxt > due+pr.x, MaxStart: max(nxt, 0)})
	}
	return out, nil
}

// ceilRat is ⌈r⌉, clamped to the int64 range.
func ceilRat(r *big.Rat) int64 {
	f := floorInt(r)
	if !r.IsInt() {
		f.Add(f, big.NewInt(1))
	}
	if !f.IsInt64() {
		if f.Sign() < 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return f.Int64()
}
