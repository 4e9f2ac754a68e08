package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/pipeline"
	"github.com/fencelab/fencelab/shard"
)

// notCampaign reports the flags that change no result: a shard's
// identity leaves them out, so that shards may write to their own folders
// with their own worker counts.
func notCampaign(flag string) bool { return flag == "shard" || flag == "out" || flag == "workers" }

// shardRun reads --shard (value): nil when not given, else the shard and
// the identity of its campaign, the flags of fs as given (but those of
// notCampaign) and this executable's build.
func shardRun(fs *flag.FlagSet, command, value string) (*pipeline.ShardRun, error) {
	if value == "" && !given(fs, "shard") {
		return nil, nil
	}
	spec, err := shard.Parse(value)
	if err != nil {
		return nil, badInput("%v", err)
	}
	build, err := shard.ThisBuild(version)
	if err != nil {
		return nil, badInput("cannot name this fencelab build for the shard's result: %v", err)
	}
	var args []string
	fs.Visit(func(f *flag.Flag) {
		if !notCampaign(f.Name) {
			args = append(args, fmt.Sprintf("--%s=%s", f.Name, f.Value.String()))
		}
	})
	return &pipeline.ShardRun{Spec: spec, Identity: shard.Identity{Command: command, Args: args, Build: build}}, nil
}

func mergeCommand() command {
	return command{name: "merge", summary: "merge the result folders of a campaign's shards (--shard i/n) into the campaign's result", run: runMerge}
}

const mergeUsage = `fencelab merge [--out DIR] SHARD_DIR...

Reads the result folders of a campaign run in shards (fencelab sim, sweep
or conform with --shard i/n and --out SHARD_DIR, one per machine; the
shards of fencelab live run or matrix go to fencelab-live merge) and
finishes the campaign as one machine would: the same table, verdicts,
saved failing runs and exit code as the command run unsharded, byte for
byte where that run is deterministic (sim, sweep). It first checks that
the folders are one campaign's: the same command and flags (but --shard,
--out and --workers), the same fencelab executable (the one merging too),
every shard 0 to n-1 exactly once; any other is bad input (exit 2).
--out is the command's own (default its default).
Exit codes: the command's (0 as expected, 1 an unexpected verdict), 2 bad input.`

func runMerge(e *env, args []string) error {
	fs := newFlagSet("merge")
	out := outFlag(fs, "", "folder", "the campaign's files (default: the merged command's own default --out)")
	dirs, err := parseFlags(e, fs, mergeUsage, args)
	if err != nil {
		return err
	}
	if len(dirs) > 0 {
		// fencelab-live's shards are merged by fencelab-live, the build
		// that ran them.
		if m, err := shard.Read(dirs[0]); err == nil && strings.HasPrefix(m.Identity.Command, "live ") {
			return pipeline.Live(&e.Env, append([]string{"merge"}, args...))
		}
	}
	build, err := shard.ThisBuild(version)
	if err != nil {
		return badInput("cannot name this fencelab build: %v", err)
	}
	c, err := pipeline.ReadShards(dirs, build)
	if err != nil {
		return err
	}
	cargs := append([]string(nil), c.Identity.Args...)
	if *out != "" {
		cargs = append(cargs, "--out="+filepath.Clean(*out))
	}
	switch c.Identity.Command {
	case "sim":
		o, err := parseSimFlags(e, cargs)
		if err != nil {
			return err
		}
		return pipeline.MergeSim(&e.Env, o, c)
	case "sweep":
		r, err := parseSweepFlags(e, cargs)
		if err != nil {
			return err
		}
		return pipeline.MergeSweep(&e.Env, r.sweep, r.out, r.designs, c)
	case "conform":
		p, err := parseConformFlags(e, cargs)
		if err != nil {
			return err
		}
		return pipeline.MergeConform(&e.Env, *p, c)
	}
	return badInput("%s: shards of fencelab %q, which merge does not know", dirs[0], c.Identity.Command)
}
