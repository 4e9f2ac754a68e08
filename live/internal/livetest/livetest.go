// Package livetest is what the live rooms' tests share: the test binary
// as a client process (Main), the toy service's setups (Toy: the example
// lock of live/examples/mylock, plus a setup that ignores its tokens), a
// run configuration that runs them (Config), and the check that a run
// left nothing behind (NothingLeft).
package livetest

import (
	"context"
	"errors"
	"fmt"
	"github.com/fencelab/fencelab/verdict"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/examples/mylock"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/toystore"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/live/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RoleEnv makes the test binary a client process of the toy setups and of
// every real one (Setups).
const RoleEnv = "FENCELAB_LIVE_TEST_ROLE"

// Main is a test package's TestMain: the test binary is the etcd server
// of the etcd setups, or a client process of the toy and the real setups
// (RoleEnv), or the toy store (toystore.EnvVar), or else it runs the
// tests.
func Main(m *testing.M) {
	toystore.MaybeServe()
	if len(os.Args) > 1 && os.Args[1] == server.EtcdRole {
		// The etcd setups' server (startEtcd runs this binary with the role).
		if err := server.RunEtcdServer(context.Background(), os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	if os.Getenv(RoleEnv) == "client" {
		if err := run.ServeClient(context.Background(), append(Toy(), setup.All()...), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Toy is the toy service's rows: broken-all, then none (tokens ignored),
// all (tokens checked on every operation), off (no tokens) and writes,
// each the example lock of live/examples/mylock, then keeper and
// overfenced-none.
func Toy() []setup.Setup {
	ss := []setup.Setup{brokenSetup()}
	for _, d := range []impl.Design{impl.DesignFenceNone, impl.DesignFenceAll, impl.DesignNoFencing, impl.DesignFenceWrites} {
		ss = append(ss, mylock.Row("toy", d.String(), d))
	}
	return append(ss, keeperSetup(), overFencedSetup())
}

// keeperSetup is row all's lock whose harness does not say it is leased,
// so that a think longer than its TTL passes: a client that keeps its
// grant past its lease, two holders with no fault — the harness's error.
func keeperSetup() setup.Setup {
	s := mylock.Row("toy", "keeper", impl.DesignFenceAll)
	s.Why = "the toy lease lock, not marked Leased: a section may outlast its lease"
	s.Leased = false
	return s
}

// brokenSetup is row all's claim with a store that ignores the tokens: a
// register of mode none, started with the toy lock and dialled by the
// clients as a real store. Its Start and Audit share the register of the
// run under way (one run at a time).
func brokenSetup() setup.Setup {
	return storeSetup("broken-all", impl.DesignFenceAll, impl.FenceNone, "claims row all, ignores the tokens")
}

// overFencedSetup is row none's claim with a store that checks the tokens
// on every operation: it refuses what row none's resource accepts, so
// the stale write of the model's pause story is refused live — a
// disagreement with the model's story, not an unexpected violation.
func overFencedSetup() setup.Setup {
	return storeSetup("overfenced-none", impl.DesignFenceNone, impl.FenceAll, "claims row none, checks the tokens")
}

// storeSetup is the toy lock of row d with a register of mode as a real
// store.
func storeSetup(name string, d impl.Design, mode impl.FenceMode, why string) setup.Setup {
	var reg *store.Register
	s := setup.Setup{
		Name: name, Service: "toy", Design: d, Why: why,
		TTL: 200 * time.Millisecond, Leased: true, Faults: []history.Fault{history.FaultClientPause},
		Locker: mylock.NewLocker,
	}
	s.Start = func(ctx context.Context, env setup.StartEnv) (*setup.Deployment, error) {
		d, err := mylock.Start("toy")(ctx, env)
		if err != nil {
			return nil, err
		}
		if reg, err = store.ServeRegister(mode); err != nil {
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

// Config is a run configuration for tests: this test binary as the
// client processes (TestMain), two clients, two sections each.
func Config(t *testing.T, s setup.Setup, f history.Fault) run.Config {
	t.Helper()
	return run.Config{
		Setup: s, Fault: f, Nemesis: nemesis.Scripted, Seed: 1,
		Clients: 2, Sections: 2, Think: 100 * time.Millisecond, Timeout: 15 * time.Second,
		Self: []string{os.Args[0]}, Env: []string{RoleEnv + "=client"},
		TempRoot: t.TempDir(), CheckTimeout: 5 * time.Second,
	}
}

// MustSetup is setup.Find that fails the test.
func MustSetup(t *testing.T, setups []setup.Setup, service, name string) setup.Setup {
	t.Helper()
	s, err := setup.Find(setups, service, name)
	require.NoError(t, err)
	return s
}

// NothingLeft: no child process and nothing in the run's temporary
// root.
func NothingLeft(t *testing.T, root string) {
	t.Helper()
	assert.Empty(t, Children(t), "child processes left behind")
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	assert.Empty(t, entries, "data folders left behind")
}

// Children lists the pids of this process's children still alive (not
// zombies), from /proc.
func Children(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so fields are
		// read after its closing parenthesis.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(os.Getpid()) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Story is the outcome a scripted story must have, property by property.
type Story struct {
	Violated []string
	Holds    []string // not violated, in a run where the fault took effect
}

// CheckStory runs cfg once and checks that the fault took effect, that
// every property of want.Violated was violated and that every one of
// want.Holds was not, with the witness that the good path was taken: at
// least two sections committed, and (fenced rows) the stale operation
// refused.
func CheckStory(t *testing.T, cfg run.Config, want Story, fenced bool) *run.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err)
	j := res.Judgement
	require.True(t, j.TookEffect, "the %s took effect by its story (faults %v, beliefs %v)", cfg.Fault, res.History.Faults, j.Beliefs)
	require.NotEmpty(t, res.History.Faults, "the fault is logged")
	assert.Equal(t, cfg.Fault, res.History.Faults[0].Fault)
	assert.Empty(t, res.History.Faults[0].Error)
	assert.Greater(t, res.History.Faults[0].End, res.History.Faults[0].Start, "the fault has wall times")
	for _, p := range want.Violated {
		assert.Equal(t, verdict.Violated, j.Verdicts.Get(p).Status, "%s: %v", p, j.Verdicts.Get(p))
	}
	for _, p := range want.Holds {
		assert.Equal(t, verdict.Holds, j.Verdicts.Get(p).Status, "%s: %v", p, j.Verdicts.Get(p))
	}
	assert.GreaterOrEqual(t, j.Committed, 2, "sections committed")
	if fenced {
		assert.GreaterOrEqual(t, j.Refused, 1, "the stale operation refused")
	}
	return res
}

// NeedRedis skips a test where redis-server is not installed, naming the
// Debian package.
func NeedRedis(t *testing.T) {
	t.Helper()
	_, _, err := server.RedisVersion(context.Background())
	var missing *server.MissingError
	if errors.As(err, &missing) {
		t.Skipf("redis-server not installed (Debian package %s)", server.RedisPackage)
	}
	require.NoError(t, err)
}

// NeedSetup skips, in one line, a test of a setup whose probe fails (its
// server or, for a client command, its library is not installed).
func NeedSetup(t *testing.T, s setup.Setup) {
	t.Helper()
	if s.Probe == nil {
		return
	}
	if _, err := s.Probe(context.Background()); err != nil {
		t.Skipf("skipping %s: %v", s.ID(), err)
	}
}

// NeedZooKeeper skips, in one line naming the Debian package, where
// ZooKeeper is not installed.
func NeedZooKeeper(t *testing.T) {
	t.Helper()
	if _, err := server.ZooKeeperVersion(); err != nil {
		if missing := (*server.MissingError)(nil); errors.As(err, &missing) {
			t.Skip("skipping: " + missing.Error())
		}
		t.Fatal(err)
	}
}

// FirstReader is the client whose read was accepted first.
func FirstReader(h *history.History) int {
	for _, r := range h.Records {
		if r.Op == history.OpRead && r.Ev == history.Return && r.OK {
			return r.Client
		}
	}
	return -1
}
