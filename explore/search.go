package explore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Model is a finite transition system for Search. The explorer never keeps
// a decoded state: it stores fingerprints in its table and the frontier as
// canonical encodings, and decodes one state at a time into values the
// model allocates with New. S is usually a pointer type.
//
// The actions enabled in a state are numbered 0..Actions(s)-1 in an order
// that depends on the state alone, which is what makes the search, and so
// every verdict and trace, deterministic.
//
// With more than one worker the search calls the model from several
// goroutines at once, each on states of its own: the methods must not
// share scratch memory between calls.
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
	// MaxMemory bounds the memory the search holds (0: no bound): past
	// it the search goes on on disk, as TLC does. Three quarters go to the
	// fingerprint table, which then keeps the rest of the fingerprints in
	// a sorted file (see fpTable); an eighth, at most levelBudgetMax, to
	// the breadth-first levels, whose encodings past it are written to
	// files and read back a chunk at a time (see level). The parent links
	// are always on disk, in the trace file (see links).
	MaxMemory int
	// TempDir is where the search creates its folder for those files (the
	// trace file always; empty: os.TempDir()). The folder is removed when
	// the search returns, on every path: with an error, a panic, or
	// Context done (a signal, if the caller ties one to it).
	TempDir string
	// Context, if set, ends the search between two chunks when it is done,
	// with its error.
	Context context.Context
	// First stops the search at the first state, in breadth-first order,
	// that violates any property: its path is still a shortest one.
	First bool
	// Goals is how many of the model's properties, the last ones, are the
	// negations of goals ("sometimes" properties, witnesses): a state that
	// violates one reaches the goal. They are searched like the others —
	// Outcome.Violations gives the shortest path to each goal reached — but
	// reaching one is good news and never stops a First search.
	Goals int
	// Workers is the number of goroutines that expand states (0: one per
	// CPU, runtime.GOMAXPROCS). Every figure of the Outcome but the
	// workers' buffers, and every path, is the same for any number.
	Workers int
	// SleepSets prunes transitions by partial-order reduction (see
	// Commuter, which the model must implement): the same states, depths,
	// verdicts and shortest-path lengths, fewer successors computed. The
	// paths reported may differ from the full search's (another shortest
	// path of the same length), and are the same for any number of
	// workers.
	SleepSets bool
	// Progress, if set, is called after each breadth-first level with the
	// depth reached, the distinct states so far and the states queued for
	// the next level, and within a level after each chunk of levelChunk
	// states expanded (then queued counts the frontier's states not yet
	// expanded too), so that a caller hears from a long level. It must not
	// change anything the search reads.
	Progress func(depth, distinct, queued int)
}

// Found is a state the search was looking for — a violation or a
// deadlock — and the shortest path to it from the initial state.
type Found struct {
	// Path holds the index of the action taken in each state along the
	// way; it is empty when the initial state itself is the one.
	Path []int
	// index is the state's number in breadth-first order.
	index uint32
}

// Stop says why a search ended before exploring every reachable state.
type Stop int

const (
	// NotStopped: the search explored every reachable state.
	NotStopped Stop = iota
	// StoppedAtMaxStates: Options.MaxStates distinct states were stored.
	StoppedAtMaxStates
	// StoppedAtFirst: Options.First and a property was found violated.
	StoppedAtFirst
)

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
	// Complete is true when every reachable state was explored; Stopped
	// says why not.
	Complete bool
	Stopped  Stop
	// Violations has one entry per property, in Properties order: the
	// first violating state in breadth-first order (so one at the least
	// depth), or nil when none was found.
	Violations []*Found
	// Deadlock is the first deadlocked state found, or nil.
	Deadlock *Found
	// TableBytes is the memory of the fingerprint table at the end (the
	// slots in memory and the index of the disk file); LinkBytes the size
	// of the trace file, on disk; FrontierBytes the most the two
	// breadth-first levels held at once (the level being expanded, as it
	// gives back its chunks, and the next one, as the merges build it:
	// encodings, their offsets and sleep sets, in chunks, with the free
	// chunks between them). The three are the same for any number of
	// workers.
	TableBytes, LinkBytes, FrontierBytes int
	// PeakBytes is the most the search held in memory at once, the
	// workers' buffers included (it depends on the number of workers).
	PeakBytes int
	// DiskBytes is the most the search held on disk at once: the trace
	// file, the fingerprints on disk and the spilled levels. Flushes counts
	// how often the table moved its fingerprints to disk.
	DiskBytes, Flushes int
	// Collision is the probability that two distinct states reached had
	// the same fingerprint, so that one of them went unexplored, as TLC
	// estimates it ("calculated (optimistic)"): Distinct × (Generated −
	// Distinct) / 2⁶⁴.
	Collision float64
	// stateSum is the sum of the distinct states' fingerprints: two
	// searches that reach the same states have the same (the tests of
	// sleep sets compare it).
	stateSum uint64
}

// levelChunk is how many states of a level the search expands and merges
// at a time: the workers' buffers hold the successors of one chunk.
const levelChunk = 1 << 14

// candidate is a successor a worker found that was not in the table at
// the start of the level: maybe new, maybe a duplicate of another
// candidate of the same level.
type candidate struct {
	fp     uint64
	state  uint32 // the state of the level it was reached from
	action uint8
	// generated is how many successors its state had computed up to and
	// including it (action+1 without sleep sets).
	generated uint16
	// known marks, with sleep sets, a successor that was in the table
	// when it was computed: it carries only its sleep set, for the merge
	// to intersect with that of the state if the state is of the next
	// level.
	known bool
	// violates has bit k set when the successor violates property k (only
	// properties not yet found violated when the level began are checked).
	violates uint64
	// sleepEnd is where its sleep set ends in the batch's sleeps (it
	// starts where the previous candidate's ends).
	sleepEnd uint32
}

// batch is a worker's output for a run of consecutive states of a level:
// per state, its number of actions (-1 for a deadlock), and the
// candidates in the order the sequential search would have met them, with
// their encodings laid end to end in level form.
type batch struct {
	lo, hi  int
	actions []int32
	cands   []candidate
	encs    encodings
	sleeps  []uint64
	err     error
	// fresh[c] is whether cands[c] was new to the table when the merge
	// inserted it (insertLevel): false for a state seen at an earlier
	// level or earlier in this one.
	fresh []bool
	// index[c] is, with sleep sets, the position in the next level of
	// cands[c] if it was fresh (set by the merge).
	index []uint32
}

func (b *batch) bytes() int {
	return 4*cap(b.actions) + 40*cap(b.cands) + b.encs.bytes() + 8*cap(b.sleeps) + cap(b.fresh) + 4*cap(b.index)
}

// expansion is the expansion of one chunk of a level: its runs, one
// batch each, taken by the workers one at a time.
type expansion struct {
	hi      int // the end of the chunk (its start is batches[0].lo)
	batches []*batch
	check   uint64 // the properties to check (pending when it started)
	taken   atomic.Int64
}

// expander is one worker's scratch: two states and an encoding buffer,
// and with sleep sets the actions' actors and keys and the actions asleep.
type expander[S any] struct {
	cur, next S
	buf       []byte
	block     []byte // a block of the fingerprints on disk
	actors    []int32
	keys      []uint64
	renamed   []uint64
	asleep    []bool
	proposal  []uint64
}

// Search explores every state of m reachable from its initial state,
// breadth first, checking every property in every state until it is found
// violated, and keeps going after violations so that each property gets a
// verdict of its own in one run (unless Options.First).
//
// The search is level-synchronous, a chunk of a level at a time: the
// workers expand disjoint runs of the chunk, each successor encoded,
// fingerprinted, looked up in the table (read-only while they work) and,
// if not there, checked against the properties; then the merge inserts
// their candidates into the table (insertLevel: one goroutine per set of
// shards, each shard's in frontier order), and one goroutine adds the new
// ones, in frontier order, to the next level and, with sleep sets, gives
// the states reached again in the level the intersection of their sleep
// sets (intersectLevel), while the workers expand the next chunk. A
// state's recorded parent is therefore the first state in frontier order
// that reaches it, exactly as in a sequential search, and so are every
// count, verdict and path. The chunk's part of the level being expanded
// is then given back (see level), for the next level to reuse.
func Search[S any](m Model[S], opt Options) (*Outcome, error) {
	s, err := newSearch(m, opt)
	if err != nil {
		return nil, err
	}
	defer s.close()
	return s.run()
}

// search is one run of Search: the model and its options, and what the
// run keeps from level to level.
type search[S any] struct {
	m        Model[S]
	opt      Options
	props    int // the number of properties
	workers  int
	commuter Commuter[S] // nil without sleep sets
	out      *Outcome
	table    *fpTable
	parents  *links
	// dir is the search's folder for its files.
	dir string
	// levelBudget bounds the memory of the two levels (0: no bound).
	levelBudget int
	// violated counts the properties found violated, goals not counted;
	// pending has bit k set while property k is not yet found violated;
	// invariants has bit k set for the properties that are not goals:
	// only their violations stop a First search.
	violated            int
	pending, invariants uint64
	// exps are the workers' scratch; the caller of run is worker 0.
	exps []*expander[S]
	// frontier is the level being expanded; next the level the merges
	// build from it. A level is expanded and merged a chunk of levelChunk
	// states at a time, so that the workers' buffers (the candidates and
	// their encodings) hold one chunk's successors, not the whole next
	// level's with its duplicates. Both are stored in chunks from pools
	// they share (see level).
	pools          levelPools
	frontier, next level
	// nextIndex, with sleep sets: where each state of the next level is
	// in it, by fingerprint, so that a state reached again in the same
	// level gets the intersection.
	nextIndex levelIndex
	// sets are the workers' output for two chunks: while the merge reads
	// one, the workers fill the other with the next chunk's successors.
	sets [2][]*batch
	// levelStart is the index of the level's first state.
	levelStart int
}

// newSearch checks opt against m and sets up a search of it.
func newSearch[S any](m Model[S], opt Options) (*search[S], error) {
	props := len(m.Properties())
	if props > 64 {
		return nil, fmt.Errorf("at most 64 properties, got %d", props)
	}
	s := &search[S]{m: m, opt: opt, props: props, workers: opt.Workers}
	if s.workers <= 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	if opt.SleepSets {
		c, ok := m.(Commuter[S])
		if !ok {
			return nil, errors.New("sleep sets need a model that names its actions and knows which commute (Commuter)")
		}
		s.commuter = c
	}
	if opt.Goals < 0 || opt.Goals > props {
		return nil, fmt.Errorf("%d goals among %d properties", opt.Goals, props)
	}
	s.out = &Outcome{Violations: make([]*Found, props)}
	dir, err := os.MkdirTemp(opt.TempDir, "fencelab-explore-")
	if err != nil {
		return nil, fmt.Errorf("a folder for the search's files: %w", err)
	}
	s.dir = dir
	if s.parents, err = newLinks(dir); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.table = newFPTable(opt.MaxMemory/4*3, dir)
	if opt.MaxMemory > 0 {
		s.levelBudget = min(opt.MaxMemory/8, levelBudgetMax)
	}
	for k := range props {
		s.pending |= 1 << k
	}
	s.invariants = uint64(1)<<(props-opt.Goals) - 1
	s.exps = make([]*expander[S], s.workers)
	for w := range s.exps {
		s.exps[w] = &expander[S]{cur: m.New(), next: m.New(), block: make([]byte, 8*fpBlock)}
	}
	s.pools = newLevelPools()
	s.frontier, s.next = newLevel(s.pools), newLevel(s.pools)
	return s, nil
}

// levelBudgetMax bounds the memory of the levels in a search with a
// memory bound: past it they spill. They are written once and read once,
// in order, so little memory does.
const levelBudgetMax = 128 << 20

// close closes the search's files and removes its folder.
func (s *search[S]) close() {
	s.parents.close()
	s.table.close()
	s.frontier.close()
	s.next.close()
	os.RemoveAll(s.dir)
}

// found records that the state of the given index is the first found to
// violate property k.
func (s *search[S]) found(k int, index uint32) {
	s.out.Violations[k] = &Found{index: index}
	s.pending &^= 1 << k
	if s.invariants&(1<<k) != 0 {
		s.violated++
	}
}

// run searches from the initial state until every reachable state is
// explored or the search must stop, then rebuilds the paths found.
func (s *search[S]) run() (*Outcome, error) {
	m, out := s.m, s.out
	e := s.exps[0]
	m.Init(e.cur)
	e.buf = m.Encode(e.buf[:0], e.cur)
	s.table.insert(fingerprint(e.buf))
	out.stateSum = fingerprint(e.buf)
	if err := s.parents.add(0, 0); err != nil {
		return nil, err
	}
	out.Distinct, out.Generated = 1, 1
	for k := range s.props {
		if !m.Holds(e.cur, k) {
			s.found(k, 0)
		}
	}
	if err := s.frontier.add(e.buf, nil, s.commuter != nil); err != nil {
		return nil, err
	}
	if s.opt.First && s.violated > 0 {
		out.Stopped = StoppedAtFirst
	}
	for s.frontier.len() > 0 && out.Stopped == NotStopped {
		if err := s.level(); err != nil {
			return nil, err
		}
		s.levelStart += s.frontier.len()
		s.frontier, s.next = s.next, s.frontier
		s.pools.trim()
		if s.frontier.len() > 0 {
			out.Depth++
		}
		if s.opt.Progress != nil {
			s.opt.Progress(out.Depth, out.Distinct, s.frontier.len())
		}
	}
	out.Complete = out.Stopped == NotStopped
	out.TableBytes, out.LinkBytes = s.table.bytes(), s.parents.bytes()
	out.FrontierBytes = max(out.FrontierBytes, s.pools.bytes())
	out.Flushes = s.table.flushes
	out.Collision = float64(out.Distinct) * float64(out.Generated-out.Distinct) / (1 << 64)

	for _, f := range append(out.Violations, out.Deadlock) {
		if f == nil {
			continue
		}
		path, err := shortestPath(m, s.parents, f.index)
		if err != nil {
			return nil, err
		}
		f.Path = path
	}
	return out, nil
}

// level expands the frontier a chunk at a time into the next level,
// merging each chunk while the workers expand the next one, until the
// level is done or the search must stop.
func (s *search[S]) level() error {
	out := s.out
	if err := s.next.reset(); err != nil {
		return err
	}
	s.nextIndex.reset()
	cur := 0
	x, err := s.prepare(cur, 0)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	s.start(x, &wg)
	s.work(x, s.exps[0])
	wg.Wait()
	for x != nil {
		// The states of this chunk are expanded: their chunks can hold
		// the next level's.
		s.frontier.release(x.hi)
		held := s.buffers()
		out.PeakBytes = max(out.PeakBytes, s.memory(held))
		out.FrontierBytes = max(out.FrontierBytes, s.pools.bytes())

		// Merge, in frontier order: first every candidate into the table
		// (in parallel, by shard), then the new states into the next
		// level, one goroutine, while the workers expand the next chunk:
		// they read only the frontier and the table, which the merge does
		// not change. They find this chunk's new states in the table and
		// skip them, as the merge would.
		if err := insertLevel(s.table, x.batches, s.workers); err != nil {
			return err
		}
		var nx *expansion
		if x.hi < s.frontier.len() {
			if nx, err = s.prepare(1-cur, x.hi); err != nil {
				return err
			}
			s.start(nx, &wg)
		}
		err := s.merge(x.batches)
		if err == nil && out.Stopped == NotStopped && s.commuter != nil {
			intersectLevel(&s.nextIndex, &s.next.sleep, x.batches)
		}
		if nx != nil {
			if err == nil && out.Stopped == NotStopped {
				s.work(nx, s.exps[0])
			} else {
				nx.taken.Store(int64(len(nx.batches))) // the rest is not needed
			}
			wg.Wait()
		}
		if err != nil {
			return err
		}
		if out.Stopped != NotStopped {
			return nil
		}
		out.PeakBytes = max(out.PeakBytes, s.memory(held))
		out.FrontierBytes = max(out.FrontierBytes, s.pools.bytes())
		out.DiskBytes = max(out.DiskBytes, s.disk())
		// Nobody reads the table or the next level now: past their
		// budgets, they go to disk. (The level being expanded went to
		// disk, if it had to, while it was being built; its chunks in
		// memory are those being read.)
		if s.levelBudget > 0 && s.pools.bytes() > s.levelBudget {
			if err := s.next.spill(s.dir, "level"); err != nil {
				return err
			}
		}
		if s.table.full() {
			if err := s.table.flush(); err != nil {
				return err
			}
			out.DiskBytes = max(out.DiskBytes, s.disk())
		}
		if ctx := s.opt.Context; ctx != nil && ctx.Err() != nil {
			return fmt.Errorf("the search was interrupted: %w", ctx.Err())
		}
		if s.opt.Progress != nil && nx != nil {
			// A level of millions of states takes minutes: its chunks
			// say how far it is (the states of the frontier not yet
			// expanded and those of the next level are queued).
			s.opt.Progress(out.Depth, out.Distinct, s.frontier.len()-x.hi+s.next.len())
		}
		x, cur = nx, 1-cur
	}
	return nil
}

// prepare cuts the chunk of the frontier from lo into runs of set i, more
// of them than workers so that a slow run does not hold the others up,
// with its states read back from disk if the level spilled.
func (s *search[S]) prepare(i, lo int) (*expansion, error) {
	hi := min(lo+levelChunk, s.frontier.len())
	if err := s.frontier.load(lo, hi); err != nil {
		return nil, err
	}
	n := hi - lo
	runs := 1
	if s.workers > 1 {
		runs = min(n, 8*s.workers, max(1, n/64))
	}
	for len(s.sets[i]) < runs {
		s.sets[i] = append(s.sets[i], &batch{})
	}
	for r := range runs {
		s.sets[i][r].lo, s.sets[i][r].hi = lo+r*n/runs, lo+(r+1)*n/runs
	}
	return &expansion{hi: hi, batches: s.sets[i][:runs], check: s.pending}, nil
}

// work expands the runs of x that no other goroutine took.
func (s *search[S]) work(x *expansion, e *expander[S]) {
	for r := int(x.taken.Add(1)) - 1; r < len(x.batches); r = int(x.taken.Add(1)) - 1 {
		expand(s.m, s.commuter, e, &s.frontier, s.table, x.check, x.batches[r])
	}
}

// start sets workers 1 and up expanding x's runs in goroutines; the
// caller takes part as worker 0 (exps[0]), then waits on wg.
func (s *search[S]) start(x *expansion, wg *sync.WaitGroup) {
	for w := 1; w < min(s.workers, len(x.batches)); w++ {
		wg.Add(1)
		go func(e *expander[S]) {
			defer wg.Done()
			s.work(x, e)
		}(s.exps[w])
	}
}

// buffers is the memory of the workers' output for both chunks.
func (s *search[S]) buffers() int {
	n := 0
	for _, set := range s.sets {
		for _, b := range set {
			n += b.bytes()
		}
	}
	return n
}

// memory is what the search holds in memory, with extra bytes of
// buffers.
func (s *search[S]) memory(extra int) int {
	return s.table.bytes() + s.pools.bytes() + s.nextIndex.bytes() + extra
}

// disk is what the search holds on disk: the trace file, the
// fingerprints, the spilled levels (their files' sizes).
func (s *search[S]) disk() int {
	n := s.parents.bytes() + s.table.diskBytes()
	for _, l := range []*level{&s.frontier, &s.next} {
		for _, f := range []*os.File{l.data.file, l.ends.file} {
			if f == nil {
				continue
			}
			if fi, err := f.Stat(); err == nil {
				n += int(fi.Size())
			}
		}
	}
	return n
}

// merge adds the new states of a chunk's batches, in frontier order, to
// the next level and the parent links, and records violations and
// deadlocks; it sets out.Stopped if the search must stop, at the state
// where it must.
func (s *search[S]) merge(bs []*batch) error {
	out, opt := s.out, s.opt
	for _, b := range bs {
		c := 0
		for j := b.lo; j < b.hi; j++ {
			acts := int(b.actions[j-b.lo])
			if acts < 0 {
				acts = 0
				if out.Deadlock == nil {
					out.Deadlock = &Found{index: uint32(s.levelStart + j)}
				}
			}
			generated := out.Generated
			out.Generated += acts
			for ; c < len(b.cands) && int(b.cands[c].state) == j; c++ {
				cand := &b.cands[c]
				if !b.fresh[c] {
					continue // intersectLevel's, with sleep sets
				}
				var sleep []uint64
				if s.commuter != nil {
					lo := uint32(0)
					if c > 0 {
						lo = b.cands[c-1].sleepEnd
					}
					sleep = b.sleeps[lo:cand.sleepEnd]
					b.index[c] = uint32(s.next.len())
				}
				index := out.Distinct
				out.Distinct++
				out.stateSum += cand.fp
				if err := s.parents.add(uint32(s.levelStart+j), int(cand.action)); err != nil {
					return err
				}
				if err := s.next.add(b.encs.state(c), sleep, s.commuter != nil); err != nil {
					return err
				}
				if v := cand.violates & s.pending; v != 0 {
					for k := range s.props {
						if v&(1<<k) != 0 {
							s.found(k, uint32(index))
						}
					}
					if opt.First && v&s.invariants != 0 {
						out.Stopped = StoppedAtFirst
					}
				}
				if opt.MaxStates > 0 && out.Distinct >= opt.MaxStates && out.Stopped == NotStopped {
					out.Stopped = StoppedAtMaxStates
				}
				if out.Stopped != NotStopped {
					out.Generated = generated + int(cand.generated)
					return nil
				}
			}
		}
	}
	return nil
}

// insertLevel inserts the candidates of a level's batches into the table
// and marks, in each batch's fresh, those that were new. Within each shard
// the candidates go in in frontier order, so the first of equal
// candidates in frontier order is the new one, and the table ends the
// same, whatever the number of workers: worker w inserts the
// fingerprints of the shards s with s mod workers = w. Every candidate is
// inserted, also those after the point where a search stops in this
// level's merge (MaxStates, First): the table then holds a few
// states more than were counted, the same ones for any number of workers.
func insertLevel(t *fpTable, bs []*batch, workers int) error {
	for _, b := range bs {
		if b.err != nil {
			return b.err
		}
		b.fresh = slices.Grow(b.fresh[:0], len(b.cands))[:len(b.cands)]
		b.index = slices.Grow(b.index[:0], len(b.cands))[:len(b.cands)]
	}
	if workers <= 1 {
		for _, b := range bs {
			for c := range b.cands {
				b.fresh[c] = !b.cands[c].known && t.insert(b.cands[c].fp)
			}
		}
		return nil
	}
	insert := func(w int) {
		for _, b := range bs {
			for c := range b.cands {
				if fp := b.cands[c].fp; int(fp>>(64-tableShardBits))%workers == w {
					b.fresh[c] = !b.cands[c].known && t.insert(fp)
				}
			}
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			insert(w)
		}()
	}
	insert(0) // the caller is worker 0
	wg.Wait()
	return nil
}

// intersectLevel, with sleep sets, after the merge of a chunk: each
// candidate the merge added to the next level goes into the index, and
// each other one that is in the next level — reached again in this level,
// in this chunk or an earlier one — intersects that state's sleep set
// with its own. It runs on the merge's goroutine while the workers expand
// the next chunk: it reads and changes only the next level and its index.
func intersectLevel(index *levelIndex, sleep *sleepLevel, bs []*batch) {
	for _, b := range bs {
		var start uint32
		for c := range b.cands {
			cand := &b.cands[c]
			lo := start
			start = cand.sleepEnd
			if b.fresh[c] {
				index.insert(cand.fp, b.index[c])
			} else if i, ok := index.get(cand.fp); ok {
				sleep.intersect(int(i), b.sleeps[lo:cand.sleepEnd])
			}
		}
	}
}

// expand computes the successors of states b.lo to b.hi of this level into
// b, keeping those not in the table, with the properties in check checked.
// With sleep sets (commuter not nil) it skips the actions asleep in a
// state and gives each successor its sleep set: the actions asleep, and
// those taken before it, that commute with the one taken.
func expand[S any](m Model[S], commuter Commuter[S], e *expander[S], this *level, table *fpTable, check uint64, b *batch) {
	b.actions, b.cands, b.sleeps, b.err = b.actions[:0], b.cands[:0], b.sleeps[:0], nil
	b.encs.reset()
	for j := b.lo; j < b.hi; j++ {
		if err := m.Decode(e.cur, this.state(j)); err != nil {
			b.err = fmt.Errorf("decode a frontier state: %w", err)
			return
		}
		n := m.Actions(e.cur)
		switch {
		case n > maxActions:
			b.err = fmt.Errorf("a state with %d actions: at most %d are supported", n, maxActions)
			return
		case n == 0 && !m.Finished(e.cur):
			b.actions = append(b.actions, -1)
			continue
		}
		if commuter != nil {
			e.actors = commuter.Actors(e.actors[:0], e.cur)
			e.keys = commuter.Keys(e.keys[:0], e.cur, 0)
			e.asleep = slices.Grow(e.asleep[:0], n)[:n]
			for i, k := range e.keys {
				_, e.asleep[i] = slices.BinarySearch(this.sleep.of(j), k)
			}
		}
		generated := 0
		for i := range n {
			if commuter != nil && e.asleep[i] {
				continue
			}
			generated++
			// Each action starts from a copy of the state; the last one
			// may consume cur itself, unless sleep sets still need it.
			succ := e.cur
			if i < n-1 || commuter != nil {
				m.Copy(e.next, e.cur)
				succ = e.next
			}
			m.Apply(succ, i)
			var renaming uint64
			if commuter != nil {
				e.buf, renaming = commuter.EncodeRenamed(e.buf[:0], succ)
			} else {
				e.buf = m.Encode(e.buf[:0], succ)
			}
			fp := fingerprint(e.buf)
			known, err := table.seen(fp, e.block)
			if err != nil {
				b.err = err
				return
			}
			if known && commuter == nil {
				continue
			}
			var v uint64
			for k := 0; !known && check>>k != 0; k++ {
				if check&(1<<k) != 0 && !m.Holds(succ, k) {
					v |= 1 << k
				}
			}
			if commuter != nil {
				b.sleeps = append(b.sleeps, e.sleepSet(commuter, i, renaming)...)
			}
			b.cands = append(b.cands, candidate{fp: fp, state: uint32(j), action: uint8(i), generated: uint16(generated),
				known: known, violates: v, sleepEnd: uint32(len(b.sleeps))})
			if known {
				b.encs.add(nil) // keeps the encodings numbered as the candidates
			} else {
				b.encs.add(e.buf)
			}
			if len(b.encs.data) > 1<<32-1 {
				b.err = errLevelTooLarge
				return
			}
		}
		b.actions = append(b.actions, int32(generated))
	}
}

// sleepSet is the sleep set of the successor of e.cur by action i, sorted,
// named as the successor's encoding (renaming) names actions: every action
// asleep in e.cur or taken before i that commutes with i.
func (e *expander[S]) sleepSet(commuter Commuter[S], i int, renaming uint64) []uint64 {
	keys := e.keys
	if renaming != 0 {
		e.renamed = commuter.Keys(e.renamed[:0], e.cur, renaming)
		keys = e.renamed
	}
	e.proposal = e.proposal[:0]
	if e.actors[i] < 0 {
		return e.proposal
	}
	for j := range keys {
		if j != i && (j < i || e.asleep[j]) && e.actors[j] >= 0 && e.actors[j] != e.actors[i] {
			e.proposal = append(e.proposal, keys[j])
		}
	}
	slices.Sort(e.proposal)
	return e.proposal
}

// AsymmetryError is a shortest path that has no concrete counterpart: at
// Step (1 is the first action) no action of the concrete state leads to
// the class of the next stored state. With a canonical Encode (symmetry)
// this is a model whose states' futures are not renamings of each other's:
// a system not symmetric in what Encode renames, for which the reduction
// is unsound (package explore's Run then searches without it).
type AsymmetryError struct {
	Step  int
	State uint64 // the fingerprint of the stored state no action reaches
}

func (e *AsymmetryError) Error() string {
	return fmt.Sprintf("the system is not symmetric in its clients: at step %d of a shortest path, no action of the concrete state leads to the class of the stored state %016x", e.Step, e.State)
}

// shortestPath rebuilds the actions that lead from the initial state to
// the state of the given index: it follows the parent links back to the
// initial state, then replays forwards. The links name the action taken
// in each stored (canonical) state; the path names actions of concrete
// states, which under symmetry are renamings of the stored ones, so the
// replay walks both: at each step it takes the link's action in the
// stored state, and in the concrete state the first action whose
// successor has the same fingerprint.
func shortestPath[S any](m Model[S], parents *links, target uint32) ([]int, error) {
	var chain []int // the actions, last first
	for i := target; i != 0; {
		p, a, err := parents.get(int(i))
		if err != nil {
			return nil, err
		}
		chain = append(chain, a)
		i = p
	}
	path := make([]int, 0, len(chain))
	rep, cur, next := m.New(), m.New(), m.New()
	m.Init(cur)
	var buf, enc []byte
	enc = m.Encode(enc, cur)
	if err := m.Decode(rep, enc); err != nil {
		return nil, err
	}
	for k := len(chain) - 1; k >= 0; k-- {
		m.Apply(rep, chain[k])
		enc = m.Encode(enc[:0], rep)
		want := fingerprint(enc)
		if err := m.Decode(rep, enc); err != nil {
			return nil, err
		}
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
			return nil, &AsymmetryError{Step: len(path) + 1, State: want}
		}
		path = append(path, found)
		cur, next = next, cur
	}
	return path, nil
}
