package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/internal/quote"
)

// RedisPackage is the Debian package that installs redis-server.
const RedisPackage = "redis-server"

// redisDataDir is Redis's "dir" inside an instance's folder; the folder
// itself holds the configuration and the log, which a wipe keeps.
const redisDataDir = "data"

// RedisOptions say how to run redis-server.
type RedisOptions struct {
	// Name is the instance's name (default "redis"; a cluster's nodes are
	// <Name>-1 ... <Name>-n).
	Name string
	// Durable turns on the append-only file with an fsync per write
	// (appendonly yes, appendfsync always): a restart keeps every
	// acknowledged write. Otherwise nothing is persisted, and a restart
	// starts empty (the restart-volatile row).
	Durable bool
	// Env is added to the server's environment: the clock shim's
	// LD_PRELOAD and offset file (package nemesis, Clock.Env).
	Env []string
	// NodeEnv, for a cluster only, is added to node i's environment
	// (0-based) after Env: a clock of its own for one node, so that a
	// clock fault can aim at one of Redlock's nodes. It may be shorter
	// than the cluster.
	NodeEnv [][]string
	// ReadyTimeout bounds start-up (DefaultReadyTimeout if zero).
	ReadyTimeout time.Duration
}

// Redis is one redis-server process.
type Redis struct {
	name    string
	version string
	dataDir string // Redis's own "dir": the AOF lives here
	proc    *Proc
}

var _ Server = (*Redis)(nil)

// redisVersion matches "v=7.0.15" in redis-server --version's output.
var redisVersion = regexp.MustCompile(`v=([0-9][0-9A-Za-z.\-]*)`)

// RedisVersion runs `redis-server --version` and names the version
// ("redis-server 7.0.15"). A missing redis-server is a *MissingError.
func RedisVersion(ctx context.Context) (path, version string, err error) {
	path, err = LookPath("redis-server", RedisPackage)
	if err != nil {
		return "", "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", "", fmt.Errorf("redis-server --version: %w", err)
	}
	m := redisVersion.FindSubmatch(out)
	if m == nil {
		return "", "", fmt.Errorf("redis-server --version: no version in %s", quote.Q(string(out)))
	}
	return path, "redis-server " + string(m[1]), nil
}

// StartRedis starts redis-server on a free port of 127.0.0.1 in a new
// folder under dir (which Stop removes), with a generated configuration,
// and waits until it serves (PING answers PONG, not LOADING).
func StartRedis(ctx context.Context, dir string, opts RedisOptions) (*Redis, error) {
	if opts.NodeEnv != nil {
		return nil, errors.New("starting redis: NodeEnv is for a cluster (StartRedisCluster)")
	}
	path, version, err := RedisVersion(ctx)
	if err != nil {
		return nil, err
	}
	if opts.Name == "" {
		opts.Name = "redis"
	}
	return startRedis(ctx, dir, path, version, opts, 0)
}

// startRedis starts one instance on port (0: a free one), retrying on a
// fresh port when the port turns out taken.
func startRedis(ctx context.Context, dir, path, version string, opts RedisOptions, port int) (*Redis, error) {
	return retryOnPortInUse(func() (*Redis, error) {
		r, err := startRedisOnce(ctx, dir, path, version, opts, port)
		port = 0 // a retry draws a free port
		return r, err
	})
}

func startRedisOnce(ctx context.Context, dir, path, version string, opts RedisOptions, port int) (*Redis, error) {
	folder, err := os.MkdirTemp(dir, opts.Name+"-")
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", opts.Name, err)
	}
	r := &Redis{name: opts.Name, version: version, dataDir: filepath.Join(folder, redisDataDir)}
	if port == 0 {
		port, err = FreePort()
	}
	if err == nil {
		err = os.Mkdir(r.dataDir, 0o755)
	}
	conf := filepath.Join(folder, "redis.conf")
	if err == nil {
		err = os.WriteFile(conf, []byte(redisConfig(port, opts.Durable)), 0o644)
	}
	if err != nil {
		_ = os.RemoveAll(folder)
		return nil, fmt.Errorf("starting %s: %w", opts.Name, err)
	}
	r.proc, err = StartProc(ctx, ProcSpec{
		Name: opts.Name, Dir: folder, Path: path, Args: []string{conf},
		Env: opts.Env, Port: port, Ready: redisServes, ReadyTimeout: opts.ReadyTimeout,
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// redisPong is Redis's answer to PING once it serves.
const redisPong = "+PONG\r\n"

// redisServes is the readiness check. Redis accepts connections, and
// answers, while it still loads its append-only file after a restart: every
// command but a few gets "-LOADING Redis is loading the dataset in memory"
// until the data is back. So a port that accepts is not enough; the server
// serves when PING answers PONG.
func redisServes(ctx context.Context, addr string) error {
	answer, err := probe(ctx, addr, "PING\r\n", time.Second, func(r io.Reader) ([]byte, error) {
		return bufio.NewReader(io.LimitReader(r, 512)).ReadBytes('\n')
	})
	if err != nil {
		return err
	}
	if string(answer) != redisPong {
		return fmt.Errorf("not serving yet: PING says %.80q", answer)
	}
	return nil
}

// redisConfig is the configuration of one instance. Its "dir" is relative
// to the server's working directory (the instance's folder), so no path
// has to survive Redis's own quoting rules.
func redisConfig(port int, durable bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "bind 127.0.0.1\nport %d\nprotected-mode no\ndaemonize no\n", port)
	fmt.Fprintf(&b, "dir ./%s\n", redisDataDir)
	b.WriteString("logfile \"\"\n") // stdout: the Proc's log file
	b.WriteString("save \"\"\n")    // no RDB snapshots: persistence is the AOF or nothing
	if durable {
		b.WriteString("appendonly yes\nappendfsync always\n")
	} else {
		b.WriteString("appendonly no\n")
	}
	return b.String()
}

// Name is the instance's name.
func (r *Redis) Name() string { return r.name }

// Addr is 127.0.0.1:port.
func (r *Redis) Addr() string { return r.proc.Addr() }

// Version is "redis-server 7.0.15".
func (r *Redis) Version() string { return r.version }

// Running is server.Runner's: a paused process runs.
func (r *Redis) Running() bool { return r.proc.Running() }

// Pids is the server's process, empty while killed.
func (r *Redis) Pids() []int { return r.proc.Pids() }

// Pause stops the server (SIGSTOP).
func (r *Redis) Pause() error { return r.proc.Pause() }

// Resume continues a paused server (SIGCONT).
func (r *Redis) Resume() error { return r.proc.Resume() }

// Kill ends the server at once; its AOF (if durable) stays.
func (r *Redis) Kill() error { return r.proc.Kill() }

// Restart starts a killed server on the same port and waits until it
// serves again (a durable server has loaded its append-only file); wipe
// empties its data folder first.
func (r *Redis) Restart(ctx context.Context, wipe bool) error {
	if wipe {
		if r.proc.Running() {
			return fmt.Errorf("restart %s: it is still running", r.name)
		}
		if err := os.RemoveAll(r.dataDir); err != nil {
			return fmt.Errorf("restart %s: wiping its data: %w", r.name, err)
		}
		if err := os.Mkdir(r.dataDir, 0o755); err != nil {
			return fmt.Errorf("restart %s: wiping its data: %w", r.name, err)
		}
	}
	return r.proc.Restart(ctx)
}

// Stop ends the server and removes its folder.
func (r *Redis) Stop() error { return r.proc.Stop() }

// LogTail is the end of the server's log.
func (r *Redis) LogTail() string { return r.proc.LogTail() }

// RedisCluster is n independent Redis instances: Redlock's nodes.
type RedisCluster struct {
	Nodes []*Redis
}

// StartRedisCluster starts n independent instances (named <Name>-1 ...,
// default redis-1 ...) under dir, all with opts. If one fails, those
// started are stopped.
func StartRedisCluster(ctx context.Context, dir string, n int, opts RedisOptions) (*RedisCluster, error) {
	if n < 1 || n > 99 {
		return nil, fmt.Errorf("a Redis cluster has 1 to 99 nodes, not %d", n)
	}
	if len(opts.NodeEnv) > n {
		return nil, fmt.Errorf("a Redis cluster of %d nodes given environments for %d", n, len(opts.NodeEnv))
	}
	path, version, err := RedisVersion(ctx)
	if err != nil {
		return nil, err
	}
	base := opts.Name
	if base == "" {
		base = "redis"
	}
	// The nodes start at once: each waits for its own port, and five
	// in a row would take five times as long.
	// Ports drawn together are distinct; drawn one by one, side by side,
	// two nodes could draw the same.
	ports, err := FreePorts(n)
	if err != nil {
		return nil, err
	}
	c := &RedisCluster{Nodes: make([]*Redis, n)}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		o := opts
		o.Name = base + "-" + strconv.Itoa(i+1)
		o.NodeEnv = nil
		if i < len(opts.NodeEnv) {
			o.Env = append(slices.Clip(opts.Env), opts.NodeEnv[i]...)
		}
		wg.Go(func() { c.Nodes[i], errs[i] = startRedis(ctx, dir, path, version, o, ports[i]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		started := &RedisCluster{}
		for _, r := range c.Nodes {
			if r != nil {
				started.Nodes = append(started.Nodes, r)
			}
		}
		return nil, errors.Join(err, started.Stop())
	}
	return c, nil
}

// Addrs are the nodes' addresses, in order.
func (c *RedisCluster) Addrs() []string {
	addrs := make([]string, len(c.Nodes))
	for i, r := range c.Nodes {
		addrs[i] = r.Addr()
	}
	return addrs
}

// Stop stops every node.
func (c *RedisCluster) Stop() error {
	var errs []error
	for _, r := range c.Nodes {
		errs = append(errs, r.Stop())
	}
	return errors.Join(errs...)
}
