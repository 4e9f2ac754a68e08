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
			interpreter: python, script: "python/redis_lock.py", version: pythonModule("redis", "python3-redis")},
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
				s.Faults = []history.Fault{history.FaultClientPause, history.FaultDelay, history.FaultBlackhole}
				s.MoreFaults = []history.Fault{history.FaultServerPause, history.FaultClockStep}
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
				s.Stories = map[history.Fault]Story{history.FaultRestartWipe: {Think: 700 * time.Millisecond,
					Why: "the waiter retries 0 to 400 ms after a refusal: the holder thinks past that after the restart"}}
			}},
	}
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
