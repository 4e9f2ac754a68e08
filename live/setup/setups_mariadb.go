package setup

// MariaDB's setups: GET_LOCK (a session lock) through
// github.com/go-sql-driver/mysql, with fencelab's register or MariaDB's own
// conditional UPDATE as the store (package lock's and package store's
// MariaDB files say how each works).
//
// GET_LOCK has no lease: a lock lasts as long as its holder's session, and
// a paused client keeps its session (its connection stays open), so the
// client-pause fault alone never makes two holders: its story runs the
// server with a short wait_timeout, which ends the paused holder's idle
// session (mariadbWaitTimeout). What else ends a session is the server
// forgetting it: a restart. The setups therefore instantiate the restart
// rows — restart-durable when the token counter and the store survive
// the restart (InnoDB, data kept), restart-volatile when the lock's
// server loses its data (wiped) and hands out token 1 again — and off and
// writes for the unfenced and the half-fenced store. No row of
// impl.Designs is "a lease that never expires by time"; it needs none,
// since a restart row's verdicts are the same whether or not its grants
// also expire.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/store"
)

// No network faults: GET_LOCK's lock lasts as long as its session, and a
// session lives as long as its TCP connection. A delay or a blackhole of
// the holder's link through a proxy keeps that connection open (the
// proxy holds or drops bytes, it does not close), so the server cannot
// tell a cut link from a quiet holder: the lock stays held, nobody else
// is granted, and the fault could not take effect. (When the link heals,
// a connection that lost bytes is closed, ending the session — but the
// holder has finished its section by then.)
//
// mariadbTTL is the setups' TTL. GET_LOCK ignores it (its grants hold
// until released or the session ends); the nemesis sizes its faults by it
// (a pause lasts 3 TTL, a random restart's downtime up to one TTL).
const mariadbTTL = 500 * time.Millisecond

// The client pause's story: GET_LOCK's lock lasts as long as its
// session, and a paused client's session stays open (wait_timeout is
// eight hours by default), so a pause alone never frees the lock. Under
// this fault the server runs with wait_timeout = 1 s
// (startMariaDBDeployment): the paused holder's session, idle since its
// grant, is ended a second after it, its lock with it, and the waiting
// client is granted while the holder is still stopped — the lease the
// models' pause outlasts. The pause lasts 2.5 s (5 TTL) so that the grant
// falls inside it with a margin on a loaded machine; the sections' own
// statements are a few milliseconds apart, far from the timeout.
const mariadbWaitTimeout = time.Second

// mariadbSetups are the MariaDB setups.
func mariadbSetups() []Setup {
	base := Setup{
		Service: "mariadb",
		Package: server.MariaDBPackage,
		Library: "github.com/go-sql-driver/mysql",
		TTL:     mariadbTTL,
		Probe:   server.MariaDBVersion,
	}
	pauseStory := Story{For: 5 * mariadbTTL, Why: "wait_timeout = 1 s ends the paused holder's idle session, and its lock, while it is stopped"}
	setup := func(name string, d impl.Design, why string, faults []history.Fault, separateStore, withToken bool, storeMode string) Setup {
		s := base
		s.Name, s.Design, s.Why, s.Faults = name, d, why, faults
		if slices.Contains(faults, history.FaultClientPause) {
			s.Stories = map[history.Fault]Story{history.FaultClientPause: pauseStory}
		}
		s.Start = startMariaDBDeployment(separateStore)
		s.Locker = func(_ context.Context, cfg lock.Config) (lock.Locker, error) {
			return lock.NewMariaDBGetLock(cfg, withToken)
		}
		if storeMode != "" {
			s.Store = func(_ context.Context, cfg StoreConfig) (store.Store, error) {
				if len(cfg.Addrs) != 1 {
					return nil, fmt.Errorf("MariaDB store: want one address, got %d", len(cfg.Addrs))
				}
				return store.NewMariaDBFenced(cfg.Addrs[0], storeMode, cfg.Client)
			}
			s.Audit = func(ctx context.Context, d *Deployment) ([]impl.Op, int64, error) {
				if len(d.StoreAddrs) != 1 {
					return nil, 0, fmt.Errorf("MariaDB audit: want one store address, got %d", len(d.StoreAddrs))
				}
				return store.MariaDBAudit(ctx, d.StoreAddrs[0])
			}
		}
		return s
	}
	return []Setup{
		setup("getlock", impl.DesignNoFencing,
			"GET_LOCK, no token, the register checks nothing: a restart ends the holder's session, a second client gets the lock and nothing stops the stale write",
			[]history.Fault{history.FaultRestartKeep, history.FaultClientPause}, false, false, ""),
		setup("getlock-durable", impl.DesignRestartDurable,
			"GET_LOCK, a token from an InnoDB counter row, MariaDB's UPDATE ... WHERE fence <= ? on every operation, all on one server: a restart forgets the holder but keeps the counter and the fence",
			[]history.Fault{history.FaultRestartKeep, history.FaultClientPause}, false, true, store.MariaDBFenceAll),
		setup("getlock-writes", impl.DesignFenceWrites,
			"as getlock-durable, but the UPDATE checks writes only: a newer holder's read does not fence an older holder's write",
			[]history.Fault{history.FaultRestartKeep, history.FaultClientPause}, false, true, store.MariaDBFenceWrites),
		setup("getlock-volatile", impl.DesignRestartVolatile,
			"GET_LOCK and its token counter on a server restarted with its data wiped (tokens start over at 1), the fenced UPDATE (all) on a second server that keeps running",
			[]history.Fault{history.FaultRestartWipe}, true, true, store.MariaDBFenceAll),
	}
}

// startMariaDBDeployment starts a run's MariaDB: one server for the lock
// (and the store, unless separateStore puts it on a second server that no
// fault touches). Both are copies of a template initialised once per run,
// so that a wiped restart copies it again (milliseconds) instead of
// running mariadb-install-db (0.7 s idle, seconds under load).
func startMariaDBDeployment(separateStore bool) func(context.Context, StartEnv) (*Deployment, error) {
	return func(ctx context.Context, env StartEnv) (dep *Deployment, err error) {
		tmpl, err := server.PrepareMariaDBTemplate(ctx, filepath.Join(env.Dir, "mariadb-template"))
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
		opts := server.MariaDBOptions{Template: tmpl}
		if env.Fault == history.FaultClientPause {
			opts.WaitTimeout = mariadbWaitTimeout // pauseStory
		}
		lockSrv, err := server.StartMariaDB(ctx, filepath.Join(env.Dir, "mariadb"), opts)
		if err != nil {
			return nil, err
		}
		cleanup = append(cleanup, lockSrv.Stop)
		dep = &Deployment{
			Servers:    []server.Server{lockSrv},
			LockAddrs:  []string{lockSrv.Addr()},
			StoreAddrs: []string{lockSrv.Addr()},
			Close:      tmpl.Remove,
		}
		if !separateStore {
			return dep, nil
		}
		// Not among Servers: the faults leave it alone; Close stops it.
		storeSrv, err := server.StartMariaDB(ctx, filepath.Join(env.Dir, "mariadb-store"),
			server.MariaDBOptions{Name: "mariadb-store", Template: tmpl})
		if err != nil {
			return nil, err
		}
		dep.StoreAddrs = []string{storeSrv.Addr()}
		dep.Close = func() error { return errors.Join(storeSrv.Stop(), tmpl.Remove()) }
		return dep, nil
	}
}
