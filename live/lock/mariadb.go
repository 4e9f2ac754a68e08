package lock

// MariaDB's GET_LOCK, through github.com/go-sql-driver/mysql.
//
// GET_LOCK(name, timeout) takes a named lock for the session that calls it;
// the lock is held until RELEASE_LOCK or until the session ends. The session
// is the TCP connection: while a client process is paused (SIGSTOP) the
// kernel keeps its connection open, the server keeps its session, and the
// lock stays held — there is no lease to run out (the session's
// wait_timeout is eight hours by default). A pause alone therefore never
// makes two holders. The lock is lost only when the server ends the
// session: a restart or a crash of mariadbd (locks live in memory), KILL
// CONNECTION, wait_timeout, or a network fault that breaks the connection.
// The old holder is not told; it learns at its next statement on that
// connection, and its section's reads and writes go to the store on other
// connections anyway.
//
// Which matrix row: no row matches GET_LOCK by itself, and it needs none.
// The models' rows are leases: a grant ends when its TTL runs out, which is
// how a pause makes two holders. GET_LOCK's grant ends when the session
// ends, not on a timer, so the pause fault cannot take effect and a live
// run of it is inconclusive, never "holds". A row of "a lock that never
// expires and never forgets" would hold every safety property trivially
// and pay in liveness instead (a paused or hung holder blocks everyone, up
// to wait_timeout): nothing for the checkers to find. What ends a session
// is the service forgetting its holders — a restart — and that is the
// restart rows' story: the service "may crash and restart, forgetting who
// holds the lock". With the token variant below, the counter is an InnoDB
// row raised in an autocommit statement (in the redo log before the client
// hears OK), so tokens keep growing across a restart that keeps the data:
// restart-durable, with the store checking ≥ on every operation (MariaDB's
// conditional UPDATE in mode all), or writes with mode writes. A restart
// that wipes the data starts the counter over at 1: restart-volatile.
// Without a token, or with a store that ignores it, a restart makes two
// holders and nothing stops the stale write: off / none. Their verdicts
// are the restart rows' whether or not grants also expire by time, so a
// row of GET_LOCK's own would add no verdict (live/setups_mariadb.go
// instantiates these rows).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"

	"github.com/fencelab/fencelab/live/server"
)

const (
	// getLockWait is how long one GET_LOCK call waits on the server; the
	// call is repeated until ctx ends, so this bounds how late Acquire
	// notices a cancelled ctx without killing the session.
	getLockWait = time.Second
	// reconnectPause is the wait before a new connection after the old
	// one failed (the server restarting).
	reconnectPause = 50 * time.Millisecond
	// maxLockName bounds a lock's name, in characters: MySQL's GET_LOCK
	// limit (MariaDB 10.11 allows a little more) and the token table's
	// column.
	maxLockName = 64
)

// mariadbGetLock is one client's GET_LOCK lock, on one dedicated connection
// (its session).
type mariadbGetLock struct {
	db        *sql.DB
	key       string
	withToken bool

	mu     sync.Mutex
	conn   *sql.Conn // the session holding (or waiting for) the lock; nil before the first Acquire and after a failure
	schema bool      // the token table was made on this session's server (a wiped restart drops it, and the session)
}

// NewMariaDBGetLock returns a Locker on GET_LOCK(cfg.Key) at cfg.Addrs[0]
// (host:port of an instance started by package server, or a full DSN).
// withToken makes each grant also take a fencing token from a counter row:
// after GET_LOCK, on the same session, UPDATE tokens SET t =
// LAST_INSERT_ID(t+1). cfg.TTL is not used: the lock is held until
// released or until the session ends (Grant.Validity 0).
func NewMariaDBGetLock(cfg Config, withToken bool) (Locker, error) {
	if len(cfg.Addrs) != 1 {
		return nil, fmt.Errorf("MariaDB GET_LOCK: want one address, got %d", len(cfg.Addrs))
	}
	if cfg.Key == "" || utf8.RuneCountInString(cfg.Key) > maxLockName || !utf8.ValidString(cfg.Key) {
		return nil, fmt.Errorf("MariaDB GET_LOCK: the lock name must be 1 to %d characters of UTF-8", maxLockName)
	}
	dbCfg, err := server.MariaDBClientConfig(cfg.Addrs[0])
	if err != nil {
		return nil, fmt.Errorf("MariaDB GET_LOCK: %w", err)
	}
	connector, err := mysql.NewConnector(dbCfg)
	if err != nil {
		return nil, fmt.Errorf("MariaDB GET_LOCK: %w", err)
	}
	db := sql.OpenDB(connector)
	// A session closed by this client must end on the server, never wait
	// in the pool still holding the lock (GET_LOCK nests per session).
	db.SetMaxIdleConns(0)
	return &mariadbGetLock{db: db, key: cfg.Key, withToken: withToken}, nil
}

// Acquire waits for GET_LOCK on the session. When the connection fails (the
// server restarting, the session killed) it connects again and waits
// again, until ctx ends: a lost session holds nothing, so starting over is
// safe. An error the server reports about the statement itself ends
// Acquire.
func (l *mariadbGetLock) Acquire(ctx context.Context) (Grant, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		g, err := l.tryAcquire(ctx)
		if err == nil {
			return g, nil
		}
		if ctx.Err() != nil {
			return Grant{}, fmt.Errorf("MariaDB GET_LOCK(%q): %w", l.key, errors.Join(ctx.Err(), err))
		}
		if !connectionLost(err) {
			return Grant{}, fmt.Errorf("MariaDB GET_LOCK(%q): %w", l.key, err)
		}
		l.dropConn()
		select {
		case <-ctx.Done():
			return Grant{}, fmt.Errorf("MariaDB GET_LOCK(%q): %w", l.key, errors.Join(ctx.Err(), err))
		case <-time.After(reconnectPause):
		}
	}
}

// tryAcquire waits for the lock on the current session (opened if need
// be) until it is granted, ctx ends or a statement fails.
func (l *mariadbGetLock) tryAcquire(ctx context.Context) (Grant, error) {
	if l.conn == nil {
		conn, err := l.db.Conn(ctx)
		if err != nil {
			return Grant{}, err
		}
		l.conn = conn
	}
	if l.withToken && !l.schema {
		if err := l.makeTokenTable(ctx); err != nil {
			return Grant{}, err
		}
		l.schema = true
	}
	for {
		wait := getLockWait
		if deadline, ok := ctx.Deadline(); ok {
			wait = min(wait, time.Until(deadline))
		}
		if wait <= 0 {
			return Grant{}, context.DeadlineExceeded
		}
		var got sql.NullInt64
		if err := l.conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, ?)", l.key, wait.Seconds()).Scan(&got); err != nil {
			return Grant{}, err
		}
		if !got.Valid {
			return Grant{}, errors.New("GET_LOCK returned NULL (an error on the server)")
		}
		if got.Int64 == 1 {
			break
		}
		if err := ctx.Err(); err != nil { // 0: timed out; try again while ctx lives
			return Grant{}, err
		}
	}
	if !l.withToken {
		return Grant{}, nil
	}
	token, err := l.nextToken(ctx)
	if err != nil {
		// No grant without a token: give the lock back (a session that
		// kept it would nest the next GET_LOCK on it).
		l.giveBack(ctx)
		return Grant{}, fmt.Errorf("taking a token: %w", err)
	}
	return Grant{Token: token}, nil
}

// giveBack releases the lock on the session, then ends the session. Ending
// it alone frees the lock too, but only once the server notices that the
// session ended, some time after the client closed it (later on a busy
// machine): the lock would still look held when Acquire returns. The
// RELEASE_LOCK frees it before. ctx bounds the release as it bounds
// Acquire; once it has ended (the token may have failed for that), the
// release gets one GET_LOCK round more. If the release fails, the
// session's end frees the lock as before.
func (l *mariadbGetLock) giveBack(ctx context.Context) {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), getLockWait)
		defer cancel()
	}
	_, _ = l.release(ctx) // an error leaves the lock to the session's end
	l.dropConn()
}

// makeTokenTable makes the counter row of the token variant, once per
// session: after a restart that wiped the data, the new session makes it
// again and the tokens start over from 1 (the restart-volatile story).
// Concurrent clients may all run it: both statements are idempotent.
func (l *mariadbGetLock) makeTokenTable(ctx context.Context) error {
	if _, err := l.conn.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS tokens ("+
		"name VARCHAR(64) CHARACTER SET utf8mb4 PRIMARY KEY, "+
		"t BIGINT UNSIGNED NOT NULL) ENGINE=InnoDB"); err != nil {
		return fmt.Errorf("making the token table: %w", err)
	}
	if _, err := l.conn.ExecContext(ctx, "INSERT IGNORE INTO tokens (name, t) VALUES (?, 0)", l.key); err != nil {
		return fmt.Errorf("making the token row: %w", err)
	}
	return nil
}

// nextToken raises the counter in its own autocommit statement on the
// session that holds the lock, so the token is taken while the lock is
// held: if the session had been lost the statement would fail. The OK
// packet carries the value LAST_INSERT_ID(expr) set.
func (l *mariadbGetLock) nextToken(ctx context.Context) (uint64, error) {
	res, err := l.conn.ExecContext(ctx, "UPDATE tokens SET t = LAST_INSERT_ID(t + 1) WHERE name = ?", l.key)
	if err != nil {
		return 0, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return 0, fmt.Errorf("the token row of %q is missing (%d rows, %v)", l.key, n, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	if id <= 0 {
		return 0, fmt.Errorf("the token counter answered %d", id)
	}
	return uint64(id), nil
}

// Release runs RELEASE_LOCK on the session. If the session is gone, the
// server has already dropped the lock with it: that is what this recipe
// does after a restart or a killed session, not an error of the harness,
// so Release returns nil (and the next Acquire connects again). A release
// the server answers with 0 (another session holds the lock) or NULL (no
// one does) means the same: this session's lock was already gone.
func (l *mariadbGetLock) Release(ctx context.Context, _ Grant) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return nil // the session was lost after the grant; nothing is held
	}
	if _, err := l.release(ctx); err != nil {
		if connectionLost(err) && ctx.Err() == nil {
			l.dropConn()
			return nil
		}
		l.dropConn() // the server may still hold the lock: end the session
		return fmt.Errorf("MariaDB RELEASE_LOCK(%q): %w", l.key, err)
	}
	return nil
}

// release runs RELEASE_LOCK; released is true when this session held it.
func (l *mariadbGetLock) release(ctx context.Context) (released bool, err error) {
	var r sql.NullInt64
	if err := l.conn.QueryRowContext(ctx, "SELECT RELEASE_LOCK(?)", l.key).Scan(&r); err != nil {
		return false, err
	}
	return r.Valid && r.Int64 == 1, nil
}

// dropConn ends the session (if the server still has it, its locks go).
func (l *mariadbGetLock) dropConn() {
	if l.conn != nil {
		_ = l.conn.Close() // the pool keeps no idle session: this ends it
		l.conn = nil
		l.schema = false
	}
}

// Close ends the session, which releases its locks, and the pool.
func (l *mariadbGetLock) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropConn()
	return l.db.Close()
}

// connectionLost says whether err means the session is gone — the
// connection broke, or the server ended the session — rather than a
// statement the server refused (a *mysql.MySQLError of another number) or
// the caller's ctx ending.
func connectionLost(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var myErr *mysql.MySQLError
	if errors.As(err, &myErr) {
		switch myErr.Number {
		case 1053, // ER_SERVER_SHUTDOWN
			1927: // ER_CONNECTION_KILLED
			return true
		}
		return false
	}
	return true // EOF, a reset, driver.ErrBadConn, mysql.ErrInvalidConn...
}
