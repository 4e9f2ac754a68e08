package tlc

import (
	"context"
	"github.com/fencelab/fencelab/internal/testexec"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// okOutput is a whole TLC output of a model that holds, 3 states.
const okOutput = "TLC2 Version 2.19\nModel checking completed. No error has been found.\n" +
	"3 states generated, 3 distinct states found, 0 states left on queue.\n" +
	"The depth of the complete state graph search is 2.\n" +
	"Finished in 00s at (2026-11-22 02:15:03)\n"

// cacheFixture is a specs folder whose spec S extends M (and the standard
// Naturals), M instances N, U is unrelated; a jar; a fake java that
// counts its runs and prints out (exit code); a runner with a cache in a
// test folder.
type cacheFixture struct {
	dir, specs, log, out string
	r                    *Runner
	m                    Model
}

func newCacheFixture(t *testing.T, code string) *cacheFixture {
	t.Helper()
	f := &cacheFixture{dir: t.TempDir()}
	f.specs = filepath.Join(f.dir, "specs")
	require.NoError(t, os.MkdirAll(f.specs, 0o755))
	files := map[string]string{
		"S.tla": "---- MODULE S ----\nEXTENDS Naturals,\n        M\nVARIABLE x\n====\n",
		"M.tla": "---- MODULE M ----\nI == INSTANCE N\n====\n",
		"N.tla": "---- MODULE N ----\nK == 1\n====\n",
		"U.tla": "---- MODULE U ----\n====\n",
		"m.cfg": "INIT Init\nNEXT Next\n",
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(f.specs, name), []byte(text), 0o644))
	}
	f.log = filepath.Join(f.dir, "runs.log")
	f.out = filepath.Join(f.dir, "out.txt")
	require.NoError(t, os.WriteFile(f.out, []byte(okOutput), 0o644))
	java := filepath.Join(f.dir, "java")
	// The fake also lists the modules TLC would find in its folder.
	script := "#!/bin/sh\necho run >> '" + f.log + "'\nls *.tla | tr '\\n' ' ' >> '" + f.log + ".files'\necho >> '" + f.log + ".files'\ncat '" + f.out + "'\nexit " + code + "\n"
	testexec.Write(t, java, []byte(script))
	jar := filepath.Join(f.dir, "tla2tools.jar")
	require.NoError(t, os.WriteFile(jar, []byte("the jar"), 0o644))
	f.r = &Runner{Java: java, Jar: jar, Cache: NewCache(filepath.Join(f.dir, "cache"))}
	f.m = Model{Name: "m", Spec: "S.tla", Cfg: "m.cfg", Expected: ResultOK, DistinctStates: 3}
	return f
}

// runs is how many times the fake java ran.
func (f *cacheFixture) runs(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile(f.log)
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(t, err)
	return strings.Count(string(data), "run\n")
}

func (f *cacheFixture) run(t *testing.T) *Result {
	t.Helper()
	res, err := f.r.Run(context.Background(), f.specs, f.m)
	require.NoError(t, err)
	return res
}

// entries lists the cache's entry files.
func (f *cacheFixture) entries(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(f.r.Cache.Dir, "*", "*-r"))
	require.NoError(t, err)
	return files
}

// TestCacheHit: a second run of an unchanged model reads the first one's
// output back, judged exactly as the fresh one, and java does not start;
// TLC's folder held only the modules the spec reaches.
func TestCacheHit(t *testing.T) {
	f := newCacheFixture(t, "0")
	fresh := f.run(t)
	assert.False(t, fresh.Cached)
	assert.Equal(t, ResultOK, fresh.Got.Result)
	assert.Equal(t, "", fresh.Mismatch, "the fresh run matches the manifest")
	again := f.run(t)
	assert.True(t, again.Cached, "read from the cache")
	assert.Equal(t, 1, f.runs(t), "java ran once")
	assert.Equal(t, fresh.Output, again.Output)
	assert.Equal(t, fresh.Got, again.Got)
	assert.Equal(t, fresh.Mismatch, again.Mismatch)
	assert.Equal(t, fresh.Wall, again.Wall, "the wall time of the run that printed it")
	files, err := os.ReadFile(f.log + ".files")
	require.NoError(t, err)
	assert.Equal(t, "M.tla N.tla S.tla \n", string(files), "TLC sees the modules the key holds, not U")
	require.Len(t, f.entries(t), 1)
}

// TestCacheMissOnAnyInput: a byte changed in the spec, a module it
// extends, a module that one instances, the cfg, the jar, java, or
// TLC's options runs TLC again (and keeps the new result); a change in
// a module the spec does not reach does not.
func TestCacheMissOnAnyInput(t *testing.T) {
	appendTo := func(path string) func(*testing.T, *cacheFixture) {
		return func(t *testing.T, f *cacheFixture) {
			file, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = file.WriteString(" ")
			require.NoError(t, err)
			require.NoError(t, file.Close())
		}
	}
	in := func(name string) func(*testing.T, *cacheFixture) {
		return func(t *testing.T, f *cacheFixture) { appendTo(filepath.Join(f.specs, name))(t, f) }
	}
	tests := []struct {
		name   string
		change func(*testing.T, *cacheFixture)
		miss   bool
	}{
		{"the spec", in("S.tla"), true},
		{"a module it extends", in("M.tla"), true},
		{"a module instanced by one it extends", in("N.tla"), true},
		{"the cfg", in("m.cfg"), true},
		{"the jar", func(t *testing.T, f *cacheFixture) { appendTo(f.r.Jar)(t, f) }, true},
		{"java", func(t *testing.T, f *cacheFixture) { appendTo(f.r.Java)(t, f) }, true},
		{"the workers", func(t *testing.T, f *cacheFixture) { f.r.Workers = "2" }, true},
		{"the model's cfg name", func(t *testing.T, f *cacheFixture) {
			data, err := os.ReadFile(filepath.Join(f.specs, "m.cfg"))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(f.specs, "n.cfg"), data, 0o644))
			f.m.Cfg = "n.cfg"
		}, true},
		{"a module it does not reach", in("U.tla"), false},
		{"the heap limit", func(t *testing.T, f *cacheFixture) { f.r.HeapLimit = 1 << 30 }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newCacheFixture(t, "0")
			f.run(t)
			tc.change(t, f)
			res := f.run(t)
			if !tc.miss {
				assert.True(t, res.Cached, "a hit")
				assert.Equal(t, 1, f.runs(t))
				return
			}
			assert.False(t, res.Cached, "a miss")
			assert.Equal(t, 2, f.runs(t), "TLC ran again")
			assert.True(t, f.run(t).Cached, "the new result is kept")
			assert.Equal(t, 2, f.runs(t))
		})
	}
}

// TestCacheIgnoresDamagedEntries: an entry cut short, corrupt, empty,
// another key's, of another format, or whose output is not a finished
// run's is ignored: TLC runs, its verdict is the fresh one, and the entry
// is written whole again.
func TestCacheIgnoresDamagedEntries(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, entry []byte, key string) []byte
	}{
		{"truncated", func(_ *testing.T, e []byte, _ string) []byte { return e[:len(e)-10] }},
		{"partial: the header only", func(_ *testing.T, e []byte, _ string) []byte {
			return e[:len(entryMagic)+10]
		}},
		{"empty", func(_ *testing.T, _ []byte, _ string) []byte { return nil }},
		{"a byte of the output flipped", func(_ *testing.T, e []byte, _ string) []byte {
			c := append([]byte(nil), e...)
			i := strings.Index(string(c), "No error")
			c[i] = 'n'
			return c
		}},
		{"the exit code changed", func(_ *testing.T, e []byte, key string) []byte {
			return []byte(strings.Replace(string(e), key+" 0 ", key+" 12 ", 1))
		}},
		{"grown by a byte", func(_ *testing.T, e []byte, _ string) []byte { return append(append([]byte(nil), e...), 'x') }},
		{"another key's entry", func(_ *testing.T, _ []byte, _ string) []byte {
			return encodeEntry(strings.Repeat("ab", 32), Entry{Output: []byte(okOutput), Code: 0})
		}},
		{"another format", func(_ *testing.T, e []byte, _ string) []byte {
			return []byte(strings.Replace(string(e), "v1", "v0", 1))
		}},
		{"sound, but not a finished run", func(_ *testing.T, _ []byte, key string) []byte {
			return encodeEntry(key, Entry{Output: []byte("TLC2 Version 2.19\n"), Code: 0})
		}},
		{"sound, but a failure's exit code", func(_ *testing.T, _ []byte, key string) []byte {
			return encodeEntry(key, Entry{Output: []byte(okOutput), Code: 150})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newCacheFixture(t, "0")
			fresh := f.run(t)
			paths := f.entries(t)
			require.Len(t, paths, 1)
			entry, err := os.ReadFile(paths[0])
			require.NoError(t, err)
			key := strings.TrimSuffix(filepath.Base(paths[0]), "-r")
			_, ok := f.r.Cache.Get(key)
			require.True(t, ok, "the entry as written is sound")
			require.NoError(t, os.WriteFile(paths[0], tc.plant(t, entry, key), 0o644))
			e, ok := f.r.Cache.Get(key)
			assert.False(t, ok && Cacheable(e.Output, e.Code), "the damaged entry is not read")
			res := f.run(t)
			assert.False(t, res.Cached, "ignored")
			assert.Equal(t, 2, f.runs(t), "TLC ran again")
			assert.Equal(t, fresh.Got, res.Got, "the fresh verdict")
			assert.True(t, f.run(t).Cached, "the entry is whole again")
			assert.Equal(t, 2, f.runs(t))
		})
	}
}

// TestCacheKeepsOnlyFinishedRuns: a run that did not finish its search
// (a parse error's exit code, an output without TLC's closing line) is
// not kept: each run starts TLC.
func TestCacheKeepsOnlyFinishedRuns(t *testing.T) {
	for _, tc := range []struct{ name, code, out string }{
		{"a parse error", "150", okOutput},
		{"out of memory", "153", okOutput},
		{"no closing line", "0", strings.Split(okOutput, "Finished")[0]},
		{"the closing line inside another", "0", strings.Replace(okOutput, "Finished", "x Finished", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newCacheFixture(t, tc.code)
			require.NoError(t, os.WriteFile(f.out, []byte(tc.out), 0o644))
			f.run(t)
			assert.False(t, f.run(t).Cached)
			assert.Equal(t, 2, f.runs(t))
			assert.Empty(t, f.entries(t))
		})
	}
}

// TestNoCacheRunsEveryTime: a runner without a cache (--no-cache) runs
// TLC every time, whatever the cache holds.
func TestNoCacheRunsEveryTime(t *testing.T) {
	f := newCacheFixture(t, "0")
	f.run(t)
	f.r.Cache = nil
	assert.False(t, f.run(t).Cached)
	assert.False(t, f.run(t).Cached)
	assert.Equal(t, 3, f.runs(t))
}

// TestCacheConcurrentWriters: runs of one model at once, each writing
// its key's entry, leave one whole entry that the next run reads; so do
// writers of one key with different entries (each whole).
func TestCacheConcurrentWriters(t *testing.T) {
	f := newCacheFixture(t, "0")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			res, err := f.r.Run(context.Background(), f.specs, f.m)
			assert.NoError(t, err)
			if err == nil {
				assert.Equal(t, ResultOK, res.Got.Result)
			}
		})
	}
	wg.Wait()
	require.Len(t, f.entries(t), 1)
	n := f.runs(t)
	assert.True(t, f.run(t).Cached)
	assert.Equal(t, n, f.runs(t))

	c := NewCache(t.TempDir())
	key := strings.Repeat("cd", 32)
	for i := range 16 {
		wg.Go(func() {
			out := strings.Replace(okOutput, "00s", strings.Repeat("0", i+1)+"s", 1)
			assert.NoError(t, c.Put(key, Entry{Output: []byte(out), Code: 0, Wall: time.Duration(i)}))
		})
	}
	wg.Wait()
	e, ok := c.Get(key)
	require.True(t, ok, "one whole entry")
	assert.Equal(t, strings.Replace(okOutput, "00s", strings.Repeat("0", int(e.Wall)+1)+"s", 1), string(e.Output), "one writer's output, whole")
}

// TestModules: the files a run reads are the roots and what they EXTEND
// or INSTANCE, transitively, once each (cycles too); a module the folder
// does not hold is a standard one, by name.
func TestModules(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"A.tla": "---- MODULE A ----\nEXTENDS TLC, Sequences ,\n  B\nX == INSTANCE C WITH y <- 1\n====\n",
		"B.tla": "---- MODULE B ----\nEXTENDS A\n====\n",
		"C.tla": "---- MODULE C ----\nEXTENDS Naturals\n====\n",
		"D.tla": "---- MODULE D ----\n====\n",
		"a.cfg": "INIT Init\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	files, std, err := Modules(dir, []string{"A.tla", "a.cfg"})
	require.NoError(t, err)
	assert.Equal(t, []string{"A.tla", "B.tla", "C.tla", "a.cfg"}, files)
	assert.Equal(t, []string{"Naturals", "Sequences", "TLC"}, std)
	_, _, err = Modules(dir, []string{"Missing.tla"})
	assert.Error(t, err, "a root that is not there")
}

// TestCacheDir: FENCELAB_CACHE when set (an absolute path), else fencelab
// in the user's cache folder.
func TestCacheDir(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == CacheEnv {
				return v
			}
			return ""
		}
	}
	dir, err := CacheDir(env("/some/cache"))
	require.NoError(t, err)
	assert.Equal(t, "/some/cache", dir)
	_, err = CacheDir(env("relative/cache"))
	assert.ErrorContains(t, err, "absolute")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	t.Setenv("HOME", "/home/someone")
	dir, err = CacheDir(env(""))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("/xdg", "fencelab"), dir)
}

// TestTranslationCached: the PlusCal translator's output is kept by the
// spec's bytes: a second check of an unchanged spec does not start it and
// still compares (a stale spec stays stale); a changed spec is
// translated again.
func TestTranslationCached(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runs.log")
	// The fake translator writes a translation whose line differs from
	// the committed one.
	java := filepath.Join(dir, "java")
	script := "#!/bin/sh\necho run >> '" + log + "'\nfor a; do f=$a; done\nsed -i 's/Done/Lbl/' \"$f\"\n"
	testexec.Write(t, java, []byte(script))
	jar := filepath.Join(dir, "tla2tools.jar")
	require.NoError(t, os.WriteFile(jar, []byte("the jar"), 0o644))
	spec := filepath.Join(dir, "M.tla")
	text := "---- MODULE M ----\n(* --algorithm M { skip } *)\n\\* BEGIN TRANSLATION\nInit == pc = \"Done\"\n\\* END TRANSLATION\n====\n"
	require.NoError(t, os.WriteFile(spec, []byte(text), 0o644))
	r := &Runner{Java: java, Jar: jar, Cache: NewCache(filepath.Join(dir, "cache"))}
	runs := func() int {
		data, _ := os.ReadFile(log)
		return strings.Count(string(data), "run\n")
	}
	for range 2 {
		why, err := r.StaleTranslation(context.Background(), spec)
		require.NoError(t, err)
		assert.Contains(t, why, "M.tla line 4 differs", "stale, fresh or cached")
	}
	assert.Equal(t, 1, runs(), "translated once")
	require.NoError(t, os.WriteFile(spec, []byte(strings.Replace(text, "Done", "Lbl", 1)), 0o644))
	why, err := r.StaleTranslation(context.Background(), spec)
	require.NoError(t, err)
	assert.Empty(t, why, "the changed spec is current")
	assert.Equal(t, 2, runs(), "a changed spec is translated again")
}

// TestHeapLimit: FENCELAB_TLC_HEAP_LIMIT, a size of at least 256m,
// overrides half the machine's memory; anything else is refused, with
// the value's first bytes.
func TestHeapLimit(t *testing.T) {
	meminfo := filepath.Join(t.TempDir(), "meminfo")
	require.NoError(t, os.WriteFile(meminfo, []byte("MemTotal:       24000000 kB\nMemFree: 1 kB\n"), 0o644))
	tests := []struct {
		value string
		want  int64
		err   bool
	}{
		{"", 24000000 << 10 / 2, false},
		{"8g", 8 << 30, false},
		{"6144m", 6144 << 20, false},
		{"6144M", 6144 << 20, false},
		{"1073741824", 1 << 30, false},
		{"262144k", 256 << 20, false},
		{"255m", 0, true},
		{"0", 0, true},
		{"-1g", 0, true},
		{"lots", 0, true},
		{"8gb", 0, true},
		{"99999999999999g", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			got, err := HeapLimit(func(k string) string {
				if k == HeapLimitEnv {
					return tc.value
				}
				return ""
			}, meminfo)
			if tc.err {
				assert.ErrorContains(t, err, HeapLimitEnv)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestValidateCached: a trace validation is kept under its data module
// too: the same traces are read back, other traces run TLC; a module the
// trace spec does not reach is removed from its folder, never read.
func TestValidateCached(t *testing.T) {
	f := newCacheFixture(t, "0")
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("Trace.tla", "---- MODULE Trace ----\nEXTENDS S, TraceData\n====\n")
	write("S.tla", "---- MODULE S ----\n====\n")
	write("TraceData.tla", "---- MODULE TraceData ----\nTraces == <<1>>\n====\n")
	write("Stray.tla", "---- MODULE Stray ----\n====\n")
	write("Trace.cfg", "INIT Init\n")
	validate := func() Ran {
		ran, err := f.r.Validate(context.Background(), dir, 0, "Trace.tla", "Trace.cfg", "-workers", "1", "-metadir", "states")
		require.NoError(t, err)
		return ran
	}
	assert.False(t, validate().Cached)
	assert.NoFileExists(t, filepath.Join(dir, "Stray.tla"), "not reached: removed")
	assert.True(t, validate().Cached, "the same traces")
	write("TraceData.tla", "---- MODULE TraceData ----\nTraces == <<2>>\n====\n")
	assert.False(t, validate().Cached, "other traces")
	assert.Equal(t, 2, f.runs(t))
}

// TestCacheableLongRun: a run over a minute closes with "Finished in
// 01min 34s at (…)" (without -tool): it is finished, and kept.
func TestCacheableLongRun(t *testing.T) {
	assert.True(t, Cacheable([]byte(strings.Replace(okOutput, "00s", "01min 34s", 1)), 0))
}

// TestClassArchiveFollowsCacheDir: TLC's class archive lives where
// FENCELAB_CACHE says when it is set (everything fencelab writes as it
// runs goes there), else in fencelab of the user's cache folder.
func TestClassArchiveFollowsCacheDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	t.Setenv("HOME", "/home/someone")
	for _, tc := range []struct{ env, want string }{
		{"/some/cache", "/some/cache"},
		{"", filepath.Join("/xdg", "fencelab")},
	} {
		t.Setenv(CacheEnv, tc.env)
		a := DefaultClassArchive()
		require.NotNil(t, a, "FENCELAB_CACHE=%q", tc.env)
		assert.Equal(t, tc.want, a.Dir, "FENCELAB_CACHE=%q", tc.env)
	}
	t.Setenv(CacheEnv, "relative/cache")
	assert.Nil(t, DefaultClassArchive(), "no archive where the cache folder is refused")
}
