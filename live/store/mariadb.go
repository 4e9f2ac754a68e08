package store

// MariaDB as a real fenced store: the optimistic-version lock the MySQL
// articles describe. One InnoDB row holds the counter and the fence, the
// highest token the store has accepted:
//
//	counter(id = 1, value, fence)
//
// and every checked operation is one conditional UPDATE,
//
//	UPDATE counter SET value = ?, fence = ? WHERE id = 1 AND fence <= ?
//
// which InnoDB runs as one atomic step under the row's lock: it is applied,
// and raises the fence, only if no newer token has been there; 0 rows
// means refused. This is impl.Resource's check (a token below the highest
// seen is refused, the highest seen rises to the token) in SQL.
//
// "Rows affected" must count matched rows, not changed ones, so the driver
// is always opened with clientFoundRows=true. MySQL's default counts only
// the rows an UPDATE changed: a holder that raises the fence to the value
// it already has (its second read with the same token, or a write of the
// value the counter already holds with the fence already at its token)
// changes nothing, gets 0 and would be told "refused" although the check
// passed. With found rows, 1 means the WHERE matched — the fence allowed
// the operation — and 0 means it did not, whatever the values.
//
// The audit. The judge needs the store's accepted operations in the order
// they took effect (MariaDBAudit). Each operation therefore runs in a
// transaction that first takes the counter row's lock — the conditional
// UPDATE, or SELECT ... FOR UPDATE for an unchecked read — and, if
// accepted, appends the operation to ops(seq AUTO_INCREMENT, client, kind,
// token, value) before COMMIT. The row lock orders the transactions, so
// seq order is the order of effect, and the log commits or rolls back with
// the operation: it never disagrees with the counter. What users run is
// the bare UPDATE; the transaction around it only holds the row lock a
// round trip or two longer (a client paused inside one makes the others
// wait — InnoDB's lock wait, 50 s — and the others go on when it resumes).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/go-sql-driver/mysql"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/server"
)

// MariaDB fencing modes, as impl.FenceMode names them.
const (
	// MariaDBFenceAll checks and raises the fence on reads as on writes
	// (design row all: once a newer holder has read, an older one can do
	// nothing).
	MariaDBFenceAll = "all"
	// MariaDBFenceWrites checks writes only; a read neither is checked nor
	// raises the fence (design row writes: a newer holder's read does not
	// stop an older holder's write).
	MariaDBFenceWrites = "writes"
)

// How the ops log names an operation's kind.
const (
	opsRead  = "R"
	opsWrite = "W"
)

// mariadbFenced is one client's connection pool to the fenced row.
type mariadbFenced struct {
	db     *sql.DB
	mode   string
	client int // 0-based, as impl.ClientNode takes it

	mu     sync.Mutex
	schema bool // the tables were made (a wiped restart drops them)
}

// NewMariaDBFenced returns client's (0-based index) fenced counter on the
// MariaDB at dsn (a full DSN, or the host:port of an instance started by
// package server), checking tokens as mode says: "all" or "writes".
func NewMariaDBFenced(dsn string, mode string, client int) (Store, error) {
	if mode != MariaDBFenceAll && mode != MariaDBFenceWrites {
		return nil, fmt.Errorf("MariaDB fenced store: mode %.32q: want %q or %q", mode, MariaDBFenceAll, MariaDBFenceWrites)
	}
	if client < 0 || client >= impl.MaxClients {
		return nil, fmt.Errorf("MariaDB fenced store: client %d out of range (0 to %d)", client, impl.MaxClients-1)
	}
	db, err := openMariaDB(dsn)
	if err != nil {
		return nil, fmt.Errorf("MariaDB fenced store: %w", err)
	}
	return &mariadbFenced{db: db, mode: mode, client: client}, nil
}

// openMariaDB opens a pool on dsn that counts found rows.
func openMariaDB(dsn string) (*sql.DB, error) {
	cfg, err := server.MariaDBClientConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.ClientFoundRows = true // see the file's comment: 0 rows must mean refused
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(connector), nil
}

// ensureSchema makes the tables and the counter row once per client, and
// again after a restart that wiped the data (see retryOnWipe). Concurrent
// clients may all run it: every statement is idempotent.
func (s *mariadbFenced) ensureSchema(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.schema {
		return nil
	}
	for _, stmt := range []string{
		"CREATE TABLE IF NOT EXISTS counter (" +
			"id INT PRIMARY KEY, value BIGINT NOT NULL, fence BIGINT UNSIGNED NOT NULL) ENGINE=InnoDB",
		"INSERT IGNORE INTO counter (id, value, fence) VALUES (1, 0, 0)",
		"CREATE TABLE IF NOT EXISTS ops (" +
			"seq BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, client INT NOT NULL, " +
			"kind CHAR(1) NOT NULL, token BIGINT UNSIGNED NOT NULL, value BIGINT NOT NULL) ENGINE=InnoDB",
	} {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("MariaDB store: making the tables: %w", err)
		}
	}
	s.schema = true
	return nil
}

// Read returns the counter. In mode all it first raises the fence to token
// with the conditional UPDATE (refused if a newer token has been there);
// in mode writes it only locks the row (SELECT ... FOR UPDATE) so that the
// read takes its place in the log's order.
func (s *mariadbFenced) Read(ctx context.Context, token uint64) (value int64, ok bool, err error) {
	err = s.retryOnWipe(ctx, func() error {
		value, ok, err = s.inTx(ctx, func(tx *sql.Tx) (int64, bool, error) {
			if s.mode == MariaDBFenceAll {
				ok, err := conditionalUpdate(ctx, tx, "UPDATE counter SET fence = ? WHERE id = 1 AND fence <= ?", token, token)
				if err != nil || !ok {
					return 0, false, err
				}
			}
			var v int64
			if err := tx.QueryRowContext(ctx, "SELECT value FROM counter WHERE id = 1 FOR UPDATE").Scan(&v); err != nil {
				return 0, false, fmt.Errorf("MariaDB read: %w", err)
			}
			return v, true, s.logOp(ctx, tx, opsRead, token, v)
		})
		return err
	})
	return value, ok, err
}

// Write sets the counter if no newer token has been there, and raises the
// fence to token, with the conditional UPDATE (both modes).
func (s *mariadbFenced) Write(ctx context.Context, token uint64, value int64) (ok bool, err error) {
	err = s.retryOnWipe(ctx, func() error {
		_, ok, err = s.inTx(ctx, func(tx *sql.Tx) (int64, bool, error) {
			ok, err := conditionalUpdate(ctx, tx, "UPDATE counter SET value = ?, fence = ? WHERE id = 1 AND fence <= ?", value, token, token)
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
// and rolled back otherwise (a refused operation changes nothing, its row
// lock included).
func (s *mariadbFenced) inTx(ctx context.Context, op func(*sql.Tx) (int64, bool, error)) (int64, bool, error) {
	if err := s.ensureSchema(ctx); err != nil {
		return 0, false, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, false, fmt.Errorf("MariaDB store: %w", err)
	}
	v, ok, err := op(tx)
	if err != nil || !ok {
		_ = tx.Rollback()
		return 0, false, err
	}
	if err := tx.Commit(); err != nil {
		return 0, false, fmt.Errorf("MariaDB store: commit: %w", err)
	}
	return v, true, nil
}

// logOp appends an accepted operation to the ops log, in the transaction
// that holds the counter row's lock.
func (s *mariadbFenced) logOp(ctx context.Context, tx *sql.Tx, kind string, token uint64, value int64) error {
	if _, err := tx.ExecContext(ctx, "INSERT INTO ops (client, kind, token, value) VALUES (?, ?, ?, ?)",
		s.client, kind, token, value); err != nil {
		return fmt.Errorf("MariaDB store: logging the operation: %w", err)
	}
	return nil
}

// retryOnWipe runs op, and once more after making the tables again if the
// server says one does not exist: the server was restarted with its data
// wiped, and the counter starts over at 0 with fence 0 — what a store
// without persistence does; the judge sees the value fall back. Nothing
// was applied by the failed attempt (its transaction rolled back).
func (s *mariadbFenced) retryOnWipe(ctx context.Context, op func() error) error {
	err := op()
	var myErr *mysql.MySQLError
	if !errors.As(err, &myErr) || myErr.Number != erNoSuchTable {
		return err
	}
	s.mu.Lock()
	s.schema = false
	s.mu.Unlock()
	return op()
}

// erNoSuchTable is ER_NO_SUCH_TABLE.
const erNoSuchTable = 1146

// conditionalUpdate runs an UPDATE guarded on the fence: one matched row
// means accepted, none means refused.
func conditionalUpdate(ctx context.Context, tx *sql.Tx, query string, args ...any) (bool, error) {
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return false, fmt.Errorf("MariaDB conditional update: %w", err)
	}
	n, err := res.RowsAffected()
	switch {
	case err != nil:
		return false, fmt.Errorf("MariaDB conditional update: %w", err)
	case n > 1:
		return false, errors.New("MariaDB conditional update: more than one row matched id = 1")
	}
	return n == 1, nil
}

// Close ends the pool's connections.
func (s *mariadbFenced) Close() error { return s.db.Close() }

// MariaDBAudit reads the store at dsn after a run: its accepted operations
// in the order they took effect (every one Accepted, Client
// impl.ClientNode of the index the client was made with) and the counter.
// A store no client ever touched has no tables: no operations, counter 0.
func MariaDBAudit(ctx context.Context, dsn string) (ops []impl.Op, counter int64, err error) {
	db, err := openMariaDB(dsn)
	if err != nil {
		return nil, 0, fmt.Errorf("MariaDB audit: %w", err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // one snapshot for the log and the counter
	if err != nil {
		return nil, 0, fmt.Errorf("MariaDB audit: %w", err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "SELECT value FROM counter WHERE id = 1").Scan(&counter); err != nil {
		var myErr *mysql.MySQLError
		if errors.As(err, &myErr) && myErr.Number == erNoSuchTable {
			return nil, 0, nil
		}
		return nil, 0, fmt.Errorf("MariaDB audit: the counter: %w", err)
	}
	rows, err := tx.QueryContext(ctx, "SELECT client, kind, token, value FROM ops ORDER BY seq")
	if err != nil {
		return nil, 0, fmt.Errorf("MariaDB audit: the log: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			client int
			kind   string
			op     = impl.Op{Accepted: true}
		)
		if err := rows.Scan(&client, &kind, &op.Token, &op.Value); err != nil {
			return nil, 0, fmt.Errorf("MariaDB audit: the log: %w", err)
		}
		if client < 0 || client >= impl.MaxClients {
			return nil, 0, fmt.Errorf("MariaDB audit: the log names client %d", client)
		}
		op.Client = impl.ClientNode(client)
		switch kind {
		case opsRead:
			op.Kind = impl.OpRead
		case opsWrite:
			op.Kind = impl.OpWrite
		default:
			return nil, 0, fmt.Errorf("MariaDB audit: the log has kind %.8q", kind)
		}
		ops = append(ops, op)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("MariaDB audit: the log: %w", err)
	}
	return ops, counter, nil
}
