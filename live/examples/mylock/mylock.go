// Package mylock is the example of a Go user's own lock under
// fencelab-live: a lock service (here a lease lock with a token counter,
// served over TCP inside the harness's process, like Redis's SET NX PX:
// a grant lasts TTL unless released with its token, and nothing renews
// it), a client with lock.Locker's three methods, and a row of
// setup.Setup naming the design row of impl.Designs it claims. Its
// command, cmd/mylock, is the whole of fencelab-live plus that row:
//
//	func main() { os.Exit(cli.Main(os.Args, append(setup.All(), mylock.Setup()))) }
//
// The protocol, one line a request:
//
//	A <ttl ms>   -> OK <token> | BUSY
//	R <token>    -> OK | NO
//
// The live tests use the same lock as their toy service, so the harness
// (client processes, the nemesis, the judge, the saving) is tested on
// every machine, Redis or not.
package mylock

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/setup"
)

// Setup is the example's row: service mylock, design lease, claiming row
// all of impl.Designs (a token on every grant, checked by fencelab's
// register on every operation).
func Setup() setup.Setup {
	s := Row("mylock", "lease", impl.DesignFenceAll)
	s.Why = "the example's own lease lock with a token counter, checked >= by the register"
	return s
}

// Row is a setup of the lock as service, named name, claiming design row
// d: a lease of 200 ms, under a client pause or a restart that wipes the
// lock's state.
func Row(service, name string, d impl.Design) setup.Setup {
	return setup.Setup{
		Name: name, Service: service, Design: d, Why: "the test's own lease lock",
		TTL: 200 * time.Millisecond, Leased: true,
		Faults: []history.Fault{history.FaultClientPause, history.FaultRestartWipe},
		Start:  Start(service),
		Locker: NewLocker,
	}
}

// NewLocker is one client's Locker (setup.Setup.Locker): cfg.Addrs are
// the servers' addresses the deployment gave, cfg.TTL the lease.
func NewLocker(_ context.Context, cfg lock.Config) (lock.Locker, error) {
	return &Locker{cfg: cfg}, nil
}

// lockServer is the lock: one holder, a lease, a counter of tokens.
type lockServer struct {
	name string
	ln   net.Listener

	mu      sync.Mutex
	holder  uint64 // the token of the current grant; 0 when free
	expires time.Time
	next    uint64
	down    bool
	conns   map[net.Conn]bool
	wg      sync.WaitGroup
}

// Start starts the lock server of service name on a free port of
// 127.0.0.1, inside the harness's process (a lock service of your own
// would start its processes here), and says where clients dial it.
func Start(name string) func(context.Context, setup.StartEnv) (*setup.Deployment, error) {
	return func(context.Context, setup.StartEnv) (*setup.Deployment, error) {
		return start(name)
	}
}

func start(name string) (*setup.Deployment, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &lockServer{name: name, ln: ln, conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.serve()
	return &setup.Deployment{Servers: []server.Server{s}, LockAddrs: []string{ln.Addr().String()}}, nil
}

func (s *lockServer) serve() {
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

func (s *lockServer) handle(line string) string {
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

func (s *lockServer) Name() string    { return s.name }
func (s *lockServer) Addr() string    { return s.ln.Addr().String() }
func (s *lockServer) Version() string { return s.name + " 1" }
func (s *lockServer) Pids() []int     { return nil }

// Kill takes the lock down: every request fails until Restart.
func (s *lockServer) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = true
	return nil
}

// Restart brings it back; wipe forgets the holder and the token counter.
func (s *lockServer) Restart(_ context.Context, wipe bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = false
	if wipe {
		s.holder, s.next = 0, 0
	}
	return nil
}

func (s *lockServer) Stop() error {
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

// Locker is a client of the lock, the three methods of lock.Locker
// (Acquire, Release, Close): Acquire polls until granted. The harness
// builds one in each client process (NewLocker).
type Locker struct {
	cfg  lock.Config
	conn net.Conn
	rd   *bufio.Reader
}

func (l *Locker) call(ctx context.Context, req string) (string, error) {
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

func (l *Locker) Acquire(ctx context.Context) (lock.Grant, error) {
	for {
		sent := time.Now() // the lease starts after this attempt is sent
		ans, err := l.call(ctx, fmt.Sprintf("A %d", l.cfg.TTL.Milliseconds()))
		if err != nil {
			return lock.Grant{}, err
		}
		if tok, ok := strings.CutPrefix(ans, "OK "); ok {
			t, err := strconv.ParseUint(tok, 10, 64)
			return lock.Grant{Token: t, Validity: l.cfg.TTL, Sent: sent}, err
		}
		select {
		case <-ctx.Done():
			return lock.Grant{}, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (l *Locker) Release(ctx context.Context, g lock.Grant) error {
	_, err := l.call(ctx, fmt.Sprintf("R %d", g.Token))
	return err
}

func (l *Locker) Close() error {
	if l.conn != nil {
		return l.conn.Close()
	}
	return nil
}
