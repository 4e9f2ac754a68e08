package server

import (
	"bufio"
	"context"
	"errors"
	"github.com/fencelab/fencelab/internal/testexec"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// needRedis skips a test, in one line naming the package, where
// redis-server is not installed.
func needRedis(t testing.TB) {
	t.Helper()
	if _, _, err := RedisVersion(context.Background()); err != nil {
		var missing *MissingError
		if errors.As(err, &missing) {
			t.Skip(err.Error())
		}
		t.Fatal(err)
	}
}

func redisClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1, DialTimeout: time.Second, ReadTimeout: time.Second})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestRedisStartStop(t *testing.T) {
	needRedis(t)
	ctx := context.Background()
	dir := t.TempDir()
	r, err := StartRedis(ctx, dir, RedisOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Stop() })

	require.Equal(t, "redis", r.Name())
	require.Regexp(t, regexp.MustCompile(`^redis-server [0-9]+\.[0-9]+`), r.Version())
	require.Regexp(t, regexp.MustCompile(`^127\.0\.0\.1:[0-9]+$`), r.Addr())
	c := redisClient(t, r.Addr())
	require.NoError(t, c.Set(ctx, "k", "v", 0).Err())
	require.Equal(t, "v", c.Get(ctx, "k").Val())
	cfg, err := c.ConfigGet(ctx, "*").Result()
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", cfg["bind"])
	require.Equal(t, "no", cfg["protected-mode"])
	require.Equal(t, "", cfg["save"])
	pids := r.Pids()
	require.Len(t, pids, 1)

	require.NoError(t, r.Stop())
	require.NoError(t, r.Stop())
	require.False(t, processAlive(pids[0]))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "Stop removed the instance's folder")
}

func TestRedisRestartPersistence(t *testing.T) {
	needRedis(t)
	for _, tc := range []struct {
		name     string
		durable  bool
		wipe     bool
		wantKept bool
		wantAOF  string
	}{
		{"durable keeps an acknowledged write", true, false, true, "yes"},
		{"durable but wiped loses it", true, true, false, "yes"},
		{"volatile loses it", false, false, false, "no"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			r, err := StartRedis(ctx, t.TempDir(), RedisOptions{Durable: tc.durable})
			require.NoError(t, err)
			t.Cleanup(func() { _ = r.Stop() })
			c := redisClient(t, r.Addr())
			cfg, err := c.ConfigGet(ctx, "append*").Result()
			require.NoError(t, err)
			require.Equal(t, tc.wantAOF, cfg["appendonly"])
			if tc.durable {
				require.Equal(t, "always", cfg["appendfsync"])
			}
			require.NoError(t, c.Set(ctx, "counter", "41", 0).Err())
			addr := r.Addr()

			require.NoError(t, r.Kill())
			require.Empty(t, r.Pids())
			require.Error(t, c.Ping(ctx).Err(), "killed")
			require.NoError(t, r.Restart(ctx, tc.wipe))
			require.Equal(t, addr, r.Addr(), "same port")
			got, err := c.Get(ctx, "counter").Result()
			if tc.wantKept {
				require.NoError(t, err)
				require.Equal(t, "41", got)
			} else {
				require.ErrorIs(t, err, redis.Nil)
			}
		})
	}
}

// A durable server that restarts is started only once its append-only
// file is loaded: before that, Redis accepts connections and answers
// LOADING. key-load-delay (a Redis setting for its own tests) makes each
// key's load take 500µs, so that the loading lasts about a second however
// idle the machine is.
func TestRedisRestartWaitsForTheAOF(t *testing.T) {
	needRedis(t)
	const keys = 2000
	ctx := context.Background()
	r, err := StartRedis(ctx, t.TempDir(), RedisOptions{Durable: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Stop() })
	c := redisClient(t, r.Addr())
	fill := "for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'k' .. i, i) end return 1"
	require.NoError(t, c.Eval(ctx, fill, nil, keys).Err())
	require.NoError(t, r.Kill())
	conf, err := os.OpenFile(filepath.Join(r.proc.Dir(), "redis.conf"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = conf.WriteString("key-load-delay 500\n")
	require.NoError(t, errors.Join(err, conf.Close()))

	require.NoError(t, r.Restart(ctx, false))
	// The client does not retry (MaxRetries -1): a LOADING answer fails.
	got, err := c.Get(ctx, "k"+strconv.Itoa(keys)).Result()
	require.NoError(t, err, "the first command after Restart")
	require.Equal(t, strconv.Itoa(keys), got)
	require.Contains(t, r.LogTail(), "DB loaded from append only file", "the restart did load the file")
}

// redisServes accepts PONG only: not a port that accepts and says
// nothing, closes, or answers LOADING or another error.
func TestRedisServesNeedsPong(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer string // "" answers nothing; "close" closes at once
		ok     bool
	}{
		{"pong", "+PONG\r\n", true},
		{"loading", "-LOADING Redis is loading the dataset in memory\r\n", false},
		{"another error", "-ERR unknown command\r\n", false},
		{"pong without the line end", "+PONG", false},
		{"a pong that is longer", "+PONGS\r\n", false},
		{"closes", "close", false},
		{"silent", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			t.Cleanup(func() { _ = l.Close() })
			go func() {
				conn, err := l.Accept()
				if err != nil {
					return
				}
				defer conn.Close()
				if tc.answer == "close" {
					return
				}
				line, err := bufio.NewReader(conn).ReadString('\n')
				if err != nil || line != "PING\r\n" {
					return
				}
				if tc.answer == "" {
					_, _ = io.Copy(io.Discard, conn) // until the probe gives up
					return
				}
				_, _ = io.WriteString(conn, tc.answer)
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err = redisServes(ctx, l.Addr().String())
			if tc.ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
}

func TestRedisRestartRefusesWipeWhileRunning(t *testing.T) {
	needRedis(t)
	ctx := context.Background()
	r, err := StartRedis(ctx, t.TempDir(), RedisOptions{Durable: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Stop() })
	require.ErrorContains(t, r.Restart(ctx, true), "still running")
	require.ErrorContains(t, r.Restart(ctx, false), "already running")
	require.NoError(t, redisClient(t, r.Addr()).Ping(ctx).Err())
}

func TestRedisPauseResume(t *testing.T) {
	needRedis(t)
	ctx := context.Background()
	r, err := StartRedis(ctx, t.TempDir(), RedisOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Stop() })
	c := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1, ReadTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Ping(ctx).Err())
	require.NoError(t, r.Pause())
	err = c.Ping(ctx).Err()
	require.Error(t, err, "a paused server does not answer")
	require.NoError(t, r.Resume())
	require.NoError(t, c.Ping(ctx).Err())
}

func TestRedisMissingNamesThePackage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	for name, start := range map[string]func() error{
		"one": func() error {
			_, err := StartRedis(context.Background(), dir, RedisOptions{})
			return err
		},
		"cluster": func() error {
			_, err := StartRedisCluster(context.Background(), dir, 5, RedisOptions{})
			return err
		},
	} {
		err := start()
		var missing *MissingError
		require.ErrorAs(t, err, &missing, name)
		require.Equal(t, "redis-server", missing.Package)
		require.Contains(t, err.Error(), "Debian package redis-server")
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)
}

func TestRedisCluster(t *testing.T) {
	needRedis(t)
	ctx := context.Background()
	dir := t.TempDir()
	_, err := StartRedisCluster(ctx, dir, 0, RedisOptions{})
	require.Error(t, err)

	c, err := StartRedisCluster(ctx, dir, 5, RedisOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	addrs := c.Addrs()
	require.Len(t, addrs, 5)
	seen := map[string]bool{}
	for i, r := range c.Nodes {
		require.Equal(t, "redis-"+string(rune('1'+i)), r.Name())
		require.False(t, seen[r.Addr()])
		seen[r.Addr()] = true
		// Independent: a key set on one node is not on the next.
		require.NoError(t, redisClient(t, r.Addr()).Set(ctx, "only-on", r.Name(), 0).Err())
	}
	for _, r := range c.Nodes {
		require.Equal(t, r.Name(), redisClient(t, r.Addr()).Get(ctx, "only-on").Val())
	}
	require.NoError(t, c.Stop())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)
}

func TestRedisStartFailureQuotesTheLog(t *testing.T) {
	// A redis-server that reports a version and then refuses its
	// configuration, as a real one does with a bad option.
	bin := t.TempDir()
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Redis server v=9.9.9 sha=0'; exit 0; fi\n" +
		"echo '*** FATAL CONFIG FILE ERROR (Redis 9.9.9) ***' >&2; exit 1\n"
	testexec.Write(t, filepath.Join(bin, "redis-server"), []byte(script))
	t.Setenv("PATH", bin)
	dir := t.TempDir()
	_, err := StartRedis(context.Background(), dir, RedisOptions{})
	require.ErrorContains(t, err, "FATAL CONFIG FILE ERROR")
	require.ErrorContains(t, err, "exit status 1")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)

	// A version it cannot read is an error too.
	testexec.Write(t, filepath.Join(bin, "redis-server"), []byte("#!/bin/sh\necho garbage\n"))
	_, err = StartRedis(context.Background(), dir, RedisOptions{})
	require.ErrorContains(t, err, "no version")
}

// BenchmarkRedisStart measures start-up until redis-server answers, and
// Stop, with and without the append-only file.
func BenchmarkRedisStart(b *testing.B) {
	needRedis(b)
	for _, durable := range []bool{false, true} {
		b.Run("durable="+strconv.FormatBool(durable), func(b *testing.B) {
			ctx := context.Background()
			dir := b.TempDir()
			for b.Loop() {
				r, err := StartRedis(ctx, dir, RedisOptions{Durable: durable})
				if err != nil {
					b.Fatal(err)
				}
				if err := r.Stop(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRedisClusterStart measures starting Redlock's five nodes.
func BenchmarkRedisClusterStart(b *testing.B) {
	needRedis(b)
	ctx := context.Background()
	dir := b.TempDir()
	for b.Loop() {
		c, err := StartRedisCluster(ctx, dir, 5, RedisOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRedisRetriesATakenPort(t *testing.T) {
	needRedis(t)
	real, _, err := RedisVersion(context.Background())
	require.NoError(t, err)
	// A redis-server whose first start loses its port (as when another
	// process draws it between FreePort and the bind), then the real one.
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "lost-once")
	script := "#!/bin/sh\n" +
		"if [ \"$1\" != --version ] && [ ! -e '" + marker + "' ]; then : > '" + marker + "'; " +
		"echo '# Could not create server TCP listening socket: bind: Address already in use' >&2; exit 1; fi\n" +
		"exec '" + real + "' \"$@\"\n"
	testexec.Write(t, filepath.Join(bin, "redis-server"), []byte(script))
	t.Setenv("PATH", bin)
	dir := t.TempDir()
	r, err := StartRedis(context.Background(), dir, RedisOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Stop() })
	require.FileExists(t, marker, "the first start lost its port")
	require.NoError(t, redisClient(t, r.Addr()).Ping(context.Background()).Err())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the failed start's folder is gone")
}
