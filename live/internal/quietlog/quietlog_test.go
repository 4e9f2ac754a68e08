package quietlog

import (
	"bytes"
	"context"
	"database/sql"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// childEnv makes the test binary, started again by TestLibrariesPrintNothing,
// run the noisy calls.
const childEnv = "FENCELAB_QUIETLOG_CHILD"

func TestMain(m *testing.M) {
	Libraries()
	os.Exit(m.Run())
}

// TestNoisyCalls is the child's body: calls that make each library log
// (a refused dial for go-redis, a handshake cut short for
// go-sql-driver/mysql). In a normal run it skips.
func TestNoisyCalls(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("the child of TestLibrariesPrintNothing: it runs only as that child")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	refused := closedPort(t)
	c := redis.NewClient(&redis.Options{Addr: refused, MaxRetries: -1, DialerRetries: 1})
	defer c.Close()
	require.Error(t, c.Ping(ctx).Err())

	// A "server" that greets nothing and closes: the driver's handshake
	// fails, which it logs.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			_ = conn.Close()
		}
	}()
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr = "tcp", l.Addr().String()
	db, err := sql.Open("mysql", cfg.FormatDSN())
	require.NoError(t, err)
	defer db.Close()
	require.Error(t, db.PingContext(ctx))
}

// closedPort is an address of 127.0.0.1 where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// A test binary whose TestMain calls Libraries prints nothing of the
// libraries' own when their calls fail: the child's whole output is the
// testing package's PASS.
func TestLibrariesPrintNothing(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("the parent's test")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	child := exec.Command(self, "-test.run=^TestNoisyCalls$", "-test.count=1")
	child.Env = append(os.Environ(), childEnv+"=1")
	var stdout, stderr bytes.Buffer
	child.Stdout, child.Stderr = &stdout, &stderr
	require.NoError(t, child.Run(), "the child failed:\n%s%s", stdout.String(), stderr.String())
	require.Equal(t, "PASS\n", stdout.String())
	require.Empty(t, stderr.String())
}
