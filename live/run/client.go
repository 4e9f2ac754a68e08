package run

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/wait"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/live/store"
)

// ClientConfig is what the harness tells a client process, as JSON on its
// standard input.
type ClientConfig struct {
	Service string `json:"service"`
	Setup   string `json:"setup"`
	Client  int    `json:"client"` // 0-based index
	Clients int    `json:"clients"`
	Key     string `json:"key"`
	// LockAddrs and StoreAddrs are the deployment's; Register is the
	// register's address when the setup uses it.
	LockAddrs  []string      `json:"lock_addrs"`
	StoreAddrs []string      `json:"store_addrs,omitempty"`
	Register   string        `json:"register,omitempty"`
	TTL        time.Duration `json:"ttl"`
	Think      time.Duration `json:"think"`
	Sections   int           `json:"sections"`
	// Deadline (UnixNano) ends the client whatever it is doing: every
	// call's context ends there.
	Deadline int64 `json:"deadline"`
	// MaxErrors bounds the failed calls in a row before the client gives
	// up (a service that does not answer).
	MaxErrors int `json:"max_errors"`
	// ClientCmd is the setup's client command (setup.Setup.ClientCommand),
	// given here because --client-cmd makes it at the command line, not
	// in the registry the client process finds its setup in.
	ClientCmd string `json:"client_cmd,omitempty"`
	// Gate, if set ("write" or "read"), makes the client wait at a gate
	// before sending each such operation, once its check passed and its
	// call is recorded: a line on its standard input, after the
	// configuration, opens the gate (nemesis.GateOf).
	Gate string `json:"gate,omitempty"`
	// Credentials is the deployment's folder of the lock clients'
	// credentials (setup.Deployment.Credentials), "" for most services.
	Credentials string `json:"credentials,omitempty"`
}

// validate rejects a configuration the loop cannot run with.
func (c ClientConfig) validate() error {
	switch {
	case c.Client < 0 || c.Client >= c.Clients:
		return fmt.Errorf("client %d of %d", c.Client, c.Clients)
	case c.Sections < 1 || c.Sections > 1000:
		return fmt.Errorf("sections %d (want 1 to 1000)", c.Sections)
	case c.TTL <= 0 || c.Think < 0:
		return fmt.Errorf("ttl %v, think %v", c.TTL, c.Think)
	case c.Deadline <= 0:
		return errors.New("no deadline")
	case c.MaxErrors < 1:
		return errors.New("max_errors < 1")
	case c.Gate != "" && c.Gate != history.OpWrite && c.Gate != history.OpRead:
		return fmt.Errorf("gate %.20q (want %s or %s)", c.Gate, history.OpWrite, history.OpRead)
	}
	return nil
}

// opTimeout bounds a read, write or release: the register and the real
// stores answer in milliseconds, and a paused or killed server must not
// hold a client past its deadline.
const opTimeout = 2 * time.Second

// errorBackoff is how long a client waits after a failed acquire before
// trying again.
const errorBackoff = 20 * time.Millisecond

// maxConfig bounds the configuration a client reads from its standard
// input.
const maxConfig = 64 << 10

// ServeClient is the client role: it reads a ClientConfig from in, finds
// its setup among setups and runs RunClient, writing records to out; each
// line of in after the configuration opens one gate (ClientConfig.Gate).
func ServeClient(ctx context.Context, setups []setup.Setup, in io.Reader, out io.Writer) error {
	var cfg ClientConfig
	br := bufio.NewReader(in)
	dec := json.NewDecoder(io.LimitReader(br, maxConfig))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return fmt.Errorf("client configuration: %w", err)
	}
	if err := cfg.validate(); err != nil {
		return fmt.Errorf("client configuration: %w", err)
	}
	s, err := setup.Find(setups, cfg.Service, cfg.Setup)
	if err != nil {
		return err
	}
	if cfg.ClientCmd != "" && cfg.ClientCmd != s.ClientCommand {
		s = s.WithClientCommand(cfg.ClientCmd)
	}
	var gates chan struct{}
	if cfg.Gate != "" {
		gates = make(chan struct{}, 16)
		rest := io.MultiReader(dec.Buffered(), br)
		go readGates(bufio.NewReader(rest), gates)
	}
	return runClient(ctx, s, cfg, out, gates)
}

// readGates sends one token on gates for each line after the
// configuration that is not blank (the harness writes "open"); it ends at
// the end of in (the harness closed it: no gate opens any more), leaving
// the client to its deadline.
func readGates(in *bufio.Reader, gates chan<- struct{}) {
	for {
		line, err := in.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			gates <- struct{}{}
		}
		if err != nil {
			return
		}
	}
}

// recorder writes a client's records as JSON lines.
type recorder struct {
	client int
	enc    *json.Encoder
	err    error
}

func (r *recorder) rec(op, ev string, token uint64, value int64, ok bool, err error) {
	r.put(history.Record{Op: op, Ev: ev, Wall: time.Now().UnixNano(), Token: token, Value: value, OK: ok}, err)
}

// put writes rec, its client and err filled in; its Wall is the caller's.
func (r *recorder) put(rec history.Record, err error) {
	rec.Client = r.client
	if err != nil {
		rec.Error = history.OneLine(err.Error(), 200)
	}
	if r.err == nil {
		r.err = r.enc.Encode(rec)
	}
}

// RunClient runs one client's sections — Acquire, Read(token), think,
// Write(token, read+1), Release — recording every call and return on out.
// It stops after cfg.Sections sections, at cfg.Deadline, or after
// cfg.MaxErrors failed calls in a row; a service it cannot reach is
// recorded as the acquire's error, and the client ends. The error returned
// is the harness's (a record it could not write, a client it could not
// build, recorded too), never the lock's or the store's answers: those
// are in the records.
//
// A client command that broke the lock-client protocol (a
// *lock.ProtocolError, from any call or from Close) ends the client with
// that error: the harness's, never a verdict.
func RunClient(ctx context.Context, s setup.Setup, cfg ClientConfig, out io.Writer) error {
	return runClient(ctx, s, cfg, out, nil)
}

// runClient is RunClient whose gates (ClientConfig.Gate) open on gates;
// nil never opens one.
func runClient(ctx context.Context, s setup.Setup, cfg ClientConfig, out io.Writer, gates <-chan struct{}) (runErr error) {
	ctx, cancel := context.WithDeadline(ctx, time.Unix(0, cfg.Deadline))
	defer cancel()
	r := &recorder{client: cfg.Client, enc: json.NewEncoder(out)}
	name := history.ClientName(cfg.Client)

	// A Go Locker may take its lease as it is built (etcd's session): the
	// first acquire is called before it. A client command's hello takes no
	// lock (docs/protocol.md) and its start — an interpreter and its
	// imports — may outlast a lease, which would make every first grant
	// look expired on arrival: its first acquire is called after it.
	early := s.ClientCommand == ""
	if early {
		r.rec(history.OpAcquire, history.Call, 0, 0, false, nil)
	}
	// A client that cannot even be built (a bad address, a store that
	// does not answer its dial) records why and ends with the error: the
	// run is the harness's failure, not an inconclusive run.
	locker, err := s.Locker(ctx, lock.Config{Addrs: cfg.LockAddrs, Key: cfg.Key, TTL: cfg.TTL, Client: name, Credentials: cfg.Credentials})
	if err != nil {
		err = fmt.Errorf("lock client: %w", err)
		if !early {
			r.rec(history.OpAcquire, history.Call, 0, 0, false, nil)
		}
		r.rec(history.OpAcquire, history.Return, 0, 0, false, err)
		return errors.Join(err, r.err)
	}
	defer func() {
		if err := locker.Close(); runErr == nil && isBreach(err) {
			runErr = err
		}
	}()
	st, err := dialStore(ctx, s, cfg)
	if err != nil {
		err = fmt.Errorf("store: %w", err)
		if !early {
			r.rec(history.OpAcquire, history.Call, 0, 0, false, nil)
		}
		r.rec(history.OpAcquire, history.Return, 0, 0, false, err)
		return errors.Join(err, r.err)
	}
	defer st.Close()

	errorsInARow := 0
	called := early // the acquire call recorded above, before the clients were built
	for sec := 0; sec < cfg.Sections && ctx.Err() == nil && r.err == nil; {
		if !called {
			r.rec(history.OpAcquire, history.Call, 0, 0, false, nil)
		}
		called = false
		// Wall clocks only (Round(0)): the judge checks the window on the
		// records' wall times, so the client checks on the same clock.
		call := time.Now().Round(0) // no later than the acquire call's record
		g, err := locker.Acquire(ctx)
		if err != nil {
			r.rec(history.OpAcquire, history.Return, 0, 0, false, err)
			if isBreach(err) {
				return errors.Join(err, r.err)
			}
			if errorsInARow++; errorsInARow >= cfg.MaxErrors {
				break
			}
			wait.Sleep(ctx, errorBackoff)
			continue
		}
		token := s.Token(g)
		w := windowOf(s, g, call, time.Now().Round(0))
		w.gate, w.gates = cfg.Gate, gates
		r.put(history.Record{Op: history.OpAcquire, Ev: history.Return, Wall: w.arrived.UnixNano(), Token: token, OK: true,
			Validity: int64(w.validity), ValidUntil: unixNano(w.until)}, nil)
		failed := section(ctx, r, st, token, cfg.Think, w)
		opCtx, done := context.WithTimeout(context.WithoutCancel(ctx), opTimeout)
		r.rec(history.OpRelease, history.Call, token, 0, false, nil)
		err = locker.Release(opCtx, g)
		r.rec(history.OpRelease, history.Return, token, 0, err == nil, err)
		done()
		if isBreach(err) {
			return errors.Join(err, r.err)
		}
		if failed || err != nil {
			errorsInARow++
		} else {
			errorsInARow = 0
		}
		if errorsInARow >= cfg.MaxErrors {
			break
		}
		sec++
	}
	return r.err
}

// isBreach says whether err is a client command's breach of the
// lock-client protocol.
func isBreach(err error) bool {
	var breach *lock.ProtocolError
	return errors.As(err, &breach)
}

// window is a grant's validity as the client sees it.
type window struct {
	arrived  time.Time     // the grant's return
	validity time.Duration // the recipe's Grant.Validity
	// until is when the client stops believing by the models' send rule
	// (impl.ValidUntil); zero when the client checks no end.
	until time.Time
	// checked: the client checks until before each read and write (the
	// checked client); false for the unchecked one, which believes until
	// it releases.
	checked bool
	// gate is the operation the client waits at a gate before sending
	// ("": none), once its check passed and its call is recorded; gates
	// opens one at a time.
	gate  string
	gates <-chan struct{}
}

// windowOf is grant g's window: from g.Sent (or the Acquire call, call,
// when the recipe does not say), g.Validity long, by impl's send rule.
// Only a Leased setup's grant has an end the client can check: a session
// lock or a renewed lease is kept alive by its library while the client
// lives, past any fixed validity.
func windowOf(s setup.Setup, g lock.Grant, call, arrived time.Time) window {
	w := window{arrived: arrived, validity: g.Validity, checked: !s.Unchecked}
	if s.Leased && g.Validity > 0 {
		sent := g.Sent.Round(0)
		if sent.IsZero() {
			sent = call // earlier than the granted attempt: an end no later
		}
		w.until = impl.ValidUntil(impl.ValiditySend, sent, arrived, g.Validity)
	}
	return w
}

// act records the call of op (a read or a write) if the client may act
// now: the checked client, its window ended (impl.MayAct), records an
// expire instead, at the moment it checked, and does not act.
func (w window) act(r *recorder, op string, token uint64, value int64) bool {
	now := time.Now().Round(0)
	if w.checked && !w.until.IsZero() && !impl.MayAct(now, w.until) {
		r.put(history.Record{Op: history.OpExpire, Ev: history.Return, Wall: now.UnixNano(), Token: token}, nil)
		return false
	}
	r.put(history.Record{Op: op, Ev: history.Call, Wall: now.UnixNano(), Token: token, Value: value}, nil)
	return true
}

// errGateClosed is a gate that did not open before the client's
// deadline: the operation was never sent.
var errGateClosed = errors.New("the gate did not open before the client's deadline: not sent")

// passGate waits, when op is gated, until the gate opens or ctx ends
// (the client's deadline bounds every wait); false means it did not
// open, and the call, already recorded, is given its return with
// errGateClosed.
func (w window) passGate(ctx context.Context, r *recorder, op string, token uint64, value int64) bool {
	if w.gate != op {
		return true
	}
	select {
	case <-w.gates:
		return true
	case <-ctx.Done():
		r.rec(op, history.Return, token, value, false, errGateClosed)
		return false
	}
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// section is the work under the lock: read, think, write read+1, each
// operation only within the grant's window (w.act). It reports whether a
// call failed (an error, not a refusal).
func section(ctx context.Context, r *recorder, st store.Store, token uint64, think time.Duration, w window) (failed bool) {
	if !w.act(r, history.OpRead, token, 0) {
		return false
	}
	if !w.passGate(ctx, r, history.OpRead, token, 0) {
		return true
	}
	opCtx, done := context.WithTimeout(ctx, opTimeout)
	v, ok, err := st.Read(opCtx, token)
	r.rec(history.OpRead, history.Return, token, v, ok, err)
	done()
	if err != nil || !ok {
		return err != nil
	}
	// The think time is the window a pause hits: a client paused here
	// resumes, still believing, and writes what it read before.
	wait.Sleep(ctx, think)
	if !w.act(r, history.OpWrite, token, v+1) {
		return false
	}
	if !w.passGate(ctx, r, history.OpWrite, token, v+1) {
		return true
	}
	opCtx, done = context.WithTimeout(ctx, opTimeout)
	ok, err = st.Write(opCtx, token, v+1)
	r.rec(history.OpWrite, history.Return, token, v+1, ok, err)
	done()
	return err != nil
}

func dialStore(ctx context.Context, s setup.Setup, cfg ClientConfig) (store.Store, error) {
	if s.UsesRegister() {
		return store.DialRegister(cfg.Register, store.AsClient(cfg.Client))
	}
	return s.Store(ctx, setup.StoreConfig{Addrs: cfg.StoreAddrs, Client: cfg.Client, Key: cfg.Key})
}
