package explore

import (
	"errors"
	"fmt"
)

// Model is a finite transition system for Search. The explorer never keeps
// a decoded state: it stores fingerprints in its table and the frontier as
// canonical encodings, and decodes one state at a time into values the
// model allocates with New. S is usually a pointer type.
//
// The actions enabled in a state are numbered 0..Actions(s)-1 in an order
// that depends on the state alone, which is what makes the search, and so
// every verdict and trace, deterministic.
type Model[S any] interface {
	// New allocates a state to decode into.
	New() S
	// Init sets s to the initial state.
	Init(s S)
	// Encode appends s's canonical encoding to b: equal states, and only
	// equal states, encode to equal bytes.
	Encode(b []byte, s S) []byte
	// Decode sets s to the state Encode wrote into b.
	Decode(s S, b []byte) error
	// Copy sets dst to src's state; dst must not share memory with src
	// afterwards.
	Copy(dst, src S)
	// Actions is the number of actions enabled in s.
	Actions(s S) int
	// Apply takes action i of s, changing s into the successor.
	Apply(s S, i int)
	// Properties names the invariants; Holds(s, k) checks the k-th.
	Properties() []string
	Holds(s S, k int) bool
	// Finished reports whether s is a proper end of a run. A state with no
	// enabled action that is not Finished is a deadlock.
	Finished(s S) bool
}

// Options bound a search.
type Options struct {
	// MaxStates stops the search once that many distinct states are stored
	// (0: no bound). A stopped search is incomplete: a property it found no
	// violation of is unknown, not holding.
	MaxStates int
	// Progress, if set, is called after each breadth-first level with the
	// depth reached, the distinct states so far and the states queued for
	// the next level. It must not change anything the search reads.
	Progress func(depth, distinct, queued int)
}

// Found is a state the search was looking for — a violation or a
// deadlock — and the shortest path to it from the initial state.
type Found struct {
	// Path holds the index of the action taken in each state along the
	// way; it is empty when the initial state itself is the one.
	Path []int
	fp   uint64
}

// Outcome is what a search found.
type Outcome struct {
	// Distinct is the number of distinct states reached, the initial one
	// included; Generated counts every successor computed, duplicates
	// included, plus the initial state (as TLC counts).
	Distinct, Generated int
	// Depth is the length, in actions, of the longest shortest path from
	// the initial state: the index of the last breadth-first level (the
	// initial state is level 0; TLC would print Depth+1).
	Depth int
	// Complete is true when every reachable state was explored.
	Complete bool
	// Violations has one entry per property, in Properties order: the
	// first violating state in breadth-first order (so one at the least
	// depth), or nil when none was found.
	Violations []*Found
	// Deadlock is the first deadlocked state found, or nil.
	Deadlock *Found
	// TableBytes is the memory of the fingerprint table at the end;
	// FrontierBytes the most the two breadth-first levels held at once
	// (encodings plus their offsets and fingerprints).
	TableBytes, FrontierBytes int
}

// level is one breadth-first level: the encodings of its states laid end
// to end, where each starts, and each state's fingerprint.
type level struct {
	data []byte
	ends []uint32
	fps  []uint64
}

func (l *level) add(enc []byte, fp uint64) {
	l.data = append(l.data, enc...)
	l.ends = append(l.ends, uint32(len(l.data)))
	l.fps = append(l.fps, fp)
}

func (l *level) state(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.data[start:l.ends[i]]
}

func (l *level) bytes() int { return cap(l.data) + 4*cap(l.ends) + 8*cap(l.fps) }

func (l *level) reset() {
	l.data, l.ends, l.fps = l.data[:0], l.ends[:0], l.fps[:0]
}

// errLevelTooLarge guards the 32-bit offsets of a level.
var errLevelTooLarge = errors.New("a breadth-first level exceeds 4 GiB of encoded states")

// Search explores every state of m reachable from its initial state,
// breadth first, checking every property in every state until it is found
// violated, and keeps going after violations so that each property gets a
// verdict of its own in one run.
func Search[S any](m Model[S], opt Options) (*Outcome, error) {
	props := m.Properties()
	out := &Outcome{Violations: make([]*Found, len(props))}
	table := newFPTable()
	cur, next := m.New(), m.New()
	violated := 0
	// check records the properties s violates, among those not yet found
	// violated in a shallower or earlier state.
	check := func(s S, fp uint64) {
		if violated == len(props) {
			return
		}
		for k := range props {
			if out.Violations[k] == nil && !m.Holds(s, k) {
				out.Violations[k] = &Found{fp: fp}
				violated++
			}
		}
	}

	var buf []byte
	m.Init(cur)
	buf = m.Encode(buf[:0], cur)
	fp := fingerprint(buf)
	table.insert(fp, 0)
	out.Distinct, out.Generated = 1, 1
	check(cur, fp)
	var this, following level
	this.add(buf, fp)

	stopped := false
	for len(this.ends) > 0 && !stopped {
		for j := range this.ends {
			enc, parent := this.state(j), this.fps[j]
			if err := m.Decode(cur, enc); err != nil {
				return nil, fmt.Errorf("decode a frontier state: %w", err)
			}
			n := m.Actions(cur)
			if n == 0 && out.Deadlock == nil && !m.Finished(cur) {
				out.Deadlock = &Found{fp: parent}
			}
			for i := range n {
				// Each action starts from a copy of the state; the last
				// one may consume cur itself.
				succ := cur
				if i < n-1 {
					m.Copy(next, cur)
					succ = next
				}
				m.Apply(succ, i)
				buf = m.Encode(buf[:0], succ)
				fp := fingerprint(buf)
				out.Generated++
				if !table.insert(fp, parent) {
					continue
				}
				out.Distinct++
				check(succ, fp)
				following.add(buf, fp)
				if len(following.data) > 1<<32-1 {
					return nil, errLevelTooLarge
				}
				if opt.MaxStates > 0 && out.Distinct >= opt.MaxStates {
					stopped = true
					break
				}
			}
			if stopped {
				break
			}
		}
		out.FrontierBytes = max(out.FrontierBytes, this.bytes()+following.bytes())
		if len(following.ends) > 0 {
			out.Depth++
		}
		if opt.Progress != nil {
			opt.Progress(out.Depth, out.Distinct, len(following.ends))
		}
		this, following = following, this
		following.reset()
	}
	out.Complete = !stopped
	out.TableBytes = table.bytes()

	for _, f := range append(out.Violations, out.Deadlock) {
		if f == nil {
			continue
		}
		path, err := shortestPath(m, table, f.fp)
		if err != nil {
			return nil, err
		}
		f.Path = path
	}
	return out, nil
}

// shortestPath rebuilds the actions that lead from the initial state to
// the state with fingerprint target: it follows the parents in the table
// back to the initial state, then replays forwards, at each state taking
// the first action whose successor has the next fingerprint on the chain.
func shortestPath[S any](m Model[S], table *fpTable, target uint64) ([]int, error) {
	chain := []uint64{target}
	for {
		p, ok := table.parent(chain[len(chain)-1])
		if !ok {
			return nil, fmt.Errorf("state %016x is not in the table", chain[len(chain)-1])
		}
		if p == 0 {
			break
		}
		chain = append(chain, p)
	}
	path := make([]int, 0, len(chain)-1)
	cur, next := m.New(), m.New()
	m.Init(cur)
	var buf []byte
	for k := len(chain) - 2; k >= 0; k-- {
		want := chain[k]
		found := -1
		for i := range m.Actions(cur) {
			m.Copy(next, cur)
			m.Apply(next, i)
			buf = m.Encode(buf[:0], next)
			if fingerprint(buf) == want {
				found = i
				break
			}
		}
		if found < 0 {
			return nil, fmt.Errorf("replay: no action leads to state %016x", want)
		}
		path = append(path, found)
		cur, next = next, cur
	}
	return path, nil
}
