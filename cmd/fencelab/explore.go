package main

import (
	"strings"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/pipeline"
)

// fourClients is --clients' note on 4-client models, measured with
// /usr/bin/time -v bin/fencelab explore --clients 4 --design all|none on
// 2 cores (see the README's performance section).
const fourClients = "4 with symmetry, measured on 2 cores: all 5.3 million states, 30 s of CPU, 0.2 GB; off, none and writes 34 million states each (none: 3 minutes of CPU, 0.8 GB)"

// fencingEvery runs every design and prints the matrix.
const fencingEvery = "every"

const exploreUsage = "fencelab explore [--clients 2] [--design DESIGN|every] [--invariant NAME[,NAME]] [--sections 1] [--retries 1] [--lock-delay 0] [--nodes 3] [--validity arrival] [--symmetry=true] [--por=true] [--first] [--workers 0] [--max-states 0] [--max-memory auto] [--out out/explore]"

func exploreCommand() command {
	return command{
		name:    "explore",
		summary: "model-check the Go implementation exhaustively and compare with DESIGN.md's table",
		run:     runExplore,
	}
}

func runExplore(e *env, args []string) error {
	fs := newFlagSet("explore")
	clients := clientsFlag(fs, 2, ", 2 to 4 ("+fourClients+")")
	fencing := designFlag(fs, fencingEvery, "the design to explore, or every to run them all and print the matrix")
	invariants := fs.String("invariant", "", "comma-separated invariants to check (default: all that apply): "+strings.Join(impl.InvariantNames(), ", "))
	sections := sectionsFlag(fs, 1, ", at least 1")
	retries := retriesFlag(fs, 1, ", 0 or more (unless given, 0 in the Redlock rows: one retry makes their state space 18 times larger)")
	lockDelay := lockDelayFlag(fs, 0, " (0: none); the untimed model only asks whether there is one: its end may come at any moment")
	nodes := nodesFlag(fs, explore.DefaultNodes, "independent lock nodes of the Redlock rows, 1 to 9 (the explorer's 3 unless given); every other row has one service")
	validity := validityFlag(fs, explore.DefaultValidity, "; unless given, send in the Redlock rows, whose client checks its window on its last answer. Untimed, any timer may fire at any moment: both reach the same verdicts, send with about 14 times the states")
	symmetry := fs.Bool("symmetry", true, "store one state per class of states that differ only by client names (as TLC's SYMMETRY): fewer states, same verdicts and shortest traces; --symmetry=false explores every state")
	por := fs.Bool("por", true, "partial-order reduction by sleep sets: skip a transition when it only reorders actions of different nodes that an explored one took first; the same states, verdicts and shortest-trace lengths, fewer transitions (a trace may be another shortest one); --por=false takes every transition")
	first := fs.Bool("first", false, "stop at the first violation of any property, still with a shortest trace; what it leaves unsettled is unknown and fails (exit 1), as at --max-states. With --invariant NAME of a property that holds, the search is complete and it holds. Off by default: explore gives every property its own verdict")
	workers := workersFlag(e, fs, "expanding states")
	maxStates := fs.Int("max-states", 0, "stop after this many distinct states (0: no limit); unfinished verdicts are unknown and fail")
	maxMemory := fs.String("max-memory", explore.MemoryAuto, "the memory the search may hold (e.g. 512MiB, 8GiB; 0: no limit; auto: 3/4 of the memory available when it starts, from /proc/meminfo, or no limit where that cannot be read); past it the fingerprints and the breadth-first levels go on on disk, in a folder of the system's temporary folder removed at the end, and the search goes on")
	outDir := outFlag(fs, defaultOut("explore"), "folder", "the counterexamples, one folder each with its trace as text, JSON, HTML and Mermaid (empty: do not write)")
	rest, err := parseFlags(e, fs, exploreUsage, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return badInput("unexpected argument %s", quote.Q(rest[0]))
	}
	if *outDir != "" { // empty: write nothing
		if err := pipeline.CheckOutDir("out", *outDir); err != nil {
			return err
		}
	}
	if *nodes, err = lockNodes(fs, *nodes); err != nil {
		return err
	}
	memLimit, err := explore.ParseMemory(*maxMemory)
	if err != nil {
		return badInput("%v", err)
	}
	var designs []impl.Design
	if *fencing == fencingEvery {
		designs = impl.Designs()
	} else {
		d, err := impl.ParseDesign(*fencing)
		if err != nil {
			return badInput("unknown design %s (want %s, or %s)", quote.Q(*fencing), impl.Flags(), fencingEvery)
		}
		designs = []impl.Design{d}
	}
	rule, err := impl.ParseValidityRule(*validity)
	if err != nil {
		return badInput("%v", err)
	}
	var names []string
	if *invariants != "" {
		for _, n := range strings.Split(*invariants, ",") {
			names = append(names, strings.TrimSpace(n))
		}
	}
	var configs []explore.Config
	for _, d := range designs {
		retries := *retries
		if !given(fs, "retries") {
			retries = explore.DefaultRetries(d)
		}
		rule := rule
		if !given(fs, "validity") {
			rule = explore.DefaultValidityOf(d)
		}
		c := explore.Config{
			Config:   explore.UntimedConfig(impl.Config{Design: d, Clients: *clients, Sections: *sections, Retries: retries, LockDelay: *lockDelay, Validity: rule, Nodes: explore.Nodes(d, *nodes, len(designs) > 1)}),
			Symmetry: *symmetry, SleepSets: *por, MaxStates: *maxStates, First: *first, Workers: *workers,
			MaxMemory: memLimit,
		}
		for _, n := range names {
			inv, err := impl.LookupInvariant(n)
			if err != nil {
				return badInput("%v", err)
			}
			// In the matrix a tokens-only invariant is just not applicable
			// to the design without tokens; asked for alone, it is a mistake.
			if !inv.AppliesTo(d) && len(designs) == 1 {
				return badInput("%s does not apply to %s: it needs tokens", quote.S(n), d.Describe())
			}
			c.Invariants = append(c.Invariants, n)
		}
		if err := c.Validate(); err != nil {
			return badInput("%v", err)
		}
		configs = append(configs, c)
	}

	return pipeline.Explore(&e.Env, configs, *outDir)
}
