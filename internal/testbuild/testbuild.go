// Package testbuild is test support: it says which build a test runs in,
// and so how much work the test does there. The product does not import
// it. fencelab's tests run in three passes (DESIGN.md, "Tests: three
// passes"):
//
//   - go test -race ./..., make test's first pass: the tests of the code
//     that runs goroutines (the explorer's workers and merge, the
//     simulator's batch workers, Porcupine's checks in them, the TLC
//     runner, the CLI's signals and progress), at reduced size. Tests of
//     deterministic work skip there (SkipUnderRace): the race detector
//     makes them ten to thirty times slower and finds nothing in them.
//   - go test -short ./..., make test's second pass: every test but the
//     TLC-backed ones, at reduced size (Reduced).
//   - go test ./...: every test at full size.
package testbuild

import "testing"

// Race reports whether the race detector is on (race.go, norace.go).
const Race = race

// Reduced reports whether a test runs at its reduced size: under the
// race detector or with -short. The reduced size still reaches every
// verdict the test asserts (each test says how); the full size is the
// plain build's without -short.
func Reduced() bool {
	return Race || testing.Short()
}

// SkipUnderRace skips t in the race build. It is for the tests of
// deterministic work whose goroutines, if any, are raced by their own
// packages' tests; make test runs them in its second pass.
func SkipUnderRace(t testing.TB) {
	t.Helper()
	if Race {
		t.Skip("deterministic work, raced where its goroutines are: make test runs it in its second pass, go test -short ./...")
	}
}

// SkipReduced skips t unless it runs at full size (go test ./..., no
// -short, no race detector): what is the work that makes it full-size
// only, e.g. "a million states per model".
func SkipReduced(t testing.TB, what string) {
	t.Helper()
	if Reduced() {
		t.Skip(what + ": full size only, go test ./...")
	}
}
