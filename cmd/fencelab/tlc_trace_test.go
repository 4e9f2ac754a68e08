package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/trace"
)

const fixture = "../../tlc/testdata/tool_DistLock_2c_AtMostOneClientHoldLock.out"

func TestTraceCommand(t *testing.T) {
	code, out, errOut := runCLI(t, "trace", fixture)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "lock_held[c2]: FALSE → TRUE", "the step table")
	assert.Contains(t, out, "◀──", "the lane picture")
	assert.Contains(t, out, "✗ AtMostOneClientHoldLock violated at step 8: c1 and c2 both believe they hold the lock")

	code, out, _ = runCLI(t, "trace", "--format", "mermaid", fixture)
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "sequenceDiagram\n"))

	code, out, _ = runCLI(t, "trace", "--format", "json", fixture)
	require.Equal(t, 0, code)
	var tr trace.Trace
	require.NoError(t, json.Unmarshal([]byte(out), &tr))
	assert.Equal(t, "AtMostOneClientHoldLock", tr.Violation.Property)

	page := filepath.Join(t.TempDir(), "trace.html")
	code, out, _ = runCLI(t, "trace", "--format", "html", "--out", page, fixture)
	require.Equal(t, 0, code)
	assert.Empty(t, out)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "<svg ")

	code, out, _ = runCLI(t, "trace", "--property", "AllClientsFinish", "--format", "table", "../../tlc/testdata/plain_DistLock_2c_Liveness_Unfair.out")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "AllClientsFinish violated")
}

func TestTraceCommandBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.out")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	junk := filepath.Join(dir, "junk.out")
	require.NoError(t, os.WriteFile(junk, []byte("not TLC at all\n"), 0o644))
	truncated := filepath.Join(dir, "truncated.out")
	data, err := os.ReadFile(fixture)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(truncated, data[:len(data)/2], 0o644))
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no file", []string{"trace"}, "expected one TLC output file"},
		{"two files", []string{"trace", fixture, fixture}, "expected one TLC output file"},
		{"missing file", []string{"trace", filepath.Join(dir, "nope.out")}, "cannot read"},
		{"empty file", []string{"trace", empty}, "the TLC output is empty"},
		{"not TLC output", []string{"trace", junk}, "does not look like TLC output"},
		{"truncated output", []string{"trace", truncated}, "no ENDMSG"},
		{"no counterexample", []string{"trace", "../../tlc/testdata/tool_DistLockFencing_all_2c.out"}, "no counterexample"},
		{"bad format", []string{"trace", "--format", "pdf", fixture}, "unknown --format"},
		{"bad flag", []string{"trace", "--frobnicate", fixture}, "flag provided but not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			assert.Empty(t, out)
			assertBadInput(t, code, errOut, tc.wantErr)
		})
	}
}

// writeSpecs makes a specs folder with a one-model manifest and a pin file
// whose download URL is refused at once, for the missing-tool paths.
func writeSpecs(t *testing.T) (specs, pin string) {
	t.Helper()
	dir := t.TempDir()
	specs = filepath.Join(dir, "specs")
	require.NoError(t, os.MkdirAll(specs, 0o755))
	manifest := `{"models": [{"name": "m", "spec": "S.tla", "cfg": "m.cfg", "design": "off", "expected": "deadlock"}]}`
	require.NoError(t, os.WriteFile(filepath.Join(specs, "models.json"), []byte(manifest), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(specs, "S.tla"), []byte("---- MODULE S ----\n====\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(specs, "m.cfg"), []byte("INIT Init\n"), 0o644))
	pin = filepath.Join(dir, "tla2tools.version")
	require.NoError(t, os.WriteFile(pin, []byte("version=v1.7.4\nurl=http://127.0.0.1:1/tla2tools.jar\nsha256="+strings.Repeat("0", 64)+"\n"), 0o644))
	return specs, pin
}

func TestTLCCommandMissingTool(t *testing.T) {
	specs, pin := writeSpecs(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))

	t.Run("TLA2TOOLS_JAR names a missing file", func(t *testing.T) {
		t.Setenv("TLA2TOOLS_JAR", filepath.Join(home, "missing.jar"))
		code, _, errOut := runCLI(t, "tlc", "--specs", specs, "--pin", pin)
		assert.Equal(t, exitBadInput, code)
		assert.Contains(t, errOut, "TLA2TOOLS_JAR is set to")
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "one paragraph: %q", errOut)
	})
	t.Run("no jar and no network", func(t *testing.T) {
		t.Setenv("TLA2TOOLS_JAR", "")
		start := time.Now()
		code, _, errOut := runCLI(t, "tlc", "--specs", specs, "--pin", pin)
		assert.Equal(t, exitBadInput, code)
		assert.Contains(t, errOut, "could not be downloaded")
		assert.Contains(t, errOut, "TLA2TOOLS_JAR=/path/to/tla2tools.jar make tlc")
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "one paragraph: %q", errOut)
		assert.Less(t, time.Since(start), 30*time.Second)
	})
	t.Run("no java", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		code, _, errOut := runCLI(t, "tlc", "--specs", specs, "--pin", pin)
		assert.Equal(t, exitBadInput, code)
		assert.Contains(t, errOut, "Java is missing")
	})
}

func TestTLCCommandBadInput(t *testing.T) {
	specs, pin := writeSpecs(t)
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"unknown model", []string{"tlc", "--specs", specs, "--pin", pin, "--model", "nope"}, `no model "nope"`},
		{"no manifest", []string{"tlc", "--specs", t.TempDir()}, "reading the models manifest"},
		{"stray argument", []string{"tlc", "extra"}, "unexpected argument"},
		{"bad timeout", []string{"tlc", "--timeout", "0s"}, "--timeout must be positive"},
		{"zero workers", []string{"tlc", "--workers", "0"}, "--workers must be auto or a number from 1 to"},
		{"word workers", []string{"tlc", "--workers", "many"}, "--workers must be auto or a number from 1 to"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tc.args...)
			assertBadInput(t, code, errOut, tc.wantErr)
		})
	}
}
