package setup

import (
	"context"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/server"
)

// zooKeeperTTL is the ZooKeeper clients' session timeout: the server runs
// with a 100 ms tick, so sessions of a second are granted and expire
// within a tick of their timeout.
const zooKeeperTTL = time.Second

// zooKeeperSetups are the ZooKeeper setups: a standalone server from
// Debian's zookeeper package, the lock recipe of ephemeral sequential
// nodes through go-zookeeper (lock.ZooKeeper), the lock node's creation
// zxid as the token, fencelab's register as the resource.
//
// The faults aimed at the server take effect (two clients believe at
// once) only when the holder is still in its section once the other
// client is granted: after a restart or a pause that is the JVM's start
// (about a second) or the pause, plus the session timeout, plus a grant.
// With the default think time (150 ms) they were inconclusive in every
// run tried; with --think 4s --sections 1, a server pause took effect in
// 1 of 2 runs and a wipe in 2 of 2. A kill and restart with the data kept
// did not take effect in 2 of 2: the sessions and the holder's node
// survive it, and the next client goes on waiting. The setups' stories
// (Stories below) therefore make the holder's section outlast the fault
// and, for the pause and the kept restart, cut its links past its
// session timeout: 3 of 3 runs took effect under each at load 15–28.
func zooKeeperSetups() []Setup {
	base := Setup{
		Service: "zookeeper",
		Package: server.ZooKeeperPackage,
		Library: "github.com/go-zookeeper/zk",
		TTL:     zooKeeperTTL,
		Probe:   func(context.Context) (string, error) { return server.ZooKeeperVersion() },
		Start:   startZooKeeper,
		Locker: func(_ context.Context, cfg lock.Config) (lock.Locker, error) {
			return lock.NewZooKeeper(cfg)
		},
	}
	// A kill and restart with the data kept neither forgets a holder nor
	// sends zxids back (sessions and ephemeral nodes are in the log), so
	// it belongs to every row; a wipe sends zxids back and belongs to the
	// restart-volatile row alone.
	//
	// Network faults: each client reaches the server through a proxy of
	// its own (the register is reached directly); a delay or blackhole of
	// the holder's link after its first read stops its pings, the server
	// expires its session (and its ephemeral node), and the other client
	// is granted over its healthy link while the holder still thinks.
	classic := []history.Fault{history.FaultClientPause, history.FaultServerPause, history.FaultRestartKeep, history.FaultDelay, history.FaultBlackhole}
	// ZooKeeper keeps its sessions across a pause or a restart that
	// keeps the data, and gives each a fresh timeout once it is back: a
	// holder that reconnects in time keeps its node. The stories of the
	// two faults therefore also cut the holder's links to the server
	// (Story.Isolate) from the fault's start until 2 s after its end,
	// past its 1 s session timeout: the server expires the session and
	// deletes the node, the waiter is granted, and the holder, its
	// section longer than the fault and the timeout, still thinks.
	isolated := map[history.Fault]Story{
		history.FaultServerPause: {Think: 5 * time.Second, Sections: 1, Isolate: 2 * zooKeeperTTL,
			Why: "the holder cut off until 2 s after the pause: its session expires while it thinks (5 s)"},
		history.FaultRestartKeep: {Think: 8 * time.Second, Sections: 1, Isolate: 2 * zooKeeperTTL,
			Why: "the holder cut off until 2 s after the restart (a JVM's start, seconds at load 20): its session expires while it thinks (8 s)"},
	}

	none := base
	none.Name, none.Design, none.Faults, none.Stories = "zxid-none", impl.DesignFenceNone, classic, isolated
	none.Why = "the czxid is handed out but the register ignores it: safety rests on the session timeout outlasting every pause"

	revision := base
	revision.Name, revision.Design, revision.Faults, revision.Stories = "zxid-revision", impl.DesignRevision, classic, isolated
	revision.Why = "the czxid, ZooKeeper's durable and ever-growing transaction id, checked >= by the register on every operation"

	volatile := base
	volatile.Name, volatile.Design, volatile.Faults = "zxid-restart-volatile", impl.DesignRestartVolatile, []history.Fault{history.FaultRestartWipe}
	volatile.Stories = map[history.Fault]Story{history.FaultRestartWipe: {Think: 8 * time.Second, Sections: 1,
		Why: "a section (8 s) longer than the JVM's restart and the waiter's new session: the wiped server forgot the holder"}}
	volatile.Why = "the czxid checked >=, and the server restarts with its data wiped: zxids count from 0 again"

	return []Setup{none, revision, volatile}
}

// startZooKeeper starts one server for a run.
func startZooKeeper(ctx context.Context, env StartEnv) (*Deployment, error) {
	z, err := server.StartZooKeeper(ctx, env.Dir, server.ZooKeeperOptions{})
	if err != nil {
		return nil, err
	}
	return behindProxies(&Deployment{Servers: []server.Server{z}}), nil
}
