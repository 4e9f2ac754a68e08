package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/internal/servertest"
	"github.com/fencelab/fencelab/live/server"
)

// freshStore drops the tables left by an earlier subtest and opens client
// 0's store on the shared instance.
func freshStore(ctx context.Context, t *testing.T, m *server.MariaDB, admin *sql.DB, mode string) Store {
	t.Helper()
	_, err := admin.ExecContext(ctx, "DROP TABLE IF EXISTS counter, ops")
	require.NoError(t, err)
	s, err := NewMariaDBFenced(m.Addr(), mode, 0)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

// fenceOp is one operation of a script and what the store must answer.
type fenceOp struct {
	write  bool
	token  uint64
	value  int64 // written, or expected from an accepted read
	wantOK bool
}

func TestMariaDBFenced(t *testing.T) {
	m := servertest.MariaDB(t)
	admin, err := sql.Open("mysql", m.DSN())
	require.NoError(t, err)
	defer admin.Close()
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
		{name: "all: an older write is refused, a newer one accepted", mode: MariaDBFenceAll,
			ops: []fenceOp{w(2, 10, true), w(1, 11, false), r(2, 10, true), w(3, 12, true), w(2, 13, false)}, final: 12},
		{name: "writes: an older write is refused, a newer one accepted", mode: MariaDBFenceWrites,
			ops: []fenceOp{w(2, 10, true), w(1, 11, false), r(2, 10, true), w(3, 12, true), w(2, 13, false)}, final: 12},
		{name: "all: a newer read fences an older write", mode: MariaDBFenceAll,
			ops: []fenceOp{r(1, 0, true), r(2, 0, true), w(1, 1, false), w(2, 1, true)}, final: 1},
		{name: "writes: a newer read does not stop an older write (the hole)", mode: MariaDBFenceWrites,
			ops: []fenceOp{r(1, 0, true), r(2, 0, true), w(1, 1, true), w(2, 1, true)}, final: 1},
		{name: "all: an older read is refused", mode: MariaDBFenceAll,
			ops: []fenceOp{w(5, 7, true), r(4, 0, false), r(5, 7, true)}, final: 7},
		{name: "writes: an older read is served", mode: MariaDBFenceWrites,
			ops: []fenceOp{w(5, 7, true), r(4, 7, true)}, final: 7},
		// Repeating a token changes no row; found rows still count it as
		// accepted (clientFoundRows).
		{name: "all: the same token again is accepted", mode: MariaDBFenceAll,
			ops: []fenceOp{r(3, 0, true), r(3, 0, true), w(3, 4, true), w(3, 4, true), r(3, 4, true)}, final: 4},
		{name: "writes: the same token and value again is accepted", mode: MariaDBFenceWrites,
			ops: []fenceOp{w(3, 4, true), w(3, 4, true)}, final: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s := freshStore(ctx, t, m, admin, tc.mode)
			for i, op := range tc.ops {
				if op.write {
					ok, err := s.Write(ctx, op.token, op.value)
					require.NoError(t, err)
					assert.Equal(t, op.wantOK, ok, "op %d: write(token %d, %d)", i, op.token, op.value)
					continue
				}
				v, ok, err := s.Read(ctx, op.token)
				require.NoError(t, err)
				assert.Equal(t, op.wantOK, ok, "op %d: read(token %d)", i, op.token)
				if op.wantOK {
					assert.Equal(t, op.value, v, "op %d: read(token %d)", i, op.token)
				}
			}
			// The audit lists the accepted operations, in order, and the
			// counter.
			var want []impl.Op
			for _, op := range tc.ops {
				if !op.wantOK {
					continue
				}
				kind := impl.OpRead
				if op.write {
					kind = impl.OpWrite
				}
				want = append(want, impl.Op{Client: impl.ClientNode(0), Kind: kind, Accepted: true, Token: op.token, Value: op.value})
			}
			ops, counter, err := MariaDBAudit(ctx, m.Addr())
			require.NoError(t, err)
			assert.Equal(t, want, ops)
			assert.Equal(t, tc.final, counter)
		})
	}

	t.Run("two clients of one row see each other", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		a := freshStore(ctx, t, m, admin, MariaDBFenceAll)
		b, err := NewMariaDBFenced(m.DSN(), MariaDBFenceAll, 1) // a full DSN works too
		require.NoError(t, err)
		defer b.Close()
		ok, err := a.Write(ctx, 1, 5)
		require.NoError(t, err)
		require.True(t, ok)
		v, ok, err := b.Read(ctx, 2)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, int64(5), v)
		ok, err = a.Write(ctx, 1, 6)
		require.NoError(t, err)
		assert.False(t, ok, "b's newer read fenced a")
		ops, counter, err := MariaDBAudit(ctx, m.DSN())
		require.NoError(t, err)
		assert.Equal(t, []impl.Op{
			{Client: impl.ClientNode(0), Kind: impl.OpWrite, Accepted: true, Token: 1, Value: 5},
			{Client: impl.ClientNode(1), Kind: impl.OpRead, Accepted: true, Token: 2, Value: 5},
		}, ops)
		assert.Equal(t, int64(5), counter)
	})

	t.Run("the audit's order is the order of effect under concurrency", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, err := admin.ExecContext(ctx, "DROP TABLE IF EXISTS counter, ops")
		require.NoError(t, err)
		ops, counter, err := MariaDBAudit(ctx, m.Addr())
		require.NoError(t, err)
		assert.Empty(t, ops, "no tables yet: nothing to audit")
		assert.Zero(t, counter)

		const clients, sections = 4, 10
		var tokens atomic.Uint64
		var accepted atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, clients)
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, err := NewMariaDBFenced(m.Addr(), MariaDBFenceAll, c)
				if err != nil {
					errs <- err
					return
				}
				defer st.Close()
				for range sections {
					token := tokens.Add(1)
					v, ok, err := st.Read(ctx, token)
					if err != nil {
						errs <- err
						return
					}
					if !ok {
						continue
					}
					ok, err = st.Write(ctx, token, v+1)
					if err != nil {
						errs <- err
						return
					}
					if ok {
						accepted.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		require.Positive(t, accepted.Load(), "some sections committed")

		ops, counter, err = MariaDBAudit(ctx, m.Addr())
		require.NoError(t, err)
		var writes int64
		var last impl.Op
		for i, op := range ops {
			require.True(t, op.Accepted)
			if i > 0 {
				assert.GreaterOrEqual(t, op.Token, ops[i-1].Token, "mode all accepts tokens in order (op %d)", i)
			}
			if op.Kind == impl.OpWrite {
				writes++
				last = op
				assert.Equal(t, writes, op.Value, "each accepted write adds one to the last: no lost update")
			}
		}
		assert.Equal(t, accepted.Load(), writes, "the log has every accepted write")
		assert.Equal(t, last.Value, counter)
	})

	// Without clientFoundRows the driver reports changed rows: an accepted
	// operation that changes nothing looks refused. This is why the store
	// always sets it.
	t.Run("changed rows would misreport a same-token read", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		s := freshStore(ctx, t, m, admin, MariaDBFenceAll)
		_, ok, err := s.Read(ctx, 3)
		require.NoError(t, err)
		require.True(t, ok)
		cfg, err := server.MariaDBClientConfig(m.Addr())
		require.NoError(t, err)
		require.False(t, cfg.ClientFoundRows)
		connector, err := mysql.NewConnector(cfg)
		require.NoError(t, err)
		changed := sql.OpenDB(connector)
		defer changed.Close()
		res, err := changed.ExecContext(ctx, "UPDATE counter SET fence = ? WHERE id = 1 AND fence <= ?", 3, 3)
		require.NoError(t, err)
		n, err := res.RowsAffected()
		require.NoError(t, err)
		assert.Zero(t, n, "changed rows: 0 although the fence check passed")
		_, ok, err = s.Read(ctx, 3)
		require.NoError(t, err)
		assert.True(t, ok, "the store counts found rows")
	})

	// Last: it restarts the shared server.
	t.Run("kill and restart keep the value and the fence unless wiped", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s := freshStore(ctx, t, m, admin, MariaDBFenceAll)
		ok, err := s.Write(ctx, 7, 70)
		require.NoError(t, err)
		require.True(t, ok)
		require.NoError(t, m.Kill())
		require.NoError(t, m.Restart(ctx, false))
		v, ok, err := s.Read(ctx, 7)
		require.NoError(t, err, "the pool reconnects after the restart")
		require.True(t, ok)
		assert.Equal(t, int64(70), v, "InnoDB kept the committed write")
		ok, err = s.Write(ctx, 6, 60)
		require.NoError(t, err)
		assert.False(t, ok, "the fence survived too: an older token is still refused")
		ops, counter, err := MariaDBAudit(ctx, m.Addr())
		require.NoError(t, err)
		assert.Equal(t, []impl.Op{
			{Client: impl.ClientNode(0), Kind: impl.OpWrite, Accepted: true, Token: 7, Value: 70},
			{Client: impl.ClientNode(0), Kind: impl.OpRead, Accepted: true, Token: 7, Value: 70},
		}, ops, "the log survived with the counter")
		assert.Equal(t, int64(70), counter)

		// A wiped restart: the store makes its row again, from 0.
		require.NoError(t, m.Kill())
		require.NoError(t, m.Restart(ctx, true))
		ok, err = s.Write(ctx, 1, 10)
		require.NoError(t, err)
		assert.True(t, ok, "a wiped fence accepts token 1 again")
		v, ok, err = s.Read(ctx, 1)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, int64(10), v)
	})
}

func TestNewMariaDBFencedRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, dsn, mode string
		client          int
		want            string
	}{
		{"mode none", "127.0.0.1:3306", "none", 0, "want"},
		{"empty mode", "127.0.0.1:3306", "", 0, "want"},
		{"long mode", "127.0.0.1:3306", string(make([]byte, 4000)), 0, "want"},
		{"bad address", "nowhere", MariaDBFenceAll, 0, "host:port"},
		{"bad DSN", "u@tcp(127.0.0.1:1)/db?clientFoundRows=maybe", MariaDBFenceAll, 0, "DSN"},
		{"negative client", "127.0.0.1:3306", MariaDBFenceAll, -1, "client"},
		{"client too large", "127.0.0.1:3306", MariaDBFenceAll, impl.MaxClients, "client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewMariaDBFenced(tc.dsn, tc.mode, tc.client)
			require.ErrorContains(t, err, tc.want)
			assert.Less(t, len(err.Error()), 300, "a bounded echo")
		})
	}
}
