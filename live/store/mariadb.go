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

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/go-sql-driver/mysql"

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

// mariadbFenced is one client's connection pool to the fenced row.
type mariadbFenced struct {
	db   *sql.DB
	mode string

	mu     sync.Mutex
	schema bool // the counter row was made (a wiped restart drops it)
}

// NewMariaDBFenced returns the fenced counter on the MariaDB at dsn (a
// full DSN, or the host:port of an instance started by package server),
// checking tokens as mode says: "all" or "writes".
func NewMariaDBFenced(dsn string, mode string) (Store, error) {
	if mode != MariaDBFenceAll && mode != MariaDBFenceWrites {
		return nil, fmt.Errorf("MariaDB fenced store: mode %.32q: want %q or %q", mode, MariaDBFenceAll, MariaDBFenceWrites)
	}
	cfg, err := server.MariaDBClientConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("MariaDB fenced store: %w", err)
	}
	cfg.ClientFoundRows = true // see the file's comment: 0 rows must mean refused
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("MariaDB fenced store: %w", err)
	}
	return &mariadbFenced{db: sql.OpenDB(connector), mode: mode}, nil
}

// ensureSchema makes the table and its row once per client, and again after
// a restart that wiped the data (see retryOnWipe). Concurrent clients may
// all run it: both statements are idempotent.
func (s *mariadbFenced) ensureSchema(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.schema {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS counter ("+
		"id INT PRIMARY KEY, value BIGINT NOT NULL, fence BIGINT UNSIGNED NOT NULL) ENGINE=InnoDB"); err != nil {
		return fmt.Errorf("making the counter table: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, "INSERT IGNORE INTO counter (id, value, fence) VALUES (1, 0, 0)"); err != nil {
		return fmt.Errorf("making the counter row: %w", err)
	}
	s.schema = true
	return nil
}

// Read returns the counter. In mode all it first raises the fence to token
// (refused if a newer token has been there), then reads; the two are
// separate autocommit statements, so no row lock is held across a round
// trip (a client paused between them blocks no one). That is as safe as
// one step: once the UPDATE has set the fence to token, only an operation
// with a token ≥ token can change the row before the SELECT, so the value
// read is the latest, and if a newer holder wrote in between, the fence is
// above token and this holder's write will be refused.
func (s *mariadbFenced) Read(ctx context.Context, token uint64) (value int64, ok bool, err error) {
	err = s.retryOnWipe(ctx, func() error {
		value, ok, err = s.read(ctx, token)
		return err
	})
	return value, ok, err
}

func (s *mariadbFenced) read(ctx context.Context, token uint64) (int64, bool, error) {
	if err := s.ensureSchema(ctx); err != nil {
		return 0, false, err
	}
	if s.mode == MariaDBFenceAll {
		ok, err := s.conditionalUpdate(ctx, "UPDATE counter SET fence = ? WHERE id = 1 AND fence <= ?", token, token)
		if err != nil || !ok {
			return 0, false, err
		}
	}
	var v int64
	if err := s.db.QueryRowContext(ctx, "SELECT value FROM counter WHERE id = 1").Scan(&v); err != nil {
		return 0, false, fmt.Errorf("MariaDB read: %w", err)
	}
	return v, true, nil
}

// Write sets the counter if no newer token has been there, and raises the
// fence to token, in one conditional UPDATE (both modes).
func (s *mariadbFenced) Write(ctx context.Context, token uint64, value int64) (ok bool, err error) {
	err = s.retryOnWipe(ctx, func() error {
		if err := s.ensureSchema(ctx); err != nil {
			return err
		}
		ok, err = s.conditionalUpdate(ctx, "UPDATE counter SET value = ?, fence = ? WHERE id = 1 AND fence <= ?", value, token, token)
		return err
	})
	return ok, err
}

// retryOnWipe runs op, and once more after making the table again if the
// server says it does not exist: the server was restarted with its data
// wiped, and the counter starts over at 0 with fence 0 — what a store
// without persistence does; the judge sees the value fall back. Nothing
// was applied by the failed attempt (its statement found no table).
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
func (s *mariadbFenced) conditionalUpdate(ctx context.Context, query string, args ...any) (bool, error) {
	res, err := s.db.ExecContext(ctx, query, args...)
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
