package lock

import (
	"context"
	"time"
)

// acquired is the outcome of an Acquire run in the background, and when
// it returned.
type acquired struct {
	g   Grant
	err error
	at  time.Time
}

// acquireAsync starts an Acquire in the background; the result arrives on
// the channel.
func acquireAsync(ctx context.Context, l Locker) <-chan acquired {
	out := make(chan acquired, 1)
	go func() {
		g, err := l.Acquire(ctx)
		out <- acquired{g, err, time.Now()}
	}()
	return out
}
