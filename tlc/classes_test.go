package tlc

import (
	"context"
	"github.com/fencelab/fencelab/internal/testexec"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeArchivingJava is a java that prints its archive flags and, asked to
// write an archive, writes one, or, with noBase, refuses to start as a JDK
// without its base archive does.
func fakeArchivingJava(t *testing.T, dir string, noBase bool) string {
	t.Helper()
	refuse := ""
	if noBase {
		refuse = "echo 'Error occurred during initialization of VM'; echo 'DynamicDumpSharedSpaces is unsupported when base CDS archive is not loaded'; exit 1;"
	}
	script := "#!/bin/sh\nfor a in \"$@\"; do case $a in\n" +
		"-XX:ArchiveClassesAtExit=*) " + refuse + " echo dump; echo archive > \"${a#-XX:ArchiveClassesAtExit=}\";;\n" +
		"-XX:SharedArchiveFile=*) echo use; [ -f \"${a#-XX:SharedArchiveFile=}\" ] && echo found;;\n" +
		"-Xlog:*) echo quiet;;\n" +
		"esac; done; echo ran\n"
	fake := filepath.Join(dir, "java")
	testexec.Write(t, fake, []byte(script))
	return fake
}

// TestClassArchive: the first TLC run writes the archive, with the JVM's
// archive messages off; later runs use it; the translator neither writes
// nor, before there is one, waits for one; a Runner without an archive
// passes no archive flag.
func TestClassArchive(t *testing.T) {
	dir := t.TempDir()
	fake := fakeArchivingJava(t, dir, false)
	jar := filepath.Join(dir, "tla2tools.jar")
	require.NoError(t, os.WriteFile(jar, []byte("jar"), 0o644))
	cache := filepath.Join(dir, "cache", "fencelab")
	r := &Runner{Java: fake, Jar: jar, Classes: &ClassArchive{Dir: cache}}
	ctx := context.Background()

	out, _, err := r.java(ctx, dir, shortRun(), "pcal.trans")
	require.NoError(t, err)
	assert.Equal(t, "ran\n", string(out), "the translator writes no archive")

	out, _, err = r.java(ctx, dir, shortRun(), "tlc2.TLC")
	require.NoError(t, err)
	assert.Equal(t, "dump\nquiet\nquiet\nran\n", string(out), "the first TLC run writes the archive")
	archives, err := filepath.Glob(filepath.Join(cache, "*"))
	require.NoError(t, err)
	require.Len(t, archives, 1, "one archive, no temporary file left")
	assert.True(t, strings.HasSuffix(archives[0], ".jsa"), archives[0])

	for _, main := range []string{"tlc2.TLC", "pcal.trans"} {
		out, _, err = r.java(ctx, dir, shortRun(), main)
		require.NoError(t, err)
		assert.Equal(t, "use\nfound\nquiet\nquiet\nran\n", string(out), "%s uses it", main)
	}

	// Another jar gets an archive of its own.
	other := filepath.Join(dir, "other.jar")
	require.NoError(t, os.WriteFile(other, []byte("another jar"), 0o644))
	r2 := &Runner{Java: fake, Jar: other, Classes: r.Classes}
	out, _, err = r2.java(ctx, dir, shortRun(), "tlc2.TLC")
	require.NoError(t, err)
	assert.Equal(t, "dump\nquiet\nquiet\nran\n", string(out))

	plain := &Runner{Java: fake, Jar: jar}
	out, _, err = plain.java(ctx, dir, shortRun(), "tlc2.TLC")
	require.NoError(t, err)
	assert.Equal(t, "ran\n", string(out), "no archive without Classes")
}

// TestClassArchiveRefused: a JVM that cannot write an archive (no base
// archive) refuses to start; the run is repeated without the flags, gives
// TLC's own output, and the process stops trying.
func TestClassArchiveRefused(t *testing.T) {
	dir := t.TempDir()
	fake := fakeArchivingJava(t, dir, true)
	cache := filepath.Join(dir, "cache")
	r := &Runner{Java: fake, Jar: fake, Classes: &ClassArchive{Dir: cache}}
	for range 2 {
		out, code, err := r.java(context.Background(), dir, shortRun(), "tlc2.TLC")
		require.NoError(t, err)
		assert.Equal(t, 0, code)
		assert.Equal(t, "ran\n", string(out))
	}
	left, err := filepath.Glob(filepath.Join(cache, "*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no archive and no temporary file")
}

// TestClassArchiveConcurrent: of runs started together before there is an
// archive, one writes it and the others run without; every run ends.
func TestClassArchiveConcurrent(t *testing.T) {
	dir := t.TempDir()
	fake := fakeArchivingJava(t, dir, false)
	r := &Runner{Java: fake, Jar: fake, Classes: &ClassArchive{Dir: filepath.Join(dir, "cache")}}
	var wg sync.WaitGroup
	outs := make([]string, 8)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, _, err := r.java(context.Background(), dir, shortRun(), "tlc2.TLC")
			assert.NoError(t, err)
			outs[i] = string(out)
		}()
	}
	wg.Wait()
	dumps := 0
	for _, o := range outs {
		assert.True(t, strings.HasSuffix(o, "ran\n"), o)
		dumps += strings.Count(o, "dump")
	}
	assert.LessOrEqual(t, dumps, 1, "at most one run writes the archive at a time: %q", outs)
	assert.GreaterOrEqual(t, dumps, 1, "a run wrote it: %q", outs)
}
