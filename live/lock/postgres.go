package lock

// PostgreSQL's advisory locks, through github.com/jackc/pgx/v5.
//
// pg_advisory_lock(key) takes a lock for the session that calls it, held
// until pg_advisory_unlock or the session's end; the session is the
// connection. As with MariaDB's GET_LOCK, a paused client keeps its
// connection and so its lock: no lease runs out, a client pause never
// makes two holders. A restart of the server ends every session and frees
// every lock, and the old holder learns only at its next statement.
//
// pg_try_advisory_xact_lock(key) takes a lock for the calling transaction,
// freed at its COMMIT or ROLLBACK: the recipe opens a transaction, polls
// the lock in it, and holds the transaction open for the section; the
// release is the COMMIT. It is the session lock's twin for safety (a
// transaction lives in its session), and it cannot strand a lock in a
// pooled connection: whatever ends the transaction frees it.
//
// The lock's name is hashed by the server (hashtextextended(name, 0)) into
// the bigint key both functions take.
//
// Which rows: those of MariaDB's GET_LOCK, for the same reasons (see
// lock/mariadb.go): no lease, so a restart is what makes two holders. The
// session lock without a token is row off; the transaction lock with a
// token from a sequence, nextval in its own autocommit statement (the
// sequence is WAL-logged, so a restart that keeps the data never hands a
// token out twice), and the store's UPDATE ... WHERE fence <= $1 is
// restart-durable, fenced as row all.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencelab/fencelab/live/server"
)

// xactLockPoll is how often pg_try_advisory_xact_lock is tried while
// another transaction holds the lock.
const xactLockPoll = 10 * time.Millisecond

// maxPostgresLockName bounds a lock's name, in characters (the name is
// hashed; the bound only keeps the statements small).
const maxPostgresLockName = 256

// postgresTokenSequence is the sequence the transaction lock's tokens
// come from.
const postgresTokenSequence = "fencelab_tokens"

// postgresAdvisory is one client's advisory lock on one connection (its
// session).
type postgresAdvisory struct {
	cfg  *pgx.ConnConfig
	key  string
	xact bool // the transaction lock with a token; else the session lock

	mu   sync.Mutex
	conn *pgx.Conn // the session holding (or waiting for) the lock; nil before the first Acquire and after a failure
	tx   pgx.Tx    // xact: the transaction that holds the lock
}

// NewPostgresAdvisoryLock returns a Locker on pg_advisory_lock(cfg.Key)
// at cfg.Addrs[0] (host:port of an instance started by package server,
// of a PgBouncer in front of one, or a connection string): a session
// lock without a token. cfg.TTL is not used (Grant.Validity 0).
func NewPostgresAdvisoryLock(cfg Config) (Locker, error) {
	return newPostgresAdvisory(cfg, false)
}

// NewPostgresXactLock returns a Locker on pg_try_advisory_xact_lock
// (cfg.Key) in a transaction held open while the lock is, with a token
// from a sequence.
func NewPostgresXactLock(cfg Config) (Locker, error) {
	return newPostgresAdvisory(cfg, true)
}

func newPostgresAdvisory(cfg Config, xact bool) (*postgresAdvisory, error) {
	if len(cfg.Addrs) != 1 {
		return nil, fmt.Errorf("PostgreSQL advisory lock: want one address, got %d", len(cfg.Addrs))
	}
	if cfg.Key == "" || utf8.RuneCountInString(cfg.Key) > maxPostgresLockName || !utf8.ValidString(cfg.Key) {
		return nil, fmt.Errorf("PostgreSQL advisory lock: the lock name must be 1 to %d characters of UTF-8", maxPostgresLockName)
	}
	connCfg, err := server.PostgresClientConfig(cfg.Addrs[0])
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL advisory lock: %w", err)
	}
	return &postgresAdvisory{cfg: connCfg, key: cfg.Key, xact: xact}, nil
}

func (l *postgresAdvisory) what() string {
	if l.xact {
		return fmt.Sprintf("PostgreSQL pg_try_advisory_xact_lock(%q)", l.key)
	}
	return fmt.Sprintf("PostgreSQL pg_advisory_lock(%q)", l.key)
}

// Acquire waits for the lock. When the connection fails (the server
// restarting) it connects again and waits again, until ctx ends: a lost
// session holds nothing, so starting over is safe. An error the server
// reports about the statement itself ends Acquire.
func (l *postgresAdvisory) Acquire(ctx context.Context) (Grant, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		g, err := l.tryAcquire(ctx)
		if err == nil {
			return g, nil
		}
		if ctx.Err() != nil {
			l.dropConn()
			return Grant{}, fmt.Errorf("%s: %w", l.what(), errors.Join(ctx.Err(), err))
		}
		if !postgresConnLost(err) {
			l.dropConn()
			return Grant{}, fmt.Errorf("%s: %w", l.what(), err)
		}
		l.dropConn()
		select {
		case <-ctx.Done():
			return Grant{}, fmt.Errorf("%s: %w", l.what(), errors.Join(ctx.Err(), err))
		case <-time.After(reconnectPause):
		}
	}
}

// tryAcquire waits for the lock on the current session (opened if need
// be) until it is granted, ctx ends or a statement fails.
func (l *postgresAdvisory) tryAcquire(ctx context.Context) (Grant, error) {
	if l.conn == nil {
		conn, err := pgx.ConnectConfig(ctx, l.cfg)
		if err != nil {
			return Grant{}, err
		}
		l.conn = conn
	}
	if !l.xact {
		// Blocks on the server until granted; a cancelled ctx cancels the
		// statement and closes the connection (pgx), ending the wait.
		if _, err := l.conn.Exec(ctx, "SELECT pg_advisory_lock(hashtextextended($1, 0))", l.key); err != nil {
			return Grant{}, err
		}
		return Grant{}, nil
	}
	tx, err := l.conn.Begin(ctx)
	if err != nil {
		return Grant{}, err
	}
	for {
		var got bool
		if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))", l.key).Scan(&got); err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
			return Grant{}, err
		}
		if got {
			break
		}
		select {
		case <-ctx.Done():
			_ = tx.Rollback(context.WithoutCancel(ctx))
			return Grant{}, ctx.Err()
		case <-time.After(xactLockPoll):
		}
	}
	token, err := l.nextToken(ctx)
	if err != nil {
		// No grant without a token: the rollback gives the lock back.
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return Grant{}, fmt.Errorf("taking a token: %w", err)
	}
	l.tx = tx
	return Grant{Token: token}, nil
}

// nextToken takes nextval of the token sequence (made if missing: a wiped
// restart drops it) in an autocommit statement on a connection of its
// own: committed, so durable, before the grant is used.
func (l *postgresAdvisory) nextToken(ctx context.Context) (uint64, error) {
	conn, err := pgx.ConnectConfig(ctx, l.cfg)
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "CREATE SEQUENCE IF NOT EXISTS "+postgresTokenSequence); err != nil && !server.PostgresRaced(err) {
		return 0, err
	}
	var t int64
	if err := conn.QueryRow(ctx, "SELECT nextval('"+postgresTokenSequence+"')").Scan(&t); err != nil {
		return 0, err
	}
	if t <= 0 {
		return 0, fmt.Errorf("the token sequence answered %d", t)
	}
	return uint64(t), nil
}

// Release gives the lock back: pg_advisory_unlock on the session, or the
// transaction's COMMIT. If the session is gone, the server dropped the
// lock with it: what this recipe does after a restart, not an error of
// the harness, so Release returns nil. An unlock the server answers with
// false (this session did not hold the lock) means the same.
func (l *postgresAdvisory) Release(ctx context.Context, _ Grant) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return nil
	}
	var err error
	if l.xact {
		if l.tx == nil {
			return nil
		}
		err = l.tx.Commit(ctx)
		l.tx = nil
	} else {
		_, err = l.conn.Exec(ctx, "SELECT pg_advisory_unlock(hashtextextended($1, 0))", l.key)
	}
	if err != nil {
		lost := postgresConnLost(err) && ctx.Err() == nil
		l.dropConn() // the server may still hold the lock: end the session
		if lost {
			return nil
		}
		return fmt.Errorf("%s: release: %w", l.what(), err)
	}
	return nil
}

// dropConn ends the session (if the server still has it, its locks go).
func (l *postgresAdvisory) dropConn() {
	if l.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = l.conn.Close(ctx) // a broken connection closes with an error: nothing to do
		cancel()
		l.conn, l.tx = nil, nil
	}
}

// Close ends the session, which releases its locks.
func (l *postgresAdvisory) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropConn()
	return nil
}

// postgresConnLost says whether err means the session is gone or the
// server cannot take one yet — the connection broke, the server is
// shutting down or starting up — rather than a statement the server
// refused or the caller's ctx ending.
func postgresConnLost(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "57P01", // admin_shutdown
			pgErr.Code == "57P02",                          // crash_shutdown
			pgErr.Code == "57P03",                          // cannot_connect_now: starting up
			len(pgErr.Code) == 5 && pgErr.Code[:2] == "08": // connection exceptions
			return true
		}
		return false
	}
	return true // EOF, a reset, a refused connect...
}
