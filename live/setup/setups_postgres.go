package setup

// PostgreSQL's setups: advisory locks through github.com/jackc/pgx/v5,
// with fencelab's register or PostgreSQL's own conditional UPDATE as the
// store (lock/postgres.go and store/postgres.go say how each works).
//
// Like MariaDB's GET_LOCK, an advisory lock has no lease: it lasts as
// long as its session (or its transaction), and a paused client keeps its
// connection, so a pause alone never makes two holders. Under the client
// pause the server runs with idle_session_timeout and
// idle_in_transaction_session_timeout at 1 s (postgresIdleTimeout), as
// MariaDB runs with wait_timeout: the paused holder's session is ended
// while it is stopped, its lock with it. A server pause stops everyone
// alike, and a delay or a blackhole of the holder's link through its
// proxy keeps its connection open, so neither can take effect
// (MoreFaults). What also ends a session is a restart: the restart rows.
//
// The PgBouncer setup is the session lock as the trackers report it
// deployed (vectorize-io/hindsight PR #726, goauthentik/authentik
// #23876): clients connect to PgBouncer in transaction pooling, which
// hands each transaction — each autocommit statement — whichever server
// session is free. pg_advisory_lock takes the lock for that server
// session, which goes back to the pool; the next client's
// pg_advisory_lock runs on the same session (a pool of one here), and a
// session lock is re-entrant: granted at once. Two holders with no fault
// at all. The setup declares it (Deployed): the judge reads the overlap
// as the deployment's fault, an expected violation of row off, not as the
// harness's error.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/store"
)

// postgresIdleTimeout is the servers' idle timeouts under the client
// pause (server.PostgresOptions.IdleTimeout): the paused holder's session,
// idle since its last statement (in its transaction, for the transaction
// lock), ends a second after it, and the waiting client is granted while
// the holder is still stopped. The pause lasts 2.5 s (5 TTL), the grant
// inside it with a margin on a loaded machine; a section's statements
// are milliseconds apart, far from the timeout.
const postgresIdleTimeout = time.Second

// postgresTTL is the setups' TTL. Advisory locks ignore it; the nemesis
// sizes its faults by it (see mariadbTTL).
const postgresTTL = 500 * time.Millisecond

// postgresRestartThink is the think time of a restart's scripted story
// (400 ms, the default, is shorter than PostgreSQL's restart: the holder
// had finished before anyone else could be granted, and every run was
// inconclusive).
const postgresRestartThink = 3 * time.Second

// pgbouncerDeployed is why the PgBouncer setup is a fault by itself.
const pgbouncerDeployed = "PgBouncer in transaction pooling: each client's pg_advisory_lock ran on the pool's one server session, which holds it re-entrantly, so every client was granted at once"

// postgresSetups are the PostgreSQL setups.
func postgresSetups() []Setup {
	base := Setup{
		Service: "postgres",
		Package: server.PostgresPackage,
		Library: "github.com/jackc/pgx/v5",
		TTL:     postgresTTL,
		Probe:   server.PostgresVersion,
	}
	restartStory := Story{Think: postgresRestartThink, Why: "postgres's kill, start-up and WAL recovery take about 1.5 s: the holder must still believe when the next client is granted"}
	pauseStory := Story{For: 5 * postgresTTL, Why: "idle timeouts of 1 s end the paused holder's session, and its lock, while it is stopped"}
	noEffect := []history.Fault{history.FaultServerPause, history.FaultDelay, history.FaultBlackhole}
	setup := func(name string, d impl.Design, why string, faults []history.Fault, dep postgresDeployment, xact bool, storeMode string) Setup {
		s := base
		s.Name, s.Design, s.Why, s.Faults, s.MoreFaults = name, d, why, faults, noEffect
		for _, f := range faults {
			story, ok := restartStory, f == history.FaultRestartKeep || f == history.FaultRestartWipe
			if f == history.FaultClientPause && dep != postgresBehindPgBouncer {
				story, ok = pauseStory, true
			}
			if ok {
				if s.Stories == nil {
					s.Stories = map[history.Fault]Story{}
				}
				s.Stories[f] = story
			}
		}
		s.Start = startPostgresDeployment(dep)
		s.Locker = func(_ context.Context, cfg lock.Config) (lock.Locker, error) {
			if xact {
				return lock.NewPostgresXactLock(cfg)
			}
			return lock.NewPostgresAdvisoryLock(cfg)
		}
		if storeMode != "" {
			s.Store = func(_ context.Context, cfg StoreConfig) (store.Store, error) {
				if len(cfg.Addrs) != 1 {
					return nil, fmt.Errorf("PostgreSQL store: want one address, got %d", len(cfg.Addrs))
				}
				return store.NewPostgresFenced(cfg.Addrs[0], storeMode, cfg.Client)
			}
			s.Audit = func(ctx context.Context, d *Deployment) ([]impl.Op, int64, error) {
				if len(d.StoreAddrs) != 1 {
					return nil, 0, fmt.Errorf("PostgreSQL audit: want one store address, got %d", len(d.StoreAddrs))
				}
				return store.PostgresAudit(ctx, d.StoreAddrs[0])
			}
		}
		return s
	}
	bouncer := setup("advisory-pgbouncer", impl.DesignNoFencing,
		"pg_advisory_lock through PgBouncer in transaction pooling, no token, the register checks nothing: the session lock lands on a pooled server session that every client shares, two holders with no fault",
		[]history.Fault{history.FaultClientPause}, postgresBehindPgBouncer, false, "")
	bouncer.Package, bouncer.Probe, bouncer.MoreFaults = server.PostgresPackage+" "+server.PgBouncerPackage, probePostgresAndPgBouncer, nil
	bouncer.Deployed = pgbouncerDeployed
	return []Setup{
		setup("advisory", impl.DesignNoFencing,
			"pg_advisory_lock on a session, no token, the register checks nothing: a restart ends the holder's session, a second client gets the lock and nothing stops the stale write",
			[]history.Fault{history.FaultRestartKeep, history.FaultClientPause}, postgresOne, false, ""),
		setup("xact-durable", impl.DesignRestartDurable,
			"pg_try_advisory_xact_lock in a transaction held for the section, a token from a WAL-logged sequence, UPDATE ... WHERE fence <= $1 on every operation (all), one server: a restart forgets the holder but keeps the sequence and the fence",
			[]history.Fault{history.FaultRestartKeep, history.FaultClientPause}, postgresOne, true, store.PostgresFenceAll),
		setup("xact-volatile", impl.DesignRestartVolatile,
			"the transaction lock and its token sequence on a server restarted with its data wiped (tokens start over at 1), the fenced UPDATE (all) on a second server that keeps running",
			[]history.Fault{history.FaultRestartWipe}, postgresSeparateStore, true, store.PostgresFenceAll),
		bouncer,
	}
}

// probePostgresAndPgBouncer names both servers' versions, or says which
// package is missing.
func probePostgresAndPgBouncer(ctx context.Context) (string, error) {
	pg, err := server.PostgresVersion(ctx)
	if err != nil {
		return "", err
	}
	pb, err := server.PgBouncerVersion(ctx)
	if err != nil {
		return "", err
	}
	return pg + ", " + pb, nil
}

// postgresDeployment is how a run's PostgreSQL is laid out.
type postgresDeployment int

const (
	postgresOne             postgresDeployment = iota // one server: lock and store
	postgresSeparateStore                             // the store on a second server no fault touches
	postgresBehindPgBouncer                           // the lock's clients connect through a PgBouncer
)

// startPostgresDeployment starts a run's PostgreSQL from a template
// initialised once per run (a wiped restart copies it again). As root,
// the run's folder is made searchable for the postgres system user that
// the servers run as (server.GrantSearch). The lock's servers are behind
// per-client proxies, so the delay and blackhole faults apply; the store
// is reached directly.
func startPostgresDeployment(layout postgresDeployment) func(context.Context, StartEnv) (*Deployment, error) {
	return func(ctx context.Context, env StartEnv) (dep *Deployment, err error) {
		if err := server.GrantSearch(env.Dir); err != nil {
			return nil, fmt.Errorf("letting the postgres user reach the run's folder: %w", err)
		}
		tmpl, err := server.PreparePostgresTemplate(ctx, filepath.Join(env.Dir, "postgres-template"))
		if err != nil {
			return nil, err
		}
		cleanup := []func() error{tmpl.Remove}
		defer func() {
			if err != nil {
				for i := len(cleanup) - 1; i >= 0; i-- {
					err = errors.Join(err, cleanup[i]())
				}
			}
		}()
		opts := server.PostgresOptions{Template: tmpl}
		if env.Fault == history.FaultClientPause && layout != postgresBehindPgBouncer {
			opts.IdleTimeout = postgresIdleTimeout // pauseStory; PgBouncer's lesson needs no fault
		}
		pg, err := server.StartPostgres(ctx, filepath.Join(env.Dir, "postgres"), opts)
		if err != nil {
			return nil, err
		}
		cleanup = append(cleanup, pg.Stop)
		dep = &Deployment{
			Servers:    []server.Server{pg},
			StoreAddrs: []string{pg.Addr()},
			Close:      tmpl.Remove,
		}
		switch layout {
		case postgresSeparateStore:
			// Not among Servers: the faults leave it alone; Close stops it.
			storeSrv, err := server.StartPostgres(ctx, filepath.Join(env.Dir, "postgres-store"),
				server.PostgresOptions{Name: "postgres-store", Template: tmpl})
			if err != nil {
				return nil, err
			}
			dep.StoreAddrs = []string{storeSrv.Addr()}
			dep.Close = func() error { return errors.Join(storeSrv.Stop(), tmpl.Remove()) }
		case postgresBehindPgBouncer:
			pb, err := server.StartPgBouncer(ctx, filepath.Join(env.Dir, "pgbouncer"), pg.Addr(), server.PgBouncerOptions{})
			if err != nil {
				return nil, err
			}
			// Among Servers, so that a restart fault (which targets every
			// server) ends its pooled sessions too. No proxies: the
			// lesson needs no network fault.
			dep.Servers = []server.Server{pb, pg}
			dep.LockAddrs = []string{pb.Addr()}
			return dep, nil
		}
		return behindProxies(dep), nil
	}
}
