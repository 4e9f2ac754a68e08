package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Bad input is one line on stderr and exit 2, before any build.
func TestBadInput(t *testing.T) {
	noMod := t.TempDir()
	for _, tc := range []struct {
		name  string
		args  []string
		cache string
		want  string
	}{
		{"unknown flag", []string{"--nope"}, "", "flag provided but not defined"},
		{"an argument", []string{"extra"}, "", "unexpected argument"},
		{"no build module", []string{"--module", noMod}, "", "kube-apiserver's build module"},
		{"a relative cache", []string{"--module", filepath.Join("..", "..", "kube-apiserver")}, "relative", "must be an absolute path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("FENCELAB_CACHE", tc.cache)
			if tc.cache == "" {
				os.Unsetenv("FENCELAB_CACHE")
			}
			var stdout, stderr bytes.Buffer
			assert.Equal(t, 2, run(tc.args, &stdout, &stderr))
			assert.Empty(t, stdout.String())
			assert.Contains(t, stderr.String(), tc.want)
			assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
		})
	}
}
