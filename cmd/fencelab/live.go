package main

import (
	"fmt"

	"github.com/fencelab/fencelab/pipeline"
)

func liveCommand() command {
	return command{name: "live", summary: "real lock services under real faults, judged against the models (runs fencelab-live)", run: runLive}
}

const liveUsage = `Usage: fencelab live <command> [flags]

Runs fencelab-live (found beside fencelab, else on PATH) with the same arguments, and exits
with its code: real etcd, Redis, Redlock (5 Redis nodes), ZooKeeper and MariaDB, started on
127.0.0.1 for each run, each client its own process (a pause is a real SIGSTOP), real faults,
and every verdict beside the models' verdict of the design row the setup instantiates.

Commands of fencelab-live:
  run      runs of one setup under one fault (--service, --design, --fault, --runs, --nemesis, --out,
           --keep failing|all|none, --shard i/n, --client checked|unchecked, --client-cmd CMD: your
           lock in any language, a process speaking docs/protocol.md; --store-cmd CMD: your fenced
           store as the resource, a process speaking docs/store-protocol.md; --classic: the fault's
           classic story where the row's model has its own; --fault holder-death: the holder killed,
           kill→grant and LockFreedAfterHolderDeath measured, liveness.json beside summary.json)
  matrix   every setup under each of its classic faults, as make live (--service, --runs, --out,
           --keep failing|all|none, --update-readme FILE, --shard i/n, --client checked|unchecked|both,
           --parallel N: campaigns at once, 4 by default, output as a serial run's;
           --client-cmd CMD --design D: that one setup with CMD's lock; --store-cmd CMD --design D:
           that one setup with CMD as its resource)
  readme   the README's live block from a matrix's --out folder (--out DIR FILE)
  merge    the shards of a run or a matrix (--shard i/n) into one --out (--out DIR SHARD_DIR...)
  check    saved runs judged again from their files alone, compared with their saved verdicts
           (RUN_DIR...; exit 1 if they differ)
  story    how a setup's scripted story comes from its row's model: the explorer's shortest
           counterexample of a property, then the live schedule it maps to (--setup SERVICE/DESIGN
           --property P)
  check-history  a history file (docs/history.md) judged, each verdict beside the row's
           (--design ROW, --ttl D, --out DIR HISTORY; fencelab check is the same)
  conform-client  checks that --client-cmd CMD speaks docs/protocol.md, against a real server of
           --service (exit 1 if a check fails)
  conform-store  checks that --store-cmd CMD speaks docs/store-protocol.md and fences as the row
           it claims (--design ROW, all by default; exit 1 if a check fails)
  list     the setups, the rows they instantiate, their faults and the versions

Example:
  fencelab live run --service redis --design none --fault client-pause

Run 'fencelab live <command> -h' for a command's flags.
Exit codes (fencelab-live's): 0 success (expected violations count as success), 1 a violation
where the models say the property holds, 2 bad input, a missing service or a harness error,
128+n stopped by signal n. make live builds fencelab-live (bin/, beside fencelab).
`

func runLive(e *env, args []string) error {
	if len(args) == 0 {
		return badInput("no live command given (want run, matrix, readme, merge, check, check-history, story or list; fencelab live --help)")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) == 1 {
			fmt.Fprint(e.Stdout, liveUsage)
			return nil
		}
	}
	return pipeline.Live(&e.Env, args)
}
