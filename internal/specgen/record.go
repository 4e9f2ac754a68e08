package specgen

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fencelab/fencelab/internal/golden"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/tlc"
)

// Change is one figure (a distinct state count, a counterexample's length)
// Record found different from its pin.
type Change struct {
	Design, Key, Was, Now string // Was is "" for a model not pinned yet
}

// Record reads the TLC outputs a run of fencelab tlc --out outDir left
// (outDir/<model>/tlc.out) and returns the figures of each row it
// changes, with the distinct state counts of its ok models and the
// counterexample lengths of its invariant violations replaced by TLC's,
// the changes, and how many figures it compared. Only a complete run of the
// model's own spec counts: one in which TLC found no error for an ok
// model, one that violates the model's invariant for an invariant
// violation; a model without an output keeps its pin, and a liveness
// violation pins nothing (its lasso differs from run to run). The caller
// writes the figures back (golden.Format) and regenerates.
func Record(rows []Row, outDir string, figures Figures) (map[string]golden.Figures, []Change, int, error) {
	if st, err := os.Stat(outDir); err != nil || !st.IsDir() {
		return nil, nil, 0, fmt.Errorf("%s is not a folder of TLC outputs (fencelab tlc --out)", quote.S(outDir))
	}
	updated := map[string]golden.Figures{}
	var changes []Change
	compared := 0
	for _, r := range rows {
		pins, err := figures(r.Design)
		if err != nil {
			return nil, nil, 0, err
		}
		for _, s := range r.Specs {
			for _, tm := range s.Models {
				if tm.Violates != "" && !isInvariantModel(tm) {
					continue
				}
				name := tm.Name(s)
				out := filepath.Join(outDir, name, "tlc.out")
				var n int64
				var found bool
				if tm.Violates == "" {
					n, found, err = distinctStates(out, s.Module)
				} else {
					n, found, err = counterexampleLength(out, s.Module, tm.Violates)
				}
				if err != nil {
					return nil, nil, 0, fmt.Errorf("model %s: %w", name, err)
				}
				key, now := pinKey(name, tm), strconv.FormatInt(n, 10)
				if !found {
					continue
				}
				compared++
				if pins[key] == now {
					continue
				}
				if updated[r.Design] == nil {
					updated[r.Design] = golden.Figures{}
					for k, v := range pins {
						updated[r.Design][k] = v
					}
				}
				changes = append(changes, Change{Design: r.Design, Key: key, Was: pins[key], Now: now})
				updated[r.Design][key] = now
			}
		}
	}
	return updated, changes, compared, nil
}

// counterexampleLength is the number of states in the counterexample of
// the TLC output at path, a complete run of module that found invariant
// violated; false when there is no output.
func counterexampleLength(path, module, invariant string) (int64, bool, error) {
	out, found, err := readOutput(path)
	if !found || err != nil {
		return 0, found, err
	}
	switch {
	case !out.Complete:
		return 0, false, fmt.Errorf("%s: not a complete run", path)
	case out.Module != module:
		return 0, false, fmt.Errorf("%s: a run of %q, not of %s", path, out.Module, module)
	case out.Invariant != invariant:
		return 0, false, fmt.Errorf("%s: TLC reported %s violated, not %s", path, quote.Q(out.Invariant), invariant)
	case len(out.States) == 0:
		return 0, false, fmt.Errorf("%s: TLC printed no counterexample", path)
	}
	return int64(len(out.States)), true, nil
}

// readOutput parses the TLC output at path; false when there is none.
func readOutput(path string) (*tlc.Output, bool, error) {
	data, err := inputfile.Read(path, inputfile.MaxText)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	out, err := tlc.ParseOutput(bytes.NewReader(data))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return out, true, nil
}

// distinctStates is the distinct state count of the TLC output at path, a
// run of module that found no error; false when there is no output.
func distinctStates(path, module string) (int64, bool, error) {
	data, err := inputfile.Read(path, inputfile.MaxText)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	out, err := tlc.ParseOutput(bytes.NewReader(data))
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case !out.Complete || !out.NoError:
		return 0, false, fmt.Errorf("%s: not a complete run in which TLC found no error", path)
	case out.Module != module:
		return 0, false, fmt.Errorf("%s: a run of %q, not of %s", path, out.Module, module)
	case out.Distinct <= 0:
		return 0, false, fmt.Errorf("%s: TLC reported no distinct state count", path)
	}
	return out.Distinct, true, nil
}
