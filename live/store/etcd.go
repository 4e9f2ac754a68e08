package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// etcdDialTimeout bounds the connection to etcd when a store is opened.
const etcdDialTimeout = 5 * time.Second

// etcdTokenDigits is the width tokens are written with in the fence key:
// etcd compares values as bytes, so a token is zero-padded to the 20
// digits of the largest uint64 to make the byte order the numeric order
// ("9" > "10" as bytes, "00…09" < "00…10").
const etcdTokenDigits = 20

// etcdCounterKey and etcdFenceKey are the keys of the counter called name.
func etcdCounterKey(name string) string { return "/fencelab/store/" + name + "/counter" }
func etcdFenceKey(name string) string   { return "/fencelab/store/" + name + "/fence" }

// EtcdTxn is the shared counter as an etcd key, fenced by a second key
// that holds the highest token the store has seen: every operation is one
// Txn that compares its token with the fence and, unless the fence is
// higher, raises the fence to it and does the operation. Reads are fenced
// as writes are (a newer holder's read fences an older holder's write),
// as mode `all` does. With the lock key's create revision as token
// (lock.NewEtcdMutex, lock.NewEtcdLease) this is the matrix row
// `revision`: the store's revision, checked ≥ on every operation.
type EtcdTxn struct {
	cli                  *clientv3.Client
	counterKey, fenceKey string
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
	cli        *clientv3.Client
	counterKey string
	lockPrefix string // lock.EtcdLockPrefix of the lock's name
}

// dialEtcd connects a store's client.
func dialEtcd(ctx context.Context, addrs []string) (*clientv3.Client, error) {
	if len(addrs) == 0 {
		return nil, errors.New("etcd store: no etcd address")
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   addrs,
		DialTimeout: etcdDialTimeout,
		Context:     context.WithoutCancel(ctx),
		Logger:      zap.NewNop(), // errors come back as values
	})
	if err != nil {
		return nil, fmt.Errorf("etcd store: connecting to %v: %w", addrs, err)
	}
	return cli, nil
}

// NewEtcdTxn opens the fenced counter called name on etcd at addrs.
func NewEtcdTxn(ctx context.Context, addrs []string, name string) (*EtcdTxn, error) {
	if name == "" {
		return nil, errors.New("etcd store: no counter name")
	}
	cli, err := dialEtcd(ctx, addrs)
	if err != nil {
		return nil, err
	}
	return &EtcdTxn{cli: cli, counterKey: etcdCounterKey(name), fenceKey: etcdFenceKey(name)}, nil
}

// fenceValue is token as the fence key holds it.
func fenceValue(token uint64) string {
	return fmt.Sprintf("%0*d", etcdTokenDigits, token)
}

// fenced runs ops in one Txn unless the fence is above token; then it
// refuses (ok false). A missing fence key (a fresh store, or one wiped by
// a restart) fails etcd's value comparison, so the first operation is
// accepted and sets the fence.
func (s *EtcdTxn) fenced(ctx context.Context, token uint64, ops ...clientv3.Op) (*clientv3.TxnResponse, bool, error) {
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
	resp, ok, err := s.fenced(ctx, token, clientv3.OpGet(s.counterKey))
	if err != nil || !ok {
		return 0, ok, err
	}
	v, err := counterValue(resp.Responses[1].GetResponseRange())
	return v, true, err
}

// Write sets the counter if token is not below the fence, and raises the
// fence to token in the same Txn.
func (s *EtcdTxn) Write(ctx context.Context, token uint64, value int64) (bool, error) {
	_, ok, err := s.fenced(ctx, token, clientv3.OpPut(s.counterKey, strconv.FormatInt(value, 10)))
	return ok, err
}

// Close ends the connection.
func (s *EtcdTxn) Close() error { return closeEtcd(s.cli) }

// NewEtcdLockGuarded opens the counter called name on etcd at addrs,
// guarded on the lock whose keys are under lockPrefix
// (lock.EtcdLockPrefix of the lock's name).
func NewEtcdLockGuarded(ctx context.Context, addrs []string, name, lockPrefix string) (*EtcdLockGuarded, error) {
	if name == "" {
		return nil, errors.New("etcd store: no counter name")
	}
	if lockPrefix == "" {
		return nil, errors.New("etcd store: no lock prefix")
	}
	cli, err := dialEtcd(ctx, addrs)
	if err != nil {
		return nil, err
	}
	return &EtcdLockGuarded{cli: cli, counterKey: etcdCounterKey(name), lockPrefix: lockPrefix}, nil
}

// guarded runs op in a Txn If the lock's current holder key has token as
// its create revision. The holder is looked up first (the key with the
// lowest create revision under the prefix, as concurrency.Mutex decides);
// the Txn then compares that key's create revision, so a holder that lost
// its key between the two steps is refused (a deleted key's create
// revision is 0, and token 0 is refused before anything is asked).
func (s *EtcdLockGuarded) guarded(ctx context.Context, token uint64, op clientv3.Op) (*clientv3.TxnResponse, bool, error) {
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
		Then(op).
		Commit()
	if err != nil {
		return nil, false, fmt.Errorf("etcd store: %w", err)
	}
	return resp, resp.Succeeded, nil
}

// Read returns the counter if token is the lock holder's.
func (s *EtcdLockGuarded) Read(ctx context.Context, token uint64) (int64, bool, error) {
	resp, ok, err := s.guarded(ctx, token, clientv3.OpGet(s.counterKey))
	if err != nil || !ok {
		return 0, ok, err
	}
	v, err := counterValue(resp.Responses[0].GetResponseRange())
	return v, true, err
}

// Write sets the counter if token is the lock holder's.
func (s *EtcdLockGuarded) Write(ctx context.Context, token uint64, value int64) (bool, error) {
	_, ok, err := s.guarded(ctx, token, clientv3.OpPut(s.counterKey, strconv.FormatInt(value, 10)))
	return ok, err
}

// Close ends the connection.
func (s *EtcdLockGuarded) Close() error { return closeEtcd(s.cli) }

// counterValue decodes a Get of the counter key: 0 when it was never
// written.
func counterValue(r *pb.RangeResponse) (int64, error) {
	if r == nil {
		return 0, errors.New("etcd store: the Txn answered without the counter's range")
	}
	if len(r.Kvs) == 0 {
		return 0, nil
	}
	v, err := strconv.ParseInt(string(r.Kvs[0].Value), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("etcd store: the counter holds %.32q, not a number: %w", r.Kvs[0].Value, err)
	}
	return v, nil
}

// closeEtcd closes a store's client.
func closeEtcd(cli *clientv3.Client) error {
	if err := cli.Close(); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("etcd store: closing the client: %w", err)
	}
	return nil
}
