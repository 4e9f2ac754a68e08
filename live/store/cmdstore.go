package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/jsonline"
)

// The resource protocol (docs/store-protocol.md,
// docs/store-protocol.schema.json): the user's own fenced store as a
// process, its name, version and bounds.
const (
	StoreProtocolName    = "fencelab-store/1"
	StoreProtocolVersion = 1
	// MaxStoreReply bounds a reply line but log's, its newline excluded.
	MaxStoreReply = 4096
	// MaxStoreLog bounds the log's reply line.
	MaxStoreLog = 1 << 20
	// StoreReplyTimeout is how long a read, write or log has for its
	// reply: the store is the harness's child, never paused by a fault.
	StoreReplyTimeout = 5 * time.Second
	// StoreHelloTimeout is how long the hello has: an interpreter's start,
	// its imports, its database opened.
	StoreHelloTimeout = 10 * time.Second
	// StoreCloseGrace is how long the store has to exit after close.
	StoreCloseGrace = 2 * time.Second
	// maxStoreStderr is how much of the store's stderr errors quote.
	maxStoreStderr = 4 << 10
	// maxJSONInt is 2^53-1: tokens and values every JSON reader keeps
	// exact.
	maxJSONInt = 1<<53 - 1
)

// StoreBreach is a store command that broke the resource protocol: a
// harness error naming the line, never a verdict.
type StoreBreach struct {
	// Msg names the line and what was wrong with it.
	Msg string
}

func (e *StoreBreach) Error() string {
	return "store command broke " + StoreProtocolName + ": " + e.Msg
}

// StoreFailure is an operation the store answered with an error (not a
// fencing refusal): its effect is unknown to the client, and the store
// must leave it out of its log.
type StoreFailure struct{ Op, Msg string }

func (e *StoreFailure) Error() string { return "the store failed the " + e.Op + ": " + e.Msg }

// StoreCommand is a fenced store run as a process speaking the resource
// protocol. Its calls are serialized: one request outstanding at a time,
// whatever goroutine makes it. It keeps every operation it forwarded and
// the store's decision, in order (Seen), which the store's log must
// repeat (Log). After a breach every call fails with it.
type StoreCommand struct {
	mode   impl.FenceMode
	proc   *jsonline.Proc
	stderr *jsonline.HeadBuffer

	mu      sync.Mutex
	inLine  int
	outLine int
	broken  error
	seen    []impl.Op
	closed  bool
	// Store names the store as its hello reply did.
	Store string
}

// storeRequest is every request's fields (the schema's $defs/request).
type storeRequest struct {
	Op      string  `json:"op"`
	V       int     `json:"v,omitempty"`
	Mode    string  `json:"mode,omitempty"`
	Row     string  `json:"row,omitempty"`
	Counter *int64  `json:"counter,omitempty"`
	Client  *int    `json:"client,omitempty"`
	Token   *uint64 `json:"token,omitempty"`
	Value   *int64  `json:"value,omitempty"`
}

// StoreReply is every reply's fields (the schema's $defs/reply);
// ParseStoreReply checks which combination a line is.
type StoreReply struct {
	Op      *string       `json:"op"`
	OK      *bool         `json:"ok"`
	Refused *bool         `json:"refused"`
	Error   *string       `json:"error"`
	Store   *string       `json:"store"`
	Value   *int64        `json:"value"`
	Ops     *[]StoreLogOp `json:"ops"`
}

// StoreLogOp is one operation of the store's log.
type StoreLogOp struct {
	Client   *int    `json:"client"`
	Kind     *string `json:"kind"`
	Token    *uint64 `json:"token"`
	Value    *int64  `json:"value"`
	Accepted *bool   `json:"accepted"`
}

// StartStoreCommand starts command (sh -c, in a process group of its
// own) and says hello with the fencing mode of row it claims; it returns
// once the hello is answered. Close ends it.
func StartStoreCommand(command string, mode impl.FenceMode, row string) (*StoreCommand, error) {
	if command == "" {
		return nil, errors.New("store command: empty")
	}
	stderr := &jsonline.HeadBuffer{Max: maxStoreStderr}
	proc, err := jsonline.Start(command, true, stderr, MaxStoreLog)
	if err != nil {
		return nil, fmt.Errorf("store command: %w", err)
	}
	c := &StoreCommand{mode: mode, proc: proc, stderr: stderr}
	zero := int64(0)
	r, err := c.call(storeRequest{Op: "hello", V: StoreProtocolVersion, Mode: mode.String(), Row: row, Counter: &zero}, StoreHelloTimeout)
	if err == nil {
		c.Store = *r.Store
		return c, nil
	}
	c.Close()
	return nil, err
}

// breach records the first breach and returns it, with the start of the
// store's stderr.
func (c *StoreCommand) breach(format string, args ...any) error {
	if c.broken == nil {
		msg := fmt.Sprintf(format, args...)
		if s := c.stderr.String(); s != "" {
			msg += "; its stderr: " + oneLine(s)
		}
		c.broken = &StoreBreach{Msg: msg}
	}
	return c.broken
}

// Err is the store's breach, or nil.
func (c *StoreCommand) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.breachErr()
}

// breachErr is Err for a caller that holds c.mu.
func (c *StoreCommand) breachErr() error {
	var b *StoreBreach
	if errors.As(c.broken, &b) {
		return b
	}
	return nil
}

// Do forwards one read or write (op's Client, Kind, Token and a write's
// Value) and returns it decided: Accepted, and a read's Value. A
// *StoreFailure is the store's error answer (the operation is not
// logged); a *StoreBreach ends the store's use.
func (c *StoreCommand) Do(op impl.Op) (impl.Op, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	client := int(op.Client) - int(impl.ClientNode(0))
	req := storeRequest{Op: op.Kind.String(), Client: &client, Token: &op.Token}
	if op.Kind == impl.OpWrite {
		req.Value = &op.Value
	} else {
		op.Value = 0
	}
	r, err := c.call(req, StoreReplyTimeout)
	if err != nil {
		return op, err
	}
	op.Accepted = *r.OK
	if op.Kind == impl.OpRead && op.Accepted {
		op.Value = *r.Value
	}
	c.seen = append(c.seen, op)
	return op, nil
}

// Seen is every operation the store decided, in the order forwarded.
func (c *StoreCommand) Seen() []impl.Op {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]impl.Op(nil), c.seen...)
}

// Log asks the store for its log and checks it against Seen: the same
// operations, the same decisions, in the same order. A difference is a
// breach naming the first operation that differs.
func (c *StoreCommand) Log() ([]impl.Op, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, err := c.call(storeRequest{Op: "log"}, StoreReplyTimeout)
	if err != nil {
		return nil, err
	}
	var ops []impl.Op
	for _, lo := range *r.Ops {
		op := impl.Op{Client: impl.ClientNode(*lo.Client), Kind: impl.OpRead, Token: *lo.Token, Value: *lo.Value, Accepted: *lo.Accepted}
		if *lo.Kind == "write" {
			op.Kind = impl.OpWrite
		}
		ops = append(ops, op)
	}
	count := ""
	if len(ops) != len(c.seen) {
		count = fmt.Sprintf("it has %d operations, the store answered %d; ", len(ops), len(c.seen))
	}
	for i := range max(len(ops), len(c.seen)) {
		switch {
		case i >= len(ops):
			return nil, c.breach("output line %d (log): %soperation %d (%s) is missing", c.outLine, count, i+1, opText(c.seen[i]))
		case i >= len(c.seen):
			return nil, c.breach("output line %d (log): %soperation %d (%s) was never asked", c.outLine, count, i+1, opText(ops[i]))
		case ops[i] != c.seen[i]:
			return nil, c.breach("output line %d (log): %soperation %d is %s, but the store answered %s", c.outLine, count, i+1, opText(ops[i]), opText(c.seen[i]))
		}
	}
	return ops, nil
}

// Close sends close, waits StoreCloseGrace for an exit with status 0,
// then kills the process group and reaps it. The error is a breach (no
// clean exit, a line after the last reply) or the one before.
func (c *StoreCommand) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return c.breachErr()
	}
	c.closed = true
	if c.broken == nil {
		c.inLine++
		c.proc.In.Write([]byte(`{"op":"close"}` + "\n"))
		c.awaitExit()
	}
	c.proc.Stop() // its group: its children too
	return c.breachErr()
}

// awaitExit waits StoreCloseGrace for the exit after close: a line
// meanwhile answers nothing.
func (c *StoreCommand) awaitExit() {
	extra, readErr, timedOut := c.proc.AwaitExit(StoreCloseGrace)
	switch {
	case extra != nil:
		c.outLine++
		c.breach("output line %d %s: a reply to nothing (no request outstanding)", c.outLine, jsonline.Quote(extra))
	case readErr != nil:
		c.breach("output after line %d: %v", c.outLine, readErr)
	case timedOut:
		c.breach("the store did not exit within %v of close (input line %d)", StoreCloseGrace, c.inLine)
	case c.proc.WaitErr() != nil:
		c.breach("the store exited (%v) after close (want exit status 0)", c.proc.WaitErr())
	}
}

// call writes req and waits timeout for its reply, which it checks; the
// caller holds c.mu.
func (c *StoreCommand) call(req storeRequest, timeout time.Duration) (*StoreReply, error) {
	if c.closed && c.broken == nil {
		return nil, errors.New("store command: closed")
	}
	if c.broken != nil {
		return nil, c.broken
	}
	select {
	case l := <-c.proc.Lines: // a line before the request answers nothing
		if l.Err == nil {
			c.outLine++
			return nil, c.breach("output line %d %s: a reply to nothing (no request outstanding)", c.outLine, jsonline.Quote(l.Text))
		}
		return nil, c.ended(l.Err, req.Op)
	default:
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	c.inLine++
	if _, err := c.proc.In.Write(append(b, '\n')); err != nil {
		select {
		case <-c.proc.Exited():
			return nil, c.breach("the store exited (%s) before it read input line %d (%q)", c.proc.Status(), c.inLine, req.Op)
		case <-time.After(StoreCloseGrace):
			return nil, c.breach("input line %d (%q) could not be written: %v", c.inLine, req.Op, err)
		}
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case l := <-c.proc.Lines:
		if l.Err != nil {
			return nil, c.ended(l.Err, req.Op)
		}
		c.outLine++
		bad := func(format string, args ...any) error {
			return c.breach("output line %d %s: %s", c.outLine, jsonline.Quote(l.Text), fmt.Sprintf(format, args...))
		}
		if req.Op != "log" && len(l.Text) > MaxStoreReply {
			return nil, bad("a reply longer than %d bytes", MaxStoreReply)
		}
		r, err := ParseStoreReply(l.Text)
		if err != nil {
			return nil, bad("%v", err)
		}
		switch {
		case *r.Op != req.Op:
			return nil, bad("a reply to %q, but input line %d was %q", *r.Op, c.inLine, req.Op)
		case r.Error != nil && (req.Op == "hello" || req.Op == "log"):
			return nil, bad("the store refused its %s: %s", req.Op, *r.Error)
		case r.Error != nil:
			return nil, &StoreFailure{Op: req.Op, Msg: *r.Error}
		}
		return r, nil
	case <-timer.C:
		return nil, c.breach("no reply to input line %d (%q) within %v", c.inLine, req.Op, timeout)
	}
}

// ended is the breach of an output that ended while request op was
// outstanding.
func (c *StoreCommand) ended(err error, op string) error {
	if err != io.EOF {
		return c.breach("output after line %d: %v", c.outLine, err)
	}
	select {
	case <-c.proc.Exited():
		return c.breach("the store exited (%s) before it replied to input line %d (%q)", c.proc.Status(), c.inLine, op)
	case <-time.After(StoreCloseGrace):
		return c.breach("the store closed its output before it replied to input line %d (%q)", c.inLine, op)
	}
}

// opText names an operation and its decision, as a log mismatch shows
// it: a refused read has no value.
func opText(op impl.Op) string {
	decided := "refused"
	if op.Accepted {
		decided = "accepted"
	}
	if op.Kind == impl.OpRead && !op.Accepted && op.Value == 0 {
		return fmt.Sprintf("%s read, token %d, %s", op.Client, op.Token, decided)
	}
	return fmt.Sprintf("%s %s %d, token %d, %s", op.Client, op.Kind, op.Value, op.Token, decided)
}

// ParseStoreReply reads one reply line by the schema's $defs/reply: one
// JSON object, no unknown or null field, and the fields its op and ok
// allow.
func ParseStoreReply(line []byte) (*StoreReply, error) {
	var r StoreReply
	if err := jsonline.DecodeStrict(line, &r); err != nil {
		return nil, err
	}
	if r.Op == nil || r.OK == nil {
		return nil, errors.New(`a reply needs "op" and "ok"`)
	}
	only := func(kind string, allowed ...string) error {
		for name, set := range map[string]bool{"refused": r.Refused != nil, "error": r.Error != nil, "store": r.Store != nil, "value": r.Value != nil, "ops": r.Ops != nil} {
			if set && !slices.Contains(allowed, name) {
				return fmt.Errorf("field %q has no place in %s", name, kind)
			}
		}
		return nil
	}
	op := *r.Op
	if op != "hello" && op != "read" && op != "write" && op != "log" {
		return nil, fmt.Errorf("unknown op %q", op)
	}
	if !*r.OK {
		switch {
		case r.Refused != nil && (op == "read" || op == "write"):
			if !*r.Refused {
				return nil, errors.New(`"refused" is true or absent`)
			}
			return &r, only("a refusal", "refused")
		case r.Error != nil:
			if n := len([]rune(*r.Error)); n < 1 || n > 500 {
				return nil, errors.New(`an "error" of 1 to 500 characters`)
			}
			return &r, only("an error reply", "error")
		}
		return nil, errors.New(`"ok":false needs "refused":true (a read or write the fencing refused) or an "error"`)
	}
	switch op {
	case "hello":
		if r.Store == nil || len([]rune(*r.Store)) < 1 || len([]rune(*r.Store)) > 100 {
			return nil, errors.New(`a hello reply needs "store" (1 to 100 characters)`)
		}
		return &r, only("a hello reply", "store")
	case "read":
		if r.Value == nil || *r.Value < -maxJSONInt || *r.Value > maxJSONInt {
			return nil, errors.New(`an accepted read needs "value", an integer within ±(2^53-1)`)
		}
		return &r, only("a read reply", "value")
	case "write":
		return &r, only("a write reply")
	}
	if r.Ops == nil {
		return nil, errors.New(`a log reply needs "ops"`)
	}
	for i, lo := range *r.Ops {
		if err := lo.check(); err != nil {
			return nil, fmt.Errorf("ops[%d]: %w", i, err)
		}
	}
	return &r, only("a log reply", "ops")
}

// check reads one operation of a log by the schema's $defs/logOp.
func (o StoreLogOp) check() error {
	switch {
	case o.Client == nil || o.Kind == nil || o.Token == nil || o.Value == nil || o.Accepted == nil:
		return errors.New(`an operation needs "client", "kind", "token", "value" and "accepted"`)
	case *o.Client < 0 || *o.Client >= impl.MaxClients:
		return fmt.Errorf("client %d (want 0 to %d)", *o.Client, impl.MaxClients-1)
	case *o.Kind != "read" && *o.Kind != "write":
		return fmt.Errorf("kind %q (want read or write)", *o.Kind)
	case *o.Token > maxJSONInt:
		return fmt.Errorf("token %d is over 2^53-1", *o.Token)
	case *o.Value < -maxJSONInt || *o.Value > maxJSONInt:
		return fmt.Errorf("value %d is past ±(2^53-1)", *o.Value)
	}
	return nil
}

// oneLine is s on one line, at most 300 bytes.
func oneLine(s string) string {
	s = string(bytes.Join(bytes.Fields([]byte(s)), []byte(" ")))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
