package conform

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/tlc"
)

// FixtureSums is the file, beside the committed TLC outputs of the replay
// (conform/testdata/replay, written by make fixtures), that holds the
// SHA-256 of every spec and cfg they were made from, as sha256sum writes
// them.
const FixtureSums = "specs.sha256"

// ReadFixtureSums reads a FixtureSums file: the SHA-256 of each file it
// names.
func ReadFixtureSums(path string) (map[string]string, error) {
	data, err := inputfile.Read(path, inputfile.MaxText)
	if err != nil {
		return nil, err
	}
	sums := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		sum, f, ok := strings.Cut(line, "  ")
		if !ok {
			return nil, fmt.Errorf("%s: %q is not a sha256sum line", path, line)
		}
		sums[f] = sum
	}
	return sums, nil
}

// FileSum is the SHA-256 of a file, as FixtureSums records it.
func FileSum(path string) (string, error) {
	data, err := inputfile.Read(path, inputfile.MaxText)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", sha256.Sum256(data)), nil
}

// CommittedOutput is TLC's committed output of model m in dir (one
// worker: the output every TLC run of the pinned release prints for the
// same spec and cfg), when it was made from m's spec and cfg as they are
// in specsDir: both are in dir's FixtureSums with their SHA-256 of now.
// ok is false, with no error, when dir has no output of m or the spec or
// the cfg changed since (make fixtures rewrites them): TLC must run.
func CommittedOutput(dir, specsDir string, m tlc.Model) (out []byte, ok bool, err error) {
	sums, err := ReadFixtureSums(filepath.Join(dir, FixtureSums))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	for _, f := range []string{m.Spec, m.Cfg} {
		sum, err := FileSum(filepath.Join(specsDir, f))
		if err != nil {
			return nil, false, err
		}
		if sums[f] != sum {
			return nil, false, nil
		}
	}
	out, err = inputfile.Read(filepath.Join(dir, m.Name+".out"), inputfile.MaxOutput)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}
