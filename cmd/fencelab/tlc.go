package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/pipeline"
)

const tlcUsage = "fencelab tlc [--model NAME | --all] [--out DIR] [--specs DIR] [--pin FILE] [--workers auto|N] [--timeout D] [--no-cache] [--print-jar]"

func tlcCommand() command {
	return command{name: "tlc", summary: "run TLC on every model of specs/models.json and compare with the manifest", run: runTLC}
}

// runTLC checks the committed PlusCal translations, runs each selected
// model, saves and prints every counterexample, and prints one summary
// table. It fails (exit 1) iff a row differs from the manifest. Bad input —
// a bad manifest, a spec or cfg that is missing or outside --specs, an
// --out that cannot be written, no Java, a jar that is not TLA+ tools —
// exits 2 before anything runs. SIGINT or SIGTERM stops TLC (its whole
// process group), removes the temporary folders and exits 128+signal.
func runTLC(e *env, args []string) error {
	fs := newFlagSet("tlc")
	model := fs.String("model", "", "run only this model (default: every model in the manifest but the slow ones)")
	all := fs.Bool("all", false, "run the slow models too (those marked slow in the manifest: over a minute of TLC each)")
	outDir := fs.String("out", filepath.Join("out", "tlc"), "folder for TLC's outputs and the counterexamples")
	specs := fs.String("specs", "specs", "folder with the specs, the cfgs and models.json")
	pin := fs.String("pin", "tla2tools.version", "the pinned TLA+ tools release")
	timeout := fs.Duration("timeout", 10*time.Minute, "time limit for one TLC run")
	workers := fs.String("workers", "auto", "TLC's worker threads: auto (every core for a model expected to hold, one for a model expected to be violated, so that its counterexample and figures are the same on every run) or a number from 1 to 4 per core of this machine (more only wait for the cores and take memory; 1 compares speed with the single-threaded explorer)")
	noCache := noCacheFlag(fs)
	printJar := fs.Bool("print-jar", false, "only resolve tla2tools.jar (and Java) and print the jar's path, for running TLC by hand")
	rest, err := parseFlags(e, fs, tlcUsage, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return badInput("unexpected argument %s (usage: %s)", quote.Q(rest[0]), tlcUsage)
	}
	if *timeout <= 0 {
		return badInput("--timeout must be positive")
	}
	if err := checkTLCWorkers(*workers, runtime.NumCPU()); err != nil {
		return err
	}
	if *printJar {
		jar, _, err := pipeline.ResolveTLC(context.Background(), *pin)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.Stdout, jar.Path)
		return nil
	}
	models, err := pipeline.LoadModels(*specs, *model, *all)
	if err != nil {
		return err
	}
	return pipeline.TLC(&e.Env, pipeline.TLCPlan{Specs: *specs, Pin: *pin, Out: *outDir, Models: models, Timeout: *timeout, Workers: *workers, NoCache: *noCache})
}

// tlcWorkersPerCore bounds --workers: TLC's workers are threads that
// each keep a core busy, so more than a few per core only wait and take
// memory; a count far above it (100000) would run TLC for a long while
// to fail instead of being refused.
const tlcWorkersPerCore = 4

// checkTLCWorkers checks a --workers value: auto, or a whole number from
// 1 to tlcWorkersPerCore per core of the machine's cores.
func checkTLCWorkers(value string, cores int) error {
	if value == "auto" {
		return nil
	}
	most := tlcWorkersPerCore * max(cores, 1)
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 || n > most {
		return badInput("--workers must be auto or a number from 1 to %d (%d per core, %s here), got %s",
			most, tlcWorkersPerCore, words.Count(cores, "core"), quote.Q(value))
	}
	return nil
}

// noCacheFlag is --no-cache of the commands that run TLC.
func noCacheFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("no-cache", false, "run TLC on every model and check again instead of reading an identical earlier run's result from the cache ($FENCELAB_CACHE, an absolute path to a folder that can be written, else fencelab in the user's cache folder; a cached result is marked \"(cached)\")")
}
