package conform

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/tlc"
)

// Verdict is TLC's judgement of one trace.
type Verdict struct {
	Trace    *Trace
	Accepted bool
	// Matched is, for a rejected trace whose prefix was searched
	// (Diagnose), the number of its lines the spec matched: line Matched
	// (0-based) is the first Go step no spec step can match (0: the
	// initial state does not match Init). -1 when not searched.
	Matched int
}

// Run is one TLC run over a group of traces.
type Run struct {
	Config impl.Config
	Traces int
	Steps  int // Go steps in its traces
	Wall   time.Duration
	// Cached says TLC's output was read from the runner's cache (Wall
	// is then the time of the run that printed it); judged as a fresh one.
	Cached  bool
	Output  []byte // TLC's output
	Verdict []Verdict
}

// Checker runs trace validation with TLC.
type Checker struct {
	TLC      *tlc.Runner
	SpecsDir string // the folder with DistLock*.tla and Trace*.tla
	Workers  int    // TLC workers; 0: auto (one per core)
	// HeapLimit bounds the heap of one TLC run, in bytes (tlc.HeapFor);
	// 0: half the machine's memory (tlc.MachineHeapLimit).
	HeapLimit int64
}

func (k *Checker) heapLimit() int64 {
	if k.HeapLimit > 0 {
		return k.HeapLimit
	}
	return tlc.MachineHeapLimit("/proc/meminfo")
}

// acceptedLine is what the trace specs print when a trace's last line is
// matched; matchedLine what they print, with Verbose, for every line.
var (
	acceptedLine = regexp.MustCompile(`^<<"fencelab-accepted", (\d+)>>$`)
	matchedLine  = regexp.MustCompile(`^<<"fencelab-matched", (\d+), (\d+)>>$`)
	finishedLine = regexp.MustCompile(`(?m)^Finished in .+ at \(`)
)

// ErrTLC is the error of a TLC run that did not complete: its traces are
// not judged (never read as accepted).
var ErrTLC = errors.New("TLC did not complete the trace run")

// Check validates traces, all of configuration c, in one TLC run. A trace
// whose abstraction failed (Trace.Unmapped) is rejected without TLC. A
// trace is accepted only if TLC completed without error and printed its
// acceptance; a TLC run that fails returns ErrTLC and no verdicts.
func (k *Checker) Check(ctx context.Context, c impl.Config, traces []*Trace) (*Run, error) {
	run := &Run{Config: c, Traces: len(traces)}
	var send []*Trace
	for _, t := range traces {
		run.Steps += t.Steps()
		if t.Unmapped == nil {
			send = append(send, t)
		}
	}
	accepted := map[int]bool{}
	if len(send) > 0 {
		out, err := k.tlc(ctx, c, send, false)
		run.Output = out.output
		run.Wall, run.Cached = out.wall, out.cached
		if err != nil {
			return run, err
		}
		for i := range out.accepted {
			accepted[i] = true
		}
	}
	j := 0
	for _, t := range traces {
		v := Verdict{Trace: t, Matched: -1}
		if t.Unmapped == nil {
			j++
			v.Accepted = accepted[j]
		} else {
			v.Matched = len(t.Lines)
		}
		run.Verdict = append(run.Verdict, v)
	}
	return run, nil
}

// Diagnose finds how far the spec follows a rejected trace: the number of
// its lines matched (the first unmatched line is the first Go step no spec
// step can match).
func (k *Checker) Diagnose(ctx context.Context, t *Trace) (int, error) {
	if t.Unmapped != nil {
		return len(t.Lines), nil
	}
	out, err := k.tlc(ctx, t.Config, []*Trace{t}, true)
	if err != nil {
		return 0, err
	}
	if out.accepted[1] {
		return 0, fmt.Errorf("trace %s: accepted when searched alone, rejected in its group", t.Name)
	}
	return out.matched[1], nil
}

type tlcOut struct {
	output   []byte
	wall     time.Duration
	cached   bool // read from the runner's cache
	accepted map[int]bool
	matched  map[int]int // trace → lines matched
}

func (k *Checker) tlc(ctx context.Context, c impl.Config, traces []*Trace, verbose bool) (*tlcOut, error) {
	res := &tlcOut{accepted: map[int]bool{}, matched: map[int]int{}}
	dir, err := os.MkdirTemp("", "fencelab-conform-")
	if err != nil {
		return res, fmt.Errorf("creating a temporary folder: %w", err)
	}
	defer os.RemoveAll(dir)
	spec, traceSpec := distlockspec.Spec(c.Design)+".tla", distlockspec.TraceSpec(c.Design)+".tla"
	for _, name := range []string{spec, traceSpec} {
		data, err := inputfile.Read(filepath.Join(k.SpecsDir, name), inputfile.MaxText)
		if err != nil {
			return res, fmt.Errorf("reading the spec: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return res, fmt.Errorf("copying %s: %w", name, err)
		}
	}
	data := Module(c, traces)
	// The heap follows the traces: their module is what TLC holds.
	heap, err := tlc.HeapFor(int64(len(data)), k.heapLimit())
	if err != nil {
		return res, err
	}
	files := map[string]string{DataModule + ".tla": data, "Trace.cfg": distlockspec.TraceCfg(c, verbose)}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return res, fmt.Errorf("writing %s: %w", name, err)
		}
	}
	workers := "auto"
	if k.Workers > 0 {
		workers = strconv.Itoa(k.Workers)
	}
	// Through the runner's cache: the key holds the trace module (the
	// traces' data), the trace spec and the spec, Trace.cfg and these
	// options; the metadir is named relative to dir, so no key names it.
	ran, err := k.TLC.Validate(ctx, dir, heap, traceSpec, "Trace.cfg", "-workers", workers, "-metadir", "states")
	out, code := ran.Output, ran.Code
	res.wall, res.output, res.cached = ran.Wall, out, ran.Cached
	if err != nil {
		return res, fmt.Errorf("%w: %w", ErrTLC, err)
	}
	if !bytes.Contains(out, []byte("TLC2 Version")) {
		// Not TLC speaking (a damaged jar, a java that is not Java): the
		// traces were not checked, and the tools are at fault.
		return res, fmt.Errorf("%w: what java printed is not TLC's output (exit %d): %w", ErrTLC, code, tlc.ErrNotTLC)
	}
	// Holds only in TLC's words, its result and its closing line: an
	// output cut short is no verdict, whatever the exit code.
	if code != 0 || !bytes.Contains(out, []byte("Model checking completed. No error has been found.")) || !finishedLine.Match(out) {
		return res, fmt.Errorf("%w (exit %d): %s", ErrTLC, code, tlc.ErrorDetail(out))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := acceptedLine.FindStringSubmatch(line); m != nil {
			i, _ := strconv.Atoi(m[1])
			if i >= 1 && i <= len(traces) {
				res.accepted[i] = true
			}
		} else if m := matchedLine.FindStringSubmatch(line); m != nil {
			i, _ := strconv.Atoi(m[1])
			l, _ := strconv.Atoi(m[2])
			if l > res.matched[i] {
				res.matched[i] = l
			}
		}
	}
	return res, nil
}
