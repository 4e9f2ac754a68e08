package server

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/api/v3/version"
	"go.etcd.io/etcd/server/v3/embed"
)

// EtcdRole is the hidden role a binary is re-executed with to serve etcd
// (`fencelab-live etcd-server --dir ... --client-port ... --peer-port ...`);
// its main package hands the flags after the role to RunEtcdServer.
const EtcdRole = "etcd-server"

// Timing of the embedded etcd. A single member needs no elections after its
// first, so short ticks cost nothing; they matter because etcd raises every
// lease's TTL to at least 1.5 election timeouts: with etcd's defaults (100 ms
// ticks, 1 s election) a 1 s lease would become 2 s, with these it stays 1 s.
const (
	etcdTickMs     = 20
	etcdElectionMs = 200
)

// Layout of an Etcd's folder: etcd's own data directory (what a wipe
// removes) and etcd's log (the child's stdout and stderr go to the
// process log that StartProc keeps beside them).
const (
	etcdDataSubdir = "data"
	etcdLogFile    = "etcd-server.log"
)

// freePortTries bounds the search for a peer port distinct from the
// client port (two FreePort calls may return the same port).
const freePortTries = 5

// EtcdOptions says how to start the etcd child process: the child is a Go
// binary that calls RunEtcdServer (fencelab-live with the role
// EtcdRole; a test binary re-executing itself).
type EtcdOptions struct {
	// Binary is the executable to run (required).
	Binary string
	// Args come before the server's own flags: the role, e.g.
	// []string{EtcdRole}.
	Args []string
	// Env is added to the child's environment (a test binary's switch).
	Env []string
	// ReadyTimeout bounds each start (DefaultReadyTimeout if zero).
	ReadyTimeout time.Duration
}

// Etcd is a single-member etcd v3 cluster (go.etcd.io/etcd/server/v3/embed)
// running in a child process of its own, so that a fault can pause,
// kill and restart it. It implements Server.
type Etcd struct {
	proc    *Proc
	dataDir string

	mu        sync.Mutex
	startTime time.Duration // how long the last start or restart took
}

// StartEtcd starts etcd in dir, a folder the caller has just made for it
// and hands over: from the call on it belongs to the Etcd (removed by Stop,
// or at once when the start fails). Clients reach it at Addr (127.0.0.1,
// a free port); its peer port is another free port, bound to 127.0.0.1 too.
func StartEtcd(ctx context.Context, dir string, opts EtcdOptions) (*Etcd, error) {
	first := true
	return retryOnPortInUse(func() (*Etcd, error) {
		if !first {
			// The failed start removed dir: the retry makes it again.
			if err := os.Mkdir(dir, 0o755); err != nil {
				return nil, fmt.Errorf("starting etcd: %w", err)
			}
		}
		first = false
		return startEtcdOnce(ctx, dir, opts)
	})
}

func startEtcdOnce(ctx context.Context, dir string, opts EtcdOptions) (*Etcd, error) {
	clientPort, peerPort, err := twoFreePorts()
	if err != nil {
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
		return nil, fmt.Errorf("starting etcd: %w", err)
	}
	dataDir := filepath.Join(dir, etcdDataSubdir)
	args := append(append([]string(nil), opts.Args...),
		"--dir", dataDir,
		"--client-port", strconv.Itoa(clientPort),
		"--peer-port", strconv.Itoa(peerPort),
		"--log-file", filepath.Join(dir, etcdLogFile),
	)
	began := time.Now()
	proc, err := StartProc(ctx, ProcSpec{
		Name:         "etcd",
		Dir:          dir,
		Path:         opts.Binary,
		Args:         args,
		Env:          opts.Env,
		Port:         clientPort,
		Ready:        etcdHealthy,
		ReadyTimeout: opts.ReadyTimeout,
	})
	if err != nil {
		return nil, err
	}
	return &Etcd{proc: proc, dataDir: dataDir, startTime: time.Since(began)}, nil
}

// twoFreePorts returns two distinct free ports on 127.0.0.1.
func twoFreePorts() (int, int, error) {
	first, err := FreePort()
	if err != nil {
		return 0, 0, err
	}
	for range freePortTries {
		second, err := FreePort()
		if err != nil {
			return 0, 0, err
		}
		if second != first {
			return first, second, nil
		}
	}
	return 0, 0, fmt.Errorf("no second free port distinct from %d after %d tries", first, freePortTries)
}

// etcdHealthy asks etcd's /health endpoint, which answers 200 only once
// the member has a leader and serves a linearizable read: a listening port
// alone comes before that.
func etcdHealthy(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/health", nil)
	if err != nil {
		return fmt.Errorf("etcd health check: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("etcd health check: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd health check: status %d", resp.StatusCode)
	}
	return nil
}

// Name is "etcd".
func (e *Etcd) Name() string { return "etcd" }

// Addr is the client address, 127.0.0.1:port.
func (e *Etcd) Addr() string { return e.proc.Addr() }

// Version names the etcd that the child embeds (EtcdVersion).
func (e *Etcd) Version() string { return EtcdVersion() }

// EtcdVersion names the etcd this module embeds: the child is built from
// this very module, so etcd's version package says what it runs.
func EtcdVersion() string { return "etcd " + version.Version + " (embedded)" }

// Dir is the Etcd's folder: etcd's data directory and logs are in it.
func (e *Etcd) Dir() string { return e.proc.Dir() }

// Running is server.Runner's: a paused process runs.
func (e *Etcd) Running() bool { return e.proc.Running() }

// Pids is the child's process group (empty while killed).
func (e *Etcd) Pids() []int { return e.proc.Pids() }

// Kill ends the child at once (SIGKILL); etcd's data folder stays, with
// every write etcd acknowledged (etcd syncs its WAL before it answers).
func (e *Etcd) Kill() error { return e.proc.Kill() }

// Restart starts a killed etcd again on the same ports. With wipe, etcd's
// data folder is removed first and etcd starts over as a new cluster: its
// keys, leases and revision counter are gone (revisions start again at 1).
func (e *Etcd) Restart(ctx context.Context, wipe bool) error {
	if e.proc.Running() {
		return fmt.Errorf("restart etcd: it is still running (kill it first)")
	}
	if wipe {
		if err := os.RemoveAll(e.dataDir); err != nil {
			return fmt.Errorf("restart etcd: wiping its data: %w", err)
		}
	}
	began := time.Now()
	if err := e.proc.Restart(ctx); err != nil {
		return err
	}
	e.mu.Lock()
	e.startTime = time.Since(began)
	e.mu.Unlock()
	return nil
}

// Stop ends the child if it runs and removes the Etcd's folder.
func (e *Etcd) Stop() error { return e.proc.Stop() }

// Pause stops the child (SIGSTOP): a server pause.
func (e *Etcd) Pause() error { return e.proc.Pause() }

// Resume continues a paused child (SIGCONT).
func (e *Etcd) Resume() error { return e.proc.Resume() }

// StartTime is how long the last start or restart took, from starting the
// child until etcd answered its health check.
func (e *Etcd) StartTime() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.startTime
}

// etcdServerFlags are RunEtcdServer's flags, parsed and checked.
type etcdServerFlags struct {
	dir        string
	clientPort int
	peerPort   int
	logFile    string
}

// parseEtcdServerFlags parses args (the flags after the role).
func parseEtcdServerFlags(args []string) (etcdServerFlags, error) {
	var f etcdServerFlags
	fs := flag.NewFlagSet(EtcdRole, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error is returned, said once by the caller
	fs.StringVar(&f.dir, "dir", "", "etcd's data directory (required)")
	fs.IntVar(&f.clientPort, "client-port", 0, "client port on 127.0.0.1 (required)")
	fs.IntVar(&f.peerPort, "peer-port", 0, "peer port on 127.0.0.1 (required)")
	fs.StringVar(&f.logFile, "log-file", "", "etcd's log file (default: stderr)")
	if err := fs.Parse(args); err != nil {
		// The flag package quotes a bad value whole: bound it.
		return f, fmt.Errorf("%s: %.160s", EtcdRole, err.Error())
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("%s: unexpected argument %.64q", EtcdRole, fs.Arg(0))
	}
	if f.dir == "" {
		return f, fmt.Errorf("%s: --dir is required", EtcdRole)
	}
	for _, p := range []struct {
		name string
		port int
	}{{"--client-port", f.clientPort}, {"--peer-port", f.peerPort}} {
		if p.port <= 0 || p.port > 65535 {
			return f, fmt.Errorf("%s: %s must be a port in 1..65535, got %d", EtcdRole, p.name, p.port)
		}
	}
	if f.clientPort == f.peerPort {
		return f, fmt.Errorf("%s: --client-port and --peer-port must differ (both %d)", EtcdRole, f.clientPort)
	}
	return f, nil
}

// RunEtcdServer is the etcd child's body: it serves a single-member etcd
// on 127.0.0.1 with the data directory and ports that args give
// (--dir, --client-port, --peer-port, optional --log-file) until ctx ends
// or the process gets SIGTERM or SIGINT, then closes etcd and returns nil.
// It returns an error for bad flags (before starting anything) and when
// etcd fails to start or fails while serving.
func RunEtcdServer(ctx context.Context, args []string) error {
	f, err := parseEtcdServerFlags(args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	cfg := embed.NewConfig()
	cfg.Name = "fencelab"
	cfg.Dir = f.dir
	clientURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(f.clientPort))}
	peerURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(f.peerPort))}
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.TickMs = etcdTickMs
	cfg.ElectionMs = etcdElectionMs
	cfg.LogLevel = "warn"
	if f.logFile != "" {
		cfg.LogOutputs = []string{f.logFile}
	} else {
		cfg.LogOutputs = []string{embed.StdErrLogOutput}
	}

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("%s: starting etcd: %w", EtcdRole, err)
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		return fmt.Errorf("%s: etcd failed while starting: %w", EtcdRole, err)
	case <-ctx.Done():
		return nil
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-e.Err():
		if err == nil {
			err = errors.New("its listeners closed")
		}
		return fmt.Errorf("%s: etcd failed: %w", EtcdRole, err)
	case <-e.Server.StopNotify():
		return fmt.Errorf("%s: etcd stopped by itself", EtcdRole)
	}
}
