package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/fencelab/fencelab/impl"
)

// etcdDialTimeout bounds the connection to etcd when a store is opened.
const etcdDialTimeout = 5 * time.Second

// etcdTokenDigits is the width tokens are written with in the fence key:
// etcd compares values as bytes, so a token is zero-padded to the 20
// digits of the largest uint64 to make the byte order the numeric order
// ("9" > "10" as bytes, "00…09" < "00…10").
const etcdTokenDigits = 20

// The keys of the counter called name: the counter, the fence (EtcdTxn),
// and the audit log, one key per accepted operation,
// <log prefix><client>/<handle>/<seq>, put in the operation's own Txn, so
// that the keys' revisions order the operations as they took effect.
func etcdCounterKey(name string) string { return "/fencelab/store/" + name + "/counter" }
func etcdFenceKey(name string) string   { return "/fencelab/store/" + name + "/fence" }
func etcdLogPrefix(name string) string  { return "/fencelab/store/" + name + "/log/" }

// etcdCounter is what both etcd stores share: the connection, the
// counter's keys, and this handle's audit-log keys.
type etcdCounter struct {
	cli        *clientv3.Client
	counterKey string
	client     int    // the client's 0-based index (impl.ClientNode)
	logPrefix  string // <log prefix><client>/<handle>/
	seq        uint64 // operations this handle has sent
}

// EtcdTxn is the shared counter as an etcd key, fenced by a second key
// that holds the highest token the store has seen: every operation is one
// Txn that compares its token with the fence and, unless the fence is
// higher, raises the fence to it and does the operation. Reads are fenced
// as writes are (a newer holder's read fences an older holder's write),
// as mode `all` does. With the lock key's create revision as token
// (lock.NewEtcdMutex, lock.NewEtcdLease) this is the matrix row
// `revision`: the store's revision, checked ≥ on every operation.
type EtcdTxn struct {
	etcdCounter
	fenceKey string
}

// EtcdLockGuarded is the shared counter as an etcd key, guarded by etcd's
// own recipe: each operation is a Txn that applies only If the lock key
// the holder owns still has the token as its create revision
// (Compare(CreateRevision(lockKey), "=", token), which is what
// concurrency.Mutex.IsOwner compares). It matches no row exactly; it is
// closest to `sequencer`: the store asks the lock service whether the token
// is still the current holder's — here atomically, in the lock service's
// own store, so the check and the operation are one step and nothing can
// come between them — and etcd has no lock-delay. Reads are guarded as
// writes are.
type EtcdLockGuarded struct {
	etcdCounter
	lockPrefix string // lock.EtcdLockPrefix of the lock's name
}

// openEtcdCounter checks the names and connects a store's client.
func openEtcdCounter(ctx context.Context, addrs []string, name string, client int) (etcdCounter, error) {
	if len(addrs) == 0 {
		return etcdCounter{}, errors.New("etcd store: no etcd address")
	}
	if name == "" {
		return etcdCounter{}, errors.New("etcd store: no counter name")
	}
	if client < 0 {
		return etcdCounter{}, fmt.Errorf("etcd store: negative client index %d", client)
	}
	// A handle's own part of the log keys, so that two handles of one
	// client (a restarted client process) never put the same key.
	var handle [8]byte
	if _, err := rand.Read(handle[:]); err != nil {
		return etcdCounter{}, fmt.Errorf("etcd store: %w", err)
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   addrs,
		DialTimeout: etcdDialTimeout,
		Context:     context.WithoutCancel(ctx),
		Logger:      zap.NewNop(), // errors come back as values
	})
	if err != nil {
		return etcdCounter{}, fmt.Errorf("etcd store: connecting to %v: %w", addrs, err)
	}
	return etcdCounter{
		cli:        cli,
		counterKey: etcdCounterKey(name),
		client:     client,
		logPrefix:  etcdLogPrefix(name) + strconv.Itoa(client) + "/" + hex.EncodeToString(handle[:]) + "/",
	}, nil
}

// readOps read the counter and log the read.
func (c *etcdCounter) readOps(token uint64) []clientv3.Op {
	return []clientv3.Op{clientv3.OpGet(c.counterKey), c.logOp("read", token, 0)}
}

// writeOps set the counter and log the write.
func (c *etcdCounter) writeOps(token uint64, value int64) []clientv3.Op {
	return []clientv3.Op{clientv3.OpPut(c.counterKey, strconv.FormatInt(value, 10)), c.logOp("write", token, value)}
}

// logOp puts the next audit-log key of this handle: "<kind> <token>
// <value>" (a read's value is the counter when it took effect, which the
// audit knows from the writes before it).
func (c *etcdCounter) logOp(kind string, token uint64, value int64) clientv3.Op {
	c.seq++
	return clientv3.OpPut(fmt.Sprintf("%s%020d", c.logPrefix, c.seq), fmt.Sprintf("%s %d %d", kind, token, value))
}

// counterIn decodes the counter from the first range response of a Txn
// (0 when it was never written).
func counterIn(resp *clientv3.TxnResponse) (int64, error) {
	for _, r := range resp.Responses {
		if rr := r.GetResponseRange(); rr != nil {
			if len(rr.Kvs) == 0 {
				return 0, nil
			}
			return parseCounter(rr.Kvs[0].Value)
		}
	}
	return 0, errors.New("etcd store: the Txn answered without the counter's range")
}

func parseCounter(b []byte) (int64, error) {
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("etcd store: the counter holds %.32q, not a number: %w", b, err)
	}
	return v, nil
}

// Close ends the connection.
func (c *etcdCounter) Close() error {
	if err := c.cli.Close(); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("etcd store: closing the client: %w", err)
	}
	return nil
}

// NewEtcdTxn opens the fenced counter called name on etcd at addrs for
// the client with 0-based index client.
func NewEtcdTxn(ctx context.Context, addrs []string, name string, client int) (*EtcdTxn, error) {
	c, err := openEtcdCounter(ctx, addrs, name, client)
	if err != nil {
		return nil, err
	}
	return &EtcdTxn{etcdCounter: c, fenceKey: etcdFenceKey(name)}, nil
}

// fenceValue is token as the fence key holds it.
func fenceValue(token uint64) string {
	return fmt.Sprintf("%0*d", etcdTokenDigits, token)
}

// fenced runs ops in one Txn unless the fence is above token; then it
// refuses (ok false). A missing fence key (a fresh store, or one wiped by
// a restart) fails etcd's value comparison, so the first operation is
// accepted and sets the fence.
func (s *EtcdTxn) fenced(ctx context.Context, token uint64, ops []clientv3.Op) (*clientv3.TxnResponse, bool, error) {
	tok := fenceValue(token)
	resp, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.Value(s.fenceKey), ">", tok)).
		Else(append([]clientv3.Op{clientv3.OpPut(s.fenceKey, tok)}, ops...)...).
		Commit()
	if err != nil {
		return nil, false, fmt.Errorf("etcd store: %w", err)
	}
	return resp, !resp.Succeeded, nil
}

// Read returns the counter if token is not below the fence, and raises the
// fence to token in the same Txn.
func (s *EtcdTxn) Read(ctx context.Context, token uint64) (int64, bool, error) {
	resp, ok, err := s.fenced(ctx, token, s.readOps(token))
	if err != nil || !ok {
		return 0, ok, err
	}
	v, err := counterIn(resp)
	return v, err == nil, err
}

// Write sets the counter if token is not below the fence, and raises the
// fence to token in the same Txn.
func (s *EtcdTxn) Write(ctx context.Context, token uint64, value int64) (bool, error) {
	_, ok, err := s.fenced(ctx, token, s.writeOps(token, value))
	return ok, err
}

// NewEtcdLockGuarded opens the counter called name on etcd at addrs for
// the client with 0-based index client, guarded on the lock whose keys are
// under lockPrefix (lock.EtcdLockPrefix of the lock's name).
func NewEtcdLockGuarded(ctx context.Context, addrs []string, name string, client int, lockPrefix string) (*EtcdLockGuarded, error) {
	if lockPrefix == "" {
		return nil, errors.New("etcd store: no lock prefix")
	}
	c, err := openEtcdCounter(ctx, addrs, name, client)
	if err != nil {
		return nil, err
	}
	return &EtcdLockGuarded{etcdCounter: c, lockPrefix: lockPrefix}, nil
}

// guarded runs ops in a Txn If the lock's current holder key has token as
// its create revision. The holder is looked up first (the key with the
// lowest create revision under the prefix, as concurrency.Mutex decides);
// the Txn then compares that key's create revision, so a holder that lost
// its key between the two steps is refused (a deleted key's create
// revision is 0, and token 0 is refused before anything is asked).
func (s *EtcdLockGuarded) guarded(ctx context.Context, token uint64, ops []clientv3.Op) (*clientv3.TxnResponse, bool, error) {
	if token == 0 || token > math.MaxInt64 {
		return nil, false, nil // no create revision is 0 or above int64
	}
	owner, err := s.cli.Get(ctx, s.lockPrefix+"/", clientv3.WithFirstCreate()...)
	if err != nil {
		return nil, false, fmt.Errorf("etcd store: looking up the lock holder: %w", err)
	}
	if len(owner.Kvs) == 0 {
		return nil, false, nil // nobody holds the lock
	}
	resp, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(string(owner.Kvs[0].Key)), "=", int64(token))).
		Then(ops...).
		Commit()
	if err != nil {
		return nil, false, fmt.Errorf("etcd store: %w", err)
	}
	return resp, resp.Succeeded, nil
}

// Read returns the counter if token is the lock holder's.
func (s *EtcdLockGuarded) Read(ctx context.Context, token uint64) (int64, bool, error) {
	resp, ok, err := s.guarded(ctx, token, s.readOps(token))
	if err != nil || !ok {
		return 0, ok, err
	}
	v, err := counterIn(resp)
	return v, err == nil, err
}

// Write sets the counter if token is the lock holder's.
func (s *EtcdLockGuarded) Write(ctx context.Context, token uint64, value int64) (bool, error) {
	_, ok, err := s.guarded(ctx, token, s.writeOps(token, value))
	return ok, err
}

// AuditEtcd reads the counter called name on etcd at addrs after a run:
// every operation either etcd store accepted, in the order it took effect
// (its audit-log key's revision), with each read's value (the last write
// before it), and the counter's value. Refused operations are not in the
// store's log (they changed nothing); the clients' histories have them.
// After a restart that wiped etcd's data, the log starts over with it.
func AuditEtcd(ctx context.Context, addrs []string, name string) ([]impl.Op, int64, error) {
	c, err := openEtcdCounter(ctx, addrs, name, 0)
	if err != nil {
		return nil, 0, err
	}
	defer c.Close()
	prefix := etcdLogPrefix(name)
	resp, err := c.cli.Txn(ctx).Then(
		clientv3.OpGet(prefix, clientv3.WithPrefix(), clientv3.WithSort(clientv3.SortByModRevision, clientv3.SortAscend)),
		clientv3.OpGet(c.counterKey),
	).Commit()
	if err != nil {
		return nil, 0, fmt.Errorf("etcd store: reading the audit log: %w", err)
	}
	var counter int64
	if kvs := resp.Responses[1].GetResponseRange().GetKvs(); len(kvs) > 0 {
		if counter, err = parseCounter(kvs[0].Value); err != nil {
			return nil, 0, err
		}
	}
	var ops []impl.Op
	var last int64 // the counter as the log so far left it
	for _, kv := range resp.Responses[0].GetResponseRange().GetKvs() {
		op, err := parseLogEntry(strings.TrimPrefix(string(kv.Key), prefix), string(kv.Value))
		if err != nil {
			return nil, 0, err
		}
		if op.Kind == impl.OpWrite {
			last = op.Value
		} else {
			op.Value = last
		}
		ops = append(ops, op)
	}
	return ops, counter, nil
}

// parseLogEntry decodes one audit-log key (after the log prefix:
// <client>/<handle>/<seq>) and its value (<kind> <token> <value>).
func parseLogEntry(key, value string) (impl.Op, error) {
	bad := func(what string) (impl.Op, error) {
		return impl.Op{}, fmt.Errorf("etcd store: audit-log entry %.64q = %.64q: %s", key, value, what)
	}
	parts := strings.Split(key, "/")
	if len(parts) != 3 {
		return bad("not client/handle/seq")
	}
	client, err := strconv.Atoi(parts[0])
	if err != nil || client < 0 {
		return bad("no client index")
	}
	fields := strings.Fields(value)
	if len(fields) != 3 {
		return bad("not kind token value")
	}
	op := impl.Op{Client: impl.ClientNode(client), Accepted: true}
	switch fields[0] {
	case "read":
		op.Kind = impl.OpRead
	case "write":
		op.Kind = impl.OpWrite
	default:
		return bad("unknown kind")
	}
	if op.Token, err = strconv.ParseUint(fields[1], 10, 64); err != nil {
		return bad("bad token")
	}
	if op.Value, err = strconv.ParseInt(fields[2], 10, 64); err != nil {
		return bad("bad value")
	}
	return op, nil
}
