package specgen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fencelab/fencelab/internal/atomicfile"
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
// changes, with the distinct state counts of its ok models, and the
// counterexample lengths and the distinct states at the stop of its
// invariant violations, replaced by TLC's; the changes; and how many
// figures it compared. Only a complete run of the model's own spec counts:
// one in which TLC found no error for an ok model, one that violates the
// model's invariant for an invariant violation; a model without an output
// keeps its pins, and a liveness violation pins nothing (its lasso differs
// from run to run). The caller
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
				figs, err := modelFigures(out, s.Module, tm.Violates, name)
				if err != nil {
					return nil, nil, 0, fmt.Errorf("model %s: %w", name, err)
				}
				for _, f := range figs {
					compared++
					if pins[f.key] == f.value {
						continue
					}
					if updated[r.Design] == nil {
						updated[r.Design] = golden.Figures{}
						for k, v := range pins {
							updated[r.Design][k] = v
						}
					}
					changes = append(changes, Change{Design: r.Design, Key: f.key, Was: pins[f.key], Now: f.value})
					updated[r.Design][f.key] = f.value
				}
			}
		}
	}
	return updated, changes, compared, nil
}

// figure is one pinned figure: its golden key and value.
type figure struct{ key, value string }

// modelFigures are the figures of the TLC output at path, a complete run
// of module: for an ok model (violates "") one that found no error, and
// its distinct state count; for an invariant violation one that found
// invariant violated, its counterexample's length and the distinct states
// TLC had found when it stopped. None when there is no output.
func modelFigures(path, module, violates, name string) ([]figure, error) {
	out, found, err := readOutput(path)
	if !found || err != nil {
		return nil, err
	}
	switch {
	case violates == "" && (!out.Complete || !out.NoError):
		return nil, fmt.Errorf("%s: not a complete run in which TLC found no error", path)
	case !out.Complete:
		return nil, fmt.Errorf("%s: not a complete run", path)
	case out.Module != module:
		return nil, fmt.Errorf("%s: a run of %q, not of %s", path, out.Module, module)
	case violates != "" && out.Invariant != violates:
		return nil, fmt.Errorf("%s: TLC reported %s violated, not %s", path, quote.Q(out.Invariant), violates)
	case violates != "" && len(out.States) == 0:
		return nil, fmt.Errorf("%s: TLC printed no counterexample", path)
	case out.Distinct <= 0:
		return nil, fmt.Errorf("%s: TLC reported no distinct state count", path)
	}
	count := figure{StatesKey(name), strconv.FormatInt(out.Distinct, 10)}
	if violates == "" {
		return []figure{count}, nil
	}
	return []figure{{CounterexampleKey(name), strconv.Itoa(len(out.States))}, count}, nil
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

// RecordGolden writes into the rows' golden files under root the
// distinct state counts of the TLC outputs under outDir that differ from
// their pins (specgen -record), and prints each change and a summary to w.
func RecordGolden(w io.Writer, root, outDir string) error {
	updated, changes, compared, err := Record(Rows(), outDir, GoldenFigures(root))
	if err != nil {
		return err
	}
	for _, c := range changes {
		was := c.Was
		if was == "" {
			was = "(none)"
		}
		fmt.Fprintf(w, "specgen: %s/%s.golden: %s %s -> %s\n", golden.Dir, c.Design, c.Key, was, c.Now)
	}
	for design, figures := range updated {
		path := filepath.Join(root, filepath.FromSlash(golden.Dir), design+".golden")
		if err := atomicfile.WriteFile(path, func(f io.Writer) error {
			_, err := f.Write(golden.Format(design, figures))
			return err
		}); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "specgen: %d figures (distinct state counts of ok models; counterexample lengths and distinct states at the stop of invariant violations) found in %s, %d differ from their pins\n", compared, outDir, len(changes))
	return nil
}
