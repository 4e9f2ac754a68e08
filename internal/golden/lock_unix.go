//go:build unix

package golden

import (
	"fmt"
	"os"
	"syscall"
)

// lock takes an exclusive advisory lock on the folder at path, which
// holds the row files: a lock on the folder itself leaves no lock file
// behind, in the tree or in the temporary folder.
func lock(path string) (func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("golden: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("golden: lock %s: %w", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
