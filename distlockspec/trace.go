package distlockspec

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/trace"
)

// ResourceLane is the lane of the shared resource in traces of fencelab's
// specs, where the resource is a variable (counter) rather than a process.
const ResourceLane = "resource"

// ServiceLane is the lock service's lane: its process in the untimed
// specs, its actions in the timed spec.
const ServiceLane = "service"

// EvaluationError is the violation of a trace that ends where TLC could
// not evaluate the spec (an error other than a failed Assert, which is
// "Assert").
const EvaluationError = "EvaluationError"

// TraceOptions tunes the conversion of a counterexample to a trace.
type TraceOptions struct {
	Title string
	// Property names the violated property when TLC does not: TLC reports a
	// temporal violation without naming the property.
	Property string
}

// ErrNoCounterexample means the output holds no states to convert.
var ErrNoCounterexample = errors.New("the TLC output has no counterexample (no states)")

// Trace turns the counterexample in o, TLC's output for a model of the
// specs, into a trace.Trace.
//
// It reads the PlusCal conventions of fencelab's specs: pc names the
// processes (the lanes: non-clients such as the service first, then the
// clients — the keys of lock_held — then the resource if there is a
// counter), the actor of a step is the process whose pc changed (or whose
// pc was at the step's label), variables whose name contains "queue" are
// message channels (a plain sequence is a channel to the process that reads
// it, a function of sequences has one channel per process), and distLock,
// accepted (or ops), token and max_token give expiry and rejection notes;
// a set named network is the messages in flight of the specs that step
// like impl.World (each message a record with from and to). Other
// specs get lanes too: PlusCal processes with integer ids (TLC prints their
// pc as a sequence) are lanes "1", "2", …; a spec without processes (plain
// TLA+, or a uniprocess algorithm) is one lane named after its module, which
// takes every step.
//
// A liveness counterexample that loops back ends with the step back, whose
// state is the one it returns to; the trace's Loop names that step. An
// Assert failure or an evaluation error is the trace's violation, in TLC's
// words. When TLC printed several counterexamples (-continue), the trace is
// the selected one and a note at its first step says how many there were.
func Trace(o *tlc.Output, opts TraceOptions) (*trace.Trace, error) {
	if len(o.States) == 0 {
		return nil, ErrNoCounterexample
	}
	c := newConverter(o)
	t := &trace.Trace{Title: opts.Title, Source: trace.SourceTLC, Lanes: c.lanes}
	var prev map[string]tlc.Value
	var prevOrder []string
	for i, st := range o.States {
		step := trace.Step{Number: st.Number, Action: st.Action}
		if len(st.Vars) == 0 {
			// Stuttering: nothing changes.
			if prev == nil {
				return nil, fmt.Errorf("state %d has no variables", st.Number)
			}
			t.Steps = append(t.Steps, step)
			t.Notes = append(t.Notes, trace.Note{Lane: c.firstLane(), Step: st.Number, Kind: trace.NoteInfo,
				Text: "from here on no process takes a step (stuttering)"})
			continue
		}
		cur, order := valueMap(st)
		if i == 0 || prev == nil {
			var all []trace.Var
			for _, a := range st.Vars {
				all = append(all, tlc.Flatten(a.Name, a.Value)...)
			}
			step.Changes = trace.Diff(nil, all)
		} else {
			step.Changes = diffStates(prev, prevOrder, cur, order)
			step.Actor = c.actor(prev, cur, st.Action)
			c.arrowsAndNotes(t, step, prev, cur)
		}
		t.Steps = append(t.Steps, step)
		prev, prevOrder = cur, order
	}
	c.finishArrows(t)
	if last := o.States[len(o.States)-1]; last.LoopTo > 0 {
		t.Loop = last.LoopTo
		lane := t.Steps[len(t.Steps)-1].Actor
		if lane == "" {
			lane = c.firstLane()
		}
		t.Notes = append(t.Notes, trace.Note{Lane: lane, Step: last.Number, Kind: trace.NoteInfo,
			Text: fmt.Sprintf("back to the state of step %d: the behaviour repeats steps %d to %d forever", last.LoopTo, last.LoopTo+1, last.Number)})
	}
	t.Violation = c.violation(o, opts, t, prev)
	if n := len(o.Counterexamples); n > 1 {
		t.Notes = append([]trace.Note{{Lane: c.firstLane(), Step: t.Steps[0].Number, Kind: trace.NoteInfo,
			Text: fmt.Sprintf("TLC printed %d counterexamples (it ran with -continue); this is number %d", n, o.Selected+1)}}, t.Notes...)
	}
	return t, nil
}

func valueMap(s tlc.State) (map[string]tlc.Value, []string) {
	m := make(map[string]tlc.Value, len(s.Vars))
	order := make([]string, 0, len(s.Vars))
	for _, a := range s.Vars {
		m[a.Name] = a.Value
		order = append(order, a.Name)
	}
	return m, order
}

// diffStates lists what changed, each at its innermost element, in the
// order TLC printed the variables.
func diffStates(prev map[string]tlc.Value, prevOrder []string, cur map[string]tlc.Value, order []string) []trace.Change {
	var p, n []trace.Var
	for _, name := range order {
		old, ok := prev[name]
		if !ok {
			n = append(n, tlc.Flatten(name, cur[name])...)
			continue
		}
		pv, nv := tlc.FlattenPair(name, old, cur[name])
		p, n = append(p, pv...), append(n, nv...)
	}
	for _, name := range prevOrder {
		if _, ok := cur[name]; !ok {
			p = append(p, tlc.Flatten(name, prev[name])...)
		}
	}
	return trace.Diff(p, n)
}

// converter holds what the conversion learns about the spec's processes.
type converter struct {
	lanes []string
	// single is the one lane of a spec without processes; "" otherwise.
	single string
	// serviceIsConstant is true when the lock service is no process of the spec
	// (the timed spec): its actions are drawn in ServiceLane.
	serviceIsConstant bool
	clients           map[string]bool
	// readers maps a plain-sequence channel to the lane that dequeues it.
	readers map[string]string
	// pending are the messages in flight per channel, oldest first, as
	// indexes into the trace's arrows.
	pending map[string][]int
	// resourceProc is true when the resource is a process (a lane of pc).
	resourceProc bool
}

func newConverter(o *tlc.Output) *converter {
	c := &converter{clients: map[string]bool{}, readers: map[string]string{}, pending: map[string][]int{}}
	first, _ := valueMap(o.States[0])
	for _, name := range []string{"lock_held", "responses_queue"} {
		if v, ok := first[name]; ok && v.Kind == tlc.KindFunction {
			for _, f := range v.Fields {
				c.clients[laneName(f.Key)] = true
			}
			break
		}
	}
	if pc, ok := asFunction(first["pc"]); ok {
		var others, clients []string
		for _, f := range pc.Fields {
			if name := laneName(f.Key); c.clients[name] {
				clients = append(clients, name)
			} else {
				others = append(others, name)
			}
		}
		c.lanes = append(others, clients...)
	}
	if len(c.lanes) == 0 {
		// No processes: the spec is one lane, which takes every step.
		c.single = moduleName(o.States)
		c.lanes = []string{c.single}
	} else if !slices.Contains(c.lanes, ServiceLane) && slices.ContainsFunc(o.States, func(s tlc.State) bool { return isServiceAction(s.Action) }) {
		// The timed spec's service is a constant, not a process: its
		// steps (Serve, ServeRenewal) change no pc. It gets its lane, the
		// first, as the untimed specs' service process has, rather than
		// leaving its steps to whichever lane is drawn first.
		c.serviceIsConstant = true
		c.lanes = append([]string{ServiceLane}, c.lanes...)
	}
	if _, ok := first["counter"]; ok {
		if i := slices.Index(c.lanes, ResourceLane); i >= 0 {
			// The resource is a process of its own (the specs that step
			// like impl.World): its steps are its own, not the clients'.
			// Its lane stays last, as for a resource that is a variable.
			c.resourceProc = true
			c.lanes = slices.Delete(c.lanes, i, i+1)
		}
		c.lanes = append(c.lanes, ResourceLane)
	}
	c.findReaders(o)
	return c
}

// asFunction returns v as a function: a function as is, a non-empty
// sequence (how TLC prints a function on 1..n, such as the pc of
// processes with integer ids) as the function from its indexes.
func asFunction(v tlc.Value) (tlc.Value, bool) {
	switch {
	case v.Kind == tlc.KindFunction && len(v.Fields) > 0:
		return v, true
	case v.Kind == tlc.KindSeq && len(v.Elems) > 0:
		fn := tlc.Value{Kind: tlc.KindFunction, Fields: make([]tlc.Field, len(v.Elems))}
		for i, e := range v.Elems {
			fn.Fields[i] = tlc.Field{Key: tlc.Value{Kind: tlc.KindInt, Int: int64(i + 1)}, Val: e}
		}
		return fn, true
	}
	return tlc.Value{}, false
}

// moduleName is the module the states' actions come from ("… of module
// X"), the name of a spec's one lane; "spec" when TLC does not say.
func moduleName(states []tlc.State) string {
	for _, st := range states {
		if _, after, ok := strings.Cut(st.Header, " of module "); ok {
			name := strings.TrimSuffix(strings.TrimSpace(after), ">")
			if name != "" && !strings.ContainsAny(name, " <>") {
				return name
			}
		}
	}
	return "spec"
}

func (c *converter) firstLane() string {
	if len(c.lanes) > 0 {
		return c.lanes[0]
	}
	return ""
}

// laneName prints a process id: a model value as is, a string unquoted.
func laneName(v tlc.Value) string {
	if v.Kind == tlc.KindString {
		return v.Str
	}
	return v.String()
}

// actor is the process whose pc changed, or else the one whose pc was at
// the step's label (a loop label such as Serve stays where it is), or else
// the one process the step's messages and timers name (stepEvidence).
//
// A spec that INSTANCEs the spec (M == INSTANCE DistLockFencing) names its
// actions with the instance's prefix, M!Serve, or names every step M!Next
// when its Next is the instance's: the label is the part after the last
// "!", and a step named M!Next is known by what it did.
func (c *converter) actor(prev, cur map[string]tlc.Value, action string) string {
	if c.single != "" {
		return c.single
	}
	pp, ok1 := asFunction(prev["pc"])
	np, ok2 := asFunction(cur["pc"])
	if !ok1 || !ok2 {
		return ""
	}
	label := action[strings.LastIndexByte(action, '!')+1:]
	var changed, atLabel []string
	for _, f := range pp.Fields {
		after, ok := np.Apply(f.Key)
		if ok && !after.Equal(f.Val) {
			changed = append(changed, laneName(f.Key))
		}
		if f.Val.Kind == tlc.KindString && f.Val.Str == label {
			atLabel = append(atLabel, laneName(f.Key))
		}
	}
	if len(changed) == 1 {
		return changed[0]
	}
	if len(atLabel) == 1 {
		return atLabel[0]
	}
	if c.serviceIsConstant && isServiceAction(label) {
		return ServiceLane
	}
	return c.stepEvidence(prev, cur)
}

// stepEvidence is the one lane a step's effects name, or "": the receiver
// of each message it took off the network, the sender of each message it
// put on, the node of each timer that fired, the resource when its queue
// of pending writes changed. Two lanes named, or none, name no actor.
func (c *converter) stepEvidence(prev, cur map[string]tlc.Value) string {
	var named []string
	name := func(set, other tlc.Value, field string) {
		if set.Kind != tlc.KindSet {
			return
		}
		for _, e := range set.Elems {
			if other.Kind == tlc.KindSet && slices.ContainsFunc(other.Elems, e.Equal) {
				continue
			}
			if v, ok := e.Field(field); ok {
				named = append(named, laneName(v))
			}
		}
	}
	name(prev[NetworkVar], cur[NetworkVar], "to")   // received
	name(cur[NetworkVar], prev[NetworkVar], "from") // sent
	name(prev[timersVar], cur[timersVar], "node")   // fired
	// The FIFO channels of the specs before the network: a message taken
	// off a process's own channel names it, one taken off a shared channel
	// names its reader.
	for ch, old := range prev {
		if !isChannel(ch) {
			continue
		}
		now := cur[ch]
		switch {
		case old.Kind == tlc.KindSeq:
			if removed, _ := fifoDelta(old, now); removed > 0 {
				reader := c.readers[ch]
				if reader == "" {
					reader = c.service()
				}
				named = append(named, reader)
			}
		case old.Kind == tlc.KindFunction && now.Kind == tlc.KindFunction:
			for _, f := range old.Fields {
				after, _ := now.Apply(f.Key)
				if removed, _ := fifoDelta(f.Val, after); removed > 0 {
					named = append(named, laneName(f.Key))
				}
			}
		}
	}
	if p, ok := cur["pending"]; ok && !p.Equal(prev["pending"]) {
		named = append(named, ResourceLane)
	}
	slices.Sort(named)
	if named = slices.Compact(named); len(named) == 1 && slices.Contains(c.lanes, named[0]) {
		return named[0]
	}
	return ""
}

// timersVar is the variable of the armed timers, each [node, kind], in the
// specs that step like impl.World.
const timersVar = "timers"

// isServiceAction reports whether a step's action is the lock service's:
// its label in every spec of fencelab is Serve (ServeRenewal for a
// renewal).
func isServiceAction(action string) bool { return strings.HasPrefix(action, "Serve") }

func isChannel(name string) bool { return strings.Contains(strings.ToLower(name), "queue") }

// findReaders learns, for each plain-sequence channel, which process takes
// messages off it, so a message still in flight gets the right receiver.
func (c *converter) findReaders(o *tlc.Output) {
	var prev map[string]tlc.Value
	for _, st := range o.States {
		if len(st.Vars) == 0 {
			continue
		}
		cur, order := valueMap(st)
		if prev != nil {
			actor := c.actor(prev, cur, st.Action)
			for _, name := range order {
				old, ok := prev[name]
				if !ok || !isChannel(name) || old.Kind != tlc.KindSeq || actor == "" {
					continue
				}
				if removed, _ := fifoDelta(old, cur[name]); removed > 0 && c.readers[name] == "" {
					c.readers[name] = actor
				}
			}
		}
		prev = cur
	}
}

// fifoDelta explains a channel's change as k messages taken off its head
// and then messages appended at its tail.
func fifoDelta(prev, next tlc.Value) (removed int, appended []tlc.Value) {
	if prev.Kind != tlc.KindSeq || next.Kind != tlc.KindSeq {
		return 0, nil
	}
	for k := 0; k <= len(prev.Elems); k++ {
		rest := prev.Elems[k:]
		if len(rest) > len(next.Elems) {
			continue
		}
		match := true
		for i := range rest {
			if !rest[i].Equal(next.Elems[i]) {
				match = false
				break
			}
		}
		if match {
			return k, next.Elems[len(rest):]
		}
	}
	return len(prev.Elems), next.Elems
}

// arrowsAndNotes infers the messages sent and received in a step, the
// resource operations, and the expiry and rejection marks.
func (c *converter) arrowsAndNotes(t *trace.Trace, step trace.Step, prev, cur map[string]tlc.Value) {
	actor, n := step.Actor, step.Number
	names := make([]string, 0, len(cur))
	for name := range cur {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		old, ok := prev[name]
		if !ok || !isChannel(name) {
			continue
		}
		now := cur[name]
		switch {
		case old.Kind == tlc.KindSeq:
			c.channel(t, name, "", actor, n, old, now, prev)
		case old.Kind == tlc.KindFunction && now.Kind == tlc.KindFunction:
			for _, f := range old.Fields {
				after, ok := now.Apply(f.Key)
				if ok && f.Val.Kind == tlc.KindSeq {
					c.channel(t, name+"["+f.Key.String()+"]", laneName(f.Key), actor, n, f.Val, after, prev)
				}
			}
		}
	}
	if old, ok := prev[NetworkVar]; ok && old.Kind == tlc.KindSet {
		c.network(t, actor, n, old, cur[NetworkVar])
	}
	c.resource(t, actor, step, prev, cur)
	// A non-atomic resource (DistLockFencing.tla, NonAtomic): a write
	// checked and queued in pending, and later the oldest applied.
	if pend, old := cur["pending"], prev["pending"]; pend.Kind == tlc.KindSeq && old.Kind == tlc.KindSeq && len(pend.Elems) != len(old.Elems) {
		var w tlc.Value
		var text string
		if len(pend.Elems) > len(old.Elems) {
			w, text = pend.Elems[len(pend.Elems)-1], "checks %s's write %s (token %s): applied later"
		} else {
			w, text = old.Elems[0], "applies %s's write %s (token %s), checked before"
		}
		id, _ := w.Field("id")
		tok, _ := w.Field("token")
		val, _ := w.Field("value")
		t.Notes = append(t.Notes, trace.Note{Lane: ResourceLane, Step: n, Kind: trace.NoteInfo,
			Text: fmt.Sprintf(text, laneName(id), val, tok)})
	}
	// A crash and restart of the service (DistLockFencing.tla,
	// ServiceRestart).
	if r, old := cur["restarts"], prev["restarts"]; r.Kind == tlc.KindInt && old.Kind == tlc.KindInt && r.Int > old.Int {
		text := "crashed and restarted: the lock is free"
		if last, ok := cur["last_lease"]; ok {
			text += fmt.Sprintf(", the lease counter is %s", last)
		}
		t.Notes = append(t.Notes, trace.Note{Lane: actor, Step: n, Kind: trace.NoteFault, Text: text})
	}
	if lk, ok := cur["distLock"]; ok {
		status, _ := lk.Field("status")
		was, _ := prev["distLock"].Field("status")
		if status.Str == "Expired" && was.Str != "Expired" {
			holder, _ := prev["distLock"].Field("id")
			t.Notes = append(t.Notes, trace.Note{Lane: actor, Step: n, Kind: trace.NoteExpiry,
				Text: fmt.Sprintf("the lease of %s expired", laneName(holder))})
		}
	}
}

// channel records the messages taken off and put on one channel in a step.
// to is the channel's owner for per-process channels, "" for a shared one.
func (c *converter) channel(t *trace.Trace, key, to, actor string, n int, old, now tlc.Value, prev map[string]tlc.Value) {
	removed, appended := fifoDelta(old, now)
	for k := 0; k < removed && len(c.pending[key]) > 0; k++ {
		a := &t.Arrows[c.pending[key][0]]
		c.pending[key] = c.pending[key][1:]
		a.Received = n
		if a.To == "" {
			a.To = actor
		}
	}
	base, _, _ := strings.Cut(key, "[")
	for _, m := range appended {
		dest := to
		if dest == "" {
			dest = c.readers[base]
		}
		label := messageLabel(m)
		t.Arrows = append(t.Arrows, trace.Arrow{From: actor, To: dest, Sent: n, Label: label})
		c.pending[key] = append(c.pending[key], len(t.Arrows)-1)
		if strings.HasPrefix(label, "rejected") {
			text := fmt.Sprintf("rejects %s's acquire", to)
			if lk, ok := prev["distLock"]; ok {
				if st, _ := lk.Field("status"); st.Str == "Acquired" {
					holder, _ := lk.Field("id")
					text += fmt.Sprintf(": the lock is held by %s", laneName(holder))
				}
			}
			t.Notes = append(t.Notes, trace.Note{Lane: actor, Step: n, Kind: trace.NoteRejection, Text: text})
		}
	}
}

// finishArrows gives a message that was never received a receiver: the
// service.
func (c *converter) finishArrows(t *trace.Trace) {
	for i := range t.Arrows {
		if t.Arrows[i].To == "" {
			t.Arrows[i].To = c.service()
		}
	}
}

// service is the first lane that is not a client or the resource, "" if
// there is none.
func (c *converter) service() string {
	for _, l := range c.lanes {
		if !c.clients[l] && l != ResourceLane {
			return l
		}
	}
	return ""
}

// messageLabel names a message: its type or status, then its other fields
// but the sender's id, leaving out a zero token.
func messageLabel(m tlc.Value) string {
	if m.Kind == tlc.KindString {
		return m.Str
	}
	if m.Kind != tlc.KindRecord {
		return m.String()
	}
	var head string
	var rest []string
	typ, _ := m.Field("type")
	_, net := m.Field("from")
	reply := strings.HasSuffix(typ.Str, "_reply")
	for _, f := range m.Fields {
		switch k := f.Key.Str; {
		case k == "type" || k == "status":
			head = laneName(f.Val)
		case k == "id":
		case k == "token" && f.Val.Kind == tlc.KindInt && f.Val.Int == 0:
		// A network message (from, to and every field of Go's message):
		// the arrow shows from and to, and unused fields are zero.
		case net && (k == "from" || k == "to"):
		case net && k == "lease" && f.Val.Kind == tlc.KindInt && f.Val.Int == 0:
		case net && k == "value" && typ.Str != "read_reply" && typ.Str != "write" && f.Val.Kind == tlc.KindInt && f.Val.Int == 0:
		case net && k == "ok":
			if reply && f.Val.Kind == tlc.KindBool && !f.Val.Bool {
				rest = append(rest, "refused")
			}
		default:
			rest = append(rest, k+" "+laneName(f.Val))
		}
	}
	if head == "" {
		return m.String()
	}
	if len(rest) > 0 {
		return head + " (" + strings.Join(rest, ", ") + ")"
	}
	return head
}

// NetworkVar is the variable of the messages in flight in the specs that
// step like impl.World: a set of records with from and to, any of which
// may be delivered next.
const NetworkVar = "network"

// network draws the messages a step took out of the network (received by
// the actor) and put into it (sent from their from to their to).
func (c *converter) network(t *trace.Trace, actor string, n int, old, now tlc.Value) {
	has := func(set tlc.Value, m tlc.Value) bool {
		return slices.ContainsFunc(set.Elems, m.Equal)
	}
	for _, m := range old.Elems {
		if has(now, m) {
			continue
		}
		key := NetworkVar + ":" + m.String()
		if q := c.pending[key]; len(q) > 0 {
			t.Arrows[q[0]].Received = n
			c.pending[key] = q[1:]
		}
	}
	for _, m := range now.Elems {
		if has(old, m) {
			continue
		}
		from, to := actor, ""
		if v, ok := m.Field("from"); ok {
			from = laneName(v)
		}
		if v, ok := m.Field("to"); ok {
			to = laneName(v)
		}
		label := messageLabel(m)
		t.Arrows = append(t.Arrows, trace.Arrow{From: from, To: to, Sent: n, Label: label})
		key := NetworkVar + ":" + m.String()
		c.pending[key] = append(c.pending[key], len(t.Arrows)-1)
	}
}

// resource draws a client's operation on the shared counter: an arrow to
// the resource lane, and a rejection note when the resource refused it.
// When the resource is a process, its steps and messages draw themselves.
func (c *converter) resource(t *trace.Trace, actor string, step trace.Step, prev, cur map[string]tlc.Value) {
	if _, ok := cur["counter"]; !ok || !c.clients[actor] || c.resourceProc {
		return
	}
	action := strings.ToLower(step.Action)
	op := ""
	switch {
	case strings.Contains(action, "read"):
		op = "read"
	case strings.Contains(action, "write"):
		op = "write"
	default:
		return
	}
	self := tlc.Value{Kind: tlc.KindModel, Str: actor}
	tokenText := ""
	if tok, ok := applyVar(prev, "token", self); ok {
		tokenText = fmt.Sprintf(" (token %s)", tok)
	}
	label := op + tokenText
	switch op {
	case "read":
		if v, ok := applyVar(cur, "read_val", self); ok {
			label += " → " + v.String()
		}
	case "write":
		if v, ok := applyVar(prev, "read_val", self); ok && v.Kind == tlc.KindInt {
			label = fmt.Sprintf("write %d%s", v.Int+1, tokenText)
		}
	}
	pend, old := cur["pending"], prev["pending"]
	if acc, ok := cur["accepted"]; ok && acc.Kind == tlc.KindSeq {
		switch accOld := prev["accepted"]; {
		case len(acc.Elems) != len(accOld.Elems):
		case pend.Kind == tlc.KindSeq && len(pend.Elems) > len(old.Elems):
			// A non-atomic resource whose operations are a client's
			// steps (a spec without a resource process): the write is
			// checked now and takes effect at a later Apply.
			t.Notes = append(t.Notes, trace.Note{Lane: ResourceLane, Step: step.Number, Kind: trace.NoteInfo,
				Text: fmt.Sprintf("checks %s's %s: applied later", actor, label)})
			label += " checked"
		default:
			label += " refused"
			text := fmt.Sprintf("refuses %s's %s%s", actor, op, tokenText)
			if high, ok := prev["max_token"]; ok {
				text += fmt.Sprintf(": the highest token seen is %s", high)
			} else if cur, ok := prev["current"]; ok {
				text += fmt.Sprintf(": the resource's current token is %s", cur)
			} else if v, ok := prev["version"]; ok {
				text += fmt.Sprintf(": the version it remembers is %s", v)
			}
			t.Notes = append(t.Notes, trace.Note{Lane: ResourceLane, Step: step.Number, Kind: trace.NoteRejection, Text: text})
		}
	}
	t.Arrows = append(t.Arrows, trace.Arrow{From: actor, To: ResourceLane, Sent: step.Number, Received: step.Number, Label: label})
}

// applyVar returns state[name][key] when name is a function variable.
func applyVar(state map[string]tlc.Value, name string, key tlc.Value) (tlc.Value, bool) {
	v, ok := state[name]
	if !ok {
		return tlc.Value{}, false
	}
	return v.Apply(key)
}

// violation names what the counterexample violates at its last step and
// who is involved.
func (c *converter) violation(o *tlc.Output, opts TraceOptions, t *trace.Trace, last map[string]tlc.Value) *trace.Violation {
	v := &trace.Violation{Step: t.Steps[len(t.Steps)-1].Number}
	switch {
	case o.Failure != nil:
		v.Property = EvaluationError
		if o.Failure.Kind == "Assert" {
			v.Property = "Assert"
		}
		v.Explanation = "TLC: " + o.Failure.Text
		if a := t.Steps[len(t.Steps)-1].Actor; a != "" {
			v.Involved = []string{a}
		}
		return v
	case o.Invariant != "":
		v.Property = o.Invariant
	case o.Deadlock:
		v.Property = "Deadlock"
		v.Involved, v.Explanation = c.unfinished(last, "no process can take a step")
		return v
	case o.Temporal || opts.Property != "":
		v.Property = opts.Property
		if v.Property == "" {
			v.Property = "a temporal property"
		}
		v.Involved, v.Explanation = c.unfinished(last, "the behaviour never gets further")
		return v
	default:
		return nil
	}
	switch v.Property {
	case "AtMostOneClientHoldLock":
		if held, ok := last["lock_held"]; ok {
			for _, f := range held.Fields {
				if f.Val.Kind == tlc.KindBool && f.Val.Bool {
					v.Involved = append(v.Involved, laneName(f.Key))
				}
			}
			if len(v.Involved) > 1 {
				v.Explanation = joinAnd(v.Involved) + " all believe they hold the lock"
				if len(v.Involved) == 2 {
					v.Explanation = joinAnd(v.Involved) + " both believe they hold the lock"
				}
			}
		}
	case "NoLostUpdate":
		counter := last["counter"]
		writes, ok := last["writes"]
		n := int64(-1)
		if ok && writes.Kind == tlc.KindInt {
			n = writes.Int
		} else if acc, ok := acceptedOps(last); ok {
			n = 0
			for _, e := range acc.Elems {
				if op, _ := e.Field("op"); op.Str == "write" {
					n++
					if id, ok := e.Field("id"); ok {
						v.Involved = appendUnique(v.Involved, laneName(id))
					}
				}
			}
		}
		if len(v.Involved) == 0 {
			for _, s := range t.Steps {
				if c.clients[s.Actor] && strings.Contains(strings.ToLower(s.Action), "write") {
					v.Involved = appendUnique(v.Involved, s.Actor)
				}
			}
		}
		if n >= 0 {
			v.Explanation = fmt.Sprintf("the counter is %s but the resource accepted %d writes: an update was lost", counter, n)
		}
	case "TokenIsMonotonical":
		if acc, ok := acceptedOps(last); ok {
			v.Involved, v.Explanation = tokenRegression(acc)
		}
	}
	return v
}

// acceptedOps is the resource's accepted operations: the variable
// accepted, or the operations of the log ops (every operation handled, as
// Go's resource logs them) whose ok is TRUE.
func acceptedOps(state map[string]tlc.Value) (tlc.Value, bool) {
	if acc, ok := state["accepted"]; ok {
		return acc, true
	}
	ops, ok := state["ops"]
	if !ok || ops.Kind != tlc.KindSeq {
		return tlc.Value{}, false
	}
	acc := tlc.Value{Kind: tlc.KindSeq}
	for _, e := range ops.Elems {
		if okv, has := e.Field("ok"); !has || (okv.Kind == tlc.KindBool && okv.Bool) {
			acc.Elems = append(acc.Elems, e)
		}
	}
	return acc, true
}

// tokenRegression finds two accepted operations whose tokens go down.
func tokenRegression(acc tlc.Value) ([]string, string) {
	for j, later := range acc.Elems {
		lt, _ := later.Field("token")
		for _, earlier := range acc.Elems[:j] {
			et, _ := earlier.Field("token")
			if et.Kind == tlc.KindInt && lt.Kind == tlc.KindInt && et.Int > lt.Int {
				eid, _ := earlier.Field("id")
				lid, _ := later.Field("id")
				eop, _ := earlier.Field("op")
				lop, _ := later.Field("op")
				return appendUnique([]string{laneName(eid)}, laneName(lid)),
					fmt.Sprintf("the resource accepted %s's %s with token %d after %s's %s with token %d",
						laneName(lid), lop.Str, lt.Int, laneName(eid), eop.Str, et.Int)
			}
		}
	}
	return nil, ""
}

// unfinished lists the clients that are not done and where they wait.
func (c *converter) unfinished(last map[string]tlc.Value, why string) ([]string, string) {
	pc, ok := asFunction(last["pc"])
	if !ok {
		return nil, why
	}
	var who, where []string
	for _, f := range pc.Fields {
		name := laneName(f.Key)
		if f.Val.Kind == tlc.KindString && f.Val.Str == "Done" {
			continue
		}
		if len(c.clients) > 0 && !c.clients[name] {
			continue
		}
		who = append(who, name)
		where = append(where, fmt.Sprintf("%s stays at %s", name, laneName(f.Val)))
	}
	if len(who) == 0 {
		return nil, why
	}
	return who, why + ": " + strings.Join(where, ", ")
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
