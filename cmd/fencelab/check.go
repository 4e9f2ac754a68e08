package main

import (
	"fmt"

	"github.com/fencelab/fencelab/pipeline"
)

func checkCommand() command {
	return command{name: "check", summary: "judge a recorded history file (docs/history.md) with the live judge (runs fencelab-live check-history)", run: runCheck}
}

const checkUsage = `Usage: fencelab check [--design ROW] [--ttl D] [--out DIR] [--check-timeout D] [--tlc] HISTORY

Judges a history file — JSON lines of grants, releases, reads and writes with their tokens
and outcomes, faults, and the resource's log (docs/history.md; the live harness writes one
per saved run, your own harness or a converter over your logs can too) — with the live judge:
AtMostOneClientHoldLock, TokenIsMonotonical, NoLostUpdate, NoActionPastValidity and Porcupine's
two linearizability checks, each beside the models' verdict of the design row (the header's
"design", or --design). Writes the trace (trace.html, trace.txt, trace.mmd, trace.json),
Porcupine's pages and verdicts.json into --out (default out/check). Runs fencelab-live
check-history (found beside fencelab, else on PATH) with the same arguments.

Flags of fencelab-live check-history:
  --design ROW        the row the verdicts are lined up with (default: the header's "design")
  --ttl D             the lease the clients asked for (default: the header's "ttl_ns")
  --out DIR           the folder for the pages (default out/check)
  --check-timeout D   Porcupine's time bound for each check (default 10s)
  --tlc               also ask TLC whether the row's spec (DistLockFencing.tla) can make the
                      history's resource log (1 to 40 operations; TLA2TOOLS_JAR names the jar)
  --specs DIR         the TLA+ specs, for --tlc (default specs)

Example:
  fencelab check --design all out/live/redis/none/client-pause/run-1/history.jsonl

Exit codes (fencelab-live's): 0 every verdict is one the row allows, 1 a property the row says
holds was violated (or, with --tlc, the spec cannot make the resource's log), 2 a malformed
history (one line naming the line) or bad flags.
`

func runCheck(e *env, args []string) error {
	if len(args) == 1 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			fmt.Fprint(e.Stdout, checkUsage)
			return nil
		}
	}
	return pipeline.Live(&e.Env, append([]string{"check-history"}, args...))
}
