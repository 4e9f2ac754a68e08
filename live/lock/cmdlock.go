package lock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/fencelab/fencelab/internal/jsonline"
)

// The lock-client protocol (docs/protocol.md, docs/protocol.schema.json):
// its name and version, and the bounds it sets.
const (
	ProtocolName    = "fencelab-lock-client/1"
	ProtocolVersion = 1
	// MaxReplyLine bounds a reply line, its newline excluded.
	MaxReplyLine = 4096
	// ReplyGrace is how long past a request's timeout_ms its reply may
	// come.
	ReplyGrace = time.Second
	// CloseGrace is how long a client command has to exit after close.
	CloseGrace = 2 * time.Second
	// HelloTimeout is how long a client command has to answer hello: an
	// interpreter's start and its imports.
	HelloTimeout = 10 * time.Second
	// maxTimeout is the largest timeout_ms a request carries (the schema's
	// millis).
	maxTimeout = time.Hour
	// maxError bounds a refusal's error text (the schema's errorText).
	maxError = 500
	// maxTokenJS is the largest token: 2^53-1, an integer every JSON
	// reader (JavaScript's numbers) keeps exact.
	maxTokenJS = 1<<53 - 1
)

// ProtocolError is a client command that broke the protocol: a harness
// error naming the line, never a verdict (RunClient ends on it).
type ProtocolError struct {
	// Msg names the line and what was wrong with it.
	Msg string
}

func (e *ProtocolError) Error() string { return "client command broke " + ProtocolName + ": " + e.Msg }

// CommandOptions say how a client command is run.
type CommandOptions struct {
	// Command is run with sh -c.
	Command string
	// Service is the hello's service name.
	Service string
	// OwnGroup starts the command in a process group of its own, ended
	// whole by Close (conform-client). false keeps it in the caller's
	// group: a run's client role, whose group the nemesis pauses.
	OwnGroup bool
	// Stderr receives the command's standard error (nil: discarded).
	Stderr io.Writer
}

// Command is a Locker whose lock is taken by a process speaking the
// lock-client protocol: the user's lock in any language. One request is
// outstanding at a time; a breach of the protocol is a *ProtocolError,
// after which every call fails with it.
type Command struct {
	opts CommandOptions
	proc *jsonline.Proc

	inLine  int   // requests written
	outLine int   // reply lines taken
	broken  error // the first breach, or the end of the process
	// Library and Version are the hello reply's.
	Library, Version string
}

var _ Locker = (*Command)(nil)

// request is every request's fields (the schema's $defs/request).
type request struct {
	Op        string   `json:"op"`
	V         int      `json:"v,omitempty"`
	Client    string   `json:"client,omitempty"`
	Service   string   `json:"service,omitempty"`
	Key       string   `json:"key,omitempty"`
	TTLms     int64    `json:"ttl_ms,omitempty"`
	Addrs     []string `json:"addrs,omitempty"`
	TimeoutMs int64    `json:"timeout_ms,omitempty"`
}

// Reply is every reply's fields (the schema's $defs/reply); ParseReply
// checks which combination a line is.
type Reply struct {
	Op         *string `json:"op"`
	OK         *bool   `json:"ok"`
	Error      *string `json:"error"`
	Library    *string `json:"library"`
	Version    *string `json:"version"`
	Token      *uint64 `json:"token"`
	Value      *string `json:"value"`
	ValidityMs *int64  `json:"validity_ms"`
}

// Refusal is a call the client command refused ("ok":false): the
// library's answer, not a breach.
type Refusal struct{ Op, Msg string }

func (e *Refusal) Error() string { return e.Op + " refused: " + e.Msg }

// NewCommand starts opts.Command and says hello with cfg; it returns the
// Locker once the hello is answered. A refused hello is a breach too: the
// run cannot go on without the client.
func NewCommand(ctx context.Context, cfg Config, opts CommandOptions) (*Command, error) {
	if opts.Command == "" {
		return nil, errors.New("client command: empty")
	}
	if len(cfg.Addrs) == 0 || cfg.Key == "" || cfg.TTL < time.Millisecond || cfg.TTL > maxTimeout {
		return nil, fmt.Errorf("client command: needs addresses, a key and a TTL of 1ms to 1h (got %d addresses, key %q, TTL %v)", len(cfg.Addrs), cfg.Key, cfg.TTL)
	}
	// The client role killed, its command goes with it (Start's
	// Pdeathsig).
	proc, err := jsonline.Start(opts.Command, opts.OwnGroup, opts.Stderr, MaxReplyLine)
	if err != nil {
		return nil, fmt.Errorf("client command: %w", err)
	}
	c := &Command{opts: opts, proc: proc}
	r, err := c.call(ctx, request{Op: "hello", V: ProtocolVersion, Client: cfg.Client, Service: opts.Service,
		Key: cfg.Key, TTLms: cfg.TTL.Milliseconds(), Addrs: cfg.Addrs}, HelloTimeout)
	if err == nil {
		c.Library, c.Version = *r.Library, *r.Version
		return c, nil
	}
	var refused *Refusal
	if errors.As(err, &refused) {
		err = c.breach(fmt.Sprintf("input line 1 (%q) refused: %s", "hello", refused.Msg))
	}
	c.stop()
	return nil, err
}

// breach records the first breach of the protocol and returns it.
func (c *Command) breach(msg string) error {
	if c.broken == nil {
		c.broken = &ProtocolError{Msg: msg}
	}
	return c.broken
}

// Acquire asks for the lock, for as long as ctx leaves (at most an hour).
func (c *Command) Acquire(ctx context.Context) (Grant, error) {
	r, err := c.call(ctx, request{Op: "acquire"}, timeoutOf(ctx))
	if err != nil {
		return Grant{}, err
	}
	// validity_ms is what is left as the reply was written: the window
	// starts at the reply's arrival, a moment later.
	g := Grant{Sent: time.Now()}
	if r.Token != nil {
		g.Token = *r.Token
	}
	if r.Value != nil {
		g.Value = *r.Value
	}
	if r.ValidityMs != nil {
		g.Validity = time.Duration(*r.ValidityMs) * time.Millisecond
	}
	return g, nil
}

// Release gives the lock back; the command knows which grant it holds.
func (c *Command) Release(ctx context.Context, _ Grant) error {
	_, err := c.call(ctx, request{Op: "release"}, timeoutOf(ctx))
	return err
}

// timeoutOf is the time ctx leaves, within the protocol's bounds.
func timeoutOf(ctx context.Context) time.Duration {
	d := maxTimeout
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl))
	}
	return max(d, time.Millisecond)
}

// Close sends close and waits CloseGrace for the command to exit with
// status 0; after that, or after a breach, it kills it. The error is a
// breach: an exit status other than 0, a line written after the last
// reply, or no exit in time.
func (c *Command) Close() error {
	var err error
	if c.broken == nil {
		c.inLine++
		// A command that closed its input already may still exit as
		// asked: a write that fails here is no breach of its own.
		if b, merr := json.Marshal(request{Op: "close"}); merr == nil {
			c.proc.In.Write(append(b, '\n'))
		}
		err = c.awaitExit()
	}
	c.stop()
	var breach *ProtocolError
	if errors.As(c.broken, &breach) {
		return c.broken
	}
	return err
}

// errEnded marks a command that ended as asked (after close): its later
// calls fail, and it is no breach.
var errEnded = errors.New("client command: closed")

// awaitExit waits CloseGrace for the command to exit after close,
// reading what it still writes: every such line is a reply to nothing.
func (c *Command) awaitExit() error {
	extra, readErr, timedOut := c.proc.AwaitExit(CloseGrace)
	switch {
	case extra != nil:
		c.outLine++
		return c.breach(fmt.Sprintf("output line %d %s: a reply to nothing (no request outstanding)", c.outLine, quoteLine(extra)))
	case readErr != nil:
		return c.breach(fmt.Sprintf("output after line %d: %v", c.outLine, readErr))
	case timedOut:
		return c.breach(fmt.Sprintf("the client command did not exit within %v of close (input line %d)", CloseGrace, c.inLine))
	case c.proc.WaitErr() != nil:
		return c.breach(fmt.Sprintf("the client command exited (%v) after close (want exit status 0)", c.proc.WaitErr()))
	}
	c.broken = errEnded
	return nil
}

// stop ends the command and waits until it is reaped (jsonline.Proc's
// Stop).
func (c *Command) stop() { c.proc.Stop() }

func (c *Command) write(req request) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := c.proc.In.Write(append(b, '\n')); err != nil {
		// A closed input is, nearly always, a command that ended: say so.
		select {
		case <-c.proc.Exited():
			return c.breach(fmt.Sprintf("the client command exited (%s) before it read input line %d (%q)", c.proc.Status(), c.inLine, req.Op))
		case <-time.After(CloseGrace):
			return c.breach(fmt.Sprintf("input line %d (%q) could not be written: %v", c.inLine, req.Op, err))
		}
	}
	return nil
}

// call writes req, timeout_ms set from timeout, and waits for its reply:
// timeout plus ReplyGrace on a clock that stops while this process is
// stopped (pausedClock). ctx's cancellation (not its deadline, which is
// timeout) ends the wait with ctx's error, and the command is then of no
// more use.
func (c *Command) call(ctx context.Context, req request, timeout time.Duration) (*Reply, error) {
	if c.broken != nil {
		return nil, c.broken
	}
	// A line waiting before the request is a reply to nothing.
	select {
	case l := <-c.proc.Lines:
		if l.Err == nil {
			c.outLine++
			return nil, c.breach(fmt.Sprintf("output line %d %s: a reply to nothing (no request outstanding)", c.outLine, quoteLine(l.Text)))
		}
		return nil, c.ended(l.Err, req.Op)
	default:
	}
	timeout = min(max(timeout, time.Millisecond), maxTimeout).Truncate(time.Millisecond)
	if req.Op != "hello" {
		req.TimeoutMs = timeout.Milliseconds()
	}
	c.inLine++
	if err := c.write(req); err != nil {
		return nil, err
	}
	clock := newPausedClock(timeout + ReplyGrace)
	defer clock.stop()
	done := ctx.Done()
	for {
		select {
		case l := <-c.proc.Lines:
			if l.Err != nil {
				return nil, c.ended(l.Err, req.Op)
			}
			c.outLine++
			return c.parse(l.Text, req.Op)
		case <-clock.expired:
			within := fmt.Sprintf("its timeout_ms (%d) and %v", req.TimeoutMs, ReplyGrace)
			if req.Op == "hello" {
				within = timeout.String()
			}
			return nil, c.breach(fmt.Sprintf("no reply to input line %d (%q) within %s", c.inLine, req.Op, within))
		case <-done:
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				done = nil // the reply has its grace yet
				continue
			}
			c.broken = ctx.Err()
			return nil, ctx.Err()
		}
	}
}

// ended is the breach of an output that ended (err: io.EOF, or why it
// could not be read) while request op was outstanding.
func (c *Command) ended(err error, op string) error {
	if err != io.EOF {
		return c.breach(fmt.Sprintf("output after line %d: %v", c.outLine, err))
	}
	select {
	case <-c.proc.Exited():
	case <-time.After(CloseGrace):
		return c.breach(fmt.Sprintf("the client command closed its output before it replied to input line %d (%q)", c.inLine, op))
	}
	return c.breach(fmt.Sprintf("the client command exited (%s) before it replied to input line %d (%q)", c.proc.Status(), c.inLine, op))
}

// parse checks line, the reply to request op, against the schema's
// reply: a refusal is a *Refusal, a breach a *ProtocolError.
func (c *Command) parse(line []byte, op string) (*Reply, error) {
	bad := func(format string, args ...any) error {
		return c.breach(fmt.Sprintf("output line %d %s: ", c.outLine, quoteLine(line)) + fmt.Sprintf(format, args...))
	}
	r, err := ParseReply(line)
	if err != nil {
		return nil, bad("%v", err)
	}
	if *r.Op != op {
		return nil, bad("a reply to %q, but input line %d was %q", *r.Op, c.inLine, op)
	}
	if !*r.OK {
		return r, &Refusal{Op: op, Msg: *r.Error}
	}
	return r, nil
}

// ParseReply reads one reply line by the schema's $defs/reply: one JSON
// object, no unknown field, and the fields its op and ok allow.
func ParseReply(line []byte) (*Reply, error) {
	var r Reply
	if err := jsonline.DecodeStrict(line, &r); err != nil {
		return nil, err
	}
	if r.Op == nil || r.OK == nil {
		return nil, errors.New(`a reply needs "op" and "ok"`)
	}
	// only says which fields a reply of this kind may carry.
	only := func(kind string, allowed map[string]bool) error {
		for name, set := range map[string]bool{"error": r.Error != nil, "library": r.Library != nil, "version": r.Version != nil,
			"token": r.Token != nil, "value": r.Value != nil, "validity_ms": r.ValidityMs != nil} {
			if set && !allowed[name] {
				return fmt.Errorf("field %q has no place in %s", name, kind)
			}
		}
		return nil
	}
	if !*r.OK {
		switch {
		case *r.Op != "hello" && *r.Op != "acquire" && *r.Op != "release":
			return nil, fmt.Errorf("unknown op %q", *r.Op)
		case r.Error == nil || *r.Error == "" || len([]rune(*r.Error)) > maxError:
			return nil, fmt.Errorf(`a refusal needs an "error" of 1 to %d characters`, maxError)
		}
		return &r, only("a refusal", map[string]bool{"error": true})
	}
	switch *r.Op {
	case "hello":
		if r.Library == nil || r.Version == nil || !textOK(*r.Library, 1, 100) || !textOK(*r.Version, 1, 100) {
			return nil, errors.New(`a hello reply needs "library" and "version" (1 to 100 characters)`)
		}
		return &r, only("a hello reply", map[string]bool{"library": true, "version": true})
	case "acquire":
		switch {
		case r.Token != nil && *r.Token > maxTokenJS:
			return nil, fmt.Errorf("token %d is over 2^53-1", *r.Token)
		case r.Value != nil && !textOK(*r.Value, 0, 200):
			return nil, errors.New("value is longer than 200 characters")
		case r.ValidityMs != nil && (*r.ValidityMs < 1 || *r.ValidityMs > maxTimeout.Milliseconds()):
			return nil, fmt.Errorf("validity_ms %d (want 1 to %d)", *r.ValidityMs, maxTimeout.Milliseconds())
		}
		return &r, only("a grant", map[string]bool{"token": true, "value": true, "validity_ms": true})
	case "release":
		return &r, only("a release reply", nil)
	}
	return nil, fmt.Errorf("unknown op %q", *r.Op)
}

func textOK(s string, lo, hi int) bool {
	n := len([]rune(s))
	return n >= lo && n <= hi
}

// quoteLine quotes the start of a line for an error.
func quoteLine(b []byte) string { return jsonline.Quote(b) }

// pausedClock fires after d of this process's running time: a gap
// between its ticks longer than pauseGap is time the process (and its
// group, the client command with it) was stopped, and is not counted, so
// a nemesis pause does not turn a reply on time into a late one.
type pausedClock struct {
	expired chan struct{}
	quit    chan struct{}
}

// pauseGap and clockTick: a tick late by more than pauseGap is a stop.
const (
	clockTick = 50 * time.Millisecond
	pauseGap  = 250 * time.Millisecond
)

func newPausedClock(d time.Duration) *pausedClock {
	p := &pausedClock{expired: make(chan struct{}), quit: make(chan struct{})}
	t := time.NewTicker(clockTick)
	go func() {
		defer t.Stop()
		p.run(d, time.Now(), t.C)
	}()
	return p
}

// run closes p.expired once the ticks have counted d of running time
// since start; a tick more than pauseGap after the one before counts as
// one tick.
func (p *pausedClock) run(d time.Duration, start time.Time, ticks <-chan time.Time) {
	last := start
	var ran time.Duration
	for ran < d {
		select {
		case <-p.quit:
			return
		case now := <-ticks:
			if gap := now.Sub(last); gap < pauseGap {
				ran += gap
			} else {
				ran += clockTick // stopped for the rest
			}
			last = now
		}
	}
	close(p.expired)
}

func (p *pausedClock) stop() { close(p.quit) }
