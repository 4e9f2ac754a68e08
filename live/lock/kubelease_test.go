package lock

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/fencelab/fencelab/live/internal/etcdtest"
	"github.com/fencelab/fencelab/live/internal/servertest"
)

func TestKubeLeaseTimings(t *testing.T) {
	for _, tc := range []struct {
		ttl                 time.Duration
		lease, renew, retry time.Duration
		wantErr             bool
	}{
		{ttl: time.Second, lease: time.Second, renew: 666666666, retry: 133333333},
		{ttl: 2 * time.Second, lease: 2 * time.Second, renew: 1333333333, retry: 266666666},
		{ttl: 15 * time.Second, lease: 15 * time.Second, renew: 10 * time.Second, retry: 2 * time.Second},
		{ttl: 0, wantErr: true},
		{ttl: 500 * time.Millisecond, wantErr: true},
		{ttl: 1500 * time.Millisecond, wantErr: true},
		{ttl: -time.Second, wantErr: true},
	} {
		lease, renew, retry, err := KubeLeaseTimings(tc.ttl)
		if tc.wantErr {
			assert.ErrorContains(t, err, "whole seconds", "%v", tc.ttl)
			continue
		}
		require.NoError(t, err, "%v", tc.ttl)
		assert.Equal(t, []time.Duration{tc.lease, tc.renew, tc.retry}, []time.Duration{lease, renew, retry}, "%v", tc.ttl)
		// client-go's own checks (NewLeaderElector) must pass.
		assert.Greater(t, lease, renew)
		assert.Greater(t, renew, time.Duration(1.2*float64(retry)))
	}
}

func TestNewKubeLeaseRefusesBadConfigs(t *testing.T) {
	ok := Config{Addrs: []string{"127.0.0.1:1"}, Key: "k", TTL: 2 * time.Second, Client: "c1", Credentials: t.TempDir()}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no address", func(c *Config) { c.Addrs = nil }, "want one kube-apiserver address, got 0"},
		{"two addresses", func(c *Config) { c.Addrs = []string{"a:1", "b:2"} }, "got 2"},
		{"no key", func(c *Config) { c.Key = "" }, "no lock key"},
		{"no credentials", func(c *Config) { c.Credentials = "" }, "no credentials folder"},
		{"a TTL under a second", func(c *Config) { c.TTL = 300 * time.Millisecond }, "whole seconds"},
		{"credentials that are not there", func(c *Config) {}, "client for 127.0.0.1:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ok
			tc.edit(&cfg)
			l, err := NewKubeLease(context.Background(), cfg)
			require.ErrorContains(t, err, tc.want)
			require.Nil(t, l)
		})
	}
}

// fakeLock is a resourcelock.Interface whose writes fail while err is
// set.
type fakeLock struct {
	resourcelock.Interface
	identity string
	err      error
}

func (f *fakeLock) Create(context.Context, resourcelock.LeaderElectionRecord) error { return f.err }
func (f *fakeLock) Update(context.Context, resourcelock.LeaderElectionRecord) error { return f.err }
func (f *fakeLock) Identity() string                                                { return f.identity }

// TestRecordingLockNotesTheAcquiringWrite: the token and send time are
// the first successful write naming this elector as holder; failed
// writes, a release's (holder empty) and later renewals change nothing.
func TestRecordingLockNotesTheAcquiringWrite(t *testing.T) {
	ctx := context.Background()
	fake := &fakeLock{identity: "c1-1"}
	r := &recordingLock{Interface: fake}
	_, _, ok := r.acquired()
	require.False(t, ok, "nothing written yet")

	fake.err = errors.New("conflict")
	require.Error(t, r.Update(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "c1-1", LeaderTransitions: 9}))
	_, _, ok = r.acquired()
	require.False(t, ok, "a failed write acquires nothing")

	fake.err = nil
	require.NoError(t, r.Update(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "", LeaderTransitions: 8}))
	_, _, ok = r.acquired()
	require.False(t, ok, "a write of another holder (a release) is not ours")

	before := time.Now()
	require.NoError(t, r.Update(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "c1-1", LeaderTransitions: 4}))
	after := time.Now()
	require.NoError(t, r.Update(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "c1-1", LeaderTransitions: 5}))
	require.NoError(t, r.Create(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "c1-1", LeaderTransitions: 6}))
	token, sent, ok := r.acquired()
	require.True(t, ok)
	assert.Equal(t, 4, token, "the acquiring write's transitions, not a renewal's")
	assert.False(t, sent.Before(before) || sent.After(after), "sent %v within [%v, %v]", sent, before, after)

	// Create is noted the same way.
	c := &recordingLock{Interface: &fakeLock{identity: "c2-1"}}
	require.NoError(t, c.Create(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "c2-1"}))
	token, _, ok = c.acquired()
	assert.True(t, ok)
	assert.Equal(t, 0, token)
}

// kubeTestTTL is the lease of the tests against a real apiserver.
const kubeTestTTL = 2 * time.Second

func newKubeTestLease(t *testing.T, addr, pki, client string) *KubeLease {
	t.Helper()
	l, err := NewKubeLease(context.Background(), Config{Addrs: []string{addr}, Key: "lock", TTL: kubeTestTTL, Client: client, Credentials: pki})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, l.Close()) })
	return l.(*KubeLease)
}

// Against a real kube-apiserver over the embedded etcd: one holder at a
// time, the waiter granted once the holder released and its Lease ran out
// (a lease duration after its last renewal: nothing hands it back), its
// token the greater.
func TestKubeLeaseExcludesAndTokensIncrease(t *testing.T) {
	servertest.NeedKubeAPIServer(t)
	e := etcdtest.Start(t)
	k := servertest.KubeAPIServer(t, e.Addr())
	c1 := newKubeTestLease(t, k.Addr(), k.PKIDir(), "c1")
	c2 := newKubeTestLease(t, k.Addr(), k.PKIDir(), "c2")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	before := time.Now()
	g1, err := c1.Acquire(ctx)
	require.NoError(t, err)
	require.False(t, g1.Sent.Before(before), "sent %v, acquire called %v", g1.Sent, before)
	require.Equal(t, kubeTestTTL, g1.Validity)
	require.Equal(t, uint64(1), g1.Token, "a new Lease: leaseTransitions 0, token 1")
	require.Equal(t, "c1-1", g1.Value)

	// c2 waits: its Acquire ends with its context, past several renewals
	// of c1's lease (3 leases long).
	wait, cancelWait := context.WithTimeout(ctx, 3*kubeTestTTL)
	_, err = c2.Acquire(wait)
	cancelWait()
	require.ErrorIs(t, err, context.DeadlineExceeded, "c2 is not granted while c1 renews")
	require.Nil(t, c2.held)

	released := time.Now()
	require.NoError(t, c1.Release(ctx, g1))
	g2, err := c2.Acquire(ctx)
	require.NoError(t, err)
	require.Greater(t, g2.Token, g1.Token)
	require.GreaterOrEqual(t, time.Since(released), kubeTestTTL, "granted once c1's last renewal was a lease old")
	require.Error(t, c2.Release(ctx, g1), "a grant of another client")
	require.NoError(t, c2.Release(ctx, g2))

	// The same client again: a new identity, a new transition.
	g3, err := c1.Acquire(ctx)
	require.NoError(t, err)
	require.Equal(t, "c1-2", g3.Value)
	require.Greater(t, g3.Token, g2.Token)
	_, err = c1.Acquire(ctx)
	require.ErrorContains(t, err, "acquire while holding")
	require.NoError(t, c1.Release(ctx, g3))
}
