package live

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/live/store"
)

// The toy service: a lease lock served over TCP inside the test process,
// with a token counter, so the harness — client processes, the nemesis's
// client pause, the judge, the saving — is tested on every machine, Redis
// or not. It is a lock like Redis's SET NX PX: a grant lasts TTL unless
// released with its token, and nothing renews it.
//
//	A <ttl ms>   -> OK <token> | BUSY
//	R <token>    -> OK | NO

// roleEnv makes the test binary a client process of the toy setups and of
// every real one (Setups).
const roleEnv = "FENCELAB_LIVE_TEST_ROLE"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == server.EtcdRole {
		// The etcd setups' server (startEtcd runs this binary with the role).
		if err := server.RunEtcdServer(context.Background(), os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	if os.Getenv(roleEnv) == "client" {
		if err := run.ServeClient(context.Background(), append(toySetups(), setup.All()...), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// toySetups are the toy service's rows: none (tokens ignored), all
// (tokens checked on every operation), off (no tokens).
func toySetups() []setup.Setup {
	var ss []setup.Setup
	ss = append(ss, brokenSetup())
	for _, d := range []impl.Design{impl.DesignFenceNone, impl.DesignFenceAll, impl.DesignNoFencing, impl.DesignFenceWrites} {
		ss = append(ss, setup.Setup{
			Name: d.String(), Service: "toy", Design: d, Why: "the test's own lease lock",
			TTL: 200 * time.Millisecond, Leased: true,
			Faults: []history.Fault{history.FaultClientPause, history.FaultRestartWipe},
			Start:  startToy,
			Locker: func(_ context.Context, cfg lock.Config) (lock.Locker, error) { return &toyLocker{cfg: cfg}, nil },
		})
	}
	return ss
}

// toyServer is the lock: one holder, a lease, a counter of tokens.
type toyServer struct {
	ln net.Listener

	mu      sync.Mutex
	holder  uint64 // the token of the current grant; 0 when free
	expires time.Time
	next    uint64
	down    bool
	conns   map[net.Conn]bool
	wg      sync.WaitGroup
}

func startToy(context.Context, setup.StartEnv) (*setup.Deployment, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &toyServer{ln: ln, conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.serve()
	return &setup.Deployment{Servers: []server.Server{s}, LockAddrs: []string{ln.Addr().String()}}, nil
}

func (s *toyServer) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				c.Close()
			}()
			sc := bufio.NewScanner(c)
			for sc.Scan() {
				if _, err := fmt.Fprintln(c, s.handle(sc.Text())); err != nil {
					return
				}
			}
		}()
	}
}

func (s *toyServer) handle(line string) string {
	f := strings.Fields(line)
	if len(f) != 2 {
		return "ERR"
	}
	n, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return "ERR"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return "DOWN"
	}
	now := time.Now()
	if s.holder != 0 && now.After(s.expires) {
		s.holder = 0
	}
	switch f[0] {
	case "A":
		if s.holder != 0 {
			return "BUSY"
		}
		s.next++
		s.holder, s.expires = s.next, now.Add(time.Duration(n)*time.Millisecond)
		return fmt.Sprintf("OK %d", s.holder)
	case "R":
		if s.holder == n {
			s.holder = 0
			return "OK"
		}
		return "NO"
	}
	return "ERR"
}

func (s *toyServer) Name() string    { return "toy" }
func (s *toyServer) Addr() string    { return s.ln.Addr().String() }
func (s *toyServer) Version() string { return "toy 1" }
func (s *toyServer) Pids() []int     { return nil }

// Kill takes the lock down: every request fails until Restart.
func (s *toyServer) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = true
	return nil
}

// Restart brings it back; wipe forgets the holder and the token counter.
func (s *toyServer) Restart(_ context.Context, wipe bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = false
	if wipe {
		s.holder, s.next = 0, 0
	}
	return nil
}

func (s *toyServer) Stop() error {
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	if err != nil && !strings.Contains(err.Error(), "use of closed") {
		return err
	}
	return nil
}

// toyLocker is a client of the toy lock: Acquire polls until granted.
type toyLocker struct {
	cfg  lock.Config
	conn net.Conn
	rd   *bufio.Reader
}

func (l *toyLocker) call(ctx context.Context, req string) (string, error) {
	if l.conn == nil {
		d := net.Dialer{Timeout: time.Second}
		c, err := d.DialContext(ctx, "tcp", l.cfg.Addrs[0])
		if err != nil {
			return "", err
		}
		l.conn, l.rd = c, bufio.NewReader(c)
	}
	dl, _ := ctx.Deadline()
	l.conn.SetDeadline(dl)
	if _, err := fmt.Fprintln(l.conn, req); err != nil {
		return "", err
	}
	line, err := l.rd.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSpace(line)
	if line == "DOWN" || line == "ERR" {
		return "", fmt.Errorf("toy lock: %s", line)
	}
	return line, nil
}

func (l *toyLocker) Acquire(ctx context.Context) (lock.Grant, error) {
	for {
		ans, err := l.call(ctx, fmt.Sprintf("A %d", l.cfg.TTL.Milliseconds()))
		if err != nil {
			return lock.Grant{}, err
		}
		if tok, ok := strings.CutPrefix(ans, "OK "); ok {
			t, err := strconv.ParseUint(tok, 10, 64)
			return lock.Grant{Token: t, Validity: l.cfg.TTL}, err
		}
		select {
		case <-ctx.Done():
			return lock.Grant{}, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (l *toyLocker) Release(ctx context.Context, g lock.Grant) error {
	_, err := l.call(ctx, fmt.Sprintf("R %d", g.Token))
	return err
}

func (l *toyLocker) Close() error {
	if l.conn != nil {
		return l.conn.Close()
	}
	return nil
}

// brokenSetup is row all's claim with a store that ignores the tokens: a
// register of mode none, started with the toy lock and dialled by the
// clients as a real store. Its Start and Audit share the register of the
// run under way (one run at a time).
func brokenSetup() setup.Setup {
	var reg *store.Register
	s := setup.Setup{
		Name: "broken-all", Service: "toy", Design: impl.DesignFenceAll, Why: "claims row all, ignores the tokens",
		TTL: 200 * time.Millisecond, Leased: true, Faults: []history.Fault{history.FaultClientPause},
		Locker: func(_ context.Context, cfg lock.Config) (lock.Locker, error) { return &toyLocker{cfg: cfg}, nil },
	}
	s.Start = func(ctx context.Context, env setup.StartEnv) (*setup.Deployment, error) {
		d, err := startToy(ctx, env)
		if err != nil {
			return nil, err
		}
		if reg, err = store.ServeRegister(impl.FenceNone); err != nil {
			return nil, errors.Join(err, d.Stop())
		}
		d.StoreAddrs, d.Close = []string{reg.Addr()}, reg.Close
		return d, nil
	}
	s.Store = func(_ context.Context, cfg setup.StoreConfig) (store.Store, error) {
		return store.DialRegister(cfg.Addrs[0], store.AsClient(cfg.Client))
	}
	s.Audit = func(context.Context, *setup.Deployment) ([]impl.Op, int64, error) {
		res := reg.Resource()
		return res.Log(), res.Counter(), nil
	}
	return s
}
