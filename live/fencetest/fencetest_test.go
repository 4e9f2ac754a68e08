package fencetest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/lock"
	"github.com/stretchr/testify/assert"
)

// fakeTB records Errorf, Fatalf (which ends its goroutine, as testing's
// does) and Logf.
type fakeTB struct {
	testing.TB
	mu                 sync.Mutex
	errors, fatal, log []string
}

func (f *fakeTB) Errorf(format string, args ...any) { f.add(&f.errors, format, args) }
func (f *fakeTB) Logf(format string, args ...any)   { f.add(&f.log, format, args) }
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.add(&f.fatal, format, args)
	runtime.Goexit()
}

func (f *fakeTB) add(to *[]string, format string, args []any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	*to = append(*to, fmt.Sprintf(format, args...))
}

// inGoroutine runs fn where a Fatalf may end it.
func inGoroutine(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
}

// TestNewRefusesBadOptions: no lease, an unknown row: the test fails at
// once, saying which.
func TestNewRefusesBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no ttl", Options{}, "Options.TTL 0s"},
		{"negative ttl", Options{TTL: -time.Second}, "Options.TTL -1s"},
		{"unknown row", Options{TTL: time.Second, Design: "fort-knox"}, "unknown design"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeTB{TB: t}
			inGoroutine(func() { New(fake, tc.opts) })
			if assert.Len(t, fake.fatal, 1) {
				assert.Contains(t, fake.fatal[0], tc.want)
			}
		})
	}
}

// TestCheckMalformedAndInconclusive: a client used for two calls at once
// is a malformed history, an error (never a verdict); a history with no
// fault is judged, its verdicts not violated said unknown in the log,
// and no error.
func TestCheckMalformedAndInconclusive(t *testing.T) {
	fake := &fakeTB{TB: t}
	rec := New(fake, Options{TTL: time.Second})
	c := rec.Client()
	c.Read(1, func() (int64, bool, error) {
		c.Write(1, 1, func() (bool, error) { return true, nil }) // inside the read: two calls at once
		return 0, true, nil
	})
	assert.Nil(t, rec.Check())
	if assert.Len(t, fake.errors, 1) {
		assert.Contains(t, fake.errors[0], "c1 calls write while its read is pending")
	}

	fake = &fakeTB{TB: t}
	rec = New(fake, Options{TTL: time.Second})
	c = rec.Client()
	g, err := c.Acquire(func() (lock.Grant, error) { return lock.Grant{Token: 3, Validity: time.Second}, nil })
	assert.NoError(t, err)
	assert.True(t, c.MayAct())
	c.Read(g.Token, func() (int64, bool, error) { return 0, true, nil })
	c.Write(g.Token, 1, func() (bool, error) { return true, nil })
	assert.NoError(t, c.Release(g.Token, func() error { return nil }))
	assert.False(t, c.MayAct(), "released: no grant to act on")
	_, err = c.Acquire(func() (lock.Grant, error) { return lock.Grant{}, errors.New("busy") })
	assert.Error(t, err)
	got := rec.Check()
	assert.NotNil(t, got)
	assert.Empty(t, fake.errors)
	assert.Contains(t, strings.Join(fake.log, "\n"), "NoLostUpdate unknown: inconclusive")
}
