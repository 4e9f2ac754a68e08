package nemesis

import (
	"context"
	"github.com/fencelab/fencelab/internal/testexec"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/tlc"
)

// A cached library that is not the one built (damaged, cut short, or
// without its sum) is built afresh, never handed to a server.
func TestBuildClockShimRebuildsADamagedLibrary(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, lib string)
	}{
		{"garbage", func(t *testing.T, lib string) {
			testexec.Write(t, lib, []byte("not an ELF file"))
		}},
		{"cut short", func(t *testing.T, lib string) { require.NoError(t, os.Truncate(lib, 100)) }},
		{"sum missing", func(t *testing.T, lib string) { require.NoError(t, os.Remove(lib+".sha256")) }},
		{"sum wrong", func(t *testing.T, lib string) {
			require.NoError(t, os.WriteFile(lib+".sha256", []byte("00\n"), 0o644))
		}},
		{"a folder in its place", func(t *testing.T, lib string) {
			require.NoError(t, os.Remove(lib))
			require.NoError(t, os.Mkdir(lib, 0o755))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			lib, err := BuildClockShim(context.Background(), cache)
			skipIfMissing(t, err)
			require.NoError(t, err)
			good, err := fileSum(lib)
			require.NoError(t, err)
			tc.damage(t, lib)
			if info, err := os.Stat(lib); err == nil && info.IsDir() {
				// A folder is not replaced by a rename: the build fails
				// rather than hand it over.
				_, err := BuildClockShim(context.Background(), cache)
				require.Error(t, err)
				return
			}
			again, err := BuildClockShim(context.Background(), cache)
			require.NoError(t, err)
			require.Equal(t, lib, again)
			got, err := fileSum(again)
			require.NoError(t, err)
			require.Equal(t, good, got, "rebuilt")
			require.True(t, cachedShimIntact(again))
		})
	}
}

// A server the loader started without the shim (a damaged library, a
// noexec mount: ld.so warns and goes on) is refused, not run on the
// machine's clock.
func TestAttachRefusesAServerWithoutTheShim(t *testing.T) {
	t.Run("no LD_PRELOAD", func(t *testing.T) {
		c := newTestClock(t)
		pid := shimmedShell(t, nil)
		err := c.Attach(context.Background(), []int{pid}, dateReader(c.Env()))
		require.ErrorContains(t, err, "is not loaded in the server")
		require.ErrorContains(t, c.Step(time.Hour), "no server attached")
	})
	t.Run("a library the loader skips", func(t *testing.T) {
		c := newTestClock(t)
		// Damaged after the build, as on a disk that lost it: the shell
		// still starts (exit 0), without the shim.
		testexec.Write(t, c.shim, []byte("not an ELF file"))
		pid := shimmedShell(t, c.Env())
		err := c.Attach(context.Background(), []int{pid}, dateReader(c.Env()))
		require.ErrorContains(t, err, "is not loaded in the server")
	})
	t.Run("no process", func(t *testing.T) {
		c := newTestClock(t)
		require.Error(t, c.Attach(context.Background(), nil, dateReader(c.Env())))
	})
}

// A step whose effect the server's clock does not show is an error: the
// fault never passes for applied.
func TestStepMustShowInTheServersClock(t *testing.T) {
	c := newTestClock(t)
	pid := shimmedShell(t, c.Env())
	// The witness reads the machine's clock, as a server that ignored
	// the offset would.
	machine := func(context.Context) (time.Time, error) { return time.Now(), nil }
	require.NoError(t, c.Attach(context.Background(), []int{pid}, machine), "offset 0: nothing to tell apart yet")
	require.ErrorContains(t, c.Step(2*time.Second), "the step did not take effect")
	require.ErrorContains(t, c.Step(-time.Hour), "the step did not take effect")

	// A server whose clock runs at the offset passes.
	d := newTestClock(t)
	attachShell(t, d)
	require.NoError(t, d.Step(2*time.Second))
	require.NoError(t, d.Step(-time.Second))
}

// FENCELAB_CACHE, when set, holds the shim too; a relative one is
// refused.
func TestClockShimCacheFollowsFencelabCache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(tlc.CacheEnv, dir)
	got, err := DefaultClockShimCache()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "clockshim"), got)

	t.Setenv(tlc.CacheEnv, "relative/cache")
	_, err = DefaultClockShimCache()
	require.ErrorContains(t, err, "absolute")

	t.Setenv(tlc.CacheEnv, "")
	t.Setenv("XDG_CACHE_HOME", dir)
	got, err = DefaultClockShimCache()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "fencelab", "clockshim"), got)
}
