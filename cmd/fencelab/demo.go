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
	out := fs.String("out", "out", "folder for everything the demo writes")
	runs := fs.Int("runs", 1000, "simulator runs per design and fault setting")
	seed := fs.Uint64("seed", 1, "the simulator's first seed; run i uses seed+i")
	// 2 and 3 clients finish in seconds and match TLC's model sizes.
	clients := fs.String("clients", "2,3", "the explorer's model sizes, comma-separated, each 2 to 4")
	nodes := nodesFlag(fs, explore.DefaultNodes, "independent lock nodes of the explorer's Redlock rows, 1 to 9 (3 unless given, as in TLC's models); the simulator keeps its own, 5")
	specs := fs.String("specs", "specs", "folder with the specs, the cfgs and models.json")
	pin := fs.String("pin", "tla2tools.version", "the pinned TLA+ tools release")
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
	sizes, err := parseSizes(*clients)
	if err != nil {
		return err
	}
	// Validated as fencelab explore --design redlock --nodes validates it.
	redlock := explore.DefaultConfig(impl.DesignRedlock, sizes[0])
	if redlock.Nodes = explore.Nodes(impl.DesignRedlock, *nodes, true); redlock.Validate() != nil {
		return badInput("%v", redlock.Validate())
	}
	return pipeline.Demo(&e.Env, pipeline.DemoPlan{Out: *out, Specs: *specs, Pin: *pin, Sizes: sizes, Nodes: *nodes, Sim: opts, Readme: *readme, NoCache: *noCache})
}

// parseSizes reads --clients: model sizes for the explorer, each checked
// by the explorer's own Validate, so a bad size reads as in fencelab explore.
func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, badInput("clients: %s is not a number", quote.Q(part))
		}
		if err := explore.DefaultConfig(impl.DesignFenceAll, n).Validate(); err != nil {
			return nil, badInput("%v", err)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}
