package main

import (
	"bytes"
	"testing"
)

// runCLI runs fencelab with args and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &env{Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}
