package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/fencelab/fencelab/live/server"
)

// A run's data folder is a fencelab-live-* folder in the temporary folder
// (etcd's data, MariaDB's: up to 125 MB). The run removes it on every
// path it lives through; a SIGKILL leaves it behind. So each one names
// its owner (ownerFile: the process's pid and start time, which together
// survive pid reuse), and the next run or matrix removes every one whose
// owner is dead (SweepRunDirs).
const (
	runDirPrefix = "fencelab-live-"
	ownerFile    = ".fencelab-owner"
)

// makeRunDir makes a run's data folder in root ("": the system's
// temporary folder) and writes its owner file.
func makeRunDir(root string) (string, error) {
	dir, err := os.MkdirTemp(root, runDirPrefix)
	if err != nil {
		return "", fmt.Errorf("data folder: %w", err)
	}
	pid := os.Getpid()
	start, ok := server.ProcStartTime(pid)
	if !ok {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("data folder: cannot read this process's start time in /proc/%d/stat", pid)
	}
	// Written whole then renamed: a sweep never reads half an owner.
	tmp := filepath.Join(dir, ownerFile+".tmp")
	err = os.WriteFile(tmp, []byte(fmt.Sprintf("%d %d\n", pid, start)), 0o600)
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, ownerFile))
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("data folder: %w", err)
	}
	return dir, nil
}

// readOwner reads a run folder's owner: ok only for an owner file as
// makeRunDir writes it (a regular file, not a link, of "pid starttime").
func readOwner(dir string) (pid int, start uint64, ok bool) {
	path := filepath.Join(dir, ownerFile)
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() > 64 {
		return 0, 0, false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	f := strings.Fields(string(b))
	if len(f) != 2 || !strings.HasSuffix(string(b), "\n") {
		return 0, 0, false
	}
	pid, perr := strconv.Atoi(f[0])
	start, serr := strconv.ParseUint(f[1], 10, 64)
	if perr != nil || serr != nil || pid <= 0 {
		return 0, 0, false
	}
	return pid, start, true
}

// SweepRunDirs removes the run folders in root ("": the system's
// temporary folder) that a dead process left: a fencelab-live-* folder
// (itself, never a symbolic link) of this user whose owner file names a
// process that is gone, or whose pid now names another process. Anything
// else stays: a folder without an owner file is not known to be ours.
// It returns the folders removed.
func SweepRunDirs(root string) ([]string, error) {
	if root == "" {
		root = os.TempDir()
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("sweeping %s: %w", root, err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), runDirPrefix) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		info, err := os.Lstat(dir)
		if err != nil || !info.IsDir() { // a link is not a folder here
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
			continue
		}
		pid, start, ok := readOwner(dir)
		if !ok {
			continue
		}
		if now, alive := server.ProcStartTime(pid); alive && now == start {
			continue
		}
		// RemoveAll removes links inside the folder, never what they
		// point to.
		if err := os.RemoveAll(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("sweeping %s: %w", dir, err))
			continue
		}
		removed = append(removed, dir)
	}
	return removed, errors.Join(errs...)
}
