package store

// PostgreSQL with a hand-built epoch fence, read two ways (row
// snapshot-fence and its contrast, all; docs/design/rows.md). The fence is
// the highest token a committed operation recorded,
//
//	fences(token)                     the fence is max(token), 0 when empty
//	versions(seq, value, token)       the counter is the newest version
//	ops(seq, client, kind, token, value)  the audit's log
//	guard(id = 1)                     the row the contrast locks
//
// and the counter's writes add a version (an INSERT, as an event or a
// ledger entry is written), so two writes never update the same row:
// PostgreSQL's first-updater-wins never refuses one, and only the fence
// can.
//
// PostgresSnapshot: a section is one REPEATABLE READ transaction. Its
// read takes the snapshot (the transaction's first statement), checks the
// token against the fence in it and reads the counter; the transaction
// stays open, and the write, later, checks the fence in that same snapshot
// and commits the new version and the token. A holder whose read came
// before the handover still writes after the newer holder: the Tr3kkR/Yuzu
// #4015 bug. PostgresRowLock: the same fence, every operation its own READ
// COMMITTED transaction that first locks the guard row (SELECT ... FOR
// UPDATE): each statement then sees every commit before it, and the check
// and the raise are one step, fencing all.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/server"
)

// The ways PostgresEpochFence reads the fence.
const (
	PostgresSnapshot = "snapshot" // REPEATABLE READ, one transaction from the read to the write
	PostgresRowLock  = "rowlock"  // READ COMMITTED, a row lock, one transaction an operation
)

// schemaTimeout bounds the making of the tables when a client connects:
// the store's server is one no fault touches, so this is seconds at most.
const schemaTimeout = 15 * time.Second

// postgresEpoch is one client's connection to the epoch-fenced counter.
type postgresEpoch struct {
	pool   *pgxpool.Pool
	mode   string
	client int

	mu     sync.Mutex
	schema bool
	tx     pgx.Tx // PostgresSnapshot: the section's transaction, from its read on
}

// NewPostgresEpochFence returns client's (0-based index) counter fenced by
// the epoch table on the PostgreSQL at addr, its fence read as mode says:
// PostgresSnapshot or PostgresRowLock. It makes the tables before it
// returns, so that a section's first operation is not slowed by them: a
// story's stale holder must still be within its lease when it is paused.
func NewPostgresEpochFence(ctx context.Context, addr, mode string, client int) (Store, error) {
	if mode != PostgresSnapshot && mode != PostgresRowLock {
		return nil, fmt.Errorf("PostgreSQL epoch-fenced store: mode %.32q: want %q or %q", mode, PostgresSnapshot, PostgresRowLock)
	}
	if client < 0 || client >= impl.MaxClients {
		return nil, fmt.Errorf("PostgreSQL epoch-fenced store: client %d out of range (0 to %d)", client, impl.MaxClients-1)
	}
	pool, err := openPostgres(addr)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL epoch-fenced store: %w", err)
	}
	s := &postgresEpoch{pool: pool, mode: mode, client: client}
	ctx, cancel := context.WithTimeout(ctx, schemaTimeout)
	defer cancel()
	if err := s.ensureSchema(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// ensureSchema makes the tables once per client (s.mu held, or before s
// is shared); a lost race of CREATE ... IF NOT EXISTS means the table
// exists.
func (s *postgresEpoch) ensureSchema(ctx context.Context) error {
	if s.schema {
		return nil
	}
	for _, stmt := range []string{
		"CREATE TABLE IF NOT EXISTS fences (token BIGINT NOT NULL)",
		"CREATE TABLE IF NOT EXISTS versions (seq BIGSERIAL PRIMARY KEY, value BIGINT NOT NULL, token BIGINT NOT NULL)",
		"CREATE TABLE IF NOT EXISTS ops (seq BIGSERIAL PRIMARY KEY, client INT NOT NULL, " +
			"kind CHAR(1) NOT NULL, token BIGINT NOT NULL, value BIGINT NOT NULL)",
		"CREATE TABLE IF NOT EXISTS guard (id INT PRIMARY KEY)",
		"INSERT INTO guard (id) VALUES (1) ON CONFLICT DO NOTHING",
	} {
		if _, err := s.pool.Exec(ctx, stmt); err != nil && !server.PostgresRaced(err) {
			return fmt.Errorf("PostgreSQL epoch-fenced store: making the tables: %w", err)
		}
	}
	s.schema = true
	return nil
}

// epochFenceQuery reads the fence: the highest token committed.
const epochFenceQuery = "SELECT COALESCE(MAX(token), 0) FROM fences"

// epochCounterQuery reads the counter: the newest version, 0 before the
// first write.
const epochCounterQuery = "SELECT COALESCE((SELECT value FROM versions ORDER BY seq DESC LIMIT 1), 0)"

// snapshotQuery is a snapshot transaction's first statement, which takes
// its snapshot: the read's place in the log (a sequence value is taken
// outside transactions, so every operation committed before the snapshot
// has a smaller one), the fence and the counter as the snapshot has them.
const snapshotQuery = "SELECT nextval(pg_get_serial_sequence('ops', 'seq')), " +
	"(" + epochFenceQuery + "), (" + epochCounterQuery + ")"

// Read returns the counter if token is not below the fence.
func (s *postgresEpoch) Read(ctx context.Context, token uint64) (int64, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ensureSchema(ctx); err != nil {
		return 0, false, err
	}
	if s.mode == PostgresRowLock {
		return s.rowLocked(ctx, opsRead, token, 0)
	}
	s.endSection(ctx) // a section that never wrote commits nothing
	seq, value, ok, err := s.begin(ctx, token)
	if err != nil || !ok {
		s.endSection(ctx)
		return 0, false, err
	}
	// Logged outside the transaction, which may never commit: the read
	// was answered all the same, at its snapshot's place.
	if _, err := s.pool.Exec(ctx, "INSERT INTO ops (seq, client, kind, token, value) VALUES ($1, $2, $3, $4, $5)",
		seq, s.client, opsRead, int64(token), value); err != nil {
		s.endSection(ctx)
		return 0, false, fmt.Errorf("PostgreSQL epoch-fenced store: logging the read: %w", err)
	}
	return value, true, nil
}

// begin starts the section's REPEATABLE READ transaction and checks token
// against the fence of its snapshot; it returns the read's log place and
// the counter.
func (s *postgresEpoch) begin(ctx context.Context, token uint64) (seq, value int64, ok bool, err error) {
	s.tx, err = s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return 0, 0, false, fmt.Errorf("PostgreSQL epoch-fenced store: %w", err)
	}
	var fence int64
	if err := s.tx.QueryRow(ctx, snapshotQuery).Scan(&seq, &fence, &value); err != nil {
		return 0, 0, false, fmt.Errorf("PostgreSQL epoch-fenced store: the snapshot: %w", err)
	}
	return seq, value, int64(token) >= fence, nil
}

// Write sets the counter if token is not below the fence: in the section's
// snapshot (PostgresSnapshot), or as committed now under the guard's row
// lock (PostgresRowLock).
func (s *postgresEpoch) Write(ctx context.Context, token uint64, value int64) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ensureSchema(ctx); err != nil {
		return false, err
	}
	if s.mode == PostgresRowLock {
		_, ok, err := s.rowLocked(ctx, opsWrite, token, value)
		return ok, err
	}
	defer s.endSection(ctx)
	if s.tx == nil { // a write with no read before it: its own snapshot
		if _, _, ok, err := s.begin(ctx, token); err != nil || !ok {
			return false, err
		}
	}
	var fence int64
	if err := s.tx.QueryRow(ctx, epochFenceQuery).Scan(&fence); err != nil {
		return false, fmt.Errorf("PostgreSQL epoch-fenced store: the fence: %w", err)
	}
	if int64(token) < fence {
		return false, nil
	}
	if err := s.apply(ctx, s.tx, opsWrite, token, value); err != nil {
		return false, err
	}
	err := s.tx.Commit(ctx)
	s.tx = nil
	if err != nil {
		return false, fmt.Errorf("PostgreSQL epoch-fenced store: commit: %w", err)
	}
	return true, nil
}

// rowLocked runs one operation in its own READ COMMITTED transaction under
// the guard's row lock: the fence as committed, checked and raised in one
// step.
func (s *postgresEpoch) rowLocked(ctx context.Context, kind string, token uint64, value int64) (int64, bool, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("PostgreSQL epoch-fenced store: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var fence int64
	if _, err := tx.Exec(ctx, "SELECT id FROM guard WHERE id = 1 FOR UPDATE"); err != nil {
		return 0, false, fmt.Errorf("PostgreSQL epoch-fenced store: the row lock: %w", err)
	}
	if err := tx.QueryRow(ctx, epochFenceQuery).Scan(&fence); err != nil {
		return 0, false, fmt.Errorf("PostgreSQL epoch-fenced store: the fence: %w", err)
	}
	if int64(token) < fence {
		return 0, false, nil
	}
	if kind == opsRead {
		if err := tx.QueryRow(ctx, epochCounterQuery).Scan(&value); err != nil {
			return 0, false, fmt.Errorf("PostgreSQL epoch-fenced store: the counter: %w", err)
		}
	}
	if err := s.apply(ctx, tx, kind, token, value); err != nil {
		return 0, false, err
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, false, fmt.Errorf("PostgreSQL epoch-fenced store: commit: %w", err)
	}
	return value, true, nil
}

// apply records an accepted operation in tx: its token raises the fence
// when tx commits, a write adds the counter's new version, and the log
// has it.
func (s *postgresEpoch) apply(ctx context.Context, tx pgx.Tx, kind string, token uint64, value int64) error {
	stmts := [][]any{
		{"INSERT INTO fences (token) VALUES ($1)", int64(token)},
		{"INSERT INTO ops (client, kind, token, value) VALUES ($1, $2, $3, $4)", s.client, kind, int64(token), value},
	}
	if kind == opsWrite {
		stmts = append(stmts, []any{"INSERT INTO versions (value, token) VALUES ($1, $2)", value, int64(token)})
	}
	for _, st := range stmts {
		if _, err := tx.Exec(ctx, st[0].(string), st[1:]...); err != nil {
			return fmt.Errorf("PostgreSQL epoch-fenced store: %w", err)
		}
	}
	return nil
}

// endSection rolls back the section's transaction, if one is open (s.mu
// held).
func (s *postgresEpoch) endSection(ctx context.Context) {
	if s.tx != nil {
		_ = s.tx.Rollback(context.WithoutCancel(ctx))
		s.tx = nil
	}
}

// Close ends the section's transaction and the pool's connections.
func (s *postgresEpoch) Close() error {
	s.mu.Lock()
	s.endSection(context.Background())
	s.mu.Unlock()
	s.pool.Close()
	return nil
}

// PostgresEpochAudit reads the epoch-fenced store at addr after a run: its
// accepted operations in the order they took effect (the log's) and the
// counter, the newest version. A store no client touched has no tables.
func PostgresEpochAudit(ctx context.Context, addr string) ([]impl.Op, int64, error) {
	return postgresAuditWith(ctx, addr, epochCounterQuery)
}
