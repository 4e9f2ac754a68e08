package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "no command given"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"unknown flag", []string{"run", "--bogus"}, "flag provided but not defined"},
		{"missing service", []string{"run", "--design", "all"}, "--service and --design are required"},
		{"unknown service", []string{"run", "--service", "memcached", "--design", "all"}, "unknown service"},
		{"hostile service", []string{"run", "--service", strings.Repeat("x", 5000) + "\n\x1b[2J", "--design", "all"}, "unknown service"},
		{"bad runs", []string{"run", "--service", "x", "--design", "y", "--runs", "many"}, "invalid value"},
		{"stray argument", []string{"run", "--service", "x", "--design", "y", "extra"}, "unexpected argument"},
		{"list with arguments", []string{"list", "extra"}, "list takes no arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, exitBadInput, code)
			line := stderr.String()
			assert.Contains(t, line, tc.want)
			assert.Equal(t, 1, strings.Count(line, "\n"), "one line: %q", line)
			assert.Less(t, len(line), 600, "a bounded line")
			assert.Empty(t, stdout.String())
		})
	}
}

func TestClientRoleRejectsBadConfig(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"client"}, strings.NewReader(`{"client": 0, "clients": 2, "sections": 0}`), &stdout, &stderr)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr.String(), "client configuration")
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"))
}

func TestListNamesFaultsAndRows(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"list"}, nil, &stdout, &stderr)
	assert.Equal(t, exitOK, code)
	for _, want := range []string{"client-pause", "restart-wipe", "unique-cas", "TokenIsMonotonical holds", "RegisterLinearizable"} {
		assert.Contains(t, stdout.String(), want)
	}
}

func TestReadmeRefusesAFileWithoutMarkers(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	const text = "# someone else's README\n"
	require.NoError(t, os.WriteFile(readme, []byte(text), 0o644))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"readme", []string{"readme", "--out", dir, readme}, "has no live block"},
		{"matrix, before its first run", []string{"matrix", "--service", "etcd", "--runs", "1", "--out", dir, "--update-readme", readme}, "has no live block"},
		{"no file", []string{"readme", "--out", dir}, "want one README file"},
		{"a folder", []string{"readme", "--out", dir, dir}, "README"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr.String(), tc.want)
			assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
			got, err := os.ReadFile(readme)
			require.NoError(t, err)
			assert.Equal(t, text, string(got))
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "nothing written beside the README")
		})
	}
}
