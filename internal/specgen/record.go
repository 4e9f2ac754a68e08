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

// Change is one distinct state count Record found different from its pin.
type Change struct {
	Design, Key, Was, Now string // Was is "" for a model not pinned yet
}

// Record reads the TLC outputs a run of fencelab tlc --out outDir left
// (outDir/<model>/tlc.out) and returns the figures of each row it
// changes, with the distinct state counts of its ok models replaced by
// TLC's, the changes, and how many counts it compared. Only a complete run in which TLC found no error, of the model's
// own spec, counts; a model without an output keeps its pin. The caller
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
				if tm.Violates != "" {
					continue
				}
				name := tm.Name(s)
				n, found, err := distinctStates(filepath.Join(outDir, name, "tlc.out"), s.Module)
				if err != nil {
					return nil, nil, 0, fmt.Errorf("model %s: %w", name, err)
				}
				key, now := StatesKey(name), strconv.FormatInt(n, 10)
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
