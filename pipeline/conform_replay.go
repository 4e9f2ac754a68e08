package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fencelab/fencelab/conform"
	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/trace"
)

// replaySummary is what the replay part of fencelab conform found.
type replaySummary struct {
	replayed, notGo, failed int
	// committed counts the models replayed from their committed TLC
	// output (conform.CommittedOutput).
	committed int
	tlcTime   time.Duration
	// rendered are the folders of the departures rendered.
	rendered []string
}

// replayInput is a model's counterexample read from --replay-from,
// checked to be its TLC output, with the Go configuration it replays in.
type replayInput struct {
	config impl.Config
	out    *tlc.Output
}

// loadReplayFrom reads and checks, before conform starts anything, the
// TLC output in from (a fencelab tlc --out folder) of every model of the
// default run expected to be violated whose system Go runs: a folder
// without one, or with a file that is not TLC's complete output of that
// model, is bad input. It returns the outputs by model name.
func loadReplayFrom(specs, from string) (map[string]replayInput, error) {
	if fi, err := os.Stat(from); err != nil || !fi.IsDir() {
		return nil, BadInput("--replay-from %s is not a folder of fencelab tlc's outputs", quote.S(from))
	}
	m, err := distlockspec.LoadManifest(filepath.Join(specs, "models.json"))
	if err != nil {
		return nil, BadInput("%v", err)
	}
	inputs := map[string]replayInput{}
	for _, mod := range m.Default() {
		if mod.Expected == "ok" {
			continue
		}
		if _, err := conform.ModelReplayable(specs, mod); errors.Is(err, distlockspec.ErrNotGoSystem) {
			continue
		}
		output, err := inputfile.Read(filepath.Join(from, mod.Name, "tlc.out"), inputfile.MaxOutput)
		if err != nil {
			return nil, BadInput("--replay-from %s: no TLC output of %s (run fencelab tlc --out %s first): %v", quote.S(from), mod.Name, quote.S(from), WithoutPath(err))
		}
		c, out, err := conform.ParseModelOutput(specs, mod, output)
		var other *conform.OtherOutputError
		switch {
		case errors.As(err, &other):
			// Another spec's, property's or model's output says nothing
			// of the Go system: the file is at fault, not Go.
			return nil, BadInput("--replay-from %s: %s/tlc.out is %v", quote.S(from), mod.Name, err)
		case err != nil:
			return nil, BadInput("--replay-from %s: %v", quote.S(from), err)
		}
		inputs[mod.Name] = replayInput{config: c, out: out}
	}
	return inputs, nil
}

// checkFixtures checks, before conform starts anything, the folder of
// committed TLC outputs the replay reads (conform.CommittedOutput): a
// folder with a readable FixtureSums; "" reads none.
func checkFixtures(dir string) error {
	if dir == "" {
		return nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return BadInput("--fixtures %s is not a folder of committed TLC outputs (--fixtures \"\" runs TLC for every model)", quote.S(dir))
	}
	if _, err := conform.ReadFixtureSums(filepath.Join(dir, conform.FixtureSums)); err != nil {
		return BadInput("--fixtures %s: %v", quote.S(dir), err)
	}
	return nil
}

// replayCounterexamples is conform's replay, TLA+ → Go: every model of the
// default run expected to be violated is checked by TLC (one worker, so
// the counterexample is the same on every run), or its output is taken
// from from (loadReplayFrom's, when not nil), and its counterexample is
// replayed in the Go actors (conform.ReplayModel). It prints one row per
// model; a counterexample Go departs from is a failure, rendered like a
// counterexample into outDir (the Go run up to the departure), and so is
// a replay that fails in any other way: the run goes on to its summary.
func replayCounterexamples(ctx context.Context, e *Env, runner *tlc.Runner, specs string, from map[string]replayInput, fixtures, outDir string) (replaySummary, error) {
	var sum replaySummary
	w := e.Stdout
	m, err := distlockspec.LoadManifest(filepath.Join(specs, "models.json"))
	if err != nil {
		return sum, BadInput("%v", err)
	}
	step, stepsDone := NewStepProgress(e, 0, "conform replay", "model")
	defer stepsDone()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "replayed in Go\tTLC steps\tthe Go system")
	for _, mod := range m.Default() {
		if mod.Expected == "ok" {
			continue
		}
		if _, err := conform.ModelReplayable(specs, mod); errors.Is(err, distlockspec.ErrNotGoSystem) {
			sum.notGo++
			fmt.Fprintf(tw, "%s\t—\tskipped: %s\n", mod.Name, skipReason(err))
			continue
		}
		var r *conform.Replayed
		var committed []byte
		if from == nil && fixtures != "" {
			var ok bool
			if committed, ok, err = conform.CommittedOutput(fixtures, specs, mod); err != nil {
				return sum, BadInput("--fixtures %s: %v", quote.S(fixtures), err)
			} else if !ok {
				committed = nil
			}
		}
		mark := ""
		switch {
		case from != nil:
			in := from[mod.Name]
			r, err = conform.Replay(in.config, in.out, mod.Property)
		case committed != nil:
			sum.committed++
			mark = committedMark
			r, err = conform.ReplayModel(specs, mod, committed)
		default:
			res, err := runner.Run(ctx, specs, mod)
			if ctx.Err() != nil {
				return sum, Stopped(ctx)
			}
			if errors.Is(err, tlc.ErrNotTLC) {
				return sum, BadInput("%s: %v", mod.Name, err)
			}
			if err != nil {
				return sum, Failed("%s: %v", mod.Name, err)
			}
			if res.ParseErr != nil {
				// The tools are broken (a damaged jar, a java that is not
				// Java): nothing is known of the model.
				return sum, BadInput("%s: java printed something that is not TLC's output (%v): check the jar (%s) and java (%s)", mod.Name, res.ParseErr, quote.S(runner.Jar), quote.S(runner.Java))
			}
			sum.tlcTime += res.Wall
			if res.Mismatch != "" {
				return sum, Failed("%s: TLC's result is not the manifest's: %s", mod.Name, res.Mismatch)
			}
			mark = cachedMark(res.Cached)
			r, err = conform.ReplayModel(specs, mod, res.Output)
		}
		step(mod.Name + mark)
		var re *conform.ReplayError
		var other *conform.OtherOutputError
		switch {
		case errors.As(err, &other):
			sum.failed++
			fmt.Fprintf(tw, "%s\t\tDEPARTS from TLC's counterexample: TLC's own run is %v\n", mod.Name, err)
		case errors.Is(err, distlockspec.ErrNotGoSystem):
			sum.notGo++
			fmt.Fprintf(tw, "%s\t—\tskipped: %s\n", mod.Name, skipReason(err))
		case errors.As(err, &re):
			sum.failed++
			fmt.Fprintf(tw, "%s\t\tDEPARTS from TLC's counterexample at %v\n", mod.Name, re)
			dir, err := renderDeparture(e.Disk, specs, outDir, mod, re)
			if err != nil {
				return sum, err
			}
			sum.rendered = append(sum.rendered, dir)
		case err != nil:
			sum.failed++
			fmt.Fprintf(tw, "%s\t\tFAILS: %s\n", mod.Name, OneLine(err.Error()))
		default:
			sum.replayed++
			fmt.Fprintf(tw, "%s%s\t%d\tviolated at step %d\n", mod.Name, mark, r.Steps, r.At)
		}
	}
	return sum, tw.Flush()
}

// committedMark marks a model replayed from its committed TLC output.
const committedMark = " (committed)"

// skipReason is why a model's counterexample is not replayed, short enough
// for the table: the reason without its details in parentheses.
func skipReason(err error) string {
	why := strings.TrimSuffix(err.Error(), ": "+distlockspec.ErrNotGoSystem.Error())
	if i := strings.Index(why, " ("); i > 0 {
		why = why[:i]
	}
	return why
}

// renderDeparture writes the Go run of a counterexample that departs from
// TLC's (re) like a counterexample, into a folder of outDir named
// replay_<model>, and returns the folder ("" when outDir is "").
func renderDeparture(disk *atomicfile.Disk, specs, outDir string, mod tlc.Model, re *conform.ReplayError) (string, error) {
	if outDir == "" {
		return "", nil
	}
	c, err := conform.ModelReplayable(specs, mod)
	if err != nil {
		return "", Failed("%s: %v", mod.Name, err)
	}
	t, err := conform.RenderDeparture(c, mod.Name, re)
	if err != nil {
		return "", Failed("%s: %v", mod.Name, err)
	}
	dir := filepath.Join(outDir, "replay_"+mod.Name)
	if _, err := trace.WriteFilesTo(disk.Folder(dir), t); err != nil {
		return "", CouldNotSave(err)
	}
	return dir, nil
}
