//go:build !linux

package sim

import "time"

// threadTime is wall time where no per-thread CPU clock is at hand.
func threadTime() time.Duration { return time.Duration(time.Now().UnixNano()) }
