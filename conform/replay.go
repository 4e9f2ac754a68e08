package conform

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/tlc"
)

// Replay, TLA+ → Go: a counterexample TLC printed is driven into the Go
// actors through the action mapping. Each TLC step must be matched by
// exactly the Go step the mapping names: one node handling one input,
// chosen among the steps impl.World enables, whose abstraction (distlockspec.Abstract)
// is the state TLC printed and whose spec action (distlockspec.SpecAction) is the
// action TLC names. At the end the Go system must be in the same
// violation: the same invariant breached by the Go check (package impl's
// Invariants), first at the step TLC stopped at; the witness invariant's
// goal reached (every client committed every section); no Go step enabled
// with clients unfinished for a deadlock; the property's condition false
// on the lasso TLC closed, or where TLC stuttered, for a liveness property.

// ModelConfig is the Go configuration a model of the specs stands for,
// read from the CONSTANTS of its cfg: design (the spec, and the constants
// distlockspec.DesignOfConstants reads), number of clients, sections, retries and validity
// rule. It fails, wrapping
// distlockspec.ErrNotGoSystem, for the constants that change the system into one the
// Go code does not implement (a mutant token rule; clients that never
// give up); Timeouts = FALSE is a Go system, TLC merely never fires its
// expiry and validity timers.
func ModelConfig(spec, cfg string) (impl.Config, error) {
	consts, err := cfgConstants(cfg)
	if err != nil {
		return impl.Config{}, err
	}
	design, err := distlockspec.DesignOfConstants(spec, consts)
	if err != nil {
		return impl.Config{}, err
	}
	c := impl.Config{Design: design, Validity: impl.ValidityArrival}
	if v, ok := consts["Validity"]; ok {
		if c.Validity, err = impl.ParseValidityRule(v.Str); err != nil {
			return impl.Config{}, fmt.Errorf("constant Validity: %w", err)
		}
	}
	clients, ok := consts["Clients"]
	if !ok || clients.Kind != tlc.KindSet {
		return impl.Config{}, fmt.Errorf("the cfg has no set Clients")
	}
	c.Clients = len(clients.Elems) // a set: each client once (tlc.ParseValue)
	for _, e := range clients.Elems {
		// The Go clients are c1, c2, …: a cfg's other names would make
		// every replay depart at the initial state.
		if n, err := strconv.Atoi(strings.TrimPrefix(e.Str, "c")); e.Kind != tlc.KindModel || !strings.HasPrefix(e.Str, "c") || err != nil || n < 1 || n > len(clients.Elems) || e.Str != "c"+strconv.Itoa(n) {
			return impl.Config{}, fmt.Errorf("constant Clients must be the model values c1 … c%d (the Go clients' names), found %s", len(clients.Elems), clipped(e.String()))
		}
	}
	if design.Redlock() {
		nodes, ok := consts["LockNodes"]
		if !ok || nodes.Kind != tlc.KindSet || len(nodes.Elems) < 1 || len(nodes.Elems) > impl.MaxLockNodes {
			return impl.Config{}, fmt.Errorf("the cfg has no set LockNodes of 1 to %d nodes", impl.MaxLockNodes)
		}
		for _, e := range nodes.Elems {
			// Go's lock node k is n<k+1> (distlockspec.LockNodeName).
			if n, err := strconv.Atoi(strings.TrimPrefix(e.Str, "n")); e.Kind != tlc.KindModel || err != nil || n < 1 || n > len(nodes.Elems) || e.Str != distlockspec.LockNodeName(n-1) {
				return impl.Config{}, fmt.Errorf("constant LockNodes must be the model values n1 … n%d, found %s", len(nodes.Elems), clipped(e.String()))
			}
		}
		c.Nodes = len(nodes.Elems)
	}
	for name, dst := range map[string]*int{"Sections": &c.Sections, "MaxRetries": &c.Retries} {
		v, ok := consts[name]
		if !ok || v.Kind != tlc.KindInt {
			return impl.Config{}, fmt.Errorf("the cfg has no integer %s", name)
		}
		*dst = int(v.Int)
	}
	// The explorer's durations: the untimed world ignores them.
	base := explore.DefaultConfig(c.Design, c.Clients).Config
	base.Sections, base.Retries, base.Validity, base.Nodes = c.Sections, c.Retries, c.Validity, c.Nodes
	c = base
	if err := c.Validate(); err != nil {
		return impl.Config{}, err
	}
	return c, nil
}

// cfgConstants reads the "Name = value" assignments of a cfg's CONSTANT
// and CONSTANTS sections as TLC reads them: comments dropped
// (tlc.StripCfgComments), any white space between and inside the
// assignments (several on a line, a value over several lines, the first
// on the keyword's line), a set's repeated elements counted once
// (tlc.ParseValue). A constant given twice, a substitution (Name <- Op)
// and a name without a value are errors: fencelab does not guess which
// TLC would take.
func cfgConstants(cfg string) (map[string]tlc.Value, error) {
	text := tlc.StripCfgComments(cfg)
	consts := map[string]tlc.Value{}
	in := false
	for i := skipSpace(text, 0); i < len(text); i = skipSpace(text, i) {
		word := identifier(text, i)
		switch {
		case word != "" && tlc.CfgKeyword(word):
			in = word == "CONSTANT" || word == "CONSTANTS"
			i += len(word)
			continue
		case !in:
			i += max(1, len(word))
			continue
		case word == "":
			return nil, fmt.Errorf("CONSTANTS: expected a constant's name, found %q", clipped(text[i:]))
		}
		j := skipSpace(text, i+len(word))
		switch {
		case strings.HasPrefix(text[j:], "<-"):
			return nil, fmt.Errorf("constant %s: a substitution (<-), where fencelab reads only Name = value", clipped(word))
		case !strings.HasPrefix(text[j:], "="):
			return nil, fmt.Errorf("constant %s has no \"= value\"", clipped(word))
		}
		end := valueEnd(text, j+1)
		v, err := tlc.ParseValue(strings.TrimSpace(text[j+1 : end]))
		if err != nil {
			return nil, fmt.Errorf("constant %s: %w", clipped(word), err)
		}
		if _, dup := consts[word]; dup {
			return nil, fmt.Errorf("constant %s is given twice", clipped(word))
		}
		consts[word] = v
		i = end
	}
	return consts, nil
}

// clipped bounds a name or text the cfg reader echoes.
func clipped(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return bounded(s)
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// identifier is the TLA+ identifier at s[i:], "" if none.
func identifier(s string, i int) string {
	j := i
	for j < len(s) && (s[j] == '_' || 'a' <= s[j] && s[j] <= 'z' || 'A' <= s[j] && s[j] <= 'Z' || '0' <= s[j] && s[j] <= '9') {
		j++
	}
	return s[i:j]
}

// valueEnd is where the value that starts at s[i:] ends: at the white
// space, outside brackets and strings, before the next assignment
// ("Name =" or "Name <-"), a section keyword, or the end.
func valueEnd(s string, i int) int {
	depth, inString := 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '(' || c == '[' || c == '{' || c == '<' && strings.HasPrefix(s[i:], "<<"):
			depth++
			if c == '<' {
				i++
			}
		case c == ')' || c == ']' || c == '}' || c == '>' && strings.HasPrefix(s[i:], ">>"):
			depth--
			if c == '>' {
				i++
			}
		case depth <= 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			j := skipSpace(s, i)
			word := identifier(s, j)
			if j == len(s) || tlc.CfgKeyword(word) {
				return i
			}
			if k := skipSpace(s, j+len(word)); word != "" && (strings.HasPrefix(s[k:], "=") || strings.HasPrefix(s[k:], "<-")) {
				return i
			}
		}
	}
	return len(s)
}

// Replayed is a counterexample replayed in Go.
type Replayed struct {
	// Path is the Go run: the action index taken at each step.
	Path []int
	// Steps is how many TLC steps were replayed (a final stutter is none).
	Steps int
	// Property is what the Go system violates at the end, in the specs'
	// name, and At the step it first does (0 is the initial state).
	Property string
	At       int
}

// ReplayError says where a counterexample stopped having a Go match.
type ReplayError struct {
	Step   int    // the TLC step (1 is the first after the initial state)
	Action string // the action TLC names there
	Reason string
	// Path is the Go run up to the departure (impl.World action indices):
	// the steps that matched TLC's before it, for RenderDeparture.
	Path []int
}

func (e *ReplayError) Error() string {
	if e.Step == 0 {
		return "the initial state: " + e.Reason
	}
	return fmt.Sprintf("step %d (%s): %s", e.Step, e.Action, e.Reason)
}

// Replay drives the Go actors of c through the counterexample out holds,
// which violates property (the manifest's name: TLC names an invariant
// but not a temporal property), and checks that Go violates it there too.
func Replay(c impl.Config, out *tlc.Output, property string) (*Replayed, error) {
	return replay(c, out, property, func(w *impl.World, _ []int, i int) (impl.Action, *impl.Effects) { return w.Apply(i) })
}

// stepper takes action i of w, a world the steps path led to: the tests'
// seam for mutant actors, as record's (a mutant may keep state along the
// path; the replay also tries steps it does not take).
type stepper func(w *impl.World, path []int, i int) (impl.Action, *impl.Effects)

// replay is Replay with each step taken by apply.
func replay(c impl.Config, out *tlc.Output, property string, apply stepper) (*Replayed, error) {
	if len(out.States) == 0 {
		return nil, fmt.Errorf("the TLC output holds no counterexample")
	}
	w, err := impl.NewWorld(c)
	if err != nil {
		return nil, err
	}
	if err := distlockspec.SameState(w, c.Design, out.States[0]); err != nil {
		return nil, &ReplayError{Reason: err.Error()}
	}
	r := &Replayed{Property: property, At: -1}
	// depart is a departure after the steps matched so far (upto of them).
	depart := func(e *ReplayError, upto int) error {
		e.Path = slices.Clone(r.Path[:upto])
		return e
	}
	// worlds[k] is the Go world at TLC state k+1, for a lasso's loop.
	worlds := []*impl.World{w.Clone()}
	first := -1 // the first step at which Go violates property
	if violates(w, property) {
		first = 0
	}
	trial := w.Clone()
	for k, st := range out.States[1:] {
		step := k + 1
		if st.Action == "Stuttering" || st.LoopTo > 0 && len(st.Vars) == 0 {
			break
		}
		var matched []int
		var tried []string
		for i := range w.Actions() {
			trial.CopyFrom(w)
			act := distlockspec.SpecAction(trial, trial.Action(i))
			if act.Label != st.Action {
				continue
			}
			a, _ := apply(trial, r.Path, i)
			if err := distlockspec.SameState(trial, c.Design, st); err != nil {
				tried = append(tried, fmt.Sprintf("%s: %v", describe(a), err))
				continue
			}
			matched = append(matched, i)
		}
		if len(matched) == 0 {
			why := "no Go step is this action (" + st.Action + ")"
			if len(tried) > 0 {
				why = "no Go step reaches TLC's state; " + strings.Join(tried, "; ")
			}
			return nil, depart(&ReplayError{Step: step, Action: st.Action, Reason: why}, len(r.Path))
		}
		// Steps that reach the same abstract state are the same spec step;
		// the first keeps the replay deterministic.
		apply(w, r.Path, matched[0])
		r.Path = append(r.Path, matched[0])
		r.Steps = step
		worlds = append(worlds, w.Clone())
		if first < 0 && violates(w, property) {
			first = step
		}
	}
	last := out.States[len(out.States)-1]
	switch {
	case out.Deadlock:
		if w.Actions() > 0 || w.Done() {
			return nil, depart(&ReplayError{Step: r.Steps, Action: "deadlock", Reason: "TLC deadlocks here, the Go world does not"}, len(r.Path))
		}
		r.Property, r.At = "Deadlock", r.Steps
		return r, nil
	case out.Temporal:
		if err := liveness(r, worlds, last, property); err != nil {
			var re *ReplayError
			if errors.As(err, &re) {
				return nil, depart(re, len(r.Path))
			}
			return nil, err
		}
		return r, nil
	}
	if first != r.Steps {
		if first < 0 {
			return nil, depart(&ReplayError{Step: r.Steps, Action: last.Action, Reason: "TLC violates " + property + " here, the Go system never does"}, len(r.Path))
		}
		return nil, depart(&ReplayError{Step: first, Action: out.States[first].Action,
			Reason: fmt.Sprintf("the Go system violates %s here, TLC only at step %d", property, r.Steps)}, first)
	}
	r.At = first
	return r, nil
}

// liveness checks a temporal counterexample's end in Go: where TLC
// stutters for ever, or on the loop it closes (which must be a loop of the
// Go world too), the property's goal is never reached.
func liveness(r *Replayed, worlds []*impl.World, last tlc.State, property string) error {
	end := worlds[len(worlds)-1]
	from := len(worlds) - 1
	if last.LoopTo > 0 {
		from = last.LoopTo - 1
		if from >= len(worlds) || !slices.Equal(worlds[from].Encode(nil), end.Encode(nil)) {
			return &ReplayError{Step: r.Steps, Action: "back to state", Reason: fmt.Sprintf("TLC's loop back to state %d is no loop of the Go world", last.LoopTo)}
		}
	}
	for k := from; k < len(worlds); k++ {
		if !violates(worlds[k], property) {
			return &ReplayError{Step: k, Action: "loop", Reason: property + "'s goal is reached in the Go world on TLC's loop"}
		}
	}
	r.At = r.Steps
	return nil
}

// violates reports whether w is a state TLC reports for property
// (impl.Property.Violated): an invariant's breach; a witness's goal
// reached; for a liveness property, a state short of its goal. A property
// Go has no check for is never violated (Replayable).
func violates(w *impl.World, property string) bool {
	p, ok := impl.LookupProperty(property)
	return ok && p.Violated(w)
}

// Replayable reports whether Go has a check for property: it is one of
// impl.Properties — the invariants (TokensAreUnique among them: a
// restarted volatile counter hands one token to two grants), the
// witnesses and the liveness properties.
func Replayable(property string) bool {
	_, ok := impl.LookupProperty(property)
	return ok
}

// ReplayModel replays in Go the counterexample TLC printed (output) for
// model m of the manifest in specsDir. It fails as ModelReplayable does,
// with an *OtherOutputError (ErrOtherOutput) when output is not m's (another
// spec's, another violation's, another initial state: identify), and with
// a *ReplayError where the Go system departs from TLC's counterexample.
func ReplayModel(specsDir string, m tlc.Model, output []byte) (*Replayed, error) {
	c, out, err := ParseModelOutput(specsDir, m, output)
	if err != nil {
		return nil, err
	}
	return Replay(c, out, m.Property)
}

// ParseModelOutput reads output as TLC's output for model m of the
// manifest in specsDir, and returns it with the Go configuration m stands
// for: what ReplayModel replays. It fails as ReplayModel does short of
// the replay: for a model Go does not run (ModelReplayable), an output
// that is not TLC's complete output, or one that is not m's
// (*OtherOutputError), so that a caller can check every output it was
// given before it starts anything.
func ParseModelOutput(specsDir string, m tlc.Model, output []byte) (impl.Config, *tlc.Output, error) {
	c, err := ModelReplayable(specsDir, m)
	if err != nil {
		return c, nil, err
	}
	out, err := tlc.ParseOutput(bytes.NewReader(output))
	if err != nil {
		return c, nil, fmt.Errorf("model %s: TLC's output: %w", m.Name, err)
	}
	if err := identify(m, c, out); err != nil {
		return c, nil, err
	}
	return c, out, nil
}

// ModelReplayable returns the Go configuration model m of the manifest in
// specsDir stands for. It fails wrapping distlockspec.ErrNotGoSystem, with the reason,
// for a model whose counterexample Go cannot replay: the timed spec's, a
// variant's whose system Go does not run (a mutant service, clients that
// never give up), or one whose property Go has no check for.
func ModelReplayable(specsDir string, m tlc.Model) (impl.Config, error) {
	if m.Family == tlc.FamilyTimed {
		return impl.Config{}, fmt.Errorf("timed spec (its steps are ticks): %w", distlockspec.ErrNotGoSystem)
	}
	if !Replayable(m.Property) {
		return impl.Config{}, fmt.Errorf("no Go check (%s): %w", m.Property, distlockspec.ErrNotGoSystem)
	}
	if err := tlc.ValidFileName(m.Cfg, ".cfg"); err != nil {
		return impl.Config{}, fmt.Errorf("model %s: cfg: %w", m.Name, err)
	}
	cfg, err := inputfile.Read(filepath.Join(specsDir, m.Cfg), inputfile.MaxText)
	if err != nil {
		return impl.Config{}, fmt.Errorf("model %s: %s: %w", m.Name, m.Cfg, err)
	}
	c, err := ModelConfig(m.Spec, string(cfg))
	if err != nil {
		return impl.Config{}, fmt.Errorf("model %s: %w", m.Name, err)
	}
	return c, nil
}
