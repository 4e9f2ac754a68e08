package setup

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/server"
)

// The Redis setups' leases. A section — the think time and a few round
// trips — must fit well inside the lease: a section that outlives its
// lease makes two holders with no fault at all, and a run whose overlap
// the fault did not cause would count as the fault taking effect. The
// restart setups and Redlock need a longer think time (ScriptedThink: a
// restart and a second acquire within the first reader's section), so
// their lease is longer too.
const (
	redisTTL        = 500 * time.Millisecond
	redisRestartTTL = time.Second
)

// goRedis is the module of the Redis client library.
const goRedis = "github.com/redis/go-redis/v9"

// redisSetups are the single-instance Redis setups: SET NX PX with a
// random value and a compare-and-delete release (go-redis), and an INCR
// beside the lock for a fencing token. Which row each is depends on what
// the resource does with the token and on whether Redis persists it.
func redisSetups() []Setup {
	probe := func(ctx context.Context) (string, error) {
		_, v, err := server.RedisVersion(ctx)
		return v, err
	}
	start := func(durable bool) func(context.Context, StartEnv) (*Deployment, error) {
		return func(ctx context.Context, env StartEnv) (*Deployment, error) {
			return startRedisNodes(ctx, env, server.RedisOptions{Durable: durable}, func(opts server.RedisOptions) ([]*server.Redis, error) {
				r, err := server.StartRedis(ctx, env.Dir, opts)
				if err != nil {
					return nil, err
				}
				return []*server.Redis{r}, nil
			})
		}
	}
	setNX := func(withToken bool) func(context.Context, lock.Config) (lock.Locker, error) {
		return func(_ context.Context, cfg lock.Config) (lock.Locker, error) {
			return lock.NewRedisSetNX(cfg, withToken)
		}
	}
	base := Setup{Service: "redis", Package: server.RedisPackage, Library: goRedis, TTL: redisTTL, Leased: true, Probe: probe}
	// A server pause holds every client back alike: the holder's section
	// ends (its release is called) before anyone else can be granted, so
	// its scripted story never takes effect against SET NX PX (make live
	// showed 0 of 3). A delay or a blackhole of the holder's own links
	// (each client has its own proxy) cannot take effect either: nothing
	// renews a PX lease, the section must fit in it (Leased), and the
	// holder keeps running with its link to the register up, so its write
	// lands inside its lease; only its release is lost or late, and a
	// belief ends when Release is called. Two holders would need the
	// acquire's reply itself to arrive after the lease, which the scripted
	// story (a fault at the first accepted read) does not aim at.
	more := []history.Fault{history.FaultServerPause, history.FaultDelay, history.FaultBlackhole}
	with := func(name string, d impl.Design, why string, durable, token bool, faults ...history.Fault) Setup {
		s := base
		s.Name, s.Design, s.Why, s.Faults, s.MoreFaults = name, d, why, faults, more
		s.Start, s.Locker = start(durable), setNX(token)
		return s
	}
	restart := func(s Setup) Setup {
		s.TTL = redisRestartTTL
		return s
	}
	durable := restart(with("restart-durable", impl.DesignRestartDurable, "as all, and Redis restarts with appendfsync always: the INCR counter survives", true, true,
		history.FaultRestartKeep, history.FaultClientPause))
	// The append-only file keeps the lock's key and its expiry, an
	// absolute time: the restarted server holds the lock for the holder
	// until its PX runs out, as if it had never stopped.
	durable.Safe = map[history.Fault]string{history.FaultRestartKeep: "the key and its absolute expiry survive on disk"}
	return []Setup{
		with("off", impl.DesignNoFencing, "SET NX PX, no token: safety rests on the TTL alone", false, false,
			history.FaultClientPause, history.FaultClockStep),
		with("none", impl.DesignFenceNone, "SET NX PX with an INCR token, which the register ignores", false, true,
			history.FaultClientPause, history.FaultClockStep),
		with("all", impl.DesignFenceAll, "SET NX PX with an INCR token, checked ≥ on every operation", false, true,
			history.FaultClientPause, history.FaultClockStep),
		restart(with("restart-volatile", impl.DesignRestartVolatile, "as all, and Redis restarts without persistence: the INCR counter starts again", false, true,
			history.FaultRestartWipe, history.FaultClientPause)),
		durable,
	}
}

// startRedisNodes starts a setup's redis-servers by start, given opts,
// behind per-client proxies (behindProxies). For a clock step it loads
// the clock shim into every node first (Redis times a key's PX by its
// wall clock: the shim steps it inside redis-server only, and one offset
// for all the nodes steps them together), and the deployment counts as
// started only once each node's memory map shows the shim and the first
// node's TIME follows it (nemesis.Clock.Attach): a server the loader
// started without the shim is the harness's error, not a run.
func startRedisNodes(ctx context.Context, env StartEnv, opts server.RedisOptions, start func(server.RedisOptions) ([]*server.Redis, error)) (*Deployment, error) {
	var clock *nemesis.Clock
	if env.Fault == history.FaultClockStep {
		cache, err := nemesis.DefaultClockShimCache()
		if err == nil {
			clock, err = nemesis.NewClock(ctx, env.Dir, cache)
		}
		if err != nil {
			return nil, err
		}
		opts.Env = clock.Env()
	}
	nodes, err := start(opts)
	var servers []server.Server
	for _, r := range nodes {
		servers = append(servers, r)
	}
	if err == nil && clock != nil {
		var pids []int
		for _, r := range nodes {
			pids = append(pids, r.Pids()...)
		}
		if err = clock.Attach(ctx, pids, redisTime(nodes[0].Addr())); err != nil {
			for _, r := range nodes {
				err = errors.Join(err, r.Stop())
			}
		}
	}
	if err != nil {
		if clock != nil {
			err = errors.Join(err, clock.Close())
		}
		return nil, err
	}
	d := behindProxies(&Deployment{Servers: servers})
	if clock != nil {
		closeProxies := d.Close
		d.Clock = clock
		d.Close = func() error { return errors.Join(closeProxies(), clock.Close()) }
	}
	return d, nil
}

// redisTime reads the wall clock of the redis-server at addr (TIME),
// straight, not through a client's proxy: the clock shim's witness.
func redisTime(addr string) func(context.Context) (time.Time, error) {
	return func(ctx context.Context) (time.Time, error) {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ContextTimeoutEnabled: true})
		defer c.Close()
		return c.Time(ctx).Result()
	}
}

// redsync is the module of the Redlock client library.
const redsync = "github.com/go-redsync/redsync/v4"

// redlockNodes is Redlock's classic count of independent Redis masters.
const redlockNodes = 5

// redlockSetups are Redlock over five independent redis-server processes
// through redsync: without fencing (row redlock), and with each grant's
// unique random value as the token, checked-and-set at the register (row
// redlock-unique, antirez's proposal).
func redlockSetups() []Setup {
	start := func(ctx context.Context, env StartEnv) (*Deployment, error) {
		// Each client has its own proxy to each of the 5 nodes. A
		// network fault on the holder's 5 links cannot take effect for
		// the reason the SET NX PX setups give (redisSetups): the lease
		// is fixed and the write goes straight to the register. A clock
		// step steps the five nodes' clocks together.
		return startRedisNodes(ctx, env, server.RedisOptions{Name: "redlock"}, func(opts server.RedisOptions) ([]*server.Redis, error) {
			c, err := server.StartRedisCluster(ctx, env.Dir, redlockNodes, opts)
			if err != nil {
				return nil, err
			}
			return c.Nodes, nil
		})
	}
	base := Setup{
		Service: "redlock", Package: server.RedisPackage, Library: redsync, TTL: redisRestartTTL, Leased: true,
		Probe: func(ctx context.Context) (string, error) {
			_, v, err := server.RedisVersion(ctx)
			return v, err
		},
		Start:      start,
		Locker:     func(_ context.Context, cfg lock.Config) (lock.Locker, error) { return lock.NewRedlock(cfg) },
		Faults:     []history.Fault{history.FaultClientPause, history.FaultRestartWipe},
		MoreFaults: []history.Fault{history.FaultServerPause, history.FaultDelay, history.FaultBlackhole},
	}
	plain, unique := base, base
	plain.Name, plain.Design = "redlock", impl.DesignRedlock
	plain.Why = "redsync over 5 nodes, majority grant, no fencing"
	unique.Name, unique.Design = "redlock-unique", impl.DesignRedlockUnique
	unique.Why = "redsync over 5 nodes; each grant's random value is the token, checked-and-set at the register"
	return []Setup{plain, unique}
}
