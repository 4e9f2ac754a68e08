package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/store"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
)

// HistoryCheck is a history file (docs/history.md) judged by the live
// judge (CheckHistory): the same properties as a live run's, each beside
// what the design row's models say.
type HistoryCheck struct {
	File      *history.File
	Design    impl.Design
	TTL       time.Duration
	Judgement *check.Judgement
	// Verdicts are the judgement's, in check.Properties order, each with
	// the row's expected verdict (as a saved run's verdicts.json has them).
	Verdicts []savedVerdict
	// Resource says where the resource's log came from: the file's, or
	// rebuilt from the operations' returns, or why it could not be had
	// (the properties read from it are then unknown).
	Resource string
	// Unexplained is the judge's harness error of a live run: an overlap
	// of beliefs that no fault of the history's log explains. A history
	// from elsewhere need not list its faults, so it is said, not refused.
	Unexplained error
	// res is the resource's log the judge read (nil: unknown).
	res *impl.Resource
}

// ReadHistoryFile reads the history file path, bounded; its errors name
// the file and, for a malformed line, the line.
func ReadHistoryFile(path string) (*history.File, error) {
	data, err := inputfile.Read(path, inputfile.MaxOutput)
	if err != nil {
		return nil, fmt.Errorf("%.200s: %w", path, err)
	}
	f, err := history.ReadFile(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%.200s: %w", path, err)
	}
	return f, nil
}

// ErrNoDesign is CheckHistory's error for a history that names no design
// row when none is given: the row decides what the resource's log and the
// verdicts mean.
var ErrNoDesign = errors.New("no design row: give --design ROW (fencelab-live list names them) or a \"design\" in the history's header")

// CheckHistory judges history file f as the live judge judges a run: row
// design (its name; "" for the file's own), Porcupine's timeout. The
// resource's log is the file's, replayed by a resource of its fencing, or
// else rebuilt from the operations in the order they returned; when
// neither explains what the clients saw, the properties read from the log
// are unknown (said in Resource), never a verdict made up. The error is a
// history that cannot be judged: no row, an unknown one, no lease.
func CheckHistory(f *history.File, design string, timeout time.Duration) (*HistoryCheck, error) {
	where := "--design"
	if design == "" {
		design, where = f.Design, "line 1"
	}
	if design == "" {
		return nil, fmt.Errorf("line 1: %w", ErrNoDesign)
	}
	d, err := impl.ParseDesign(design)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if f.TTL <= 0 {
		return nil, errors.New("line 1: the header has no ttl_ns, the lease the clients asked for, which tells a grant's validity (or give --ttl)")
	}
	mode := d.Mode()
	if f.Fence != "" {
		if mode, err = parseMode(f.Fence); err != nil {
			return nil, fmt.Errorf("line 1: %w", err)
		}
	}
	h := f.History
	h.Records = append([]history.Record(nil), f.History.Records...)
	h.Sort()
	c := &HistoryCheck{File: f, Design: d, TTL: f.TTL}
	res, why := resourceOf(f, &h, mode)
	c.Resource = why
	known := res != nil
	if !known {
		empty := impl.NewResource(impl.FenceNone)
		res = &empty
	}
	j, jerr := check.Judge(&h, d, f.TTL, res, timeout)
	if !known {
		for _, p := range fromResourceLog() {
			if check.Expected(d, p) != verdict.NotApplicable {
				j.Verdicts.Put(verdict.Verdict{Property: p, Status: verdict.Unknown, Covered: "no resource log", Detail: why})
			}
		}
	}
	if err := check.SelfCheck(j); err != nil {
		return nil, fmt.Errorf("the judge: %w", err)
	}
	c.Judgement, c.Unexplained = j, jerr
	if known {
		c.res = res
	}
	c.Verdicts = verdictsOf(d, h.Unchecked, j)
	return c, nil
}

// fromResourceLog are the properties the judge reads from the resource's
// log (impl's invariants but those about the clients' beliefs and acts).
func fromResourceLog() []string {
	var ps []string
	for _, p := range check.Properties() {
		switch p {
		case impl.AtMostOneClientHoldLock, impl.NoActionPastValidity, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable:
		default:
			ps = append(ps, p)
		}
	}
	return ps
}

// resourceOf is the resource's log of f (sorted history h) and how it was
// had; nil with the reason when it cannot be.
func resourceOf(f *history.File, h *history.History, mode impl.FenceMode) (*impl.Resource, string) {
	if f.Resource == nil {
		res, err := rebuiltLog(h, mode)
		if err != nil {
			return nil, "not in the history, and " + err.Error()
		}
		return res, fmt.Sprintf("rebuilt from the operations in the order they returned (%s, fencing %s)", check.ResourceCovered(res), mode)
	}
	ops := make([]impl.Op, len(f.Resource))
	for i, a := range f.Resource {
		ops[i] = impl.Op{Client: impl.ClientNode(a.Client), Kind: impl.OpRead, Accepted: a.Accepted, Token: a.Token, Value: a.Value}
		if a.Op == history.OpWrite {
			ops[i].Kind = impl.OpWrite
		}
	}
	res, err := store.Replay(mode, ops)
	if err != nil {
		return nil, "the history's is not what a resource fencing " + mode.String() + " does: " + err.Error()
	}
	return res, fmt.Sprintf("the history's (%s, fencing %s)", check.ResourceCovered(res), mode)
}

// Unexpected lists the verdicts violated where the row says the property
// holds: a history's failure (exit 1).
func (c *HistoryCheck) Unexpected() []string {
	var ps []string
	for _, v := range c.Verdicts {
		if v.Status == verdict.Violated.String() && v.Expected == verdict.Holds.String() {
			ps = append(ps, v.Property)
		}
	}
	return ps
}

// Write prints the check: the history, where the resource's log came
// from, whether a fault took effect, each verdict beside the row's.
func (c *HistoryCheck) Write(w io.Writer, name string) error {
	h, j := &c.File.History, c.Judgement
	fmt.Fprintf(w, "%s: %s, %s, %s; row %s, lease %v\n", name, words.Count(h.Clients, "client"), words.Count(len(h.Records), "record"), words.Count(len(h.Faults), "fault"), c.Design, c.TTL)
	fmt.Fprintf(w, "  the resource's log: %s\n", c.Resource)
	effect := "no fault of the history took effect (a verdict not violated is then unknown)"
	if j.TookEffect {
		effect = "a fault took effect: " + j.Effect
	}
	fmt.Fprintf(w, "  %s; %s committed, %s refused\n", effect, words.Count(j.Committed, "section"), words.Count(j.Refused, "operation"))
	if f := c.File.Fence; f != "" && f != c.Design.Mode().String() {
		fmt.Fprintf(w, "  note: the history's resource fences %s, row %s's fences %s: RegisterLinearizable holds it to the row's rule\n", f, c.Design, c.Design.Mode())
	}
	if c.Unexplained != nil {
		fmt.Fprintf(w, "  note: %v\n", c.Unexplained)
	}
	writeVerdicts(w, c.Verdicts)
	if bad := c.Unexpected(); len(bad) > 0 {
		_, err := fmt.Fprintf(w, "  VIOLATED where row %s says it holds: %s\n", c.Design, strings.Join(bad, ", "))
		return err
	}
	_, err := fmt.Fprintf(w, "  every verdict is what row %s allows\n", c.Design)
	return err
}

// writeVerdicts prints verdicts one a line: expected, judged, covered,
// detail.
func writeVerdicts(w io.Writer, vs []savedVerdict) {
	for _, v := range vs {
		line := fmt.Sprintf("  %-24s expected %-9s judged %-9s %s", v.Property, v.Expected, v.Status, v.Covered)
		if v.Detail != "" {
			line += ": " + v.Detail
		}
		fmt.Fprintln(w, line)
	}
}

// WritePages writes the check's pages into dir (created whole with its
// first file): the trace (trace.FileNames), Porcupine's two pages when
// it ran, and the verdicts; it returns the files' names.
func (c *HistoryCheck) WritePages(dir, title string) ([]string, error) {
	h, j := &c.File.History, c.Judgement
	service := c.File.Service
	if service == "" {
		service = "lock"
	}
	sorted := *h
	sorted.Records = append([]history.Record(nil), h.Records...)
	sorted.Sort()
	anns := annotations(&sorted)
	extras := []trace.File{{Name: VerdictsFile, Write: func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Row      string         `json:"row"`
			Resource string         `json:"resource"`
			Verdicts []savedVerdict `json:"verdicts"`
		}{c.Design.String(), c.Resource, c.Verdicts})
	}}}
	if j.SectionsCheck != nil {
		extras = append(extras, trace.File{Name: check.PorcupineFile, Write: func(w io.Writer) error { return j.SectionsCheck.WriteHTML(w, anns) }})
	}
	if j.ResourceCheck != nil {
		extras = append(extras, trace.File{Name: check.RegisterFile, Write: func(w io.Writer) error { return j.ResourceCheck.WriteHTML(w, anns) }})
	}
	return trace.WriteFiles(dir, traceOf(title, service, &sorted, j), extras...)
}
