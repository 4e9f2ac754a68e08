//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRealFullDisk: the same as TestFullDiskEveryCommand on a real full
// file system, a 64 kB tmpfs, where the process may mount one (root with
// CAP_SYS_ADMIN); elsewhere it skips, saying why.
func TestRealFullDisk(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v): the injected full disk of TestFullDiskEveryCommand covers the class", err)
	}
	t.Cleanup(func() { require.NoError(t, syscall.Unmount(dir, 0)) })

	// A trace whose page is far larger than the file system.
	var steps, arrows []string
	for i := 1; i <= 400; i++ {
		steps = append(steps, fmt.Sprintf(`{"number": %d, "actor": "c1", "action": "send %d"}`, i, i))
		if i < 400 {
			arrows = append(arrows, fmt.Sprintf(`{"from": "c1", "to": "service", "sent": %d, "received": 400, "label": "m%d"}`, i, i))
		}
	}
	big := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(big, []byte(`{"lanes": ["c1", "service"], "steps": [`+strings.Join(steps, ",")+`], "arrows": [`+strings.Join(arrows, ",")+`]}`), 0o644))

	page := filepath.Join(dir, "page.html")
	code, _, stderr := runCLI(t, "trace", "--format", "html", "--out", page, big)
	assert.Equal(t, exitBadInput, code, stderr)
	assert.Contains(t, stderr, "could not save")
	assert.Contains(t, stderr, "no space left on device")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)

	out := filepath.Join(dir, "explore")
	code, _, stderr = runCLI(t, "explore", "--design", "off", "--out", out)
	assert.Equal(t, exitBadInput, code, stderr)
	assert.Contains(t, lastLine(stderr), "no space left on device")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), "."), "temporary %s left", e.Name())
		assert.NotEqual(t, "page.html", e.Name(), "no truncated page")
	}
	if sub, err := os.ReadDir(out); err == nil {
		assert.NotEmpty(t, sub, "no empty folder")
	}
}
