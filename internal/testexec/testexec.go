// Package testexec writes the fake programs tests run (a fake java, a
// fake redis-server, a fake fencelab-live) so that running one never
// fails with "text file busy".
//
// os.WriteFile keeps the file open for writing while it writes. A test
// running in parallel that starts a process in that moment forks a child
// which holds a copy of the descriptor until the child reaches exec (the
// descriptor is close-on-exec, but fork copies it first); running the
// fake program while that copy is open fails with ETXTBSY
// (https://go.dev/issue/22315). Every fork of this process takes
// syscall.ForkLock for writing, so writing the file with the lock held
// for reading keeps every fork out until the descriptor is closed.
package testexec

import (
	"os"
	"syscall"
	"testing"
)

// Write writes content to path as an executable file (mode 0755),
// failing t if it cannot.
func Write(t testing.TB, path string, content []byte) {
	t.Helper()
	if err := WriteFile(path, content); err != nil {
		t.Fatalf("writing the program %s: %v", path, err)
	}
}

// WriteFile writes content to path as an executable file (mode 0755)
// with no fork of this process in between.
func WriteFile(path string, content []byte) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(path, content, 0o755)
}
