package store

// PostgreSQL as a real fenced store: MariaDB's recipe (store/mariadb.go
// says why each part is there) in PostgreSQL's SQL. One row holds the
// counter and the fence,
//
//	counter(id = 1, value, fence)
//
// and every checked operation is one conditional UPDATE in the
// transaction that also logs it,
//
//	UPDATE counter SET value = $1, fence = $2 WHERE id = 1 AND fence <= $2
//
// applied, and raising the fence, only if no newer token has been there;
// 0 rows means refused. PostgreSQL's "UPDATE n" counts the rows the WHERE
// matched (an update to the same values counts), so no driver flag is
// needed. The transactions run at READ COMMITTED, the default: an UPDATE
// that waited for the row's lock re-reads the row's newest version before
// checking the fence (EvalPlanQual), so the check sees every commit before
// it. The ops log (seq from a bigserial, taken under the row's lock)
// gives the audit the order of effect.

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/server"
)

// PostgreSQL fencing modes, as impl.FenceMode names them (see
// MariaDBFenceAll and MariaDBFenceWrites: the same rules).
const (
	PostgresFenceAll    = "all"
	PostgresFenceWrites = "writes"
)

// pgUndefinedTable is SQLSTATE undefined_table: a wiped restart dropped
// the tables.
const pgUndefinedTable = "42P01"

// postgresFenced is one client's connection pool to the fenced row.
type postgresFenced struct {
	pool   *pgxpool.Pool
	mode   string
	client int

	mu     sync.Mutex
	schema bool
}

// NewPostgresFenced returns client's (0-based index) fenced counter on the
// PostgreSQL at addr (host:port of an instance started by package server,
// or a connection string), checking tokens as mode says: "all" or
// "writes".
func NewPostgresFenced(addr, mode string, client int) (Store, error) {
	if mode != PostgresFenceAll && mode != PostgresFenceWrites {
		return nil, fmt.Errorf("PostgreSQL fenced store: mode %.32q: want %q or %q", mode, PostgresFenceAll, PostgresFenceWrites)
	}
	if client < 0 || client >= impl.MaxClients {
		return nil, fmt.Errorf("PostgreSQL fenced store: client %d out of range (0 to %d)", client, impl.MaxClients-1)
	}
	pool, err := openPostgres(addr)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL fenced store: %w", err)
	}
	return &postgresFenced{pool: pool, mode: mode, client: client}, nil
}

// openPostgres opens a pool on addr; it connects lazily.
func openPostgres(addr string) (*pgxpool.Pool, error) {
	connCfg, err := server.PostgresClientConfig(addr)
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig("")
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig = connCfg
	return pgxpool.NewWithConfig(context.Background(), cfg)
}

// ensureSchema makes the tables and the counter row once per client, and
// again after a wiped restart. Concurrent clients may all run it; the
// loser of two concurrent CREATE ... IF NOT EXISTS gets a unique
// violation on the catalog, which means the table exists.
func (s *postgresFenced) ensureSchema(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.schema {
		return nil
	}
	for _, stmt := range []string{
		"CREATE TABLE IF NOT EXISTS counter (id INT PRIMARY KEY, value BIGINT NOT NULL, fence BIGINT NOT NULL)",
		"INSERT INTO counter (id, value, fence) VALUES (1, 0, 0) ON CONFLICT DO NOTHING",
		"CREATE TABLE IF NOT EXISTS ops (seq BIGSERIAL PRIMARY KEY, client INT NOT NULL, " +
			"kind CHAR(1) NOT NULL, token BIGINT NOT NULL, value BIGINT NOT NULL)",
	} {
		if _, err := s.pool.Exec(ctx, stmt); err != nil && !server.PostgresRaced(err) {
			return fmt.Errorf("PostgreSQL store: making the tables: %w", err)
		}
	}
	s.schema = true
	return nil
}

// Read returns the counter. In mode all it first raises the fence to token
// with the conditional UPDATE (refused if a newer token has been there);
// in mode writes it only locks the row (SELECT ... FOR UPDATE) so that the
// read takes its place in the log's order.
func (s *postgresFenced) Read(ctx context.Context, token uint64) (value int64, ok bool, err error) {
	err = s.retryOnWipe(ctx, func() error {
		value, ok, err = s.inTx(ctx, func(tx pgx.Tx) (int64, bool, error) {
			if s.mode == PostgresFenceAll {
				ok, err := pgConditionalUpdate(ctx, tx, "UPDATE counter SET fence = $1 WHERE id = 1 AND fence <= $1", int64(token))
				if err != nil || !ok {
					return 0, false, err
				}
			}
			var v int64
			if err := tx.QueryRow(ctx, "SELECT value FROM counter WHERE id = 1 FOR UPDATE").Scan(&v); err != nil {
				return 0, false, fmt.Errorf("PostgreSQL read: %w", err)
			}
			return v, true, s.logOp(ctx, tx, opsRead, token, v)
		})
		return err
	})
	return value, ok, err
}

// Write sets the counter if no newer token has been there, and raises the
// fence to token, with the conditional UPDATE (both modes).
func (s *postgresFenced) Write(ctx context.Context, token uint64, value int64) (ok bool, err error) {
	err = s.retryOnWipe(ctx, func() error {
		_, ok, err = s.inTx(ctx, func(tx pgx.Tx) (int64, bool, error) {
			ok, err := pgConditionalUpdate(ctx, tx, "UPDATE counter SET value = $1, fence = $2 WHERE id = 1 AND fence <= $2", value, int64(token))
			if err != nil || !ok {
				return 0, false, err
			}
			return value, true, s.logOp(ctx, tx, opsWrite, token, value)
		})
		return err
	})
	return ok, err
}

// inTx runs op in a transaction, committed if op accepted the operation
// and rolled back otherwise.
func (s *postgresFenced) inTx(ctx context.Context, op func(pgx.Tx) (int64, bool, error)) (int64, bool, error) {
	if err := s.ensureSchema(ctx); err != nil {
		return 0, false, err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("PostgreSQL store: %w", err)
	}
	v, ok, err := op(tx)
	if err != nil || !ok {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return 0, false, err
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, false, fmt.Errorf("PostgreSQL store: commit: %w", err)
	}
	return v, true, nil
}

// logOp appends an accepted operation to the ops log, in the transaction
// that holds the counter row's lock.
func (s *postgresFenced) logOp(ctx context.Context, tx pgx.Tx, kind string, token uint64, value int64) error {
	if _, err := tx.Exec(ctx, "INSERT INTO ops (client, kind, token, value) VALUES ($1, $2, $3, $4)",
		s.client, kind, int64(token), value); err != nil {
		return fmt.Errorf("PostgreSQL store: logging the operation: %w", err)
	}
	return nil
}

// retryOnWipe runs op, and once more after making the tables again if the
// server says one does not exist: the server was restarted with its data
// wiped (see MariaDB's retryOnWipe).
func (s *postgresFenced) retryOnWipe(ctx context.Context, op func() error) error {
	err := op()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != pgUndefinedTable {
		return err
	}
	s.mu.Lock()
	s.schema = false
	s.mu.Unlock()
	return op()
}

// pgConditionalUpdate runs an UPDATE guarded on the fence: one matched row
// means accepted, none means refused.
func pgConditionalUpdate(ctx context.Context, tx pgx.Tx, query string, args ...any) (bool, error) {
	tag, err := tx.Exec(ctx, query, args...)
	if err != nil {
		return false, fmt.Errorf("PostgreSQL conditional update: %w", err)
	}
	if n := tag.RowsAffected(); n > 1 {
		return false, errors.New("PostgreSQL conditional update: more than one row matched id = 1")
	}
	return tag.RowsAffected() == 1, nil
}

// Close ends the pool's connections.
func (s *postgresFenced) Close() error {
	s.pool.Close()
	return nil
}

// PostgresAudit reads the store at addr after a run: its accepted
// operations in the order they took effect and the counter. A store no
// client ever touched has no tables: no operations, counter 0.
func PostgresAudit(ctx context.Context, addr string) (ops []impl.Op, counter int64, err error) {
	return postgresAuditWith(ctx, addr, "SELECT value FROM counter WHERE id = 1")
}

// postgresAuditWith reads the ops log and, in the same snapshot, the
// counter by counterQuery (a store's own layout).
func postgresAuditWith(ctx context.Context, addr, counterQuery string) (ops []impl.Op, counter int64, err error) {
	pool, err := openPostgres(addr)
	if err != nil {
		return nil, 0, fmt.Errorf("PostgreSQL audit: %w", err)
	}
	defer pool.Close()
	// One snapshot for the log and the counter.
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, 0, fmt.Errorf("PostgreSQL audit: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := tx.QueryRow(ctx, counterQuery).Scan(&counter); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == pgUndefinedTable {
			return nil, 0, nil
		}
		return nil, 0, fmt.Errorf("PostgreSQL audit: the counter: %w", err)
	}
	rows, err := tx.Query(ctx, "SELECT client, kind, token, value FROM ops ORDER BY seq")
	if err != nil {
		return nil, 0, fmt.Errorf("PostgreSQL audit: the log: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			client int32
			kind   string
			token  int64
			op     = impl.Op{Accepted: true}
		)
		if err := rows.Scan(&client, &kind, &token, &op.Value); err != nil {
			return nil, 0, fmt.Errorf("PostgreSQL audit: the log: %w", err)
		}
		if client < 0 || int(client) >= impl.MaxClients || token < 0 {
			return nil, 0, fmt.Errorf("PostgreSQL audit: the log names client %d, token %d", client, token)
		}
		op.Client, op.Token = impl.ClientNode(int(client)), uint64(token)
		switch kind {
		case opsRead:
			op.Kind = impl.OpRead
		case opsWrite:
			op.Kind = impl.OpWrite
		default:
			return nil, 0, fmt.Errorf("PostgreSQL audit: the log has kind %.8q", kind)
		}
		ops = append(ops, op)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("PostgreSQL audit: the log: %w", err)
	}
	return ops, counter, nil
}
