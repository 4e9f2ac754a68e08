// Package bounds is the condition for a lease lock that is safe without
// fencing (docs/design/bounds.md), in one place: every command, test and
// picture that asks whether a set of bounds keeps a property asks Check.
//
// Bounds: per-node clock rate in [1−ρ, 1+ρ] of real time (Drift = ρ), the net
// clock step J during any interval a node measures, the one-way message
// delay D, the process pause P; the lease TTL, the client's margin M and the
// service's lock-delay L, in clock units. With X = P for
// AtMostOneClientHoldLock and X = 2P + D for NoLostUpdate, the property
// holds iff
//
//	(TTL − M + J)/(1−ρ) + X  <  (TTL + L − J)/(1+ρ)
//
// The slack is the right side minus the left (real time; safe iff it is
// positive); the margin must exceed (2ρ·TTL + 2J − (1−ρ)·L)/(1+ρ) + (1−ρ)·X
// and the lock-delay must exceed (1+ρ)·(TTL−M+J)/(1−ρ) − TTL + J + (1+ρ)·X.
//
// The arithmetic is exact (math/big rationals over nanoseconds; ρ is taken
// as the shortest decimal that prints it, so 0.1 is one tenth), so that a
// configuration exactly on the boundary — slack 0, where the old holder's
// last moment and the new holder's first coincide — is reported unsafe, as
// the strict inequality says.
package bounds

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/fencelab/fencelab/impl"
)

// MaxDrift is the exclusive upper bound of Drift: a clock keeps running
// forward at at least half speed.
const MaxDrift = 0.5

// Bounds are the assumptions of the derivation. Durations are in the flags'
// words: Jump, TTL, Margin and LockDelay in clock units; Delay and Pause in
// real time.
type Bounds struct {
	Drift     float64       // ρ, the largest clock rate error, as a fraction: 0.1 is ±10%
	Jump      time.Duration // J, the largest net clock step during one lease
	Delay     time.Duration // D, the longest one-way message delay
	Pause     time.Duration // P, the longest process pause
	TTL       time.Duration
	Margin    time.Duration // M, subtracted from the TTL for the client's belief
	LockDelay time.Duration // L, how long an expired lock is held back
	// MinDelay, d, is the shortest one-way message delay, 0 unless a
	// runtime guarantees more (the simulator's normal network: Processing
	// + Latency). With d = 0 the derivation's worst case takes the legs
	// between the requests and the beliefs as instantaneous — c1's acquire
	// reaching the service, the grant reaching c2 (and for NoLostUpdate
	// c2's read reaching the resource); a runtime whose every leg takes at
	// least d cannot, and gains Property.Legs·d of slack. The condition
	// is then exact for it.
	MinDelay time.Duration
}

// String names the bounds as the derivation does, e.g. "ρ 0.1, J 10ms,
// D 23.1ms, P 50ms, TTL 1s, M 200ms, L 100ms".
func (b Bounds) String() string {
	s := fmt.Sprintf("ρ %g, J %v, D %v, P %v, TTL %v, M %v, L %v", b.Drift, b.Jump, b.Delay, b.Pause, b.TTL, b.Margin, b.LockDelay)
	if b.MinDelay > 0 {
		s += fmt.Sprintf(", d %v", b.MinDelay)
	}
	return s
}

// Validate reports the first thing wrong with b as one line, naming the
// value by its flag (in impl.DurationBetween's words for durations).
func (b Bounds) Validate() error {
	if math.IsNaN(b.Drift) || b.Drift < 0 || b.Drift >= MaxDrift {
		return fmt.Errorf("max-drift must be a fraction at least 0 and below %g, got %g", MaxDrift, b.Drift)
	}
	for _, d := range []struct {
		flag  string
		value time.Duration
		lo    time.Duration
	}{
		{"ttl", b.TTL, time.Nanosecond}, {"margin", b.Margin, 0}, {"lock-delay", b.LockDelay, 0},
		{"max-jump", b.Jump, 0}, {"max-delay", b.Delay, 0}, {"max-pause", b.Pause, 0},
	} {
		if err := impl.DurationBetween(d.flag, d.value, d.lo, impl.MaxDuration); err != nil {
			return err
		}
	}
	if b.MinDelay < 0 || b.MinDelay > b.Delay {
		return fmt.Errorf("the shortest delay (%v) must be between 0 and max-delay (%v)", b.MinDelay, b.Delay)
	}
	if b.Margin >= b.TTL {
		return fmt.Errorf("margin (%v) must be less than ttl (%v)", b.Margin, b.TTL)
	}
	return nil
}

// Property is one property the condition is about, with its X.
type Property struct {
	Name string // impl.AtMostOneClientHoldLock or impl.NoLostUpdate
	// X is what comes on top of the old holder's window: P for
	// AtMostOneClientHoldLock (a pause extends the belief), 2P + D for
	// NoLostUpdate (and the write's own pause and delay).
	X func(b Bounds) time.Duration
	// Legs are the message legs between the two holders' moments that
	// take at least MinDelay each: c1's acquire to the service and the
	// grant to c2, and for NoLostUpdate c2's read to the resource.
	Legs int64
}

// Properties are the two properties the condition speaks about, in
// impl.Invariants order.
func Properties() []Property {
	return []Property{
		{Name: impl.AtMostOneClientHoldLock, X: func(b Bounds) time.Duration { return b.Pause }, Legs: 2},
		{Name: impl.NoLostUpdate, X: func(b Bounds) time.Duration { return 2*b.Pause + b.Delay }, Legs: 3},
	}
}

// Verdict is what the condition says about one property under bounds.
type Verdict struct {
	Property string
	X        time.Duration
	// Safe is the exact inequality: the slack is positive.
	Safe bool
	// Slack is (TTL+L−J)/(1+ρ) − (TTL−M+J)/(1−ρ) − X (+ Legs·MinDelay) in real time,
	// rounded to the nanosecond (Safe is decided exactly, before rounding).
	Slack time.Duration
	// MarginAbove and LockDelayAbove are the smallest safe margin and
	// lock-delay, each with the other bounds as given: the property holds
	// iff the margin exceeds MarginAbove (iff the lock-delay exceeds
	// LockDelayAbove). They are the exact thresholds rounded down to the
	// nanosecond, so "a duration exceeds it" is exact for whole
	// nanoseconds. A negative value means every margin (lock-delay) does;
	// a MarginAbove of TTL−1ns or more means no margin below the TTL does.
	MarginAbove    time.Duration
	LockDelayAbove time.Duration
}

// Check evaluates the condition for every property, after validating b.
func Check(b Bounds) ([]Verdict, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	rho, err := exactFraction(b.Drift)
	if err != nil {
		return nil, err
	}
	one := big.NewRat(1, 1)
	slow := new(big.Rat).Sub(one, rho) // 1 − ρ
	fast := new(big.Rat).Add(one, rho) // 1 + ρ
	ttl, m, l, j := ns(b.TTL), ns(b.Margin), ns(b.LockDelay), ns(b.Jump)

	// window = (TTL − M + J)/(1−ρ): the old holder's belief, at the latest.
	window := quo(add(sub(ttl, m), j), slow)
	// next = (TTL + L − J)/(1+ρ): the next grant, at the earliest.
	next := quo(sub(add(ttl, l), j), fast)
	var out []Verdict
	for _, p := range Properties() {
		x := p.X(b)
		// X less the legs' least time: with MinDelay 0, X.
		xd := sub(ns(x), ns(time.Duration(p.Legs)*b.MinDelay))
		slack := sub(sub(next, window), xd)
		// M_min = (2ρ·TTL + 2J − (1−ρ)·L)/(1+ρ) + (1−ρ)·(X − Legs·d)
		two := big.NewRat(2, 1)
		mMin := add(quo(sub(add(mul(mul(two, rho), ttl), mul(two, j)), mul(slow, l)), fast), mul(slow, xd))
		// L_min = (1+ρ)·(TTL−M+J)/(1−ρ) − TTL + J + (1+ρ)·(X − Legs·d)
		lMin := add(add(sub(mul(fast, window), ttl), j), mul(fast, xd))
		out = append(out, Verdict{
			Property:       p.Name,
			X:              x,
			Safe:           slack.Sign() > 0,
			Slack:          round(slack),
			MarginAbove:    floor(mMin),
			LockDelayAbove: floor(lMin),
		})
	}
	return out, nil
}

// exactFraction is ρ as the decimal that prints it: 0.1 is 1/10, not the
// binary double nearest to it.
func exactFraction(f float64) (*big.Rat, error) {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	if !ok {
		return nil, errors.New("max-drift is not a number")
	}
	return r, nil
}

func ns(d time.Duration) *big.Rat    { return new(big.Rat).SetInt64(int64(d)) }
func add(a, b *big.Rat) *big.Rat     { return new(big.Rat).Add(a, b) }
func sub(a, b *big.Rat) *big.Rat     { return new(big.Rat).Sub(a, b) }
func mul(a, b *big.Rat) *big.Rat     { return new(big.Rat).Mul(a, b) }
func quo(a, b *big.Rat) *big.Rat     { return new(big.Rat).Quo(a, b) }
func floorInt(r *big.Rat) *big.Int   { return new(big.Int).Div(r.Num(), r.Denom()) } // Euclidean: floor for a positive denominator
func floor(r *big.Rat) time.Duration { return clampDuration(floorInt(r)) }
func clampDuration(i *big.Int) time.Duration {
	if !i.IsInt64() {
		if i.Sign() < 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return time.Duration(i.Int64())
}

// round is r to the nearest nanosecond (halves away from zero).
func round(r *big.Rat) time.Duration {
	half := big.NewRat(1, 2)
	if r.Sign() < 0 {
		return -clampDuration(floorInt(add(new(big.Rat).Neg(r), half)))
	}
	return clampDuration(floorInt(add(r, half)))
}
