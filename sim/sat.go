package sim

import (
	"math"
	"time"
)

// Virtual time is int64 nanoseconds. Every bound of a configuration and a
// schedule keeps a run's times far below the int64 limit (impl.MaxDuration,
// MaxFaultLength, MaxAt, MaxScheduleFaults), and the arithmetic on times
// saturates besides: a sum that would pass the limit stays at it, so that a
// time never wraps around to the past (a node resuming before it was
// paused, a timer firing before it was set) whatever a caller passes in.

// satAdd is a+b, held at the int64 limits instead of wrapping.
func satAdd(a, b int64) int64 {
	s := a + b
	if (s^a)&(s^b) < 0 {
		// a and b share the sign s lost: past MaxInt64 if s wrapped to
		// negative, past MinInt64 if it wrapped to non-negative. One
		// branch: satAdd is on every send and timer of a run.
		return math.MinInt64 ^ s>>63
	}
	return s
}

// satSub is a-b, held at the int64 limits instead of wrapping.
func satSub(a, b int64) int64 {
	if b == math.MinInt64 {
		if a >= 0 {
			return math.MaxInt64
		}
		return a - b
	}
	return satAdd(a, -b)
}

// satMul is a·b for b ≥ 0, held at the int64 limits instead of wrapping.
func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if b < 0 {
		panic("sim: satMul with a negative factor")
	}
	if a > 0 && a > math.MaxInt64/b {
		return math.MaxInt64
	}
	if a < 0 && a < math.MinInt64/b {
		return math.MinInt64
	}
	return a * b
}

// durAdd is satAdd for durations.
func durAdd(ds ...time.Duration) time.Duration {
	var s int64
	for _, d := range ds {
		s = satAdd(s, int64(d))
	}
	return time.Duration(s)
}

// durMul is satMul for durations: d·n, n ≥ 0.
func durMul(d time.Duration, n int64) time.Duration { return time.Duration(satMul(int64(d), n)) }
