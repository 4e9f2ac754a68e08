// Package tlctest is test support: the one way a test gets the real TLC.
// Require gives Java and tla2tools.jar — the file TLA2TOOLS_JAR names, or
// a verified copy of the pinned release in the user cache; a test never
// downloads — or skips the test with one message, counted, so that a run
// without TLC says so (internal/tlccount). The product does not import
// it.
//
// internal/testbuild reads the module's tests for the helpers that skip
// under -short and finds this one by name: a test that skips under the
// race detector must not call it, or make test would run it in neither
// pass.
package tlctest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/fencelab/fencelab/internal/golden"
	"github.com/fencelab/fencelab/internal/tlccount"
	"github.com/fencelab/fencelab/tlc"
)

// SkipPrefix starts the message of every TLC-backed test that skips.
const SkipPrefix = "TLC-backed test skipped: "

// NoJar is the reason a TLC-backed test skips without a jar.
const NoJar = "no tla2tools.jar: set TLA2TOOLS_JAR=/path/to/tla2tools.jar or cache the pinned release with make tlc"

// Tool is the real TLC for a test: the java to run and the jar.
type Tool struct {
	Java, Jar string
}

// Require returns the real TLC, or skips t counted in checks: under
// -short (make test's race pass runs the TLC-backed tests), without java
// on PATH, or without a jar. A TLA2TOOLS_JAR that is set but unusable
// (no such file, not the TLA+ tools) fails t: the user asked for TLC.
func Require(t testing.TB, checks *tlccount.Counter) Tool {
	t.Helper()
	tool, why, err := find()
	if err != nil {
		t.Fatal(err)
	}
	if why != "" {
		checks.Skipped(why)
		t.Skip(SkipPrefix + why)
	}
	checks.Ran()
	return tool
}

// find is Require's decision: the tool, or why the test skips, or the
// error that fails it.
func find() (Tool, string, error) {
	if testing.Short() {
		return Tool{}, tlccount.ShortMode, nil
	}
	java, err := tlc.FindJava()
	if err != nil {
		return Tool{}, "no java on PATH", nil
	}
	pin, err := pinPath()
	if err != nil {
		return Tool{}, "", err
	}
	r, err := tlc.DefaultResolver(pin)
	if err != nil {
		return Tool{}, "", fmt.Errorf("tlctest: %w", err)
	}
	if r.EnvJar == "" && (r.CachePath() == "" || tlc.VerifyFile(r.CachePath(), r.Pin.SHA256) != nil) {
		return Tool{}, NoJar, nil
	}
	// With TLA2TOOLS_JAR unset the verified cached copy resolves without a
	// download; with it set, an unusable file is an error.
	jar, err := r.Resolve(context.Background())
	if err != nil {
		return Tool{}, "", fmt.Errorf("tlctest: TLA2TOOLS_JAR is set but unusable: %w", err)
	}
	return Tool{Java: java, Jar: jar.Path}, "", nil
}

// pinPath is the module's tla2tools.version, the pinned release.
func pinPath() (string, error) {
	root, err := golden.ModuleRoot()
	if err != nil {
		return "", fmt.Errorf("tlctest: %w", err)
	}
	return filepath.Join(root, "tla2tools.version"), nil
}
