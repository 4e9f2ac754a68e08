package store

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/internal/servertest"
	"github.com/fencelab/fencelab/live/server"
)

// clientOp is one client's operation on a shared store.
type clientOp struct {
	client int
	fenceOp
}

// TestPostgresEpochFence: two clients' operations interleaved on the
// epoch-fenced store, read both ways. Under REPEATABLE READ a section's
// write is checked in the snapshot its read took: the holder whose read
// came before the handover writes after the newer holder (the row's
// story: tokens out of order in the log, an update lost), and a read
// raises nothing until its section commits. Under READ COMMITTED with the
// row lock the same operations meet the fence as committed: fencing all.
func TestPostgresEpochFence(t *testing.T) {
	pg := servertest.Postgres(t)
	op := func(client int, write bool, token uint64, value int64, ok bool) clientOp {
		return clientOp{client, fenceOp{write: write, token: token, value: value, wantOK: ok}}
	}
	const r, w = false, true
	for _, tc := range []struct {
		name  string
		mode  string
		ops   []clientOp
		final int64
	}{
		{"snapshot: the stale holder's write lands after the newer holder's", PostgresSnapshot,
			[]clientOp{op(0, r, 1, 0, true), op(1, r, 2, 0, true), op(1, w, 2, 1, true), op(0, w, 1, 1, true)}, 1},
		{"rowlock: the same operations, the stale write refused", PostgresRowLock,
			[]clientOp{op(0, r, 1, 0, true), op(1, r, 2, 0, true), op(1, w, 2, 1, true), op(0, w, 1, 1, false)}, 1},
		{"snapshot: an older read passes a newer one that has not committed", PostgresSnapshot,
			[]clientOp{op(1, r, 2, 0, true), op(0, r, 1, 0, true)}, 0},
		{"rowlock: an older read is refused after a newer one", PostgresRowLock,
			[]clientOp{op(1, r, 2, 0, true), op(0, r, 1, 0, false)}, 0},
		{"snapshot: a section that begins after a commit sees its fence", PostgresSnapshot,
			[]clientOp{op(1, r, 2, 0, true), op(1, w, 2, 5, true), op(0, r, 1, 0, false), op(0, r, 2, 5, true)}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			dropEpochTables(ctx, t, pg.Addr())
			var stores [2]Store
			for i := range stores {
				var err error
				stores[i], err = NewPostgresEpochFence(ctx, pg.Addr(), tc.mode, i)
				require.NoError(t, err)
				defer stores[i].Close()
			}
			var want []impl.Op
			for i, op := range tc.ops {
				s := stores[op.client]
				kind := impl.OpRead
				if op.write {
					kind = impl.OpWrite
					ok, err := s.Write(ctx, op.token, op.value)
					require.NoError(t, err)
					assert.Equal(t, op.wantOK, ok, "op %d: c%d write(token %d, %d)", i, op.client+1, op.token, op.value)
				} else {
					v, ok, err := s.Read(ctx, op.token)
					require.NoError(t, err)
					assert.Equal(t, op.wantOK, ok, "op %d: c%d read(token %d)", i, op.client+1, op.token)
					if op.wantOK {
						assert.Equal(t, op.value, v, "op %d: c%d read(token %d)", i, op.client+1, op.token)
					}
				}
				if op.wantOK {
					want = append(want, impl.Op{Client: impl.ClientNode(op.client), Kind: kind, Accepted: true, Token: op.token, Value: op.value})
				}
			}
			ops, counter, err := PostgresEpochAudit(ctx, pg.Addr())
			require.NoError(t, err)
			assert.Equal(t, want, ops, "the log, in the order of effect")
			assert.Equal(t, tc.final, counter)
		})
	}

	t.Run("a store no client touched", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		dropEpochTables(ctx, t, pg.Addr())
		ops, counter, err := PostgresEpochAudit(ctx, pg.Addr())
		require.NoError(t, err)
		assert.Empty(t, ops)
		assert.Zero(t, counter)
	})
}

func TestNewPostgresEpochFenceRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		addr, mode string
		client     int
	}{
		{"127.0.0.1:5432", "all", 0},
		{"127.0.0.1:5432", "", 0},
		{"127.0.0.1:5432", PostgresSnapshot, -1},
		{"127.0.0.1:5432", PostgresRowLock, impl.MaxClients},
		{"nohost", PostgresSnapshot, 0},
		{"127.0.0.1:1", PostgresSnapshot, 0}, // nothing listens: the tables cannot be made
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := NewPostgresEpochFence(ctx, tc.addr, tc.mode, tc.client)
		cancel()
		assert.Error(t, err, "%+v", tc)
	}
}

// dropEpochTables empties the server at addr of the epoch stores' tables,
// so that a case starts from a store no client touched.
func dropEpochTables(ctx context.Context, t *testing.T, addr string) {
	t.Helper()
	admin, err := pgx.ConnectConfig(ctx, server.PostgresConnConfigAt(addr))
	require.NoError(t, err)
	defer admin.Close(ctx)
	_, err = admin.Exec(ctx, "DROP TABLE IF EXISTS fences, versions, ops, guard")
	require.NoError(t, err)
}
