package main

import (
	"fmt"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
)

const designsUsage = "fencelab designs"

func designsCommand() command {
	return command{name: "designs", summary: "list the rows of the lock-design × fault matrix, each with the assumption it rests on", run: runDesigns}
}

// runDesigns prints every design: its --design value, its name in the
// tables and the assumption its verdicts rest on, then the products it
// stands for ("which row am I?"); then the products no row stands for.
func runDesigns(e *env, args []string) error {
	fs := newFlagSet("designs")
	rest, err := parseFlags(e, fs, designsUsage, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return badInput("unexpected argument %s (usage: %s)", quote.Q(rest[0]), designsUsage)
	}
	width := 0
	for _, d := range impl.Designs() {
		width = max(width, len(d.String()))
	}
	for _, d := range impl.Designs() {
		if _, err := fmt.Fprintf(e.Stdout, "%-*s  %s — rests on: %s\n", width, d, d.Describe(), d.Assumption()); err != nil {
			return err
		}
		if p := d.Products(); p != "" {
			fmt.Fprintf(e.Stdout, "%-*s  stands for: %s\n", width, "", p)
		}
	}
	fmt.Fprintf(e.Stdout, "\nWhich row am I? Find your lock above; a token checked on writes only (not reads) is row %s.\n", impl.DesignFenceWrites)
	for _, p := range impl.WithoutRow() {
		if _, err := fmt.Fprintf(e.Stdout, "No row: %s\n", p); err != nil {
			return err
		}
	}
	return nil
}
