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

// TestPostgresFenced: the fencing rules of both modes (the MariaDB
// store's script, which the same rules must answer alike), the audit in
// order of effect, and a wiped restart, after which the tables are made
// again and the counter starts over.
func TestPostgresFenced(t *testing.T) {
	pg := servertest.Postgres(t)
	r := func(token uint64, value int64, ok bool) fenceOp {
		return fenceOp{token: token, value: value, wantOK: ok}
	}
	w := func(token uint64, value int64, ok bool) fenceOp {
		return fenceOp{write: true, token: token, value: value, wantOK: ok}
	}
	for _, tc := range []struct {
		name  string
		mode  string
		ops   []fenceOp
		final int64
	}{
		{"all: an older write is refused, a newer one accepted", PostgresFenceAll,
			[]fenceOp{w(2, 10, true), w(1, 11, false), r(2, 10, true), w(3, 12, true), w(2, 13, false)}, 12},
		{"all: a newer read fences an older write", PostgresFenceAll,
			[]fenceOp{r(1, 0, true), r(2, 0, true), w(1, 1, false), w(2, 1, true)}, 1},
		{"writes: a newer read does not stop an older write (the hole)", PostgresFenceWrites,
			[]fenceOp{r(1, 0, true), r(2, 0, true), w(1, 1, true), w(2, 1, true)}, 1},
		{"all: an older read is refused", PostgresFenceAll,
			[]fenceOp{w(5, 7, true), r(4, 0, false), r(5, 7, true)}, 7},
		{"writes: an older read is served", PostgresFenceWrites,
			[]fenceOp{w(5, 7, true), r(4, 7, true)}, 7},
		{"all: the same token again is accepted", PostgresFenceAll,
			[]fenceOp{r(3, 0, true), r(3, 0, true), w(3, 4, true), w(3, 4, true), r(3, 4, true)}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			admin, err := pgx.ConnectConfig(ctx, server.PostgresConnConfigAt(pg.Addr()))
			require.NoError(t, err)
			defer admin.Close(ctx)
			_, err = admin.Exec(ctx, "DROP TABLE IF EXISTS counter, ops")
			require.NoError(t, err)
			s, err := NewPostgresFenced(pg.Addr(), tc.mode, 0)
			require.NoError(t, err)
			defer s.Close()
			var want []impl.Op
			for i, op := range tc.ops {
				if op.write {
					ok, err := s.Write(ctx, op.token, op.value)
					require.NoError(t, err)
					assert.Equal(t, op.wantOK, ok, "op %d: write(token %d, %d)", i, op.token, op.value)
				} else {
					v, ok, err := s.Read(ctx, op.token)
					require.NoError(t, err)
					assert.Equal(t, op.wantOK, ok, "op %d: read(token %d)", i, op.token)
					if op.wantOK {
						assert.Equal(t, op.value, v, "op %d: read(token %d)", i, op.token)
					}
				}
				if op.wantOK {
					kind := impl.OpRead
					if op.write {
						kind = impl.OpWrite
					}
					want = append(want, impl.Op{Client: impl.ClientNode(0), Kind: kind, Accepted: true, Token: op.token, Value: op.value})
				}
			}
			ops, counter, err := PostgresAudit(ctx, pg.Addr())
			require.NoError(t, err)
			assert.Equal(t, want, ops)
			assert.Equal(t, tc.final, counter)
		})
	}

	t.Run("a wiped restart: the tables are made again, the counter starts over", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		s, err := NewPostgresFenced(pg.Addr(), PostgresFenceAll, 1)
		require.NoError(t, err)
		defer s.Close()
		ok, err := s.Write(ctx, 9, 3)
		require.NoError(t, err)
		require.True(t, ok)
		require.NoError(t, pg.Kill())
		require.NoError(t, pg.Restart(ctx, true))
		ops, counter, err := PostgresAudit(ctx, pg.Addr())
		require.NoError(t, err)
		assert.Empty(t, ops, "a store with no tables has no log")
		assert.Zero(t, counter)
		// The pool's connections died with the server: the first call
		// may fail on one; the store answers once it reconnects.
		require.Eventually(t, func() bool {
			v, ok, err := s.Read(ctx, 1)
			return err == nil && ok && v == 0
		}, 30*time.Second, 50*time.Millisecond, "token 1 is accepted by the fresh fence")
	})
}

func TestNewPostgresFencedRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		addr, mode string
		client     int
	}{
		{"127.0.0.1:5432", "none", 0},
		{"127.0.0.1:5432", "all", -1},
		{"127.0.0.1:5432", "all", impl.MaxClients},
		{"nohost", "all", 0},
	} {
		_, err := NewPostgresFenced(tc.addr, tc.mode, tc.client)
		assert.Error(t, err, "%+v", tc)
	}
}
