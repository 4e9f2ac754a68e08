package tlc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryJavaRunHasAPrivateTmpdir: each run of java is given its own
// java.io.tmpdir, which exists while it runs and is gone afterwards, so
// concurrent TLC runs never share the folder TLC unpacks its modules into.
func TestEveryJavaRunHasAPrivateTmpdir(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "java")
	// The fake java prints its arguments and whether the tmpdir exists.
	script := "#!/bin/sh\nfor a in \"$@\"; do case $a in -Djava.io.tmpdir=*) d=${a#-Djava.io.tmpdir=}; echo \"tmpdir $d\"; [ -d \"$d\" ] && echo exists;; esac; done\n"
	require.NoError(t, os.WriteFile(fake, []byte(script), 0o755))
	r := &Runner{Java: fake, Jar: "tla2tools.jar"}
	var dirs []string
	for range 2 {
		out, code, err := r.java(context.Background(), dir, "tlc2.TLC")
		require.NoError(t, err)
		require.Equal(t, 0, code)
		lines := strings.Fields(string(out))
		require.Equal(t, []string{"tmpdir", lines[1], "exists"}, lines, "output: %s", out)
		dirs = append(dirs, lines[1])
		_, err = os.Stat(lines[1])
		assert.True(t, os.IsNotExist(err), "the tmpdir is removed after the run")
	}
	assert.NotEqual(t, dirs[0], dirs[1], "each run has its own")
}
