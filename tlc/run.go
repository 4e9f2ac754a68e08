package tlc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Runner runs TLC's tools from one jar.
type Runner struct {
	Java string // the java executable
	Jar  string // tla2tools.jar
	// Workers is TLC's -workers value; "auto" uses every core.
	Workers string
	// Timeout bounds one TLC or translator run; 0 means 10 minutes.
	Timeout time.Duration
}

func (r *Runner) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return 10 * time.Minute
}

// java runs the jar's class main with args in dir and returns what it
// printed and its exit code.
func (r *Runner) java(ctx context.Context, dir, main string, args ...string) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	// Every run gets a private java.io.tmpdir: TLC 1.7.4 unpacks its
	// standard modules into the temporary folder, and two runs sharing
	// one (make demo beside make tlc, parallel tests) read each other's
	// half-written files and report false parse errors.
	tmp, err := os.MkdirTemp("", "fencelab-java-")
	if err != nil {
		return nil, -1, fmt.Errorf("creating a temporary folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	// The parallel GC is what TLC asks for (it warns otherwise).
	full := append([]string{"-XX:+UseParallelGC", "-Djava.io.tmpdir=" + tmp, "-cp", r.Jar, main}, args...)
	cmd := exec.CommandContext(ctx, r.Java, full...)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	err = cmd.Run()
	if ctx.Err() != nil {
		return buf.Bytes(), -1, fmt.Errorf("%s did not finish within %s", main, r.timeout())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return buf.Bytes(), exit.ExitCode(), nil
	}
	if err != nil {
		return buf.Bytes(), -1, fmt.Errorf("running %s: %w", r.Java, err)
	}
	return buf.Bytes(), 0, nil
}

// StaleTranslation re-translates the PlusCal algorithm of the spec at path
// in a temporary copy and compares the result with the committed file. It
// returns a description of the difference ("" when the committed
// translation is current) or an error if the translator fails. A spec
// written in plain TLA+ (no "--algorithm") has nothing to translate.
func (r *Runner) StaleTranslation(ctx context.Context, path string) (string, error) {
	orig, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	if !bytes.Contains(orig, []byte("--algorithm")) && !bytes.Contains(orig, []byte("--fair algorithm")) {
		return "", nil
	}
	dir, err := os.MkdirTemp("", "fencelab-pcal-")
	if err != nil {
		return "", fmt.Errorf("creating a temporary folder: %w", err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Base(path)
	if err := os.WriteFile(filepath.Join(dir, name), orig, 0o644); err != nil {
		return "", fmt.Errorf("copying %s: %w", name, err)
	}
	out, code, err := r.java(ctx, dir, "pcal.trans", "-nocfg", name)
	if err != nil {
		return "", err
	}
	if code != 0 {
		return "", fmt.Errorf("the PlusCal translator failed on %s (exit %d): %s", name, code, lastLines(out, 5))
	}
	fresh, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "", fmt.Errorf("reading the fresh translation: %w", err)
	}
	if bytes.Equal(orig, fresh) {
		return "", nil
	}
	a, b := strings.Split(string(orig), "\n"), strings.Split(string(fresh), "\n")
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return fmt.Sprintf("%s line %d differs from a fresh translation (committed %q, fresh %q); run pcal.trans on it", name, i+1, strings.TrimSpace(a[i]), strings.TrimSpace(b[i])), nil
		}
	}
	return fmt.Sprintf("%s has %d lines, a fresh translation %d; run pcal.trans on it", name, len(a), len(b)), nil
}

func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// Result is one model's run: what TLC printed and what it means.
type Result struct {
	Model  Model
	Got    Got
	Output []byte  // TLC's raw output
	Parsed *Output // nil if the output could not be parsed
	// ParseErr is why the output could not be parsed.
	ParseErr error
	Wall     time.Duration
	// Mismatch is "" when the run matches the manifest, else why not.
	Mismatch string
}

// Run checks one model with TLC: the spec folder's .tla files and the
// model's cfg are copied to a fresh folder with a fresh metadir, TLC runs
// there with -tool, and the result is judged against the manifest.
func (r *Runner) Run(ctx context.Context, specsDir string, m Model) (*Result, error) {
	dir, err := os.MkdirTemp("", "fencelab-tlc-")
	if err != nil {
		return nil, fmt.Errorf("creating a temporary folder: %w", err)
	}
	defer os.RemoveAll(dir)
	tlas, err := filepath.Glob(filepath.Join(specsDir, "*.tla"))
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", specsDir, err)
	}
	cfgText, err := os.ReadFile(filepath.Join(specsDir, m.Cfg))
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Name, err)
	}
	if _, err := os.Stat(filepath.Join(specsDir, m.Spec)); err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Name, err)
	}
	for _, src := range append(tlas, filepath.Join(specsDir, m.Cfg)) {
		data, err := os.ReadFile(src)
		if err != nil {
			return nil, fmt.Errorf("copying %s: %w", src, err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)), data, 0o644); err != nil {
			return nil, fmt.Errorf("copying %s: %w", src, err)
		}
	}
	workers := r.Workers
	if workers == "" {
		workers = "auto"
	}
	start := time.Now()
	out, code, err := r.java(ctx, dir, "tlc2.TLC", "-tool", "-workers", workers,
		"-metadir", filepath.Join(dir, "states"), "-config", m.Cfg, m.Spec)
	wall := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Name, err)
	}
	res := &Result{Model: m, Output: out, Wall: wall}
	res.Got, res.Parsed, res.ParseErr = Interpret(out, code, string(cfgText))
	res.Mismatch = Judge(m, res.Got)
	return res, nil
}

// Interpret reads a TLC run's output and exit code into a Got. The exit
// code decides the result; the output gives the violated invariant's name,
// the statistics and stale-translation warnings. A liveness violation's
// property is the cfg's single PROPERTY, since TLC does not name it.
func Interpret(out []byte, code int, cfg string) (Got, *Output, error) {
	g := Got{ExitCode: code, Result: ResultForExit(code), Distinct: -1, Depth: -1}
	parsed, err := ParseOutput(bytes.NewReader(out))
	if err != nil {
		return g, nil, err
	}
	g.Distinct, g.Depth = parsed.Distinct, parsed.Depth
	for _, w := range parsed.Warnings {
		if strings.Contains(w, "translation") {
			g.Stale = append(g.Stale, w)
		}
	}
	switch g.Result {
	case ResultInvariant:
		g.Property = parsed.Invariant
	case ResultLiveness:
		if props := CfgProperties(cfg); len(props) == 1 && parsed.Temporal {
			g.Property = props[0]
		}
	}
	return g, parsed, nil
}
