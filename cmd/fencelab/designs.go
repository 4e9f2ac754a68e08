package main

import (
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/report"
)

const designsUsage = "fencelab designs"

func designsCommand() command {
	return command{name: "designs", summary: "list the rows of the lock-design × fault matrix, each with the assumption it rests on", run: runDesigns}
}

// runDesigns prints every design (report.Designs).
func runDesigns(e *env, args []string) error {
	fs := newFlagSet("designs")
	rest, err := parseFlags(e, fs, designsUsage, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return badInput("unexpected argument %s (usage: %s)", quote.Q(rest[0]), designsUsage)
	}
	return report.Designs(e.Stdout)
}
