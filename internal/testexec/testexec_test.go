package testexec

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoTextFileBusy writes and runs programs while other goroutines
// start processes all the time: with os.WriteFile in place of Write a
// run fails with "text file busy" within a few hundred rounds.
func TestNoTextFileBusy(t *testing.T) {
	dir := t.TempDir()
	stop := make(chan struct{})
	var forks sync.WaitGroup
	for range 4 {
		forks.Add(1)
		go func() {
			defer forks.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = exec.Command("/bin/true").Run()
			}
		}()
	}
	defer func() { close(stop); forks.Wait() }()
	rounds := 300
	if testing.Short() {
		rounds = 100
	}
	for i := range rounds {
		path := filepath.Join(dir, fmt.Sprintf("prog%d", i))
		Write(t, path, []byte("#!/bin/sh\nexit 0\n"))
		require.NoError(t, exec.Command(path).Run(), "round %d", i)
	}
}

// TestProgramsAreWrittenHere fails when a Go file of either module
// writes an executable file with os.WriteFile, which brings back the
// "text file busy" race Write closes.
func TestProgramsAreWrittenHere(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	direct := regexp.MustCompile(`os\.WriteFile\([^\n]*0o?7[0-7][0-7]\)`)
	var found []string
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.Dir(path) == mustAbs(t, ".") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range direct.FindAll(src, -1) {
			rel, _ := filepath.Rel(root, path)
			found = append(found, rel+": "+string(m))
		}
		return nil
	}))
	require.NotEmpty(t, root)
	assert.Empty(t, found, "write programs with testexec.Write (or WriteFile): os.WriteFile lets a fork in between keep the file open")
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	require.NoError(t, err)
	return abs
}
