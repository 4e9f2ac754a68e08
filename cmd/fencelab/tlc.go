package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/fencelab/fencelab/internal/quote"
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
	outDir := outFlag(fs, defaultOut("tlc"), "folder", "TLC's outputs and the counterexamples")
	specs := specsFlag(fs, ", the cfgs and models.json")
	pin := pinFlag(fs)
	timeout := timeoutFlag(fs)
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
	if err := pipeline.CheckTLCWorkers(*workers, runtime.NumCPU()); err != nil {
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
