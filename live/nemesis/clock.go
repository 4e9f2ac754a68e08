package nemesis

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed" // the shim's C source
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/tlc"
)

// ClockOffsetEnv names the environment variable that tells the shim
// which file holds the offset.
const ClockOffsetEnv = "FENCELAB_CLOCK_OFFSET_FILE"

// CCPackage is the Debian package that provides the system C compiler cc.
const CCPackage = "gcc"

// clockShimPeriod is how long the shim may go on using an offset it read
// before (it re-reads the file at most this often).
const clockShimPeriod = time.Millisecond

//go:embed clockshim/clockshim.c
var clockShimSource string

// DefaultClockShimCache is where the built shim is kept between runs:
// clockshim in fencelab's cache folder (tlc.CacheDir, the one rule of
// fencelab's caches), $FENCELAB_CACHE when it is set, which must be an
// absolute path, else fencelab in the user's cache folder. A folder that
// cannot be written fails the shim's build, which says why.
func DefaultClockShimCache() (string, error) {
	dir, err := tlc.CacheDir(os.Getenv)
	if err != nil {
		return "", fmt.Errorf("clock shim cache: %w", err)
	}
	return filepath.Join(dir, "clockshim"), nil
}

// BuildClockShim compiles the shim with cc into cacheDir, unless a build
// of the same source is there already, and returns the library's path.
// The library's name holds the source's hash, and a sum file beside it
// (<library>.sha256) the library's own: a cached library whose bytes do
// not match its sum (damaged, cut short, or without a sum) is built
// afresh, never handed to a server. A missing cc is a
// *server.MissingError naming the package gcc.
func BuildClockShim(ctx context.Context, cacheDir string) (string, error) {
	sum := sha256.Sum256([]byte(clockShimSource))
	lib := filepath.Join(cacheDir, "clockshim-"+hex.EncodeToString(sum[:8])+".so")
	if strings.ContainsAny(lib, " :") {
		// LD_PRELOAD splits its list at spaces and colons.
		return "", fmt.Errorf("clock shim: its path %s holds a space or a colon, which LD_PRELOAD cannot take", quote.Q(lib))
	}
	if cachedShimIntact(lib) {
		return lib, nil
	}
	cc, err := server.LookPath("cc", CCPackage)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("clock shim: %w", err)
	}
	build, err := os.MkdirTemp(cacheDir, "build-")
	if err != nil {
		return "", fmt.Errorf("clock shim: %w", err)
	}
	defer os.RemoveAll(build)
	src := filepath.Join(build, "clockshim.c")
	if err := os.WriteFile(src, []byte(clockShimSource), 0o644); err != nil {
		return "", fmt.Errorf("clock shim: %w", err)
	}
	out := filepath.Join(build, "clockshim.so")
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cc, "-shared", "-fPIC", "-O2", "-Wall", "-o", out, src, "-ldl")
	var msgs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msgs, &msgs
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("clock shim: cc failed: %w: %s", err, quote.S(strings.TrimSpace(msgs.String())))
	}
	libSum, err := fileSum(out)
	if err != nil {
		return "", fmt.Errorf("clock shim: %w", err)
	}
	sumFile := filepath.Join(build, "clockshim.so.sha256")
	if err := os.WriteFile(sumFile, []byte(libSum+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("clock shim: %w", err)
	}
	// Rename is atomic: two builders at once both end with whole files
	// (a library and a sum of two builds that differ are rebuilt next
	// time; the server's start proves the library loads: Attach).
	if err := os.Rename(out, lib); err != nil {
		return "", fmt.Errorf("clock shim: %w", err)
	}
	if err := os.Rename(sumFile, lib+".sha256"); err != nil {
		return "", fmt.Errorf("clock shim: %w", err)
	}
	return lib, nil
}

// cachedShimIntact says whether lib is a regular file whose SHA-256 is
// the one its sum file records (server.CachedIntact, the rule of every
// cached build).
func cachedShimIntact(lib string) bool { return server.CachedIntact(lib) == nil }

// fileSum is a file's SHA-256 in hex.
func fileSum(path string) (string, error) { return server.FileSHA256(path) }

// Clock is one server's fake wall clock: Env goes into the server's
// environment when it starts (server.RedisOptions.Env), Step moves its
// clock while it runs.
//
// The step is made inside the server only, never on the machine (all
// processes, clients included, share the machine's clock, which the
// history's timestamps rely on): the server is started with LD_PRELOAD
// set to a small shim of ours (clockshim/clockshim.c, built with the
// system C compiler on first use, as Jepsen does with libfaketime) that
// adds an offset, read from a file the harness writes, to what
// clock_gettime(CLOCK_REALTIME), gettimeofday and time return. Monotonic
// clocks are not moved: a wall-clock step (NTP, an operator) never moves
// them either.
//
// Which services a clock fault reaches, and why:
//   - Redis: yes, and it matters. redis-server is a C program linked
//     against libc, and it computes key expiry (PX, the lock's lease)
//     from the wall clock (mstime() via gettimeofday): a forward step
//     expires a lock early, the hazard Redis documents and Redlock's
//     analysis turns on.
//   - etcd: no. It is a Go program: the Go runtime reads the time
//     through the vDSO or raw system calls, never through libc, so
//     LD_PRELOAD has nothing to interpose (and a static Go binary loads
//     no shared library at all). Besides, its leases are timed with Go's
//     monotonic clock readings, which no wall-clock step moves.
//   - ZooKeeper: not meaningfully. The JVM does read the wall clock
//     through libc, but ZooKeeper times sessions (and so its ephemeral
//     lock nodes) with System.nanoTime, the monotonic clock
//     (Time.currentElapsedTime): a wall-clock step leaves every session
//     as it was, so a "clock fault" could never take effect.
//   - MariaDB: not meaningfully. mysqld would load the shim, but
//     GET_LOCK is held for as long as the session lives, with no lease
//     read from any clock: nothing in the lock depends on the time.
//
// A step that never happened must not pass for one: a library the loader
// could not map (a cache on a noexec mount, a damaged file) is skipped by
// ld.so with a warning, and the server runs on the machine's clock. So
// the server is attached once started (Attach: /proc/PID/maps shows the
// library mapped, and its clock read through it), and every Step reads
// the server's clock again and fails unless it moved by the step.
type Clock struct {
	shim string
	file string

	mu     sync.Mutex
	offset time.Duration
	read   func(context.Context) (time.Time, error) // the server's clock; nil until Attach
}

// clockProofSlack is how far the server's clock, read through the shim,
// may be from the machine's clock plus the offset: the shim re-reads
// the offset every millisecond, and the read itself is bracketed by the
// machine's clock.
const clockProofSlack = 100 * time.Millisecond

// clockReadTimeout bounds one read of the server's clock.
const clockReadTimeout = 5 * time.Second

// Attach proves that the shim is loaded in the server's processes pids
// (each maps the library, /proc/PID/maps) and keeps read, which reads the
// server's own wall clock (through the shim: Redis's TIME), to prove each
// Step; it checks read against the current offset at once. An error means
// the server runs without a fake clock: a harness error, never a run.
func (c *Clock) Attach(ctx context.Context, pids []int, read func(context.Context) (time.Time, error)) error {
	if len(pids) == 0 || read == nil {
		return errors.New("clock: no server process to attach to")
	}
	want, err := filepath.EvalSymlinks(c.shim)
	if err != nil {
		return fmt.Errorf("clock: %w", err)
	}
	for _, pid := range pids {
		maps, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
		if err != nil {
			return fmt.Errorf("clock: reading the server's memory map: %w", err)
		}
		if !mapsFile(maps, want) {
			return fmt.Errorf("clock: the shim %s is not loaded in the server (pid %d): the loader skipped it (a noexec mount, a damaged library?), so its clock cannot be stepped", quote.Q(want), pid)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.prove(ctx, read, c.offset); err != nil {
		return err
	}
	c.read = read
	return nil
}

// mapsFile says whether a /proc/PID/maps text maps the file path.
func mapsFile(maps []byte, path string) bool {
	for _, line := range strings.Split(string(maps), "\n") {
		// address perms offset dev inode pathname; the path may hold spaces.
		f := strings.Fields(line)
		if len(f) >= 6 && strings.Join(f[5:], " ") == path {
			return true
		}
	}
	return false
}

// prove reads the server's clock and checks it is the machine's clock
// plus offset.
func (c *Clock) prove(ctx context.Context, read func(context.Context) (time.Time, error), offset time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, clockReadTimeout)
	defer cancel()
	before := time.Now()
	got, err := read(ctx)
	after := time.Now()
	if err != nil {
		return fmt.Errorf("clock: reading the server's clock: %w", err)
	}
	lo, hi := before.Add(offset-clockProofSlack), after.Add(offset+clockProofSlack)
	if got.Before(lo) || got.After(hi) {
		return fmt.Errorf("clock: the server's clock is %v from the machine's, not the %v the shim should make it: the step did not take effect", got.Sub(before).Round(time.Millisecond), offset)
	}
	return nil
}

// NewClock builds (or finds) the shim in cacheDir and creates the offset
// file, at 0, in dir, a folder the caller owns (a run's temporary
// folder). Close removes the file.
func NewClock(ctx context.Context, dir, cacheDir string) (*Clock, error) {
	shim, err := BuildClockShim(ctx, cacheDir)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "clock-offset-")
	if err != nil {
		return nil, fmt.Errorf("clock: %w", err)
	}
	name := f.Name()
	if err := f.Close(); err != nil {
		_ = os.Remove(name)
		return nil, fmt.Errorf("clock: %w", err)
	}
	if strings.ContainsAny(name, " :") {
		_ = os.Remove(name)
		return nil, fmt.Errorf("clock: the offset file's path %s holds a space or a colon", quote.Q(name))
	}
	c := &Clock{shim: shim, file: name}
	if err := c.write(0); err != nil {
		_ = os.Remove(name)
		return nil, err
	}
	return c, nil
}

// Env is what the server's environment needs for the shim.
func (c *Clock) Env() []string {
	return []string{"LD_PRELOAD=" + c.shim, ClockOffsetEnv + "=" + c.file}
}

// Offset is how far the server's wall clock is from the machine's.
func (c *Clock) Offset() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offset
}

// Step moves the server's wall clock by d (forward if d > 0, back if
// d < 0), on top of earlier steps. When Step returns, every clock read of
// the server sees the new offset: it read the attached server's clock
// and found it moved (an error otherwise, the offset kept as written).
func (c *Clock) Step(d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	next := c.offset + d
	if (d > 0 && next < c.offset) || (d < 0 && next > c.offset) {
		return fmt.Errorf("clock: a step of %v from %v overflows", d, c.offset)
	}
	if err := c.write(next); err != nil {
		return err
	}
	c.offset = next
	// The shim may use the offset it read for one more period.
	time.Sleep(2 * clockShimPeriod)
	if c.read == nil {
		return errors.New("clock: no server attached, so the step cannot be proven")
	}
	return c.prove(context.Background(), c.read, next)
}

// write replaces the offset file atomically (a new file renamed over it),
// so that the shim reads either offset whole. The caller holds c.mu or
// owns c alone.
func (c *Clock) write(offset time.Duration) error {
	tmp := c.file + ".next"
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(int64(offset), 10)+"\n"), 0o644); err != nil {
		return fmt.Errorf("clock: %w", err)
	}
	if err := os.Rename(tmp, c.file); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("clock: %w", err)
	}
	return nil
}

// Close removes the offset file (a server still running with the shim
// keeps its last offset). It is idempotent.
func (c *Clock) Close() error {
	if err := os.Remove(c.file); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("clock: %w", err)
	}
	return nil
}
