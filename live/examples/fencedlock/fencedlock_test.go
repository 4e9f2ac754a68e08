package fencedlock

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/fencetest"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ttl is the example's lease: short, since c2 waits for c1's to end.
const ttl = 50 * time.Millisecond

// section is Kleppmann's story on the user's lock and store, recorded:
// c1 is granted and reads, then is paused (it waits, recorded as a
// pause) until c2 — granted once c1's lease ended — has read, written and
// released; on resuming c1 checks its lease and gives up (checks), or
// writes what it read plus one with its stale token (the broken client).
func section(t *testing.T, rec *fencetest.Recorder, lk *Lock, store *Store, checks bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c1, c2 := rec.Client(), rec.Client()
	read, done := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		g, err := c1.Acquire(func() (lock.Grant, error) { return lk.Acquire(ctx) })
		if err != nil {
			errs <- err
			close(read)
			return
		}
		token := g.Token
		v, _, _ := c1.Read(token, func() (int64, bool, error) { return store.Read(token) })
		paused := time.Now()
		close(read)
		<-done // paused until c2 is through
		rec.Paused(c1, paused, time.Now())
		if checks && !c1.MayAct() {
			c1.Expire(token)
			return
		}
		c1.Write(token, v+1, func() (bool, error) { return store.Write(token, v+1) })
		_ = c1.Release(token, func() error { return lk.Release(token) })
	}()
	go func() {
		defer wg.Done()
		defer close(done)
		<-read
		g, err := c2.Acquire(func() (lock.Grant, error) { return lk.Acquire(ctx) })
		if err != nil {
			errs <- err
			return
		}
		token := g.Token
		v, _, _ := c2.Read(token, func() (int64, bool, error) { return store.Read(token) })
		c2.Write(token, v+1, func() (bool, error) { return store.Write(token, v+1) })
		if err := c2.Release(token, func() error { return lk.Release(token) }); err != nil {
			errs <- fmt.Errorf("c2's release: %w", err)
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// TestFencedLockPasses: the fenced store and a client that checks its
// lease before acting: every verdict is what row all allows, and the
// pause took effect, so the verdicts held are held, not inconclusive.
func TestFencedLockPasses(t *testing.T) {
	rec := fencetest.New(t, fencetest.Options{Design: "all", TTL: ttl})
	section(t, rec, NewLock(ttl), NewStore(true), true)
	c := rec.Check()
	require.NotNil(t, c)
	assert.Empty(t, c.Unexpected())
	assert.True(t, c.Judgement.TookEffect, c.Judgement.Effect)
	for _, v := range c.Verdicts {
		if v.Property == "NoActionPastValidity" || v.Property == "RegisterLinearizable" {
			assert.Equal(t, "holds", v.Status, v.Property)
		}
	}
}

// fakeTB is a testing.TB whose Errorf is recorded, not a failure: how the
// example shows a broken lock's test fails, and says why.
type fakeTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

// TestBrokenLockIsCaught: the store that ignores tokens and a client that
// writes after its lease ended: the test of this lock fails, naming the
// lost update, the sections Porcupine cannot linearize and the act past
// validity, with the operations, and the pages and history are written.
func TestBrokenLockIsCaught(t *testing.T) {
	fake := &fakeTB{TB: t}
	dir := filepath.Join(t.TempDir(), "pages")
	rec := fencetest.New(fake, fencetest.Options{Design: "all", TTL: ttl, Fence: "none", Dir: dir})
	section(t, rec, NewLock(ttl), NewStore(false), false)
	c := rec.Check()
	require.NotNil(t, c)
	all := strings.Join(fake.errors, "\n")
	for _, want := range []string{
		"fencetest: NoLostUpdate violated, which row all says holds: c",
		"fencetest: SectionsLinearizable violated",
		"fencetest: NoActionPastValidity violated, which row all says holds: c1 called its write (token 1)",
		"operations:\n",
		"c1 write call token 1 value 1",
		filepath.Join(dir, "trace.html"),
	} {
		assert.Contains(t, all, want)
	}
	for _, name := range []string{"trace.html", "porcupine.html", "history.jsonl"} {
		_, err := os.Stat(filepath.Join(dir, name))
		assert.NoError(t, err, name)
	}
}
