package tlc

import (
	"bytes"
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

	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/internal/suggest"
	"github.com/fencelab/fencelab/verdict"
)

// The results a model can be expected to give, named after TLC's exit codes.
const (
	ResultOK        = "ok"         // exit 0
	ResultAssume    = "assumption" // exit 10
	ResultDeadlock  = "deadlock"   // exit 11
	ResultInvariant = "invariant"  // exit 12
	ResultLiveness  = "liveness"   // exit 13
	ResultAssert    = "assert"     // exit 14
	// ResultNoVerdict is a run whose output does not back its exit code
	// (Interpret): cut short, another program's, or contradicting it.
	// No manifest expects it.
	ResultNoVerdict = "no verdict"
)

// ResultForExit names the result a TLC exit code stands for
// (tlc2/output/EC.java, ExitStatus).
func ResultForExit(code int) string {
	switch code {
	case 0:
		return ResultOK
	case 10:
		return ResultAssume
	case 11:
		return ResultDeadlock
	case 12:
		return ResultInvariant
	case 13:
		return ResultLiveness
	case 14:
		return ResultAssert
	case 75, 76, 77:
		return "evaluation error"
	case 150:
		return "spec parse error"
	case 151:
		return "config parse error"
	case 152:
		return "state space too large"
	case 153:
		return "system error"
	default:
		return fmt.Sprintf("error (exit %d)", code)
	}
}

// Manifest lists every model and the result TLC must give for it.
type Manifest struct {
	Comment string  `json:"comment,omitempty"`
	Models  []Model `json:"models"`
}

// Model is one TLC run: a spec, a cfg and the expected result.
type Model struct {
	// Name is a plain identifier (ValidModelName): it names the model's
	// folder of results under --out.
	Name string `json:"name"`
	Spec string `json:"spec"` // a .tla file's plain name in the specs folder (ValidFileName)
	Cfg  string `json:"cfg"`  // a .cfg file's plain name in the specs folder (ValidFileName)
	// Design names the row of the verdict table the model checks, by its
	// --design value (off, none, writes, all, …). Package tlc requires it
	// and passes it on uninterpreted: which names are rows is the specs'
	// adapter's to check (distlockspec.CheckDesigns).
	Design string `json:"design"`
	// Family is "" for the untimed models, whose verdicts are DESIGN.md's
	// verdict table (and their witnesses), FamilyTimed for
	// DistLockTimed.tla's, whose verdicts follow from the bounds ("When a
	// lease lock is safe without fencing") and so may differ from the
	// table's row for their design, or FamilyVariant for untimed models
	// whose constants change the system (no timeouts, clients that never
	// give up, a mutant service): their verdicts are not the table's.
	Family string `json:"family,omitempty"`
	// Expected is ok, or the kind of failure: invariant, deadlock,
	// liveness, assert or assumption.
	Expected string `json:"expected"`
	// Property is the violated invariant or temporal property.
	Property string `json:"property,omitempty"`
	// DistinctStates is the distinct state count TLC reports for an ok
	// model, and for an invariant violation the distinct states TLC had
	// found when it stopped (breadth-first with one worker: the same on
	// every run), so that a changed state space is noticed, one that
	// keeps the verdict and the counterexample's length among them. It is
	// also the measure of a run's work: the biggest start first, and keep
	// the JVM's optimising compiler (LongModel).
	DistinctStates int64 `json:"distinct_states,omitempty"`
	// CounterexampleLength is the number of states in the counterexample
	// TLC prints for an invariant violation (a violated model, or a
	// witness: its goal reached), so that a counterexample that grows or
	// shrinks, or a witness reached another way, is noticed. TLC's
	// breadth-first search with one worker (Runner's default for a model
	// expected violated) finds a shortest counterexample, so its length is
	// the same on every run. A slow model (Slow) may have none pinned yet,
	// and its length is then not judged. A liveness violation pins only its
	// property:
	// the lasso TLC prints for it differs from run to run (29 and 32
	// states for one model in three runs), one worker or not.
	CounterexampleLength int    `json:"counterexample_length,omitempty"`
	Note                 string `json:"note,omitempty"`
	// Slow marks a model left out of the default run (make tlc, make
	// demo) because it takes TLC more than about a minute on one core:
	// fencelab tlc runs it by name (--model) or with --all.
	Slow bool `json:"slow,omitempty"`
}

// Model families (Model.Family): FamilyTimed marks the models of the
// timed spec, FamilyVariant the untimed models of a changed system.
const (
	FamilyTimed   = "timed"
	FamilyVariant = "variant"
)

// LoadManifest reads and validates a models manifest.
func LoadManifest(path string) (*Manifest, error) {
	data, err := inputfile.Read(path, inputfile.MaxText)
	if err != nil {
		return nil, fmt.Errorf("reading the models manifest %s: %w", quote.S(path), pathErr(err))
	}
	return ParseManifest(data)
}

// ParseManifest parses and validates a manifest: unknown fields, duplicate
// names, a model without a design, an unknown expected result, an ok model
// without a state count or a violation without its property are errors.
// Whether a design names a row of the matrix is not this package's to know
// (distlockspec.CheckDesigns).
func ParseManifest(data []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("models manifest: %w", err)
	}
	if len(m.Models) == 0 {
		return nil, fmt.Errorf("models manifest: no models")
	}
	seen := map[string]bool{}
	for i, mod := range m.Models {
		where := fmt.Sprintf("models manifest: model %d (%s)", i+1, quote.Q(mod.Name))
		switch {
		case mod.Name == "" || mod.Spec == "" || mod.Cfg == "":
			return nil, fmt.Errorf("%s: name, spec and cfg are required", where)
		case ValidModelName(mod.Name) != nil:
			return nil, fmt.Errorf("models manifest: model %d: %v", i+1, ValidModelName(mod.Name))
		case ValidFileName(mod.Spec, ".tla") != nil:
			return nil, fmt.Errorf("%s: spec: %v", where, ValidFileName(mod.Spec, ".tla"))
		case ValidFileName(mod.Cfg, ".cfg") != nil:
			return nil, fmt.Errorf("%s: cfg: %v", where, ValidFileName(mod.Cfg, ".cfg"))
		case mod.Design == "":
			return nil, fmt.Errorf("%s: design is required", where)
		case mod.Family != "" && mod.Family != FamilyTimed && mod.Family != FamilyVariant:
			return nil, fmt.Errorf("%s: family must be empty, %s or %s, got %s", where, quote.Q(FamilyTimed), quote.Q(FamilyVariant), quote.Q(mod.Family))
		case seen[mod.Name]:
			return nil, fmt.Errorf("%s: duplicate name", where)
		case mod.Expected == ResultOK && mod.DistinctStates <= 0:
			return nil, fmt.Errorf("%s: an ok model needs distinct_states", where)
		case mod.DistinctStates < 0:
			return nil, fmt.Errorf("%s: distinct_states must be positive", where)
		case mod.DistinctStates > 0 && mod.Expected != ResultOK && mod.Expected != ResultInvariant:
			return nil, fmt.Errorf("%s: only an ok model and an invariant violation pin distinct_states", where)
		case mod.Expected == ResultOK && mod.Property != "":
			return nil, fmt.Errorf("%s: an ok model violates no property", where)
		case (mod.Expected == ResultInvariant || mod.Expected == ResultLiveness) && mod.Property == "":
			return nil, fmt.Errorf("%s: a %s violation needs its property", where, mod.Expected)
		case mod.Expected == ResultInvariant && !mod.Slow && mod.CounterexampleLength <= 0:
			return nil, fmt.Errorf("%s: an invariant violation needs its counterexample_length", where)
		case mod.CounterexampleLength < 0:
			return nil, fmt.Errorf("%s: counterexample_length must be positive", where)
		case mod.Expected != ResultInvariant && mod.CounterexampleLength != 0:
			return nil, fmt.Errorf("%s: only an invariant violation pins a counterexample_length (a liveness lasso differs from run to run)", where)
		}
		switch mod.Expected {
		case ResultOK, ResultAssume, ResultDeadlock, ResultInvariant, ResultLiveness, ResultAssert:
		default:
			return nil, fmt.Errorf("%s: unknown expected result %s", where, quote.Q(mod.Expected))
		}
		seen[mod.Name] = true
	}
	return &m, nil
}

// maxNameLen bounds model and file names: far below every file system's
// limit of 255 bytes for one name, with room for the temporary suffixes
// results are written under.
const maxNameLen = 100

// nameRule is the rule ValidModelName enforces, in the words its errors use.
const nameRule = "a model name is a letter followed by letters, digits, '_' or '-' (at most 100 characters), and not a device name such as con or nul"

// ValidModelName reports whether name can name a model: a letter, then
// ASCII letters, digits, '_' or '-', at most 100 characters in all, and not
// one of the names Windows reserves for devices (con, prn, aux, nul, com1…9,
// lpt1…9, in any case). Such a name is one path element under --out on
// every system: never "", ".", "..", absolute or holding a separator, so the
// model's results folder is always inside --out.
func ValidModelName(name string) error {
	if !plainName(name) || !isLetter(name[0]) || reservedName(name) {
		return fmt.Errorf("bad model name %s: %s", quote.Q(name), nameRule)
	}
	return nil
}

// ValidFileName reports whether name is a plain file name with the given
// extension: a letter, then ASCII letters, digits, '_', '-' or '.', at most
// 100 characters, no separator, no "..", not a device name. Spec and cfg
// files live directly in the specs folder.
func ValidFileName(name, ext string) error {
	rule := fmt.Sprintf("must be a file name in the specs folder: a letter followed by letters, digits, '_', '-' or '.', ending in %s (at most 100 characters; no folders, no ..)", ext)
	stem := strings.TrimSuffix(name, ext)
	switch {
	case !strings.HasSuffix(name, ext) || stem == "" || len(name) > maxNameLen || !isLetter(name[0]) || strings.Contains(name, ".."):
		return fmt.Errorf("%s %s", quote.Q(name), rule)
	case reservedName(strings.SplitN(name, ".", 2)[0]):
		return fmt.Errorf("%s %s", quote.Q(name), rule)
	}
	for i := 0; i < len(stem); i++ {
		if c := stem[i]; !isLetter(c) && !isASCIIDigit(c) && c != '_' && c != '-' && c != '.' {
			return fmt.Errorf("%s %s", quote.Q(name), rule)
		}
	}
	return nil
}

// plainName: 1 to maxNameLen ASCII letters, digits, '_' or '-'.
func plainName(s string) bool {
	if s == "" || len(s) > maxNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isASCIIDigit(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool     { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }

// reservedName reports the names Windows reserves for devices.
func reservedName(s string) bool {
	switch u := strings.ToUpper(s); u {
	case "CON", "PRN", "AUX", "NUL":
		return true
	default:
		return len(u) == 4 && (strings.HasPrefix(u, "COM") || strings.HasPrefix(u, "LPT")) && '1' <= u[3] && u[3] <= '9'
	}
}

// CheckFiles checks, before anything runs, that every model's spec and cfg,
// and every other module in specsDir, is a regular file inside specsDir: symbolic links may be followed only as
// long as they stay inside it. The error names the first model at fault.
func CheckFiles(specsDir string, models []Model) error {
	root, err := os.OpenRoot(specsDir)
	if err != nil {
		return fmt.Errorf("the specs folder: %w", err)
	}
	defer root.Close()
	for _, m := range models {
		for _, f := range []string{m.Spec, m.Cfg} {
			if err := regularIn(root, specsDir, f); err != nil {
				return fmt.Errorf("model %s: %w", m.Name, err)
			}
		}
	}
	// Run copies every module of the folder (a spec may extend any): one
	// that cannot be read (a pipe, a device, a huge file) is found now.
	entries, err := os.ReadDir(specsDir)
	if err != nil {
		return fmt.Errorf("the specs folder: %w", err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".tla" || ValidFileName(e.Name(), ".tla") != nil {
			continue
		}
		if err := regularIn(root, specsDir, e.Name()); err != nil {
			return err
		}
	}
	return nil
}

// regularIn checks that name is a regular file in root (the folder dir).
func regularIn(root *os.Root, dir, name string) error {
	st, err := root.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist", filepath.Join(dir, name))
	case err != nil:
		return fmt.Errorf("%s: %w", filepath.Join(dir, name), pathErr(err))
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is %s, not a regular file", filepath.Join(dir, name), inputfile.Kind(st.Mode()))
	case st.Size() > inputfile.MaxText:
		return fmt.Errorf("%s holds %d bytes, more than the limit of %d", filepath.Join(dir, name), st.Size(), inputfile.MaxText)
	}
	return nil
}

// readIn reads name from root, refusing a path or link that leaves it.
func readIn(root *os.Root, dir, name string) ([]byte, error) {
	if err := regularIn(root, dir, name); err != nil {
		return nil, err
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), pathErr(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, inputfile.MaxText+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), pathErr(err))
	}
	if len(data) > inputfile.MaxText { // grown since regularIn looked
		return nil, fmt.Errorf("%s holds more than the limit of %d bytes", filepath.Join(dir, name), inputfile.MaxText)
	}
	return data, nil
}

// pathErr drops the *PathError's repetition of the path.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if strings.Contains(pe.Err.Error(), "escapes") {
			return errors.New("it leads outside the specs folder")
		}
		return pe.Err
	}
	return err
}

// Select returns the model called name, or every model when name is "".
func (m *Manifest) Select(name string) ([]Model, error) {
	if name == "" {
		return m.Models, nil
	}
	var names []string
	for _, mod := range m.Models {
		if mod.Name == name {
			return []Model{mod}, nil
		}
		names = append(names, mod.Name)
	}
	hint := fmt.Sprintf("%d models in the manifest, none near it", len(names))
	if near := suggest.Nearest(name, names, 3); len(near) > 0 {
		hint = "did you mean " + strings.Join(near, ", ") + "?"
	}
	return nil, fmt.Errorf("no model %s in the manifest (%s)", quote.Q(name), hint)
}

// Default is the default run's models: every model but the slow ones.
func (m *Manifest) Default() []Model {
	var ms []Model
	for _, mod := range m.Models {
		if !mod.Slow {
			ms = append(ms, mod)
		}
	}
	return ms
}

// ExpectedText is the expected result as the summary table prints it.
func (m Model) ExpectedText() string {
	return resultText(m.Expected, m.Property)
}

func resultText(result, property string) string {
	if property == "" {
		return result
	}
	return result + " " + property
}

// Got is what a TLC run gave.
type Got struct {
	ExitCode int
	// Result is named after the exit code (ResultForExit).
	Result string
	// Property is the violated invariant TLC named, or for a liveness
	// violation the cfg's single PROPERTY (TLC does not name it).
	Property string
	// Distinct and Depth are TLC's figures; -1 when not reported.
	Distinct int64
	Depth    int
	// Workers is the number of workers TLC said it checked with; 0 when
	// it did not say.
	Workers int
	// Trace is the number of states in the counterexample TLC printed (0
	// when it printed none).
	Trace int
	// Stale lists why the committed PlusCal translation is out of date.
	Stale []string
	// Untranslated says why the committed PlusCal translation could not be
	// checked (the translator failed); "" when it was checked.
	Untranslated string
	// Detail is where and what TLC's error was (ErrorDetail), for results
	// other than ok and a violation; "" when TLC printed none.
	Detail string
}

// Text is the result as the summary table prints it.
func (g Got) Text() string {
	return resultText(g.Result, g.Property)
}

// detail is ": " and Detail, or "".
func (g Got) detail() string {
	if g.Detail == "" {
		return ""
	}
	return ": " + g.Detail
}

// Judge compares a run with the manifest: the exit code's result, the
// violated property's name, for ok models the distinct state count and for
// invariant violations the counterexample's length and, when TLC ran one
// worker, the distinct states at the stop must all match; a stale translation, or one that could not be checked,
// always fails. It returns "" when the run matches, else every reason why
// not (the translation's first, then the result's).
func Judge(m Model, g Got) string {
	var why []string
	if g.Untranslated != "" {
		why = append(why, "the PlusCal translation could not be checked: "+g.Untranslated)
	}
	if len(g.Stale) > 0 {
		why = append(why, "stale PlusCal translation: "+strings.Join(g.Stale, "; "))
	}
	switch {
	case g.Result != m.Expected:
		why = append(why, fmt.Sprintf("expected %s, TLC gave %s (exit %d)%s", m.ExpectedText(), g.Text(), g.ExitCode, g.detail()))
	case m.Expected == ResultOK && g.Distinct != m.DistinctStates:
		why = append(why, fmt.Sprintf("TLC found %d distinct states, the manifest says %d", g.Distinct, m.DistinctStates))
	case m.Property != "" && g.Property != m.Property:
		got := g.Property
		if got == "" {
			got = "an unnamed property"
		}
		why = append(why, fmt.Sprintf("violates %s, manifest says %s", got, m.Property))
	case m.Expected == ResultInvariant && m.CounterexampleLength > 0 && g.Trace != m.CounterexampleLength:
		why = append(why, fmt.Sprintf("counterexample length %d, manifest says %d", g.Trace, m.CounterexampleLength))
	case m.Expected == ResultInvariant && m.DistinctStates > 0 && g.Distinct != m.DistinctStates && g.Workers <= 1:
		// With several workers TLC stops wherever the first of them
		// meets the violation: the count is pinned for one.
		stopped := fmt.Sprintf("TLC stopped at the violation after %d distinct states", g.Distinct)
		if g.Distinct < 0 {
			stopped = "TLC reported no distinct state count at the violation"
		}
		why = append(why, fmt.Sprintf("%s, the manifest says %d", stopped, m.DistinctStates))
	}
	return strings.Join(why, "; ")
}

// Deadlock is the property TLC's deadlock check violates (exit 11), named
// as the explorer names its deadlock check.
const Deadlock = "Deadlock"

// Verdicts is what a run that gave g says about the properties the model
// checks (invariants: its cfg's INVARIANTs), in package verdict's terms:
// an ok run — every invariant Holds over its distinct states; an invariant
// or liveness violation — that property is Violated, by a counterexample
// of steps actions (TLC stops there: the other properties are left
// unjudged); a deadlock — Deadlock is Violated; a stale translation or any
// other result (a parse or system error) — every invariant is Unknown, the
// Detail saying why.
func Verdicts(g Got, invariants []string, steps int) verdict.Set {
	var s verdict.Set
	every := func(v verdict.Verdict) {
		for _, inv := range invariants {
			v.Property = inv
			s = append(s, v)
		}
	}
	switch {
	case g.Untranslated != "":
		every(verdict.Verdict{Status: verdict.Unknown, Detail: "the PlusCal translation could not be checked: " + g.Untranslated})
	case len(g.Stale) > 0:
		every(verdict.Verdict{Status: verdict.Unknown, Detail: "stale PlusCal translation: " + strings.Join(g.Stale, "; ")})
	case g.Result == ResultOK:
		every(verdict.Verdict{Status: verdict.Holds, Covered: verdict.Thousands(int(g.Distinct)) + " states"})
	case (g.Result == ResultInvariant || g.Result == ResultLiveness) && g.Property != "":
		s = append(s, verdict.Verdict{Property: g.Property, Status: verdict.Violated, Shortest: steps})
	case g.Result == ResultDeadlock:
		s = append(s, verdict.Verdict{Property: Deadlock, Status: verdict.Violated, Shortest: steps})
	default:
		every(verdict.Verdict{Status: verdict.Unknown, Detail: fmt.Sprintf("TLC gave %s (exit %d)%s", g.Text(), g.ExitCode, g.detail())})
	}
	return s
}

// NotRun is the verdicts of a model TLC could not run: every invariant
// Unknown, for the reason given.
func NotRun(why string, invariants []string) verdict.Set {
	var s verdict.Set
	for _, inv := range invariants {
		s = append(s, verdict.Verdict{Property: inv, Status: verdict.Unknown, Detail: "TLC not run: " + why})
	}
	return s
}

// Outcome is one model's run, judged: what TLC gave, whether that matches
// the manifest, and the verdicts it reached.
type Outcome struct {
	Model Model
	// Got is TLC's result as text (Got.Text), or "not run".
	Got string
	// Distinct and Depth are TLC's figures; -1 when not reported.
	Distinct int64
	Depth    int
	Wall     time.Duration
	// Cached says TLC's output was read from the cache (Result.Cached).
	Cached bool
	// Mismatch says why the run differs from the manifest (Judge); empty
	// when it matches.
	Mismatch string
	Verdicts verdict.Set
}

// CfgProperties lists the PROPERTY/PROPERTIES names of a TLC config.
func CfgProperties(cfg string) []string {
	return cfgSection(cfg, "PROPERTY", "PROPERTIES")
}

// CfgInvariants lists the INVARIANT/INVARIANTS names of a TLC config.
func CfgInvariants(cfg string) []string {
	return cfgSection(cfg, "INVARIANT", "INVARIANTS")
}

// cfgSection lists the names that follow either keyword in a TLC config,
// up to the next keyword, each once, comments dropped (StripCfgComments).
func cfgSection(cfg, singular, plural string) []string {
	var names []string
	in := false
	for _, f := range strings.Fields(StripCfgComments(cfg)) {
		switch {
		case f == singular || f == plural:
			in = true
		case CfgKeyword(f):
			in = false
		case in && !slices.Contains(names, f):
			names = append(names, f)
		}
	}
	return names
}
