package setup

// PostgreSQL's epoch-fence setups (store/postgres_snapshot.go): the
// transaction lock and its token sequence, as xact-durable has them, and
// a hand-built epoch fence on a second server, read two ways. Under
// REPEATABLE READ a section is one transaction, its write checked in the
// snapshot its read took — a holder whose read came before the handover
// writes after the newer holder (row snapshot-fence; Tr3kkR/Yuzu #4015).
// Under READ COMMITTED with a row lock every operation meets the fence as
// committed (row all): the contrast.
//
// The store is on a server of its own, which no fault touches and which
// runs without the idle timeouts of the client pause: the paused holder's
// lock session ends (its lock with it) while its store transaction, open
// since its read, lives on, as an application's transaction does while
// its lock's session is lost.

import (
	"context"
	"fmt"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/store"
)

// postgresEpochTTL is the epoch setups' TTL. Advisory locks ignore it;
// the judge takes a session lock's validity to end a TTL after the
// acquire was asked (the send rule's guess), and these setups' story
// pauses the holder at its write, after its acquire, read and think:
// with postgresTTL (500 ms) an acquire slowed by a loaded machine had
// used the guess up before the pause, and the runs came out inconclusive
// (2 of 3). A second keeps the pause inside it; the pause itself is the
// other setups' (postgresIdleTimeout decides when the lock goes).
const postgresEpochTTL = time.Second

// postgresEpochSetups are the epoch-fence setups.
func postgresEpochSetups() []Setup {
	setup := func(name string, d impl.Design, mode, why string) Setup {
		return Setup{
			Name: name, Service: "postgres", Design: d, Why: why,
			Package: server.PostgresPackage, Library: "github.com/jackc/pgx/v5", TTL: postgresEpochTTL,
			Probe:      server.PostgresVersion,
			Faults:     []history.Fault{history.FaultClientPause},
			MoreFaults: []history.Fault{history.FaultServerPause, history.FaultDelay, history.FaultBlackhole},
			Stories: map[history.Fault]Story{history.FaultClientPause: {For: 5 * postgresTTL,
				Why: "idle timeouts of 1 s end the paused holder's lock session while it is stopped; its store transaction, on the other server, lives on"}},
			Start:  startPostgresDeployment(postgresSeparateStore),
			Locker: func(_ context.Context, cfg lock.Config) (lock.Locker, error) { return lock.NewPostgresXactLock(cfg) },
			Store: func(ctx context.Context, cfg StoreConfig) (store.Store, error) {
				if len(cfg.Addrs) != 1 {
					return nil, fmt.Errorf("PostgreSQL epoch-fenced store: want one address, got %d", len(cfg.Addrs))
				}
				return store.NewPostgresEpochFence(ctx, cfg.Addrs[0], mode, cfg.Client)
			},
			Audit: func(ctx context.Context, d *Deployment) ([]impl.Op, int64, error) {
				if len(d.StoreAddrs) != 1 {
					return nil, 0, fmt.Errorf("PostgreSQL audit: want one store address, got %d", len(d.StoreAddrs))
				}
				return store.PostgresEpochAudit(ctx, d.StoreAddrs[0])
			},
		}
	}
	return []Setup{
		setup("epoch-snapshot", impl.DesignSnapshotFence, store.PostgresSnapshot,
			"pg_try_advisory_xact_lock, a token from a sequence, an epoch fence read under REPEATABLE READ: a section is one transaction whose write is checked in the snapshot its read took, before the handover"),
		setup("epoch-rowlock", impl.DesignFenceAll, store.PostgresRowLock,
			"the same lock and epoch fence, read under READ COMMITTED after SELECT ... FOR UPDATE of a guard row: every operation checks and raises the fence as committed, in one transaction"),
	}
}
