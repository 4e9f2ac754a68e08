// Package conform checks that a client command speaks the lock-client
// protocol (docs/protocol.md) against a real server of its service:
// fencelab-live conform-client. Each check is a line; the first breach of
// the protocol ends the checks that need the instance that broke it.
package conform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/setup"
)

// TTL is the lease the checks ask for: long enough that the first
// instance's grant cannot run out while the second is refused.
const TTL = 10 * time.Second

// Bounds of the checks' calls.
const (
	grantTimeout  = 5 * time.Second        // an acquire that must be granted
	refuseTimeout = 500 * time.Millisecond // an acquire that must be refused
	releaseTimout = 2 * time.Second
)

// Config is one conformance check.
type Config struct {
	// Command is the client command (sh -c).
	Command string
	// Setup is whose servers are started (its Start): the service's.
	Setup setup.Setup
	// TempRoot is where the servers' folder is made ("": the system's).
	TempRoot string
	// Stderr receives the instances' standard error (nil: discarded).
	Stderr io.Writer
}

// Check is one check's outcome: Err nil when it passed.
type Check struct {
	Name string
	Err  error
}

// Run starts the setup's servers, runs the checks with instances of the
// command, and stops everything it started. The error is the harness's
// (a server that would not start); the checks' outcomes are the result.
func Run(ctx context.Context, cfg Config) (checks []Check, err error) {
	tmp, err := os.MkdirTemp(cfg.TempRoot, "fencelab-conform-")
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(tmp)) }()
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dep, err := cfg.Setup.Start(ctx, setup.StartEnv{Dir: tmp, Self: self, Fault: history.FaultNone})
	if err != nil {
		return nil, fmt.Errorf("%s would not start: %w", cfg.Setup.Service, err)
	}
	defer func() { err = errors.Join(err, dep.Stop()) }()
	addrs := func(i int) ([]string, error) {
		if dep.Network != nil {
			return dep.Network.LockAddrs(i)
		}
		return dep.LockAddrs, nil
	}
	live, err := addrs(0)
	if err != nil {
		return nil, err
	}
	dead, err := closedPorts(len(live))
	if err != nil {
		return nil, err
	}
	second, err := addrs(1)
	if err != nil {
		return nil, err
	}
	if cfg.Stderr != nil {
		// The instances write it side by side.
		cfg.Stderr = &syncWriter{w: cfg.Stderr}
	}
	s := &session{cfg: cfg, ctx: ctx}
	defer s.closeAll()
	return s.run(live, second, dead), nil
}

// session is the instances of one check run.
type session struct {
	cfg       Config
	ctx       context.Context
	instances []*lock.Command
	checks    []Check
}

func (s *session) note(name string, err error) bool {
	s.checks = append(s.checks, Check{Name: name, Err: err})
	return err == nil
}

// start starts an instance named client (c1...) dialling addrs.
func (s *session) start(client string, addrs []string) (*lock.Command, error) {
	c, err := lock.NewCommand(s.ctx, lock.Config{Addrs: addrs, Key: "fencelab-conform", TTL: TTL, Client: client},
		lock.CommandOptions{Command: s.cfg.Command, Service: s.cfg.Setup.Service, OwnGroup: true, Stderr: s.cfg.Stderr})
	if err == nil {
		s.instances = append(s.instances, c)
	}
	return c, err
}

func (s *session) call(d time.Duration, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(s.ctx, d)
	defer cancel()
	return f(ctx)
}

func (s *session) acquire(c *lock.Command, d time.Duration) error {
	return s.call(d, func(ctx context.Context) error { _, err := c.Acquire(ctx); return err })
}

func (s *session) release(c *lock.Command) error {
	return s.call(releaseTimout, func(ctx context.Context) error { return c.Release(ctx, lock.Grant{}) })
}

// run is the checks in order; one that fails ends those that need it.
func (s *session) run(live, second, dead []string) []Check {
	a, err := s.start("c1", live)
	if !s.note("hello: the first instance answers with its library and version", err) {
		return s.checks
	}
	if !s.note("acquire: the first instance is granted the free lock", s.acquire(a, grantTimeout)) {
		return s.checks
	}
	b, err := s.start("c2", second)
	if !s.note("hello: a second instance answers", err) {
		return s.checks
	}
	err = refusal(s.acquire(b, refuseTimeout), "granted while the first instance holds the lock: two holders")
	if !s.note(fmt.Sprintf("acquire: the second instance is refused within its timeout_ms (%v) while the first holds the lock", refuseTimeout), err) {
		return s.checks
	}
	if !s.note("release: the first instance gives the lock back", s.release(a)) {
		return s.checks
	}
	if !s.note("acquire: then the second instance is granted", s.acquire(b, grantTimeout)) {
		return s.checks
	}
	if !s.note("release: and gives it back", s.release(b)) {
		return s.checks
	}
	s.deadService(dead)
	for i, c := range s.instances {
		s.note(fmt.Sprintf("close: instance c%d exits with status 0", i+1), c.Close())
	}
	s.instances = nil
	return s.checks
}

// deadService checks an instance whose service is not there: its hello
// is answered, its acquire refused in time.
func (s *session) deadService(dead []string) {
	c, err := s.start("c3", dead)
	if !s.note("hello: an instance whose addresses are closed ports answers all the same", err) {
		return
	}
	err = refusal(s.acquire(c, refuseTimeout), "granted by a service that is not there")
	s.note(fmt.Sprintf("acquire: that instance is refused within its timeout_ms (%v), neither hanging nor exiting", refuseTimeout), err)
}

// refusal is the check of an acquire that must be refused: nil for a
// refusal, granted's words for a grant, the breach for a breach.
func refusal(err error, granted string) error {
	var refused *lock.Refusal
	switch {
	case err == nil:
		return errors.New(granted)
	case errors.As(err, &refused):
		return nil
	}
	return err
}

// closeAll ends the instances a failed check left.
func (s *session) closeAll() {
	for _, c := range s.instances {
		c.Close()
	}
}

// closedPorts are n addresses on 127.0.0.1 nothing listens on (free
// ports, closed again).
func closedPorts(n int) ([]string, error) {
	var addrs []string
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, nil
}

// syncWriter serialises the writes of several processes' stderr copiers.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
