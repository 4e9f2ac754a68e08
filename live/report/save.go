// Package report is what a live run leaves for people: its saved folder
// (SaveRun: the history, the fault log, the verdicts and what the judge
// read for them, which Recheck judges again, the schedule,
// Porcupine's pages, the trace pictures) and, where the run maps onto the
// simulator, the simulator's telling of the same story (TellSim).
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
)

// The files of a saved run besides the trace's (trace.FileNames).
const (
	HistoryFile  = "history.jsonl"
	FaultsFile   = "faults.txt"
	VerdictsFile = "verdicts.json"
	ScheduleFile = "schedule.json"
	// StoryFile tells the story the schedule follows: the model's
	// counterexample and the live schedule it maps to, or why the run
	// keeps the classic one (run.Config.StoryText).
	StoryFile = "story.txt"
	ErrorFile = "error.txt"
)

// savedFiles are the names SaveRun writes into a run's folder.
func savedFiles() []string {
	return append(trace.FileNames(), HistoryFile, FaultsFile, VerdictsFile, JudgedFile, ScheduleFile, StoryFile, check.PorcupineFile, check.RegisterFile, ErrorFile, SimScheduleFile, SimCommandFile)
}

// savedVerdicts is verdicts.json.
type savedVerdicts struct {
	Setup      string         `json:"setup"`
	Row        string         `json:"row"`
	Fault      history.Fault  `json:"fault"`
	Nemesis    string         `json:"nemesis"`
	Seed       uint64         `json:"seed"`
	Versions   string         `json:"versions"`
	Library    string         `json:"library"`
	TookEffect bool           `json:"took_effect"`
	Effect     string         `json:"effect,omitempty"`
	Overlap    string         `json:"overlap,omitempty"`
	Committed  int            `json:"committed"`
	Refused    int            `json:"refused"`
	Verdicts   []savedVerdict `json:"verdicts"`
	Error      string         `json:"harness_error,omitempty"`

	// Witness is check.Judgement.Witness: the service's safety mechanism
	// at work, what a setup's claim of safety needs from the run.
	Witness string `json:"witness,omitempty"`
}

// savedVerdict is one property's verdict in verdicts.json, its status in
// words.
type savedVerdict struct {
	Property string `json:"property"`
	Expected string `json:"expected"`
	Status   string `json:"status"`
	Covered  string `json:"covered,omitempty"`
	Detail   string `json:"detail,omitempty"`
}

// verdictsOf is a judgement's verdicts as verdicts.json has them, in
// check.Properties order.
func verdictsOf(d impl.Design, unchecked bool, j *check.Judgement) []savedVerdict {
	var vs []savedVerdict
	for _, p := range check.Properties() {
		v := j.Verdicts.Get(p)
		vs = append(vs, savedVerdict{Property: p, Expected: check.ExpectedOf(d, unchecked, p).String(), Status: v.Status.String(), Covered: v.Covered, Detail: v.Detail})
	}
	return vs
}

// historyFileOf is the history file (docs/history.md) of a run: its
// history with the setup's service, row and lease, and the resource's log
// as the judge read it (res nil: none, a run that ended in a harness
// error before its resource was read).
func historyFileOf(rc run.Config, h *history.History, res *impl.Resource) *history.File {
	f := &history.File{Service: rc.Setup.Service, Design: rc.Setup.Design.String(), TTL: rc.Setup.TTL, History: *h}
	if res != nil {
		f.Fence = res.Mode().String()
		f.Resource = []history.Access{}
		for _, op := range res.Log() {
			f.Resource = append(f.Resource, history.Access{Client: op.Client.ClientIndex(), Op: op.Kind.String(), Accepted: op.Accepted, Token: op.Token, Value: op.Value})
		}
	}
	return f
}

// RunDir is where run seed of setup s under fault f is saved under out.
func RunDir(out string, s setup.Setup, f history.Fault, seed uint64) string {
	return filepath.Join(out, s.Service, s.Name, string(f), fmt.Sprintf("run-%d", seed))
}

// SaveRun writes a run's files into RunDir: the history, the fault log,
// the verdicts, everything the judge read for them (JudgedFile), the
// schedule, Porcupine's pages and the trace picture,
// and, where the run's faults map onto the simulator's (TellSim), the
// simulator's schedule of the same story and the command that runs it;
// faults.txt says which, or why not.
// The folder appears whole or not at all (atomicfile.Stage);
// a folder already there is replaced only if it holds nothing but files
// SaveRun writes. harnessErr, if any, goes into error.txt.
func SaveRun(out string, rc run.Config, res *run.Result, harnessErr error) (dir string, err error) {
	dir = RunDir(out, rc.Setup, rc.Fault, rc.Seed)
	st, err := atomicfile.NewStage(dir)
	if err != nil {
		return "", fmt.Errorf("output folder: %w", err)
	}
	defer st.Abandon()
	h := res.History
	j := res.Judgement
	sv := savedVerdicts{
		Setup: rc.Setup.ID(), Row: rc.Setup.Design.String(), Fault: rc.Fault, Nemesis: rc.Nemesis, Seed: rc.Seed,
		Versions: res.Versions, Library: res.Library,
	}
	if j != nil {
		sv.TookEffect, sv.Effect, sv.Overlap, sv.Committed, sv.Refused = j.TookEffect, j.Effect, j.Overlap, j.Committed, j.Refused
		sv.Witness = j.Witness
		sv.Verdicts = verdictsOf(rc.Setup.Design, rc.Setup.Unchecked, j)
	}
	if harnessErr != nil {
		sv.Error = harnessErr.Error()
	}
	simStory, simErr := TellSim(rc, res)
	extras := []trace.File{
		{Name: HistoryFile, Write: historyFileOf(rc, h, res.Resource).WriteJSONL},
		{Name: FaultsFile, Write: func(w io.Writer) error {
			if err := h.WriteFaults(w); err != nil {
				return err
			}
			var err error
			if simErr != nil {
				_, err = fmt.Fprintf(w, "no simulator schedule: %s\n", simErr)
			} else {
				_, err = fmt.Fprintf(w, "the simulator's version: %s (run it with %s)\n", SimScheduleFile, SimCommandFile)
			}
			return err
		}},
		{Name: VerdictsFile, Write: func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(sv)
		}},
		{Name: ScheduleFile, Write: func(w io.Writer) error {
			b, err := nemesis.MarshalSchedule(res.Schedule)
			if err == nil {
				_, err = w.Write(append(b, '\n'))
			}
			return err
		}},
		{Name: StoryFile, Write: func(w io.Writer) error {
			_, err := io.WriteString(w, rc.StoryText())
			return err
		}},
	}
	if j != nil && res.Resource != nil {
		sj := judgedOf(rc, h, res.Resource)
		extras = append(extras, trace.File{Name: JudgedFile, Write: func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", " ")
			return enc.Encode(sj)
		}})
	}
	if simErr == nil {
		extras = append(extras,
			trace.File{Name: SimScheduleFile, Write: simStory.Schedule.WriteJSON},
			trace.File{Name: SimCommandFile, Write: simStory.writeSimCommand})
	}
	anns := annotations(h)
	if j != nil && j.SectionsCheck != nil {
		extras = append(extras, trace.File{Name: check.PorcupineFile, Write: func(w io.Writer) error { return j.SectionsCheck.WriteHTML(w, anns) }})
	}
	if j != nil && j.ResourceCheck != nil {
		extras = append(extras, trace.File{Name: check.RegisterFile, Write: func(w io.Writer) error { return j.ResourceCheck.WriteHTML(w, anns) }})
	}
	if harnessErr != nil {
		extras = append(extras, trace.File{Name: ErrorFile, Write: func(w io.Writer) error {
			_, err := fmt.Fprintln(w, harnessErr)
			return err
		}})
	}
	if _, err := trace.WriteFilesTo(st.Folder(), buildTrace(rc, res), extras...); err != nil {
		return "", err
	}
	if err := st.Commit(&atomicfile.Owner{Name: "fencelab-live", Files: savedFiles()}); err != nil {
		return "", fmt.Errorf("output folder: %w", err)
	}
	return dir, nil
}

// annotations are the faults as Porcupine draws them, in virtual time
// since the run's start.
func annotations(h *history.History) []linearizability.Annotation {
	var anns []linearizability.Annotation
	for _, f := range h.Faults {
		a := linearizability.Annotation{Client: -1, Start: f.Start - h.Start, End: f.End - h.Start, Text: fmt.Sprintf("%s %s: %s", f.Fault, f.Target, f.Detail), Tag: faultTag(f.Fault)}
		if nemesis.IsClientFault(f.Fault) { // a pause, or one client's links
			for c := range h.Clients {
				if history.ClientName(c) == f.Target {
					a.Client = c
				}
			}
		}
		anns = append(anns, a)
	}
	return anns
}

func faultTag(f history.Fault) string {
	switch f {
	case history.FaultClientPause, history.FaultServerPause:
		return "pause"
	case history.FaultDelay, history.FaultBlackhole:
		return "spike"
	case history.FaultClockStep:
		return "clock"
	}
	return "fault"
}

// buildTrace tells the run as a trace for package trace's pictures: a
// lane for the lock service, one per client, one for the resource; a step
// per call and per return (an arrow from the call to its return), a note
// per fault, the first violation marked.
func buildTrace(rc run.Config, res *run.Result) *trace.Trace {
	title := fmt.Sprintf("live %s (row %s) under %s %s, seed %d", rc.Setup.ID(), rc.Setup.Design, rc.Nemesis, rc.Fault, rc.Seed)
	return traceOf(title, rc.Setup.Service, res.History, res.Judgement)
}

// traceOf tells history h, judged j (nil: not judged), as buildTrace
// says, the lock service's lane named service.
func traceOf(title, service string, h *history.History, j *check.Judgement) *trace.Trace {
	lanes := []string{service}
	for c := range h.Clients {
		lanes = append(lanes, history.ClientName(c))
	}
	lanes = append(lanes, "resource")
	t := &trace.Trace{
		Title:  title,
		Source: trace.Source("live"),
		Lanes:  lanes,
		Timed:  true,
		Steps:  []trace.Step{{Number: 1, Action: "Init"}},
	}
	type event struct {
		wall  int64
		rec   *history.Record
		fault *history.FaultRecord
		end   bool // the fault's end
	}
	var events []event
	for i := range h.Records {
		events = append(events, event{wall: h.Records[i].Wall, rec: &h.Records[i]})
	}
	for i := range h.Faults {
		f := &h.Faults[i]
		events = append(events, event{wall: f.Start, fault: f})
		if f.End > f.Start {
			events = append(events, event{wall: f.End, fault: f, end: true})
		}
	}
	slices.SortStableFunc(events, func(a, b event) int {
		switch {
		case a.wall < b.wall:
			return -1
		case a.wall > b.wall:
			return 1
		}
		return 0
	})
	open := map[[2]any]int{} // (client, op) -> the arrow of its call
	var firstOverlap *check.Belief
	if j != nil && j.Overlap != "" {
		firstOverlap = secondBelief(j.Beliefs)
	}
	marked := false
	for _, e := range events {
		n := len(t.Steps) + 1
		step := trace.Step{Number: n, At: time.Duration(e.wall - h.Start)}
		if e.fault != nil {
			f := e.fault
			lane := service
			if nemesis.IsClientFault(f.Fault) {
				lane = f.Target
			}
			step.Actor = lane
			text := fmt.Sprintf("%s: %s", f.Fault, f.Detail)
			step.Action = "fault " + string(f.Fault)
			if e.end {
				step.Action, text = "fault over", fmt.Sprintf("%s on %s undone", f.Fault, f.Target)
			}
			t.Steps = append(t.Steps, step)
			t.Notes = append(t.Notes, trace.Note{Lane: lane, Step: n, Kind: trace.NoteFault, Text: text})
			continue
		}
		r := e.rec
		c := history.ClientName(r.Client)
		peer := service
		if r.Op == history.OpRead || r.Op == history.OpWrite {
			peer = "resource"
		}
		step.Actor = c
		key := [2]any{r.Client, r.Op}
		if r.Ev == history.Call {
			step.Action = callLabel(r)
			if r.Op == history.OpRelease {
				// The belief ends with the release's call.
				step.Changes = []trace.Change{{Path: c + ".holds", Old: "true", New: "false"}}
			}
			t.Steps = append(t.Steps, step)
			t.Arrows = append(t.Arrows, trace.Arrow{From: c, To: peer, Sent: n, Label: step.Action})
			open[key] = len(t.Arrows) - 1
			continue
		}
		step.Action = returnLabel(r)
		step.Changes = returnChanges(r)
		t.Steps = append(t.Steps, step)
		if k, ok := open[key]; ok {
			t.Arrows[k].Received = n
			delete(open, key)
		}
		if r.Error != "" || !r.OK && r.Op != history.OpExpire {
			t.Notes = append(t.Notes, trace.Note{Lane: c, Step: n, Kind: trace.NoteRejection, Text: step.Action})
		}
		if !marked && firstOverlap != nil && r.Op == history.OpAcquire && r.OK && r.Client == firstOverlap.Client && r.Wall == firstOverlap.Start {
			marked = true
			t.Notes = append(t.Notes, trace.Note{Lane: c, Step: n, Kind: trace.NoteViolation, Text: "two clients believe they hold the lock"})
			t.Violation = &trace.Violation{Property: impl.AtMostOneClientHoldLock, Step: n, Explanation: j.Overlap}
		}
	}
	if t.Violation == nil && j != nil {
		for _, v := range j.Verdicts {
			if v.Status == verdict.Violated {
				t.Violation = &trace.Violation{Property: v.Property, Step: len(t.Steps), Explanation: v.Detail}
				break
			}
		}
	}
	return t
}

// secondBelief is the belief that began while another client's still
// held: where AtMostOneClientHoldLock was first violated.
func secondBelief(bs []check.Belief) *check.Belief {
	var first *check.Belief
	for i, a := range bs {
		for k, b := range bs {
			if i == k || a.Client == b.Client || !(b.Start <= a.Start && a.Start < b.End) {
				continue
			}
			if first == nil || a.Start < first.Start {
				first = &bs[i]
			}
		}
	}
	return first
}

func callLabel(r *history.Record) string {
	switch r.Op {
	case history.OpRead:
		return callWith("Read", tokenWord(r))
	case history.OpWrite:
		return callWith("Write", strconv.FormatInt(r.Value, 10), tokenWord(r))
	case history.OpRelease:
		return callWith("Release", tokenWord(r))
	}
	return "Acquire"
}

// tokenWord is "token N", or "" for a record without a token (0: the
// setups without tokens; the history omits it), which no label names.
func tokenWord(r *history.Record) string {
	if r.Token == 0 {
		return ""
	}
	return fmt.Sprintf("token %d", r.Token)
}

// tokenNote is " (token N)", or "" for a record without a token.
func tokenNote(r *history.Record) string {
	if w := tokenWord(r); w != "" {
		return " (" + w + ")"
	}
	return ""
}

// callWith is name(args…), the empty args left out: "Write(3, token 2)",
// "Write(3)", "Read".
func callWith(name string, args ...string) string {
	args = slices.DeleteFunc(args, func(a string) bool { return a == "" })
	if len(args) == 0 {
		return name
	}
	return name + "(" + strings.Join(args, ", ") + ")"
}

func returnLabel(r *history.Record) string {
	if r.Error != "" {
		return fmt.Sprintf("%s failed: %s", r.Op, history.OneLine(r.Error, 80))
	}
	switch r.Op {
	case history.OpAcquire:
		return "granted" + tokenNote(r)
	case history.OpRead:
		if !r.OK {
			return "read refused"
		}
		return fmt.Sprintf("read %d", r.Value)
	case history.OpWrite:
		if !r.OK {
			return fmt.Sprintf("write %d refused", r.Value)
		}
		return fmt.Sprintf("wrote %d", r.Value)
	case history.OpExpire:
		return "validity ended" + tokenNote(r) + ": section given up"
	}
	if !r.OK {
		return "release failed"
	}
	return "released"
}

func returnChanges(r *history.Record) []trace.Change {
	c := history.ClientName(r.Client)
	switch {
	case r.Op == history.OpAcquire && r.OK:
		return []trace.Change{{Path: c + ".holds", Old: "false", New: "true"}, {Path: c + ".token", New: fmt.Sprint(r.Token)}}
	case r.Op == history.OpRead && r.OK:
		return []trace.Change{{Path: c + ".read", New: fmt.Sprint(r.Value)}}
	case r.Op == history.OpWrite && r.OK:
		return []trace.Change{{Path: "resource.counter", New: fmt.Sprint(r.Value)}}
	case r.Op == history.OpExpire:
		// The checked client stops believing at its validity's end.
		return []trace.Change{{Path: c + ".holds", Old: "true", New: "false"}}
	}
	return nil
}

// maxVerdicts bounds a verdicts.json read back (ReadVerdicts): a few kB.
const maxVerdicts = 1 << 20

// Claims is what a saved run's verdicts.json says of it: whose run it is
// and which properties it violated.
type Claims struct {
	Setup    string
	Fault    history.Fault
	Seed     uint64
	Violated []string // in check.Properties' order
}

// ReadVerdicts reads the verdicts.json of the saved run folder dir: what
// a merge checks a shard's claims against.
func ReadVerdicts(dir string) (*Claims, error) {
	file := filepath.Join(dir, VerdictsFile)
	data, err := inputfile.Read(file, maxVerdicts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var sv savedVerdicts
	if err := json.Unmarshal(data, &sv); err != nil {
		return nil, fmt.Errorf("%s: not a run's verdicts: %w", file, err)
	}
	c := &Claims{Setup: sv.Setup, Fault: sv.Fault, Seed: sv.Seed}
	for _, v := range sv.Verdicts {
		if v.Status == verdict.Violated.String() {
			c.Violated = append(c.Violated, v.Property)
		}
	}
	return c, nil
}
