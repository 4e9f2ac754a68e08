package setup

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
)

// ExamplesEnv names the folder of the client-command examples
// (live/examples) when fencelab-live runs outside the repository.
const ExamplesEnv = "FENCELAB_EXAMPLES"

// python is Debian's interpreter, which Debian's python3-redis and
// python3-kazoo are installed for (a python3 earlier on PATH, pyenv's,
// may lack them).
const python = "/usr/bin/python3"

// node is Debian's nodejs.
const node = "/usr/bin/node"

// example is a real library of another language as a setup: a client
// command under live/examples speaking the lock-client protocol, in the
// servers and row of one of its service's Go setups (base).
type example struct {
	service, base, name string
	library             string
	why                 string
	// interpreter runs script (a path under live/examples).
	interpreter, script string
	// version reports the library's version, given live/examples.
	version func(ctx context.Context, dir string) (string, error)
	// adjust, if set, changes what the library does differently from the
	// base setup's recipe (its row, its lease, the faults that take
	// effect).
	adjust func(*Setup)
}

// examples are the libraries of other languages the matrix runs.
func examples() []example {
	return []example{
		{service: "redis", base: "off", name: "redis-py", library: "redis-py (Debian python3-redis)",
			why:         "redis-py's Lock: SET NX PX with a random token, retried until blocking_timeout, a Lua compare-and-delete release; no fencing token",
			interpreter: python, script: "python/redis_lock.py", version: pythonModule("redis", "python3-redis"),
			adjust: func(s *Setup) {
				// Beside row off's pause and clock step: a restart that
				// wipes Redis (no persistence) forgets the holder's key
				// while it thinks, as restart-volatile's does; and a fault
				// of the holder's links, against which the lease, fixed,
				// is safe (leasedAgainstLinks).
				s.Faults = []history.Fault{history.FaultClientPause, history.FaultClockStep, history.FaultRestartWipe, history.FaultDelay, history.FaultBlackhole}
				s.MoreFaults = []history.Fault{history.FaultServerPause}
				s.Safe = leasedAgainstLinks()
			}},
		{service: "redis", base: "off", name: "redis-semaphore", library: "redis-semaphore (npm)",
			why:         "redis-semaphore's Mutex: SET NX PX with a random identifier, refreshed every 0.8 TTL by a timer while held (a renewed lease, held while the process runs); no token",
			interpreter: node, script: "node/semaphore_mutex.js", version: npmPackage("redis-semaphore"),
			adjust: func(s *Setup) {
				// Renewed, so not Leased: a section may outlast the TTL,
				// and the network faults take effect (the renewals are
				// lost on the cut link while the holder goes on).
				s.Design, s.Leased = impl.DesignRenewal, false
				// A refresh every 0.8 TTL leaves 0.2 TTL for the Node
				// process's timer to be late: at Redis's 500 ms, a
				// machine at load 10 delayed one by 100 ms, and the lease
				// ran out under a holder no fault had touched.
				s.TTL = time.Second
				// A restart that wipes Redis forgets the key its timer
				// refreshes, and a clock step forward expires it at once:
				// the waiter (retrying every 10 ms) is granted while the
				// holder goes on, and the holder's next refresh finds the
				// key gone (onLockLost, which a user logs; the section
				// goes on).
				s.Faults = []history.Fault{history.FaultClientPause, history.FaultDelay, history.FaultBlackhole, history.FaultRestartWipe, history.FaultClockStep}
				s.MoreFaults = []history.Fault{history.FaultServerPause}
				// The clock step's story needs the waiter's process up and
				// waiting when the step comes: a Node process started up
				// to 1.9 s after the other at load 13 to 24, and with the
				// 192 ms think the step's story derived the holder had
				// ended its sections first (1 of 3 took effect). The run
				// now holds the step back until another client waits
				// (run.othersWait), but no later than the holder's last
				// section: 450 ms sections give a late waiter 0.9 s. Not
				// longer: the step then comes in a later section, whose
				// holder waited about a section for its grant, and the
				// judge counts the lease (no validity reported) from the
				// acquire's call: at 700 ms the waiter's grant after the
				// step came past that end once (2 of 3 at load 20).
				// The restart's: a waiter's command in flight when Redis
				// is killed fails only at ioredis's 500 ms commandTimeout
				// (at load 20 the derived 400 ms think had ended the
				// holder's section by then in 1 of 3); 900 ms covers that,
				// the reconnection and the next 10 ms attempt.
				s.Stories = map[history.Fault]Story{
					history.FaultClockStep: {Think: 450 * time.Millisecond,
						Why: "the waiter's Node process must be up and waiting when the clock steps"},
					history.FaultRestartWipe: {Think: 900 * time.Millisecond,
						Why: "a waiter's command cut by the restart fails only at ioredis's 500 ms commandTimeout"},
				}
			}},
		{service: "zookeeper", base: "zxid-revision", name: "kazoo", library: "kazoo (Debian python3-kazoo)",
			why:         "kazoo's Lock: an ephemeral sequential znode, granted when lowest, held while the session lives; its czxid as the token, checked >= by the register",
			interpreter: python, script: "python/kazoo_lock.py", version: pythonModule("kazoo", "python3-kazoo")},
		{service: "redlock", base: "redlock", name: "node-redlock", library: "redlock (npm)",
			why:         "node redlock's lock over 5 ioredis clients: SET NX PX on each, granted on a majority within TTL less drift, released on all; no fencing",
			interpreter: node, script: "node/redlock_lock.js", version: npmPackage("redlock"),
			adjust: func(s *Setup) {
				// The example's waiter tries again 0 to 400 ms after a
				// refusal (redlock's delay and jitter): with the restart
				// story's 400 ms floor the holder had ended its section
				// before the waiter's next try in 2 of 3 runs at load 4.
				// 700 ms outlasts the longest wait and stays under 3/4 of
				// the 1 s lease the checked holder believes for.
				// A clock step of the five nodes (one shim offset for
				// all: a step of one node of five would leave the
				// majority's keys) expires the key everywhere at once, and
				// the waiter, on the same 0 to 400 ms retry, must be
				// granted while the holder still thinks: the same 700 ms.
				// The library's drift allowance (1% of the TTL + 2 ms) is
				// for clocks that run at different rates, not for a step.
				s.Stories = map[history.Fault]Story{
					history.FaultRestartWipe: {Think: 700 * time.Millisecond,
						Why: "the waiter retries 0 to 400 ms after a refusal: the holder thinks past that after the restart"},
					history.FaultClockStep: {Think: 700 * time.Millisecond,
						Why: "the waiter retries 0 to 400 ms after a refusal: the holder thinks past that after the step"},
				}
				// The fixed lease on five nodes against a fault of the
				// holder's links (leasedAgainstLinks).
				s.Faults = []history.Fault{history.FaultClientPause, history.FaultRestartWipe, history.FaultDelay, history.FaultBlackhole, history.FaultClockStep}
				s.MoreFaults = []history.Fault{history.FaultServerPause}
				s.Safe = leasedAgainstLinks()
			}},
	}
}

// leasedAgainstLinks is the claim of a library whose lease nobody renews
// (Leased) against a delay or a blackhole of its holder's links: the
// holder, still running, ends its section within its validity (the
// section fits the lease), so the fault can only cost it its release, and
// the lease then runs out at the server by itself, no sooner than the
// validity the holder counted from before its acquire was sent. Each run
// must witness it (check's witness): the release lost or late, the waiter
// granted only once that validity had ended. Go's SET NX PX setups leave
// these faults out of the matrix instead (redisSetups).
func leasedAgainstLinks() map[history.Fault]string {
	const why = "the fixed lease runs out at the server after the holder's lost release, never before its validity"
	return map[history.Fault]string{history.FaultDelay: why, history.FaultBlackhole: why}
}

// clientCommandSetups are the examples' setups, each its base setup
// among goSetups with its lock taken by the example's command.
func clientCommandSetups(goSetups []Setup) []Setup {
	dir, dirErr := examplesDir()
	var out []Setup
	for _, ex := range examples() {
		base, err := Find(goSetups, ex.service, ex.base)
		if err != nil {
			panic(fmt.Sprintf("example %s: %v", ex.name, err)) // a registry that cannot be built
		}
		script := filepath.Join(dir, filepath.FromSlash(ex.script))
		s := base.WithClientCommand(ex.interpreter + " " + shellQuote(script))
		s.Name, s.Why, s.Library = ex.name, ex.why, ex.library
		if ex.adjust != nil {
			ex.adjust(&s)
		}
		version := func() (string, error) {
			if dirErr != nil {
				return "", dirErr
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return ex.version(ctx, dir)
		}
		s.ClientVersion = version
		serverProbe := base.Probe
		s.Probe = func(ctx context.Context) (string, error) {
			if _, err := version(); err != nil {
				return "", fmt.Errorf("%s: %w", ex.library, err)
			}
			if serverProbe == nil {
				return "fencelab", nil
			}
			return serverProbe(ctx)
		}
		out = append(out, s)
	}
	return out
}

// examplesDir finds live/examples: $FENCELAB_EXAMPLES, or the first
// live/examples (or examples, inside live/) above the working folder or
// the binary's.
func examplesDir() (string, error) {
	if d := os.Getenv(ExamplesEnv); d != "" {
		return filepath.Abs(d)
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, start := range starts {
		for d := start; ; d = filepath.Dir(d) {
			for _, c := range []string{filepath.Join(d, "live", "examples"), filepath.Join(d, "examples")} {
				if st, err := os.Stat(filepath.Join(c, "python")); err == nil && st.IsDir() {
					return c, nil
				}
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("live/examples not found above the working folder or the binary (run from the repository, or set %s)", ExamplesEnv)
}

// pythonModule reports the version of module as Debian's python3 imports
// it, or names pkg, the Debian package that provides it.
func pythonModule(module, pkg string) func(context.Context, string) (string, error) {
	return func(ctx context.Context, _ string) (string, error) {
		out, err := exec.CommandContext(ctx, python, "-c", "import "+module+"; print("+module+".__version__)").Output()
		if err != nil {
			return "", fmt.Errorf("%s cannot import %s: install Debian's %s (make live-deps)", python, module, pkg)
		}
		return strings.TrimSpace(string(out)), nil
	}
}

// npmPackage reports the version of pkg as npm ci installed it under
// live/examples/node, or says how to install it.
func npmPackage(pkg string) func(context.Context, string) (string, error) {
	return func(_ context.Context, dir string) (string, error) {
		if _, err := os.Stat(node); err != nil {
			return "", fmt.Errorf("%s is missing: install Debian's nodejs (make live-deps)", node)
		}
		b, err := os.ReadFile(filepath.Join(dir, "node", "node_modules", pkg, "package.json"))
		if err != nil {
			return "", fmt.Errorf("npm package %s is not installed in %s (make live-deps runs npm ci there)", pkg, filepath.Join(dir, "node"))
		}
		var meta struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(b, &meta); err != nil || meta.Version == "" {
			return "", fmt.Errorf("npm package %s: its package.json has no version", pkg)
		}
		return meta.Version, nil
	}
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
