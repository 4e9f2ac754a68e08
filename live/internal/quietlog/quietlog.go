// Package quietlog silences the loggers of the client libraries the live
// module's tests drive, so that a test prints only what it logs itself
// (t.Log, shown when it fails).
//
// go-redis logs every failed dial on a global logger of its own (stderr)
// besides returning the error, and go-sql-driver/mysql logs a cut
// connection (a dropped idle one, a handshake cut short) the same way. The tests kill and restart servers on purpose
// and check the errors those calls return, so the libraries' lines tell
// nothing: 76 lines of "connection refused" in one run of the server and
// lock tests, printed around a failure's own output whenever the package
// failed.
package quietlog

import (
	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9/logging"
)

// Libraries turns off go-redis's and go-sql-driver/mysql's global
// loggers. It is meant for a test binary's TestMain: both loggers are
// process-wide.
func Libraries() {
	logging.Disable()
	// SetLogger refuses only a nil logger.
	_ = mysql.SetLogger(&mysql.NopLogger{})
}
