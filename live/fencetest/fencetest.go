// Package fencetest checks a Go user's own lock inside go test: the
// test's goroutines record each operation of their own code on the lock
// and the shared resource (Acquire, Read, Write, Release with tokens and
// validity; Expire when a client gives up past its validity), the test
// records the faults it caused (a pause), and Check judges the history
// with the live judge — the same invariants, NoActionPastValidity and
// Porcupine — against a design row of the models. A property the row
// says holds that the history violates is a t.Errorf naming it, its
// detail and the operations, with the trace and Porcupine pages and the
// history file (docs/history.md) written for the failure.
//
//	rec := fencetest.New(t, fencetest.Options{Design: "all", TTL: ttl})
//	c := rec.Client() // one per goroutine
//	g, err := c.Acquire(func() (lock.Grant, error) { return mylock.Acquire(ctx) })
//	...
//	rec.Check()
package fencetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/verdict"
)

// Options are what the judge needs besides the operations.
type Options struct {
	// Design is the row of impl.Designs the lock claims to be
	// (fencelab designs lists them); "all" when empty: tokens, and a
	// resource that checks them on every operation.
	Design string
	// TTL is the lease the clients ask for: by it the judge tells whether
	// a fault took effect on a grant that reports no validity. Required.
	TTL time.Duration
	// Fence is the resource's fencing mode (none, writes, all, cas,
	// version); the row's when empty. A store that ignores tokens is
	// "none".
	Fence string
	// Unchecked says the clients do not check their grant's validity
	// before acting (NoActionPastValidity is then expected violated).
	Unchecked bool
	// Dir is where a failing Check writes its pages and history file;
	// the test's t.TempDir() (removed after the test) when empty.
	Dir string
}

// Recorder records one test's operations; safe for concurrent use by
// its clients.
type Recorder struct {
	tb    testing.TB
	opts  Options
	start int64

	mu      sync.Mutex
	clients int
	records []history.Record
	faults  []history.FaultRecord
}

// New starts recording for the test tb; an Options without a TTL, or
// with a row or fencing impl does not know, fails the test at once.
func New(tb testing.TB, opts Options) *Recorder {
	tb.Helper()
	if opts.Design == "" {
		opts.Design = impl.DesignFenceAll.String()
	}
	if _, err := impl.ParseDesign(opts.Design); err != nil {
		tb.Fatalf("fencetest: %v", err)
	}
	if opts.TTL <= 0 {
		tb.Fatalf("fencetest: Options.TTL %v: want the lease the clients ask for", opts.TTL)
	}
	return &Recorder{tb: tb, opts: opts, start: time.Now().UnixNano()}
}

// Client is one client of the lock: its operations are one at a time,
// from one goroutine (or goroutines taking turns).
type Client struct {
	r     *Recorder
	index int
	// validUntil is the current grant's window end (UnixNano; 0: none).
	validUntil int64
}

// Client adds a client: c1, c2, ... in the order they are added.
func (r *Recorder) Client() *Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clients++
	return &Client{r: r, index: r.clients - 1}
}

// Name is the client's name in verdicts and pages: c1 for the first.
func (c *Client) Name() string { return history.ClientName(c.index) }

func (r *Recorder) add(rec history.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec)
}

// call records the call of op now and returns its time.
func (c *Client) call(op string, token uint64, value int64) int64 {
	wall := time.Now().UnixNano()
	c.r.add(history.Record{Client: c.index, Op: op, Ev: history.Call, Wall: wall, Token: token, Value: value})
	return wall
}

// ret records the return of op now.
func (c *Client) ret(rec history.Record, err error) {
	rec.Client, rec.Ev, rec.Wall = c.index, history.Return, time.Now().UnixNano()
	if err != nil {
		rec.OK, rec.Error = false, history.OneLine(err.Error(), 200)
	}
	c.r.add(rec)
}

// Acquire records acquire: the call, then the grant acquire returns —
// its token and validity, as a live recipe reports them (lock.Grant) —
// or its failure (err: not granted). The grant's window ends at its Sent
// (the granted attempt; zero: the call) plus its Validity (impl's send
// rule, impl.ValidUntil); a grant of Validity 0 has no window (a lock held
// until released), and NoActionPastValidity does not judge it.
func (c *Client) Acquire(acquire func() (lock.Grant, error)) (lock.Grant, error) {
	called := c.call(history.OpAcquire, 0, 0)
	g, err := acquire()
	rec := history.Record{Op: history.OpAcquire, Token: g.Token, OK: err == nil}
	c.validUntil = 0
	if err == nil && g.Validity > 0 {
		sent := g.Sent
		if sent.IsZero() {
			sent = time.Unix(0, called)
		}
		c.validUntil = impl.ValidUntil(impl.ValiditySend, sent, time.Time{}, g.Validity).UnixNano()
		rec.Validity, rec.ValidUntil = int64(g.Validity), c.validUntil
	}
	c.ret(rec, err)
	return g, err
}

// MayAct reports whether the client's grant is still valid now
// (impl.MayAct): what a client that checks asks before each read or
// write, and records Expire when not.
func (c *Client) MayAct() bool {
	return c.validUntil != 0 && impl.MayAct(time.Now(), time.Unix(0, c.validUntil))
}

// Read records a read of the resource with token: the value read and
// whether the resource accepted it, or err (its effect then unknown).
func (c *Client) Read(token uint64, read func() (value int64, accepted bool, err error)) (int64, bool, error) {
	c.call(history.OpRead, token, 0)
	value, ok, err := read()
	c.ret(history.Record{Op: history.OpRead, Token: token, Value: value, OK: ok && err == nil}, err)
	return value, ok, err
}

// Write records a write of value with token: whether the resource
// accepted it, or err (its effect then unknown).
func (c *Client) Write(token uint64, value int64, write func() (accepted bool, err error)) (bool, error) {
	c.call(history.OpWrite, token, value)
	ok, err := write()
	c.ret(history.Record{Op: history.OpWrite, Token: token, Value: value, OK: ok && err == nil}, err)
	return ok, err
}

// Release records the release of token: the client stops believing it
// holds the lock at the call.
func (c *Client) Release(token uint64, release func() error) error {
	c.call(history.OpRelease, token, 0)
	err := release()
	c.ret(history.Record{Op: history.OpRelease, Token: token, OK: err == nil}, err)
	c.validUntil = 0
	return err
}

// Expire records that the client saw its grant of token past its
// validity and gave its section up without acting.
func (c *Client) Expire(token uint64) {
	c.r.add(history.Record{Client: c.index, Op: history.OpExpire, Ev: history.Return, Wall: time.Now().UnixNano(), Token: token})
	c.validUntil = 0
}

// Paused records that the test stopped client c from start to end (a
// client-pause fault, history.FaultClientPause): the judge holds a
// verdict only when a fault took effect (a paused client's validity ran
// out while another was granted), and says "inconclusive" otherwise.
func (r *Recorder) Paused(c *Client, start, end time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = append(r.faults, history.FaultRecord{Fault: history.FaultClientPause, Target: c.Name(), Start: start.UnixNano(), End: end.UnixNano(), Detail: "paused by the test"})
}

// File is the history recorded so far as a history file.
func (r *Recorder) File() *history.File {
	r.mu.Lock()
	defer r.mu.Unlock()
	end := time.Now().UnixNano()
	for _, rec := range r.records {
		end = max(end, rec.Wall)
	}
	return &history.File{
		Version: history.Version, Design: r.opts.Design, TTL: r.opts.TTL, Fence: r.opts.Fence,
		History: history.History{
			Start: r.start, End: end, Clients: max(r.clients, 1), Unchecked: r.opts.Unchecked,
			Records: append([]history.Record(nil), r.records...), Faults: append([]history.FaultRecord(nil), r.faults...),
		},
	}
}

// Check judges the history recorded so far and reports each property the
// row says holds that it violated as a t.Errorf (the property, the
// judge's detail, the operations), writing the pages and the history
// file into Options.Dir (or a t.TempDir()). A history the recorder made
// malformed (a client used by two goroutines at once) is a t.Errorf too.
// The check is returned for further assertions.
func (r *Recorder) Check() *report.HistoryCheck {
	r.tb.Helper()
	f := r.File()
	// Through the file's own reader: what it refuses, the test is told.
	var b strings.Builder
	if err := f.WriteJSONL(&b); err != nil {
		r.tb.Errorf("fencetest: %v", err)
		return nil
	}
	if _, err := history.ReadFile(strings.NewReader(b.String())); err != nil {
		r.tb.Errorf("fencetest: the recorded history is malformed (is a Client used by two goroutines at once?): %v", err)
		return nil
	}
	c, err := report.CheckHistory(f, "", run.DefaultCheckTimeout)
	if err != nil {
		r.tb.Errorf("fencetest: %v", err)
		return nil
	}
	if c.Unexplained != nil {
		r.tb.Logf("fencetest: %v", c.Unexplained)
	}
	for _, v := range c.Verdicts {
		if v.Status == verdict.Unknown.String() {
			r.tb.Logf("fencetest: %s unknown: %s", v.Property, v.Detail)
		}
	}
	bad := c.Unexpected()
	if len(bad) == 0 {
		return c
	}
	dir := r.opts.Dir
	if dir == "" {
		dir = filepath.Join(r.tb.TempDir(), "fencetest")
	}
	where := r.writePages(dir, c, b.String())
	ops := operations(&f.History)
	for _, v := range c.Verdicts {
		for _, p := range bad {
			if v.Property == p {
				r.tb.Errorf("fencetest: %s violated, which row %s says holds: %s\n%s\n%s", p, c.Design, v.Detail, where, ops)
			}
		}
	}
	return c
}

// writePages writes the check's pages and the history file into dir and
// says where, or why not.
func (r *Recorder) writePages(dir string, c *report.HistoryCheck, file string) string {
	if _, err := c.WritePages(dir, r.tb.Name()+" (row "+c.Design.String()+")"); err != nil {
		return fmt.Sprintf("(the pages could not be written: %v)", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte(file), 0o644); err != nil {
		return fmt.Sprintf("(the history file could not be written: %v)", err)
	}
	return "trace and Porcupine pages: " + filepath.Join(dir, "trace.html") + ", " + filepath.Join(dir, "porcupine.html") + "; history: " + filepath.Join(dir, "history.jsonl") + " (fencelab check judges it again)"
}

// maxOps bounds the operations a failure prints: the pages have them all.
const maxOps = 60

// operations lists h's records in time order, one a line, times since
// its start.
func operations(h *history.History) string {
	sorted := *h
	sorted.Records = append([]history.Record(nil), h.Records...)
	sorted.Sort()
	var b strings.Builder
	b.WriteString("operations:")
	for i, r := range sorted.Records {
		if i == maxOps {
			fmt.Fprintf(&b, "\n  … %d more (the pages have them all)", len(sorted.Records)-maxOps)
			break
		}
		fmt.Fprintf(&b, "\n  %8.3f ms  %s %s %s", float64(r.Wall-h.Start)/1e6, history.ClientName(r.Client), r.Op, r.Ev)
		if r.Token != 0 {
			fmt.Fprintf(&b, " token %d", r.Token)
		}
		if r.Op == history.OpWrite || (r.Op == history.OpRead && r.Ev == history.Return) {
			fmt.Fprintf(&b, " value %d", r.Value)
		}
		if r.Ev == history.Return && r.Op != history.OpExpire {
			fmt.Fprintf(&b, " ok %v", r.OK)
		}
		if r.Error != "" {
			fmt.Fprintf(&b, " error %q", r.Error)
		}
	}
	return b.String()
}
