// Package fencedlock is the example of fencetest: a user's own lock and
// store, tested inside go test. Lock is an in-memory lease lock that
// hands out increasing tokens (a grant lasts its TTL unless released);
// Store is the shared resource, fenced (it refuses a token below the
// highest it has seen, on every operation: row all) or not (it ignores
// tokens: the broken one).
package fencedlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fencelab/fencelab/live/lock"
)

// Lock is a lease lock with a token counter.
type Lock struct {
	ttl    time.Duration
	mu     sync.Mutex
	last   uint64    // the last token granted
	holder uint64    // the token holding the lock, 0 when free
	until  time.Time // when the holder's lease ends
}

// NewLock is a free lock whose grants last ttl.
func NewLock(ttl time.Duration) *Lock { return &Lock{ttl: ttl} }

// ErrNotHolder is Release's error for a token that no longer holds the
// lock (its lease ended, another was granted).
var ErrNotHolder = errors.New("not the holder")

// tryAcquire grants the lock if it is free or its holder's lease ended.
func (l *Lock) tryAcquire(now time.Time) (uint64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.holder != 0 && now.Before(l.until) {
		return 0, false
	}
	l.last++
	l.holder, l.until = l.last, now.Add(l.ttl)
	return l.last, true
}

// Acquire waits for the lock (polling every millisecond, until ctx ends)
// and returns its grant: the token, the lease's validity and when the
// granted attempt was made (the lease's start, by the send rule).
func (l *Lock) Acquire(ctx context.Context) (lock.Grant, error) {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		sent := time.Now()
		if token, ok := l.tryAcquire(sent); ok {
			return lock.Grant{Token: token, Validity: l.ttl, Sent: sent}, nil
		}
		select {
		case <-ctx.Done():
			return lock.Grant{}, fmt.Errorf("acquire: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// Release frees the lock if token still holds it.
func (l *Lock) Release(token uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.holder != token || !time.Now().Before(l.until) {
		return ErrNotHolder
	}
	l.holder = 0
	return nil
}

// Store is the shared counter, fenced or not.
type Store struct {
	fenced  bool
	mu      sync.Mutex
	highest uint64
	value   int64
}

// NewStore is a counter at 0; fenced says whether it checks tokens.
func NewStore(fenced bool) *Store { return &Store{fenced: fenced} }

// admit decides an operation with token (under s.mu).
func (s *Store) admit(token uint64) bool {
	if !s.fenced {
		return true
	}
	if token < s.highest {
		return false
	}
	s.highest = token
	return true
}

// Read returns the counter, if token is admitted.
func (s *Store) Read(token uint64) (int64, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.admit(token) {
		return 0, false, nil
	}
	return s.value, true, nil
}

// Write sets the counter to v, if token is admitted.
func (s *Store) Write(token uint64, v int64) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.admit(token) {
		return false, nil
	}
	s.value = v
	return true, nil
}
