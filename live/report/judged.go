package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/live/store"
)

// JudgedFile holds everything the judge read to decide a saved run's
// verdicts: the whole history, the resource's log in acceptance order and
// its counter, the design row and the timeouts. Recheck judges the run
// again from it alone.
const JudgedFile = "judged.json"

// judgedVersion is JudgedFile's format; Recheck refuses any other.
const judgedVersion = 1

// maxCheckTimeout bounds the Porcupine timeout Recheck takes from a saved
// run: ten times what the command line gives.
const maxCheckTimeout = 10 * run.DefaultCheckTimeout

// savedJudged is JudgedFile.
type savedJudged struct {
	Version int           `json:"version"`
	Setup   string        `json:"setup"`
	Row     string        `json:"row"`
	Fault   history.Fault `json:"fault"`
	Nemesis string        `json:"nemesis"`
	Seed    uint64        `json:"seed"`
	// The workload and the timeouts of the run.
	Clients      int           `json:"clients"`
	Sections     int           `json:"sections"`
	Think        time.Duration `json:"think_ns"`
	Timeout      time.Duration `json:"timeout_ns"`
	CheckTimeout time.Duration `json:"check_timeout_ns"`
	// TTL is the setup's lease, from which the judge tells a grant's
	// validity (absent from a file saved before it was written: the
	// setup's, by name).
	TTL time.Duration `json:"ttl_ns,omitempty"`
	// History is the history struct whole, so that what a run records
	// comes along here as the judge gains it.
	History  *history.History `json:"history"`
	Resource savedResource    `json:"resource"`
}

// savedResource is the resource as the judge read it: the register's
// own, or the one replayed from a real store's audit (mode none).
type savedResource struct {
	Mode    string    `json:"mode"`
	Counter int64     `json:"counter"`
	Log     []savedOp `json:"log"`
}

// savedOp is one operation of the resource's log.
type savedOp struct {
	Client   int    `json:"client"` // 0-based: c1 is 0
	Kind     string `json:"kind"`   // read or write
	Accepted bool   `json:"accepted"`
	Token    uint64 `json:"token"`
	Value    int64  `json:"value"`
}

// judgedOf is what SaveRun writes to JudgedFile.
func judgedOf(rc run.Config, h *history.History, res *impl.Resource) savedJudged {
	sj := savedJudged{
		Version: judgedVersion, Setup: rc.Setup.ID(), Row: rc.Setup.Design.String(), Fault: rc.Fault, Nemesis: rc.Nemesis, Seed: rc.Seed,
		Clients: rc.Clients, Sections: rc.Sections, Think: rc.Think, Timeout: rc.Timeout, CheckTimeout: rc.CheckTimeout,
		TTL:      rc.Setup.TTL,
		History:  h,
		Resource: savedResource{Mode: res.Mode().String(), Counter: res.Counter(), Log: []savedOp{}},
	}
	for _, op := range res.Log() {
		sj.Resource.Log = append(sj.Resource.Log, savedOp{Client: op.Client.ClientIndex(), Kind: op.Kind.String(), Accepted: op.Accepted, Token: op.Token, Value: op.Value})
	}
	return sj
}

// resource rebuilds the saved resource (store.Replay), checking each
// operation against the history's clients; a log that is not what a
// resource of its mode does is a difference, not a malformed file.
func (sj *savedJudged) resource() (res *impl.Resource, difference string, err error) {
	mode, err := parseMode(sj.Resource.Mode)
	if err != nil {
		return nil, "", err
	}
	ops := make([]impl.Op, len(sj.Resource.Log))
	for i, o := range sj.Resource.Log {
		if o.Client < 0 || o.Client >= sj.History.Clients {
			return nil, "", fmt.Errorf("resource operation %d: client %d out of range", i+1, o.Client)
		}
		ops[i] = impl.Op{Client: impl.ClientNode(o.Client), Accepted: o.Accepted, Token: o.Token, Value: o.Value}
		switch o.Kind {
		case impl.OpRead.String():
			ops[i].Kind = impl.OpRead
		case impl.OpWrite.String():
			ops[i].Kind = impl.OpWrite
		default:
			return nil, "", fmt.Errorf("resource operation %d: unknown kind %.20q", i+1, o.Kind)
		}
	}
	if res, err = store.Replay(mode, ops); err != nil {
		return nil, "the resource's log: " + err.Error(), nil
	}
	if res.Counter() != sj.Resource.Counter {
		return res, fmt.Sprintf("the resource's counter: saved %d, its log's accepted writes leave %d", sj.Resource.Counter, res.Counter()), nil
	}
	return res, "", nil
}

func parseMode(s string) (impl.FenceMode, error) {
	for m := impl.FenceNone; m <= impl.FenceSequencer; m++ {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown fencing mode %.20q", s)
}

// Audit is a saved run judged again from its files alone (Recheck).
type Audit struct {
	Dir string
	// Saved is the run's verdicts.json; Now the judge's verdicts on the
	// same files (nil when its resource's log could not be replayed).
	Saved savedVerdicts
	Now   *savedVerdicts
	// Rebuilt says how the resource's log was had for a run saved before
	// JudgedFile was ("" when the run saved it).
	Rebuilt string
	// Differences name what the judge decides now that the run did not
	// save; none when the verdicts are the same.
	Differences []string
	// Unsaved are properties the judge decides now that the run did not
	// save (an older fencelab-live's run): shown, not compared.
	Unsaved []string
}

// Same reports whether the judge decided the saved verdicts again.
func (a *Audit) Same() bool { return len(a.Differences) == 0 }

// Recheck judges the run saved in dir again from its files alone — no
// service is started — and compares the verdicts with the saved ones.
// The error is a missing or malformed file (named in it); differences
// are in the Audit. A run saved before JudgedFile was has its resource's
// log rebuilt from its history (legacyResource), with setups telling
// whether its resource was the register.
func Recheck(dir string, setups []setup.Setup) (*Audit, error) {
	a := &Audit{Dir: dir}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("%.200s: not a saved run's folder", dir)
	}
	if err := readJSON(filepath.Join(dir, VerdictsFile), &a.Saved); err != nil {
		return nil, err
	}
	sv := &a.Saved
	if sv.Error != "" && len(sv.Verdicts) == 0 {
		return nil, fmt.Errorf("%.200s: the run ended in a harness error, so it has no verdicts to judge again: %s", filepath.Join(dir, VerdictsFile), history.OneLine(sv.Error, 200))
	}
	d, err := impl.ParseDesign(sv.Row)
	if err != nil {
		return nil, fmt.Errorf("%.200s: %w", filepath.Join(dir, VerdictsFile), err)
	}
	var sj savedJudged
	jf := filepath.Join(dir, JudgedFile)
	err = readJSON(jf, &sj)
	var (
		h       *history.History
		res     *impl.Resource
		timeout time.Duration
	)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if h, err = readHistory(filepath.Join(dir, HistoryFile)); err != nil {
			return nil, err
		}
		if res, a.Rebuilt, err = legacyResource(h, d, sv, setups); err != nil {
			return nil, fmt.Errorf("%.200s: saved before %s was, and %w", dir, JudgedFile, err)
		}
		timeout = run.DefaultCheckTimeout
	case err != nil:
		return nil, err
	default:
		if sj.Version != judgedVersion {
			return nil, fmt.Errorf("%.200s: version %d (this fencelab-live reads version %d)", jf, sj.Version, judgedVersion)
		}
		if sj.History == nil {
			return nil, fmt.Errorf("%.200s: no history", jf)
		}
		if err := sj.History.Validate(); err != nil {
			return nil, fmt.Errorf("%.200s: the history: %w", jf, err)
		}
		if sj.CheckTimeout <= 0 || sj.CheckTimeout > maxCheckTimeout {
			// A hostile file's bound would keep Porcupine busy for ever.
			return nil, fmt.Errorf("%.200s: check timeout %v (want up to %v)", jf, sj.CheckTimeout, maxCheckTimeout)
		}
		if sj.Setup != sv.Setup || sj.Row != sv.Row || sj.Seed != sv.Seed {
			a.Differences = append(a.Differences, fmt.Sprintf("%s is run %s (row %s) seed %d, %s run %s (row %s) seed %d", JudgedFile, sj.Setup, sj.Row, sj.Seed, VerdictsFile, sv.Setup, sv.Row, sv.Seed))
		}
		var diff string
		if res, diff, err = sj.resource(); err != nil {
			return nil, fmt.Errorf("%.200s: %w", jf, err)
		}
		if diff != "" {
			a.Differences = append(a.Differences, diff)
		}
		h, timeout = sj.History, sj.CheckTimeout
	}
	if res == nil {
		return a, nil
	}
	ttl, err := savedTTL(sj.TTL, sv.Setup, setups)
	if err != nil {
		return nil, fmt.Errorf("%.200s: %w", dir, err)
	}
	h.Sort()
	j, jerr := check.Judge(h, d, ttl, res, timeout)
	a.Now = &savedVerdicts{TookEffect: j.TookEffect, Effect: j.Effect, Overlap: j.Overlap, Witness: j.Witness, Committed: j.Committed, Refused: j.Refused, Verdicts: verdictsOf(d, h.Unchecked, j)}
	a.compare()
	if jerr != nil && !strings.Contains(sv.Error, jerr.Error()) {
		// An overlap no fault explains, which the run did not save as
		// its harness error.
		a.Differences = append(a.Differences, jerr.Error())
	}
	if err := check.SelfCheck(j); err != nil {
		// As run.Run makes it a harness error: never a plausible audit.
		a.Differences = append(a.Differences, err.Error())
	}
	return a, nil
}

// compare lists what differs between the saved verdicts and Now's.
func (a *Audit) compare() {
	sv, now := &a.Saved, a.Now
	if sv.TookEffect != now.TookEffect || sv.Overlap != now.Overlap {
		a.Differences = append(a.Differences, fmt.Sprintf("took effect: saved %v (%s), now %v (%s)", sv.TookEffect, sv.Overlap, now.TookEffect, now.Overlap))
	}
	if sv.Committed != now.Committed || sv.Refused != now.Refused {
		a.Differences = append(a.Differences, fmt.Sprintf("committed and refused: saved %d and %d, now %d and %d", sv.Committed, sv.Refused, now.Committed, now.Refused))
	}
	saved := map[string]bool{}
	for _, s := range sv.Verdicts {
		saved[s.Property] = true
		k := slices.IndexFunc(now.Verdicts, func(v savedVerdict) bool { return v.Property == s.Property })
		if k < 0 {
			a.Differences = append(a.Differences, fmt.Sprintf("%s: saved %s, no longer judged", s.Property, s.Status))
			continue
		}
		if v := now.Verdicts[k]; v != s {
			a.Differences = append(a.Differences, fmt.Sprintf("%s: saved %s, now %s", s.Property, s.describe(), v.describe()))
		}
	}
	for _, v := range now.Verdicts {
		if !saved[v.Property] {
			a.Unsaved = append(a.Unsaved, v.Property)
		}
	}
}

func (v savedVerdict) describe() string {
	s := fmt.Sprintf("%s (expected %s", v.Status, v.Expected)
	if v.Covered != "" {
		s += "; " + v.Covered
	}
	s += ")"
	if v.Detail != "" {
		s += ": " + v.Detail
	}
	return s
}

// Write prints the audit: the run, the verdicts judged again, and
// whether they are the saved ones (what differs if not).
func (a *Audit) Write(w io.Writer) error {
	sv := a.Saved
	fmt.Fprintf(w, "%s: %s (row %s) under %s %s, seed %d\n", a.Dir, sv.Setup, sv.Row, sv.Nemesis, sv.Fault, sv.Seed)
	if a.Rebuilt != "" {
		fmt.Fprintf(w, "  %s\n", a.Rebuilt)
	}
	if now := a.Now; now != nil {
		effect := "the fault took effect (two clients' beliefs overlapped)"
		if !now.TookEffect {
			effect = "the fault did not take effect"
		}
		fmt.Fprintf(w, "  %s; %s committed, %s refused\n", effect, words.Count(now.Committed, "section"), words.Count(now.Refused, "operation"))
		writeVerdicts(w, now.Verdicts)
	}
	if len(a.Unsaved) > 0 {
		fmt.Fprintf(w, "  not in %s (judged by an older fencelab-live): %s\n", VerdictsFile, strings.Join(a.Unsaved, ", "))
	}
	if a.Same() {
		_, err := fmt.Fprintf(w, "  the same verdicts as %s\n", VerdictsFile)
		return err
	}
	fmt.Fprintf(w, "  DIFFERENT from %s:\n", VerdictsFile)
	for _, d := range a.Differences {
		if _, err := fmt.Fprintf(w, "    %s\n", d); err != nil {
			return err
		}
	}
	return nil
}

// maxTTL bounds the lease Recheck takes from a saved run.
const maxTTL = time.Hour

// savedTTL is the lease a saved run was judged with: JudgedFile's, or,
// in a file saved before it held one, its setup's (found by its ID among
// setups).
func savedTTL(ttl time.Duration, id string, setups []setup.Setup) (time.Duration, error) {
	if ttl != 0 {
		if ttl < 0 || ttl > maxTTL {
			return 0, fmt.Errorf("lease %v (want up to %v)", ttl, maxTTL)
		}
		return ttl, nil
	}
	service, name, _ := strings.Cut(id, "/")
	s, err := setup.Find(setups, service, name)
	if err != nil {
		return 0, fmt.Errorf("its setup's lease: %w", err)
	}
	return s.TTL, nil
}

// legacyResource rebuilds the resource's log of a run saved before
// JudgedFile was, from the operations its history shows, in the order
// they returned (an order real time allows). A register's log holds every
// operation it handled; a real store's audit only the accepted ones,
// replayed with mode none (run.replay). The rebuilt log must explain what
// the clients saw (each decision and each value read) and be the log the
// saved verdicts covered (its length and counter), or the run cannot be
// judged again: two overlapping operations may have taken effect in the
// other order, and an operation that returned an error may or may not
// have taken effect.
func legacyResource(h *history.History, d impl.Design, sv *savedVerdicts, setups []setup.Setup) (*impl.Resource, string, error) {
	service, name, _ := strings.Cut(sv.Setup, "/")
	s, err := setup.Find(setups, service, name)
	if err != nil {
		return nil, "", fmt.Errorf("its setup: %w", err)
	}
	mode := impl.FenceNone
	if s.UsesRegister() {
		mode = d.Mode()
	}
	res, err := rebuiltLog(h, mode)
	if err != nil {
		return nil, "", err
	}
	covered := check.ResourceCovered(res)
	for _, v := range sv.Verdicts {
		if (v.Property == impl.TokenIsMonotonical || v.Property == impl.NoLostUpdate) && v.Covered != covered {
			return nil, "", fmt.Errorf("the resource's log rebuilt from its history (%s) is not the one its %s covered (%s)", covered, v.Property, v.Covered)
		}
	}
	where := "the register's log"
	if !s.UsesRegister() {
		where = "the store's accepted operations"
	}
	return res, fmt.Sprintf("saved before %s was: %s rebuilt from the history in return order (%s, as the saved verdicts covered)", JudgedFile, where, covered), nil
}

// rebuiltLog is the resource's log rebuilt from h's operations in the
// order they returned (an order real time allows), replayed by a resource
// fencing mode: every operation, or, for mode none (a real store's audit
// of what it applied), the accepted ones. It must explain what the
// clients saw, each decision and each value read: two overlapping
// operations may have taken effect in the other order.
func rebuiltLog(h *history.History, mode impl.FenceMode) (*impl.Resource, error) {
	seen := check.ResourceOps(h)
	slices.SortStableFunc(seen, func(a, b linearizability.ResourceOp) int {
		return cmp.Or(cmp.Compare(a.Return, b.Return), cmp.Compare(a.Call, b.Call))
	})
	var ops []impl.Op
	var reads []int64
	for _, o := range seen {
		if mode == impl.FenceNone && !o.Accepted {
			continue
		}
		ops = append(ops, impl.Op{Client: impl.ClientNode(o.Client), Kind: o.Kind, Accepted: o.Accepted, Token: o.Token, Value: o.Value})
		reads = append(reads, o.Value)
	}
	res, err := store.Replay(mode, ops)
	if err != nil {
		return nil, fmt.Errorf("its history in return order is not what its resource does: %w", err)
	}
	for i, op := range res.Log() {
		if op.Kind == impl.OpRead && op.Accepted && op.Value != reads[i] {
			return nil, fmt.Errorf("its history in return order does not explain %s's read of %d (the resource held %d then)", op.Client, reads[i], op.Value)
		}
	}
	return res, nil
}

// readSaved reads one file of a saved run, bounded (inputfile); its
// errors name the file, and a missing one's wraps fs.ErrNotExist.
func readSaved(path string) ([]byte, error) {
	data, err := inputfile.Read(path, inputfile.MaxOutput)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%.200s: missing: %w", path, fs.ErrNotExist)
	case err != nil:
		return nil, fmt.Errorf("%.200s: %w", path, err)
	}
	return data, nil
}

// readJSON reads a saved JSON file into v.
func readJSON(path string, v any) error {
	data, err := readSaved(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%.200s: not a saved run's JSON: %w", path, err)
	}
	return nil
}

func readHistory(path string) (*history.History, error) {
	data, err := readSaved(path)
	if err != nil {
		return nil, err
	}
	h, err := history.ReadJSONL(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%.200s: %w", path, err)
	}
	return h, nil
}
