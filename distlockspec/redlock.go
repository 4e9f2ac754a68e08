package distlockspec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/impl"
)

// The Redlock rows' spec, DistLockRedlock.tla: N lock nodes (a process
// each, named n1, n2, …: Go's LockNode(k) is n<k+1>), a value per acquire
// (<<client, section, attempt>>, Go's redlockValue) where the other specs
// have lease numbers, NoValue for Go's 0, and the resource's check-and-set
// token (cas_token, Go's Resource.MaxToken in FenceCAS).
const (
	redlockSpec = "DistLockRedlock"
	// NoValue is the spec's NoValue as the abstraction writes it: the
	// model value novalue of the models' cfgs, which the trace modules
	// define (TraceData's novalue == <<>>, a value TLC may compare with
	// the values' tuples, where a string could not be).
	NoValue = "novalue"
)

// redlockVars are DistLockRedlock.tla's variables, in the translation's
// order (its vars).
var redlockVars = []string{"locks", "network", "timers", "lock_held", "counter", "cas_token", "ops",
	"restarts", "held_at_restart", "pc", "retries", "late", "lease", "token", "read_val", "committed", "aborted", "answers", "grants"}

// LockNodeName is lock node k's name (0-based) in DistLockRedlock.tla's
// models and trace runs: n1, n2, …
func LockNodeName(k int) string { return "n" + strconv.Itoa(k+1) }

// redlockNode is node n as DistLockRedlock.tla names it: a lock node as
// LockNodeName, every other node as Node.
func redlockNode(n impl.NodeID) string {
	if n.IsLockNode() {
		return strconv.Quote(LockNodeName(n.LockIndex()))
	}
	return Node(n)
}

// redlockValue renders a Redlock value (or a token, which is one) as the
// spec's Value(c, s, r) = <<c, s, r>>, and 0 as NoValue. It fails for
// anything else: a lease number has no place in the Redlock spec.
func redlockValue(v uint64) (string, error) {
	if v == 0 {
		return NoValue, nil
	}
	c, section, attempt, ok := impl.SplitValue(v)
	if !ok {
		return "", fmt.Errorf("%d is no Redlock value", v)
	}
	return fmt.Sprintf("<<%s, %d, %d>>", Node(c), section, attempt), nil
}

// abstractRedlock is Abstract for the Redlock rows.
func abstractRedlock(w *impl.World, d impl.Design) (State, error) {
	sys := w.Sys
	var verr error
	val := func(v uint64) string {
		s, err := redlockValue(v)
		if err != nil && verr == nil {
			verr = err
		}
		return s
	}
	for i, m := range w.InFlight {
		if i > 0 && m == w.InFlight[i-1] {
			return nil, fmt.Errorf("two equal messages %s in flight: the spec's network is a set", m)
		}
	}
	s := State{}
	locks := make([]string, sys.NumLockNodes())
	for k := range locks {
		l := sys.LockNode(k).Lock()
		id, value := `"none"`, NoValue
		if l.Status == impl.Acquired {
			id, value = Node(l.Holder), val(l.Lease)
		}
		locks[k] = fmt.Sprintf(`%s |-> [status |-> %q, id |-> %s, value |-> %s]`, LockNodeName(k), l.Status.String(), id, value)
	}
	s["locks"] = "[" + strings.Join(locks, ", ") + "]"
	msgs := make([]string, len(w.InFlight))
	for i, m := range w.InFlight {
		msgs[i] = fmt.Sprintf(`[type |-> %q, from |-> %s, to |-> %s, lease |-> %s, token |-> %s, value |-> %d, ok |-> %s]`,
			msgType(m.Kind), redlockNode(m.From), redlockNode(m.To), val(m.Lease), val(m.Token), m.Value, boolean(m.OK))
	}
	s["network"] = set(msgs)
	ts := make([]string, len(w.Timers))
	for i, t := range w.Timers {
		ts[i] = fmt.Sprintf(`[node |-> %s, kind |-> %q]`, redlockNode(t.Node), t.Timer.Kind.String())
	}
	s["timers"] = set(ts)
	r := &sys.Resource
	s["counter"] = strconv.FormatInt(r.Counter(), 10)
	s["cas_token"] = val(r.MaxToken())
	ops := make([]string, len(r.Log()))
	for i, op := range r.Log() {
		ops[i] = fmt.Sprintf(`[op |-> %q, id |-> %s, token |-> %s, ok |-> %s, value |-> %d]`,
			op.Kind.String(), Node(op.Client), val(op.Token), boolean(op.Accepted), op.Value)
	}
	s["ops"] = "<<" + strings.Join(ops, ", ") + ">>"
	s["restarts"] = strconv.Itoa(w.Restarts)
	var held []string
	for i := range sys.Clients {
		if i < 64 && w.HeldAtRestart&(1<<i) != 0 {
			held = append(held, Node(impl.ClientNode(i)))
		}
	}
	s["held_at_restart"] = set(held)
	perClient := func(f func(c *impl.Client) string) string {
		fields := make([]string, len(sys.Clients))
		for i := range sys.Clients {
			fields[i] = fmt.Sprintf("%s |-> %s", sys.Clients[i].ID(), f(&sys.Clients[i]))
		}
		return "[" + strings.Join(fields, ", ") + "]"
	}
	s["lock_held"] = perClient(func(c *impl.Client) string { return boolean(c.Holds()) })
	s["retries"] = perClient(func(c *impl.Client) string { return strconv.Itoa(c.Retries()) })
	s["late"] = perClient(func(c *impl.Client) string { return boolean(c.Late()) })
	s["lease"] = perClient(func(c *impl.Client) string { return val(c.Lease()) })
	s["token"] = perClient(func(c *impl.Client) string { return val(c.Token()) })
	s["read_val"] = perClient(func(c *impl.Client) string { return strconv.FormatInt(c.Read(), 10) })
	s["committed"] = perClient(func(c *impl.Client) string { return strconv.Itoa(c.Committed()) })
	s["aborted"] = perClient(func(c *impl.Client) string { return strconv.Itoa(c.Aborted()) })
	s["answers"] = perClient(func(c *impl.Client) string { a, _ := c.Answers(); return strconv.Itoa(a) })
	s["grants"] = perClient(func(c *impl.Client) string { _, g := c.Answers(); return strconv.Itoa(g) })
	pcs := make([]string, 0, len(sys.Clients)+sys.NumLockNodes()+1)
	for i := range sys.Clients {
		c := &sys.Clients[i]
		pcs = append(pcs, fmt.Sprintf("%s |-> %q", c.ID(), PhaseLabel(c.Phase())))
	}
	for k := range sys.NumLockNodes() {
		pcs = append(pcs, fmt.Sprintf("%s |-> %q", LockNodeName(k), ServiceLabel))
	}
	pcs = append(pcs, fmt.Sprintf("resource |-> %q", ResourceLabel))
	s["pc"] = "[" + strings.Join(pcs, ", ") + "]"
	if verr != nil {
		return nil, verr
	}
	return s, nil
}
