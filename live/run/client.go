package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/wait"
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
// its setup among setups and runs RunClient, writing records to out.
func ServeClient(ctx context.Context, setups []setup.Setup, in io.Reader, out io.Writer) error {
	var cfg ClientConfig
	dec := json.NewDecoder(io.LimitReader(in, maxConfig))
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
	return RunClient(ctx, s, cfg, out)
}

// recorder writes a client's records as JSON lines.
type recorder struct {
	client int
	enc    *json.Encoder
	err    error
}

func (r *recorder) rec(op, ev string, token uint64, value int64, ok bool, err error) {
	rec := history.Record{Client: r.client, Op: op, Ev: ev, Wall: time.Now().UnixNano(), Token: token, Value: value, OK: ok}
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
func RunClient(ctx context.Context, s setup.Setup, cfg ClientConfig, out io.Writer) error {
	ctx, cancel := context.WithDeadline(ctx, time.Unix(0, cfg.Deadline))
	defer cancel()
	r := &recorder{client: cfg.Client, enc: json.NewEncoder(out)}
	name := history.ClientName(cfg.Client)

	r.rec(history.OpAcquire, history.Call, 0, 0, false, nil)
	// A client that cannot even be built (a bad address, a store that
	// does not answer its dial) records why and ends with the error: the
	// run is the harness's failure, not an inconclusive run.
	locker, err := s.Locker(ctx, lock.Config{Addrs: cfg.LockAddrs, Key: cfg.Key, TTL: cfg.TTL, Client: name})
	if err != nil {
		err = fmt.Errorf("lock client: %w", err)
		r.rec(history.OpAcquire, history.Return, 0, 0, false, err)
		return errors.Join(err, r.err)
	}
	defer locker.Close()
	st, err := dialStore(ctx, s, cfg)
	if err != nil {
		err = fmt.Errorf("store: %w", err)
		r.rec(history.OpAcquire, history.Return, 0, 0, false, err)
		return errors.Join(err, r.err)
	}
	defer st.Close()

	errorsInARow := 0
	called := true // the acquire call recorded above, before the clients were built
	for sec := 0; sec < cfg.Sections && ctx.Err() == nil && r.err == nil; {
		if !called {
			r.rec(history.OpAcquire, history.Call, 0, 0, false, nil)
		}
		called = false
		g, err := locker.Acquire(ctx)
		if err != nil {
			r.rec(history.OpAcquire, history.Return, 0, 0, false, err)
			if errorsInARow++; errorsInARow >= cfg.MaxErrors {
				break
			}
			wait.Sleep(ctx, errorBackoff)
			continue
		}
		token := s.Token(g)
		r.rec(history.OpAcquire, history.Return, token, 0, true, nil)
		failed := section(ctx, r, st, token, cfg.Think)
		opCtx, done := context.WithTimeout(context.WithoutCancel(ctx), opTimeout)
		r.rec(history.OpRelease, history.Call, token, 0, false, nil)
		err = locker.Release(opCtx, g)
		r.rec(history.OpRelease, history.Return, token, 0, err == nil, err)
		done()
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

// section is the work under the lock: read, think, write read+1. It
// reports whether a call failed (an error, not a refusal).
func section(ctx context.Context, r *recorder, st store.Store, token uint64, think time.Duration) (failed bool) {
	opCtx, done := context.WithTimeout(ctx, opTimeout)
	r.rec(history.OpRead, history.Call, token, 0, false, nil)
	v, ok, err := st.Read(opCtx, token)
	r.rec(history.OpRead, history.Return, token, v, ok, err)
	done()
	if err != nil || !ok {
		return err != nil
	}
	// The think time is the window a pause hits: a client paused here
	// resumes, still believing, and writes what it read before.
	wait.Sleep(ctx, think)
	opCtx, done = context.WithTimeout(ctx, opTimeout)
	r.rec(history.OpWrite, history.Call, token, v+1, false, nil)
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
