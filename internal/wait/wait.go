// Package wait is the live harness's two ways of waiting: for a time, or
// until a moment, each cut short when a context ends.
package wait

import (
	"context"
	"time"
)

// Sleep waits d or until ctx ends.
func Sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// Until waits until t or ctx's end; it reports whether t came.
func Until(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d > 0 {
		Sleep(ctx, d)
	}
	return ctx.Err() == nil
}
