package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/live/campaign"
	"github.com/fencelab/fencelab/pipeline"
)

// errOutBusy is an --out folder another command holds (takeOut).
var errOutBusy = errors.New("in use by another fencelab-live command")

// takeOut readies the --out folder of a command that writes there (run,
// matrix, merge), before any work: it must be a folder that can be
// written, or creatable (pipeline.CheckOutDir, as the main commands
// check theirs), and no other command may be writing there — two
// campaigns into one folder would lose the first one's tally. It creates
// the folder and holds an exclusive lock on campaign.LockFile inside it
// until release, which removes the lock file and the folder again if this
// command created it and left nothing in it.
func takeOut(dir string) (release func(), err error) {
	if err := pipeline.CheckOutDir("out", dir); err != nil {
		return nil, err
	}
	folder := atomicfile.NewFolder(dir)
	if err := folder.Create(); err != nil {
		return nil, err
	}
	unlock, err := lockFolder(dir)
	if err != nil {
		folder.Abandon()
		return nil, err
	}
	return func() {
		unlock()
		folder.Abandon()
	}, nil
}

// lockFolder takes the lock of dir without waiting: a folder in use is
// refused at once, never queued behind a campaign of hours. The lock file
// is removed on release; a command that locked a file just removed (its
// path now names another file, or none) tries again, so two commands
// never both hold dir.
func lockFolder(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, campaign.LockFile)
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("--out %s: cannot lock it: %w", quote.S(dir), pipeline.WithoutPath(err))
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("--out %s: %w", quote.S(dir), errOutBusy)
			}
			return nil, fmt.Errorf("--out %s: cannot lock it: %w", quote.S(dir), err)
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return func() {
				// Removed while still locked: whoever opens the path next
				// makes a new file, and one that opened this one sees it
				// gone and tries again.
				if now, err := os.Stat(path); err == nil && os.SameFile(held, now) {
					os.Remove(path)
				}
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
	return nil, fmt.Errorf("--out %s: %w", quote.S(dir), errOutBusy)
}
