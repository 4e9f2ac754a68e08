package main

import (
	"flag"
	"runtime"
	"strconv"

	"github.com/fencelab/fencelab/bounds"
)

// driftValue is a --max-drift flag: a clock rate drift bound read by
// bounds.ParseDrift (50ppm, 0.005% or 0.00005), held as a fraction.
type driftValue float64

func (d *driftValue) String() string {
	if d == nil {
		return "0"
	}
	return strconv.FormatFloat(float64(*d), 'g', -1, 64)
}

func (d *driftValue) Set(s string) error {
	f, err := bounds.ParseDrift(s)
	if err != nil {
		return err
	}
	*d = driftValue(f)
	return nil
}

// driftFlag defines a --max-drift flag with the default def and the words
// of usage, followed by the forms every command accepts.
func driftFlag(fs *flag.FlagSet, def float64, usage string) *driftValue {
	d := driftValue(def)
	fs.Var(&d, "max-drift", usage+"; as a fraction (0.1), a percentage (10%) or parts per million (50ppm)")
	return &d
}

// given reports whether the flag name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// nodesFlag defines --nodes, the Redlock rows' independent lock nodes,
// with its default def shown in --help. Read it with lockNodes.
func nodesFlag(fs *flag.FlagSet, def int, usage string) *int {
	return fs.Int("nodes", def, usage)
}

// lockNodes is --nodes as the configuration takes it: 0 (each row's own
// default, which --help shows) when not given, else the value given — of
// which 0 is refused, not read as "the default": zero lock nodes is no
// lock.
func lockNodes(fs *flag.FlagSet, n int) (int, error) {
	if !given(fs, "nodes") {
		return 0, nil
	}
	if n < 1 {
		return 0, badInput("nodes must be at least 1 (a lock node or more), got %d", n)
	}
	return n, nil
}

// workersFlag defines --workers, the goroutines that run runs or cells:
// one per CPU unless given. In the CLI reference its help says so in
// words, not as this machine's count.
func workersFlag(e *env, fs *flag.FlagSet, usage string) *int {
	if e.reference {
		return fs.Int("workers", 0, usage+" (default: one per CPU)")
	}
	return fs.Int("workers", runtime.GOMAXPROCS(0), usage)
}
