package main

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/pipeline"
)

const demoUsage = `fencelab demo [--out DIR] [--runs N] [--seed 1] [--clients 2,3] [--nodes 3] [--specs DIR] [--no-cache] [--update-readme FILE]

Reaches every verdict of DESIGN.md's table three ways and prints them side
by side: the explorer on the Go implementation (2 and 3 clients), the
simulator under network delay, process pauses and clock drift (every fault
kind together, each alone, and none), and TLC on every model of the specs.
Without Java or tla2tools.jar, TLC is marked "not run" — never passed — and
the command exits 2 once everything else has run.`

func demoCommand() command {
	return command{name: "demo", summary: "every verdict of DESIGN.md's table three ways: explorer, simulator, TLC", run: runDemo}
}

func runDemo(e *env, args []string) error {
	fs := newFlagSet("demo")
	out := outFlag(fs, "out", "folder", "everything the demo writes")
	runs := runsFlag(fs, 1000, "design and fault setting")
	seed := seedFlag(fs, "the simulator's first run")
	// 2 and 3 clients finish in seconds and match TLC's model sizes.
	clients := fs.String("clients", "2,3", "the explorer's model sizes, comma-separated, each 2 to 4")
	nodes := nodesFlag(fs, explore.DefaultNodes, "independent lock nodes of the explorer's Redlock rows, 1 to 9 (3 unless given, as in TLC's models); the simulator keeps its own, 5")
	specs := specsFlag(fs, ", the cfgs and models.json")
	pin := pinFlag(fs)
	noCache := noCacheFlag(fs)
	readme := fs.String("update-readme", "", "also rewrite this README's matrix from this run: the full table in docs/matrix.md beside it, and its picture, docs/img/matrix.svg (needs TLC)")
	rest, err := parseFlags(e, fs, demoUsage, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return badInput("unexpected argument %s (usage: %s)", quote.Q(rest[0]), strings.SplitN(demoUsage, "\n", 2)[0])
	}
	// The simulator's flags are validated as fencelab sim validates them,
	// so a bad --runs reads the same from both commands.
	opts, err := parseSimFlags(e, []string{"--runs", strconv.Itoa(*runs), "--seed", strconv.FormatUint(*seed, 10), "--out", filepath.Join(*out, "sim")})
	if err != nil {
		return err
	}
	if *nodes, err = lockNodes(fs, *nodes); err != nil {
		return err
	}
	sizes, err := explore.ParseSizes(*clients)
	if err != nil {
		return badInput("%v", err)
	}
	// Validated as fencelab explore --design redlock --nodes validates it.
	redlock := explore.DefaultConfig(impl.DesignRedlock, sizes[0])
	if redlock.Nodes = explore.Nodes(impl.DesignRedlock, *nodes, true); redlock.Validate() != nil {
		return badInput("%v", redlock.Validate())
	}
	return pipeline.Demo(&e.Env, pipeline.DemoPlan{Out: *out, Specs: *specs, Pin: *pin, Sizes: sizes, Nodes: *nodes, Sim: opts, Readme: *readme, NoCache: *noCache})
}
