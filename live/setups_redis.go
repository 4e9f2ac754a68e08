package live

import (
	"context"
	"errors"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/lock"
	livenemesis "github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/server"
)

// redisTTL is the Redis setups' lease: long enough for a section (the
// think time and a few round trips), short enough that a scripted pause
// of three TTLs keeps a run near a second.
const redisTTL = 200 * time.Millisecond

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
			opts := server.RedisOptions{Durable: durable}
			var clock *livenemesis.Clock
			if env.Fault == FaultClockStep {
				// Redis times a key's PX by its wall clock: the shim
				// steps it inside redis-server only.
				cache, err := livenemesis.DefaultClockShimCache()
				if err == nil {
					clock, err = livenemesis.NewClock(ctx, env.Dir, cache)
				}
				if err != nil {
					return nil, err
				}
				opts.Env = clock.Env()
			}
			r, err := server.StartRedis(ctx, env.Dir, opts)
			if err != nil {
				if clock != nil {
					err = errors.Join(err, clock.Close())
				}
				return nil, err
			}
			d, err := behindProxies(&Deployment{Servers: []server.Server{r}})
			if err != nil {
				return nil, errors.Join(err, r.Stop())
			}
			if clock != nil {
				closeProxies := d.Close
				d.Clock = clock
				d.Close = func() error { return errors.Join(closeProxies(), clock.Close()) }
			}
			return d, nil
		}
	}
	setNX := func(withToken bool) func(context.Context, lock.Config) (lock.Locker, error) {
		return func(_ context.Context, cfg lock.Config) (lock.Locker, error) {
			return lock.NewRedisSetNX(cfg, withToken)
		}
	}
	base := Setup{Service: "redis", Package: server.RedisPackage, Library: goRedis, TTL: redisTTL, Probe: probe}
	with := func(name string, d impl.Design, why string, durable, token bool, faults ...Fault) Setup {
		s := base
		s.Name, s.Design, s.Why, s.Faults = name, d, why, faults
		s.Start, s.Locker = start(durable), setNX(token)
		return s
	}
	return []Setup{
		with("off", impl.DesignNoFencing, "SET NX PX, no token: safety rests on the TTL alone", false, false,
			FaultClientPause, FaultServerPause, FaultDelay, FaultBlackhole, FaultClockStep),
		with("none", impl.DesignFenceNone, "SET NX PX with an INCR token, which the register ignores", false, true,
			FaultClientPause, FaultServerPause, FaultDelay, FaultBlackhole, FaultClockStep),
		with("all", impl.DesignFenceAll, "SET NX PX with an INCR token, checked ≥ on every operation", false, true,
			FaultClientPause, FaultServerPause, FaultDelay, FaultBlackhole, FaultClockStep),
		with("restart-volatile", impl.DesignRestartVolatile, "as all, and Redis restarts without persistence: the INCR counter starts again", false, true,
			FaultRestartWipe, FaultClientPause),
		with("restart-durable", impl.DesignRestartDurable, "as all, and Redis restarts with appendfsync always: the INCR counter survives", true, true,
			FaultRestartKeep, FaultClientPause),
	}
}
