package main

import (
	"flag"
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
