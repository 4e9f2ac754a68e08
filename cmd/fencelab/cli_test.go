package main

import (
	"bytes"
	"testing"

	"github.com/fencelab/fencelab/pipeline"
)

// runCLI runs fencelab with args and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &env{Env: pipeline.Env{Stdout: &out, Stderr: &errb}})
	return code, out.String(), errb.String()
}
