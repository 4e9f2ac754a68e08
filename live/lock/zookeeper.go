package lock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// ZooKeeperRoot is the persistent node under which every ZooKeeper lock
// lives: the lock named Key is the folder ZooKeeperRoot+"/"+Key, and each
// contender's ephemeral sequential node is a child of that folder.
const ZooKeeperRoot = "/lock"

// zkNodePrefix is the last part of each contender's node name before the
// sequence number ZooKeeper appends (the library prefixes it further with
// a protection GUID: "_c_<guid>-lock-0000000007").
const zkNodePrefix = "lock-"

// ErrZooKeeperSessionLost says a contender lost its place in the queue
// while it waited for its turn: its ephemeral node vanished (its session
// expired: the server heard nothing from it for the session timeout), or
// its connection has had no session for longer than the timeout.
var ErrZooKeeperSessionLost = errors.New("zookeeper lock: session lost")

// ZooKeeper is the standard ZooKeeper lock recipe ("Locks" in ZooKeeper's
// recipes page, what Apache Curator's InterProcessMutex does) driven through
// github.com/go-zookeeper/zk: each contender creates an ephemeral sequential
// node under the lock's folder, lists the folder, holds the lock when its
// node has the lowest sequence number, and otherwise watches the node just
// before its own (no herd: one watch per contender) and looks again when
// that one goes.
//
// The library's own zk.Lock runs the same recipe but keeps the node's path
// to itself and cannot be cancelled, so this recipe is written with the
// library's primitives (CreateProtectedEphemeralSequential, which finds its
// node again after a lost reply; Children; ExistsW) to return the node and
// its zxid and to honour the caller's context.
//
// Grant.Token is the node's creation zxid (Stat.Czxid): the id of the
// transaction that created it, which the ZooKeeper ensemble orders totally
// and persists in its transaction log before it answers — the token Apache
// Curator users and Kleppmann propose. Grants follow creation order, so
// tokens grow with grants, with gaps (every write to ZooKeeper takes a
// zxid). Grant.Value is the node's path; Grant.Validity is the session
// timeout: a ZooKeeper lock has no lease of its own, it is held until the
// holder deletes its node or its session expires — when the server has
// heard nothing from the client (not even a heartbeat) for the session
// timeout, it deletes the session's ephemeral nodes and the next contender
// holds the lock. A paused client does not learn this until it runs again.
//
// A connection without a session for longer than the session timeout is
// replaced by a new one before the next call (see current): the old session
// is lost by then anyway, and a server restarted with its data wiped
// serves only new connections.
//
// Matrix rows: with the zxid checked ≥ at the resource this recipe
// instantiates the row `revision` (the token is the store's durable,
// ever-growing transaction id); with the resource ignoring the token it
// instantiates `none` (tokens handed out, safety resting on timing: here
// the session timeout against the holder's pauses). A server restarted
// with its data folder wiped starts zxids over (the row
// `restart-volatile`); restarted with the folder kept, zxids keep growing.
type ZooKeeper struct {
	addrs    []string
	folder   string        // ZooKeeperRoot + "/" + Key
	client   string        // written into the node, for people reading the tree
	validity time.Duration // the session timeout asked for

	mu      sync.Mutex // guards session and leftover (Close may come from another goroutine)
	session *zkSession
	// leftover are this client's nodes whose delete failed (a release or
	// an abandoned wait while the connection was down). A node whose
	// session lives on would stay in the queue, ahead of this client's
	// next node, for ever: they are deleted again before the next
	// acquire, as Curator's "guaranteed delete" does.
	leftover []string
}

// zkSession is one go-zookeeper connection and what its session events
// said about it.
type zkSession struct {
	conn *zk.Conn

	mu sync.Mutex
	// lostAt is when the connection last lost its session (or, new, when
	// it was made); zero while it has one.
	lostAt time.Time
}

// dialZooKeeper makes a connection, which the library completes in the
// background.
func dialZooKeeper(addrs []string, timeout time.Duration) (*zkSession, error) {
	s := &zkSession{lostAt: time.Now()}
	conn, _, err := zk.Connect(addrs, timeout,
		zk.WithEventCallback(s.observe),
		// The library logs every reconnection attempt; a client under a
		// partition or a server pause would flood the client's stderr,
		// and what matters is in the history (the calls' errors).
		zk.WithLogger(log.New(io.Discard, "", 0)),
		zk.WithLogInfo(false))
	if err != nil {
		return nil, fmt.Errorf("zookeeper lock: connect: %w", err)
	}
	s.conn = conn
	return s, nil
}

// observe is the library's event callback: it must not block.
func (s *zkSession) observe(ev zk.Event) {
	if ev.Type != zk.EventSession {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev.State == zk.StateHasSession {
		s.lostAt = time.Time{}
	} else if s.lostAt.IsZero() {
		s.lostAt = time.Now()
	}
}

// sessionless is how long the connection has been without a session.
func (s *zkSession) sessionless() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lostAt.IsZero() {
		return 0
	}
	return time.Since(s.lostAt)
}

// NewZooKeeper connects a client to the ZooKeeper service at cfg.Addrs with
// a session timeout of cfg.TTL. The connection is made in the background
// (the library's way); the first call waits for it.
//
// The server may shorten or lengthen the timeout into its own bounds
// (minSessionTimeout, maxSessionTimeout), and the library does not tell
// which it granted; server.StartZooKeeper's defaults allow 200 ms to 60 s,
// so a TTL in that range is the session timeout the grant's Validity
// states.
func NewZooKeeper(cfg Config) (Locker, error) {
	if len(cfg.Addrs) == 0 {
		return nil, errors.New("zookeeper lock: no server address")
	}
	if err := checkZooKeeperKey(cfg.Key); err != nil {
		return nil, err
	}
	if cfg.TTL <= 0 {
		return nil, fmt.Errorf("zookeeper lock: the session timeout (TTL) must be positive, not %v", cfg.TTL)
	}
	session, err := dialZooKeeper(cfg.Addrs, cfg.TTL)
	if err != nil {
		return nil, err
	}
	return &ZooKeeper{
		addrs:    slices.Clone(cfg.Addrs),
		folder:   ZooKeeperRoot + "/" + cfg.Key,
		client:   cfg.Client,
		validity: cfg.TTL,
		session:  session,
	}, nil
}

// current is the connection for the next call. A connection that has been
// without a session for longer than the session timeout is replaced by a
// new one, as Apache Curator resets its ZooKeeper handle then: go-zookeeper
// alone keeps retrying the old one, which a server restarted with its data
// wiped refuses for ever (the client has seen zxids the server has not
// reached, and ZooKeeper will not let a client see history go back). The
// old session's node, if any, is gone or goes when that session expires.
func (z *ZooKeeper) current() *zkSession {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.session.sessionless() > z.validity {
		fresh, err := dialZooKeeper(z.addrs, z.validity)
		if err == nil { // zk.Connect fails only on a bad address list, which worked before
			z.session.conn.Close()
			z.session = fresh
		}
	}
	return z.session
}

// checkZooKeeperKey accepts a key that is one path element of a znode path.
func checkZooKeeperKey(key string) error {
	switch {
	case key == "":
		return errors.New("zookeeper lock: empty key")
	case len(key) > 200:
		return fmt.Errorf("zookeeper lock: key longer than 200 bytes (%q...)", key[:32])
	case key == "." || key == "..":
		return fmt.Errorf("zookeeper lock: key %q is reserved in a znode path", key)
	case strings.ContainsAny(key, "/\x00"):
		return fmt.Errorf("zookeeper lock: key %.40q holds '/' or NUL", key)
	}
	return nil
}

// Acquire joins the queue and waits for its turn; see the type's comment.
// When ctx ends or the wait fails, it deletes its node (best effort) so
// that it does not hold up the queue until its session ends.
func (z *ZooKeeper) Acquire(ctx context.Context) (Grant, error) {
	if err := ctx.Err(); err != nil {
		return Grant{}, err
	}
	session := z.current()
	conn := session.conn
	if err := z.ensureFolder(conn); err != nil {
		return Grant{}, err
	}
	if err := z.deleteLeftovers(conn); err != nil {
		return Grant{}, err
	}
	node, err := conn.CreateProtectedEphemeralSequential(z.folder+"/"+zkNodePrefix, []byte(z.client), zk.WorldACL(zk.PermAll))
	if err != nil {
		return Grant{}, fmt.Errorf("zookeeper lock: create a node under %s: %w", z.folder, err)
	}
	g, err := z.waitTurn(ctx, session, node)
	if err != nil {
		// A delete that fails now is retried before the next acquire;
		// the caller learns of the wait's failure, which is what matters.
		_ = z.deleteNode(conn, node)
		return Grant{}, err
	}
	return g, nil
}

// deleteNode deletes one of this client's nodes; a node already gone
// (its session expired) is no error. A node it fails to delete is kept in
// leftover.
func (z *ZooKeeper) deleteNode(conn *zk.Conn, node string) error {
	err := conn.Delete(node, -1)
	if err == nil || errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	z.mu.Lock()
	z.leftover = append(z.leftover, node)
	z.mu.Unlock()
	return fmt.Errorf("zookeeper lock: delete %s (retried before the next acquire): %w", node, err)
}

// deleteLeftovers deletes the nodes earlier deletes left behind.
func (z *ZooKeeper) deleteLeftovers(conn *zk.Conn) error {
	z.mu.Lock()
	nodes := z.leftover
	z.leftover = nil
	z.mu.Unlock()
	var errs []error
	for _, node := range nodes {
		errs = append(errs, z.deleteNode(conn, node))
	}
	return errors.Join(errs...)
}

// ensureFolder creates ZooKeeperRoot and the lock's folder (persistent
// nodes) unless they exist.
func (z *ZooKeeper) ensureFolder(conn *zk.Conn) error {
	for _, p := range []string{ZooKeeperRoot, z.folder} {
		_, err := conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll))
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("zookeeper lock: create %s: %w", p, err)
		}
	}
	return nil
}

// waitTurn loops until node is the lowest in the folder. Each turn of the
// loop follows a change the server announced (the predecessor went), so
// the loop is bounded by the queue's length, and ctx bounds the waits.
func (z *ZooKeeper) waitTurn(ctx context.Context, session *zkSession, node string) (Grant, error) {
	conn := session.conn
	name := node[strings.LastIndexByte(node, '/')+1:]
	// go-zookeeper keeps a watch across a lost connection and sets it
	// again once it reconnects; a connection that stays without a
	// session (the server is down, or wiped and refusing it) would keep
	// the wait going for ever, though the node is gone with the session.
	check := time.NewTicker(z.validity / 2)
	defer check.Stop()
	for {
		children, _, err := conn.Children(z.folder)
		if zkConnectionLost(err) {
			if err := z.awaitSession(ctx, session, check.C); err != nil {
				return Grant{}, fmt.Errorf("zookeeper lock: list %s: %w", z.folder, err)
			}
			continue
		}
		if err != nil {
			return Grant{}, fmt.Errorf("zookeeper lock: list %s: %w", z.folder, err)
		}
		queue, err := sortBySequence(children)
		if err != nil {
			return Grant{}, err
		}
		at := -1
		for i, c := range queue {
			if c == name {
				at = i
				break
			}
		}
		switch {
		case at < 0:
			return Grant{}, fmt.Errorf("%w: own node %s is gone", ErrZooKeeperSessionLost, name)
		case at == 0:
			return z.grant(conn, node)
		}
		exists, _, watch, err := conn.ExistsW(z.folder + "/" + queue[at-1])
		if zkConnectionLost(err) {
			if err := z.awaitSession(ctx, session, check.C); err != nil {
				return Grant{}, fmt.Errorf("zookeeper lock: watch %s: %w", queue[at-1], err)
			}
			continue
		}
		if err != nil {
			return Grant{}, fmt.Errorf("zookeeper lock: watch %s: %w", queue[at-1], err)
		}
		if !exists {
			continue // it went between the listing and the watch
		}
		if err := z.await(ctx, session, watch, check.C); err != nil {
			return Grant{}, fmt.Errorf("zookeeper lock: waiting for %s: %w", queue[at-1], err)
		}
	}
}

// await waits for the watch to fire (the predecessor went), ctx to end, or
// the session to be lost for longer than the timeout, which check's ticks
// look at.
func (z *ZooKeeper) await(ctx context.Context, session *zkSession, watch <-chan zk.Event, check <-chan time.Time) error {
	for {
		select {
		case ev := <-watch:
			return ev.Err
		case <-check:
			if session.sessionless() > z.validity {
				return fmt.Errorf("%w: no session for longer than the timeout %v", ErrZooKeeperSessionLost, z.validity)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// zkConnectionLost says a call failed because the connection is down (the
// server killed, or refusing the session): the wait goes on until the
// session is back or lost for longer than the timeout (awaitSession),
// as it does for a watch that is waiting.
func zkConnectionLost(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer)
}

// awaitSession waits for check's next tick, or ctx's end: an error once
// the session has been lost for longer than the timeout.
func (z *ZooKeeper) awaitSession(ctx context.Context, session *zkSession, check <-chan time.Time) error {
	select {
	case <-check:
		if session.sessionless() > z.validity {
			return fmt.Errorf("%w: no session for longer than the timeout %v", ErrZooKeeperSessionLost, z.validity)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// grant reads the held node's creation zxid.
func (z *ZooKeeper) grant(conn *zk.Conn, node string) (Grant, error) {
	exists, stat, err := conn.Exists(node)
	if err != nil {
		return Grant{}, fmt.Errorf("zookeeper lock: stat %s: %w", node, err)
	}
	if !exists {
		return Grant{}, fmt.Errorf("%w: own node %s is gone", ErrZooKeeperSessionLost, node)
	}
	return Grant{Token: uint64(stat.Czxid), Value: node, Validity: z.validity}, nil
}

// sortBySequence orders a lock folder's children by the sequence number
// ZooKeeper appended to each name (the number after the last "-"); a
// child without one is not a contender of this recipe, and an error.
func sortBySequence(children []string) ([]string, error) {
	type entry struct {
		name string
		seq  int64
	}
	entries := make([]entry, 0, len(children))
	for _, c := range children {
		seq, err := strconv.ParseInt(c[strings.LastIndexByte(c, '-')+1:], 10, 64)
		if err != nil || !strings.Contains(c, zkNodePrefix) {
			return nil, fmt.Errorf("zookeeper lock: a foreign node %.60q in the lock's folder", c)
		}
		entries = append(entries, entry{c, seq})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].seq < entries[j].seq })
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.name
	}
	return out, nil
}

// Release deletes the grant's node. A node already gone (the session
// expired and the server deleted it) is no error: the recipe has nothing
// left to give back, and the node's path is unique, so the delete cannot
// touch a later holder's node. A delete that fails (the connection is
// down) is an error, and is retried before the next acquire.
func (z *ZooKeeper) Release(ctx context.Context, g Grant) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !strings.HasPrefix(g.Value, z.folder+"/") {
		return fmt.Errorf("zookeeper lock: release of a grant not from this lock (%.80q)", g.Value)
	}
	return z.deleteNode(z.current().conn, g.Value)
}

// Close ends the session: the server deletes the session's ephemeral
// nodes at once.
func (z *ZooKeeper) Close() error {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.session.conn.Close()
	return nil
}
