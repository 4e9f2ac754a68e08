package server

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/quote"
)

// ZooKeeperPackage is the Debian package that provides ZooKeeper's server
// (its jars under /usr/share/java); `make live-deps` installs it.
const ZooKeeperPackage = "zookeeper"

// Where Debian's zookeeper package and its default JRE put things. These
// are fixed paths on purpose: a path taken from the environment could run
// anything.
const (
	debianZooKeeperJar = "/usr/share/java/zookeeper.jar"
	debianJava         = "/usr/bin/java"
	// debianSLF4JSimple is slf4j's simple binding (libslf4j-java, pulled
	// in by the package): with it the server's warnings reach its log,
	// without it slf4j falls back to a silent logger.
	debianSLF4JSimple = "/usr/share/java/slf4j-simple.jar"
)

// Defaults of ZooKeeperOptions.
const (
	// DefaultZooKeeperTick is ZooKeeper's tickTime. The server checks for
	// expired sessions once a tick and bounds the session timeouts it
	// grants by ticks, so a short tick is what lets a lock's session (and
	// so its lease) be as short as one or two seconds, and expire within
	// a tick of its timeout.
	DefaultZooKeeperTick = 100 * time.Millisecond
	// DefaultZooKeeperMaxSession is the longest session timeout granted.
	DefaultZooKeeperMaxSession = 60 * time.Second
	// DefaultZooKeeperHeapMB is the JVM's maximum heap: a standalone
	// server holding a few lock nodes needs little.
	DefaultZooKeeperHeapMB = 64
)

// ZooKeeperOptions says how to run a ZooKeeper server; the zero value is
// a good default.
type ZooKeeperOptions struct {
	// Name is the instance's name in histories and fault logs
	// ("zookeeper" if empty).
	Name string
	// Port is the client port on 127.0.0.1 (a free port if 0).
	Port int
	// Tick is the server's tickTime (DefaultZooKeeperTick if 0).
	Tick time.Duration
	// MinSession and MaxSession bound the session timeouts the server
	// grants (2 ticks and DefaultZooKeeperMaxSession if 0): a client
	// asking for a timeout outside them gets the nearest bound.
	MinSession, MaxSession time.Duration
	// HeapMB is the JVM's maximum heap in MiB (DefaultZooKeeperHeapMB if 0).
	HeapMB int
	// ReadyTimeout bounds the start-up (DefaultReadyTimeout if 0).
	ReadyTimeout time.Duration
}

// ZooKeeper is a standalone ZooKeeper server run from Debian's zookeeper
// package as one JVM: `java -cp zookeeper.jar ... ZooKeeperServerMain
// zoo.cfg` (what the package's zkServer.sh and QuorumPeerMain end up
// running for a configuration without peers), started directly rather
// than through the script so that the process a pause stops and a kill
// ends is the server itself, not a shell.
//
// Its folder (made under the caller's dir) holds zoo.cfg, the JVM's log
// (<name>.log) and the data folder (data/: the snapshots and the
// transaction log, which the server syncs to disk before it answers a
// write). Kill leaves the folder, so a Restart finds every znode, session
// and zxid it had; Restart with wipe empties data/ first, and the server
// then counts zxids from zero again.
//
// Start-up is a JVM's: 0.3 to 1.4 s on this machine (2 cores, shared),
// most of it the JVM's own start; BenchmarkStartZooKeeper measures it.
type ZooKeeper struct {
	proc    *Proc
	name    string
	dataDir string
	version string
}

// StartZooKeeper starts a standalone ZooKeeper server in a new folder under
// dir, listening on 127.0.0.1 only, and waits until it serves. It returns
// a *MissingError naming the package zookeeper when the server's jar or
// Java is missing. On any failure nothing is left running and the new
// folder is removed.
func StartZooKeeper(ctx context.Context, dir string, opts ZooKeeperOptions) (*ZooKeeper, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	version, err := ZooKeeperVersion()
	if err != nil {
		return nil, err
	}
	if opts.Port != 0 {
		return startZooKeeperOnce(ctx, dir, opts, version) // the caller's port
	}
	return retryOnPortInUse(func() (*ZooKeeper, error) {
		return startZooKeeperOnce(ctx, dir, opts, version)
	})
}

// startZooKeeperOnce starts the server once, on opts.Port or (0) a free port.
func startZooKeeperOnce(ctx context.Context, dir string, opts ZooKeeperOptions, version string) (*ZooKeeper, error) {
	var err error
	if opts.Port == 0 {
		if opts.Port, err = FreePort(); err != nil {
			return nil, err
		}
	}
	folder, err := os.MkdirTemp(dir, opts.Name+"-")
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", opts.Name, err)
	}
	// From here on the folder is the Proc's (StartProc removes it if it
	// fails); it is removed here only if StartProc is never reached.
	dataDir := filepath.Join(folder, "data")
	cfgPath := filepath.Join(folder, "zoo.cfg")
	if err := errors.Join(
		os.Mkdir(dataDir, 0o755),
		os.WriteFile(cfgPath, []byte(zooKeeperConfig(opts, dataDir)), 0o644),
	); err != nil {
		_ = os.RemoveAll(folder)
		return nil, fmt.Errorf("starting %s: %w", opts.Name, err)
	}
	proc, err := StartProc(ctx, ProcSpec{
		Name:         opts.Name,
		Dir:          folder,
		Path:         debianJava,
		Args:         zooKeeperJavaArgs(opts, folder, cfgPath),
		Port:         opts.Port,
		Ready:        zooKeeperServes,
		ReadyTimeout: opts.ReadyTimeout,
	})
	if err != nil {
		return nil, err
	}
	return &ZooKeeper{proc: proc, name: opts.Name, dataDir: dataDir, version: version}, nil
}

// ZooKeeperVersion is what a started server's Version would say
// ("zookeeper 3.8.0"), read from the installed jar without starting
// anything; a *MissingError names the package when it is not installed.
func ZooKeeperVersion() (string, error) {
	if err := zooKeeperInstalled(debianZooKeeperJar, debianJava); err != nil {
		return "", err
	}
	v, err := zooKeeperJarVersion(debianZooKeeperJar)
	if err != nil {
		return "", err
	}
	return "zookeeper " + v, nil
}

// zooKeeperInstalled checks for the server's jar and the JVM, or returns a
// *MissingError naming the package that brings both.
func zooKeeperInstalled(files ...string) error {
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return &MissingError{Program: f, Package: ZooKeeperPackage, Err: err}
		}
	}
	return nil
}

// withDefaults fills in the zero fields and checks the rest.
func (o ZooKeeperOptions) withDefaults() (ZooKeeperOptions, error) {
	if o.Name == "" {
		o.Name = "zookeeper"
	}
	if strings.ContainsAny(o.Name, "/\x00") || o.Name == "." || o.Name == ".." {
		return o, fmt.Errorf("zookeeper: name %.40q is not a file name", o.Name)
	}
	if o.Tick == 0 {
		o.Tick = DefaultZooKeeperTick
	}
	if o.MinSession == 0 {
		o.MinSession = 2 * o.Tick
	}
	if o.MaxSession == 0 {
		o.MaxSession = DefaultZooKeeperMaxSession
	}
	if o.HeapMB == 0 {
		o.HeapMB = DefaultZooKeeperHeapMB
	}
	switch {
	case o.Port < 0 || o.Port > 65535:
		return o, fmt.Errorf("zookeeper: port %d out of range", o.Port)
	case o.Tick < time.Millisecond:
		return o, fmt.Errorf("zookeeper: tick %v shorter than 1ms", o.Tick)
	case o.MinSession < 2*o.Tick || o.MaxSession < o.MinSession:
		// ZooKeeper itself refuses a minimum below two ticks.
		return o, fmt.Errorf("zookeeper: session bounds [%v, %v] not within [2 ticks, ...] for tick %v", o.MinSession, o.MaxSession, o.Tick)
	case o.HeapMB < 16:
		return o, fmt.Errorf("zookeeper: heap %d MiB below 16", o.HeapMB)
	}
	return o, nil
}

// zooKeeperConfig is the server's zoo.cfg.
func zooKeeperConfig(o ZooKeeperOptions, dataDir string) string {
	lines := []string{
		"tickTime=" + strconv.FormatInt(o.Tick.Milliseconds(), 10),
		"minSessionTimeout=" + strconv.FormatInt(o.MinSession.Milliseconds(), 10),
		"maxSessionTimeout=" + strconv.FormatInt(o.MaxSession.Milliseconds(), 10),
		"dataDir=" + dataDir,
		"clientPortAddress=127.0.0.1",
		"clientPort=" + strconv.Itoa(o.Port),
		// No HTTP admin server (it would bind 0.0.0.0:8080), and of
		// the four-letter commands only the readiness check's and the
		// watch count's (ZooKeeperWatches).
		"admin.enableServer=false",
		"4lw.commands.whitelist=srvr,wchs",
		// Each transaction log file is preallocated; 1 MiB rather than
		// 64 MiB, as a run writes a few hundred transactions.
		"preAllocSize=1024",
		// Keep the transaction log synced before each answer (the
		// default, said here because Kill-and-Restart relies on it).
		"forceSync=yes",
	}
	return strings.Join(lines, "\n") + "\n"
}

// zooKeeperJavaArgs is the JVM's command line (after the java binary).
func zooKeeperJavaArgs(o ZooKeeperOptions, folder, cfgPath string) []string {
	classpath := debianZooKeeperJar // its manifest names its dependencies
	if _, err := os.Stat(debianSLF4JSimple); err == nil {
		classpath += ":" + debianSLF4JSimple
	}
	return []string{
		"-Xmx" + strconv.Itoa(o.HeapMB) + "m",
		"-Xms16m",
		"-XX:+UseSerialGC",
		// The C1 compiler only: the JVM starts faster, and a lock server
		// under a test's load never needs C2.
		"-XX:TieredStopAtLevel=1",
		// No /tmp/hsperfdata_<user>/<pid> file, which a SIGKILL would
		// leave behind outside the server's folder.
		"-XX:-UsePerfData",
		"-Djava.io.tmpdir=" + folder,
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		// A client that drops its connection (the readiness probe, a
		// killed client) is logged at warn with a stack trace.
		"-Dorg.slf4j.simpleLogger.log.org.apache.zookeeper.server.NIOServerCnxn=error",
		"-cp", classpath,
		"org.apache.zookeeper.server.ZooKeeperServerMain",
		cfgPath,
	}
}

// zooKeeperServes is the readiness check. ZooKeeper accepts connections
// a moment before it serves them (a session asked for then fails), and it
// answers the four-letter command "ruok" with "imok" in that moment too;
// "srvr" is the one that says whether the server serves: its statistics
// ("Zookeeper version: ...") once it does, "This ZooKeeper instance is not
// currently serving requests" before.
func zooKeeperServes(ctx context.Context, addr string) error {
	answer, err := probe(ctx, addr, "srvr", 200*time.Millisecond, zooKeeperAnswer)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(answer, []byte("Zookeeper version:")) {
		return fmt.Errorf("not serving yet: srvr says %.80q", answer)
	}
	return nil
}

// zooKeeperAnswer reads the answer to a four-letter command: ZooKeeper
// closes the connection after it.
func zooKeeperAnswer(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, 4<<10))
}

// zooKeeperWatchTotal finds the count in wchs's answer ("Total
// watches:3").
var zooKeeperWatchTotal = regexp.MustCompile(`(?m)^Total watches:([0-9]+)$`)

// ZooKeeperWatches is how many watches the clients of the server at addr
// have set, by the four-letter command wchs. A watch is there once the
// server has answered the request that set it, so a test can wait for a
// contender to be waiting on its predecessor: a state, not a time.
func ZooKeeperWatches(ctx context.Context, addr string) (int, error) {
	answer, err := probe(ctx, addr, "wchs", time.Second, zooKeeperAnswer)
	if err != nil {
		return 0, fmt.Errorf("zookeeper wchs at %s: %w", addr, err)
	}
	m := zooKeeperWatchTotal.FindSubmatch(answer)
	if m == nil {
		return 0, fmt.Errorf("zookeeper wchs at %s: no watch count in %.80q", addr, answer)
	}
	n, err := strconv.Atoi(string(m[1]))
	if err != nil {
		return 0, fmt.Errorf("zookeeper wchs at %s: %w", addr, err)
	}
	return n, nil
}

// zooKeeperJarVersion reads the version Maven recorded in the jar
// (META-INF/maven/.../pom.properties: "version=3.8.0"), which is the
// version org.apache.zookeeper.Version reports, without starting a JVM.
func zooKeeperJarVersion(jar string) (string, error) {
	const entry = "META-INF/maven/org.apache.zookeeper/zookeeper/pom.properties"
	r, err := zip.OpenReader(jar)
	if err != nil {
		return "", fmt.Errorf("zookeeper: reading %s: %w", jar, err)
	}
	defer r.Close()
	f, err := r.Open(entry)
	if err != nil {
		return "", fmt.Errorf("zookeeper: %s has no %s: %w", jar, entry, err)
	}
	defer f.Close()
	s := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for s.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "version="); ok && v != "" {
			return quote.S(v), nil
		}
	}
	return "", fmt.Errorf("zookeeper: no version= line in %s of %s", entry, jar)
}

// Name is the instance's name.
func (z *ZooKeeper) Name() string { return z.name }

// Addr is the client address, 127.0.0.1:port.
func (z *ZooKeeper) Addr() string { return z.proc.Addr() }

// Version is "zookeeper <version>", read from the server's jar.
func (z *ZooKeeper) Version() string { return z.version }

// Running is server.Runner's: a paused process runs.
func (z *ZooKeeper) Running() bool { return z.proc.Running() }

// Pids is the JVM's process (empty while killed).
func (z *ZooKeeper) Pids() []int { return z.proc.Pids() }

// Pause stops the JVM (SIGSTOP): the server neither answers nor counts
// time toward sessions' expiry while paused.
func (z *ZooKeeper) Pause() error { return z.proc.Pause() }

// Resume continues a paused JVM (SIGCONT).
func (z *ZooKeeper) Resume() error { return z.proc.Resume() }

// Kill ends the JVM at once (SIGKILL); the data folder stays.
func (z *ZooKeeper) Kill() error { return z.proc.Kill() }

// Restart starts a killed server again on the same port. With wipe, the
// data folder is emptied first: the server forgets every znode and
// session and counts zxids from zero again (the design row
// restart-volatile); without, it replays its log and zxids keep growing.
//
// A client that saw a larger zxid than a wiped server's is refused by it
// (ZooKeeper will not let a client see history go back), so after a
// wiped restart only new clients get sessions.
func (z *ZooKeeper) Restart(ctx context.Context, wipe bool) error {
	if z.proc.Running() {
		return fmt.Errorf("restart %s: it is still running", z.name)
	}
	if wipe {
		if err := os.RemoveAll(z.dataDir); err != nil {
			return fmt.Errorf("restart %s: wiping its data: %w", z.name, err)
		}
		if err := os.Mkdir(z.dataDir, 0o755); err != nil {
			return fmt.Errorf("restart %s: %w", z.name, err)
		}
	}
	return z.proc.Restart(ctx)
}

// Stop ends the server if it runs and removes its folder.
func (z *ZooKeeper) Stop() error { return z.proc.Stop() }

var _ Server = (*ZooKeeper)(nil)
