//go:build !unix

package golden

// lock is a no-op where flock is missing: -update then must not run
// packages in parallel (go test -p 1 ./... -update).
func lock(string) (func(), error) { return func() {}, nil }
