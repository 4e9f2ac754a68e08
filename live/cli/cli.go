// Package cli is fencelab-live's command line as a function of the setups
// it offers: cli.Main(os.Args, setup.All()) is the fencelab-live command,
// and a Go user's own lock is one more setup appended to the list. Each
// run starts fresh servers on 127.0.0.1, its clients as processes of
// their own (the same binary re-executed with the hidden role "client"),
// a nemesis, and the resource; it judges the history against the model's
// verdict of the design row the setup instantiates.
//
//	fencelab-live run --service redis --design all --fault client-pause --runs 5 --out out/live
//	fencelab-live matrix --runs 3 --out out/live
//	fencelab-live readme --out out/live README.md
//	fencelab-live check out/live/redis/none/client-pause/run-1
//	fencelab-live story --setup redis/none --property NoLostUpdate
//	fencelab-live list
//
// Exit codes: 0 success (expected violations count as success), 1 a
// violation where the models say the property holds (check: verdicts
// that are not the saved ones), 2 bad input, a missing service or a
// harness error, 129/130/143 stopped by SIGHUP/SIGINT/SIGTERM.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/live/campaign"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/shard"
)

// The exit codes of Main.
const (
	ExitOK       = 0
	ExitFailure  = 1
	ExitBadInput = 2
)

// Main runs the command line args (args[0] is the program's name) over
// setups, with the process's standard streams, and returns the exit code:
// a command's main is os.Exit(cli.Main(os.Args, setup.All())).
func Main(args []string, setups []setup.Setup) int {
	if len(args) == 0 {
		args = []string{"fencelab-live"}
	}
	return Run(setups, args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// Run runs one command line, args without the program's name, over
// setups, with the streams given: Main with the streams a test chooses.
func Run(setups []setup.Setup, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "fencelab-live: no command given (want run, matrix, readme, merge, check, check-history, story, conform-client, conform-store or list)")
		return ExitBadInput
	}
	switch args[0] {
	case "run":
		return runCommand(setups, args[1:], stdout, stderr)
	case "list":
		return listCommand(setups, args[1:], stdout, stderr)
	case "matrix":
		return matrixCommand(setups, args[1:], stdout, stderr)
	case "readme":
		return readmeCommand(setups, args[1:], stdout, stderr)
	case "merge":
		return mergeCommand(setups, args[1:], stdout, stderr)
	case "check":
		return checkCommand(setups, args[1:], stdout, stderr)
	case "story":
		return storyCommand(setups, args[1:], stdout, stderr)
	case "check-history":
		return checkHistoryCommand(args[1:], stdout, stderr)
	case "conform-client":
		return conformCommand(setups, args[1:], stdout, stderr)
	case "conform-store":
		return conformStoreCommand(args[1:], stdout, stderr)
	case "client":
		// Hidden: one client process of a run.
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
		defer stop()
		if err := run.ServeClient(ctx, setups, stdin, stdout); err != nil {
			fmt.Fprintf(stderr, "fencelab-live client: %s\n", oneLine(err.Error()))
			return ExitFailure
		}
		return ExitOK
	case server.EtcdRole:
		// Hidden: the embedded etcd of the etcd setups, a process of its
		// own so that it can be paused and killed.
		if err := server.RunEtcdServer(context.Background(), args[1:]); err != nil {
			fmt.Fprintf(stderr, "fencelab-live %s\n", oneLine(err.Error()))
			return ExitBadInput
		}
		return ExitOK
	case "help":
		if len(args) == 2 && args[1] != "help" && args[1] != "client" && args[1] != server.EtcdRole {
			// fencelab-live help CMD is CMD -h.
			return Run(setups, []string{args[1], "-h"}, stdin, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return ExitOK
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return ExitOK
	}
	fmt.Fprintf(stderr, "fencelab-live: unknown command %.40q (want run, matrix, readme, merge, check, check-history, story, conform-client, conform-store or list)\n", args[0])
	return ExitBadInput
}

const usage = `fencelab-live — real lock services under real faults, judged against the models

Usage:
  fencelab-live run --service S --design D [--fault F] [--runs N] [--seed X] [--out DIR] [--keep K] [--shard i/n] [flags]
  fencelab-live matrix [--runs N] [--seed X] [--out DIR] [--keep K] [--service S] [--update-readme FILE] [--shard i/n] [--parallel N]
  fencelab-live readme [--out DIR] FILE   (the live block of FILE from a matrix's --out)
  fencelab-live merge --out DIR SHARD_DIR...   (the shards of a run or matrix --shard i/n)
  fencelab-live check RUN_DIR...   (a saved run judged again from its files alone)
  fencelab-live story --setup SERVICE/DESIGN --property P   (a scripted story from the model)
  fencelab-live check-history [--design ROW] [--out DIR] HISTORY   (a history file judged, docs/history.md)
  fencelab-live conform-client --client-cmd CMD --service S [--design D]   (CMD speaks docs/protocol.md)
  fencelab-live conform-store --store-cmd CMD [--design ROW]   (CMD speaks docs/store-protocol.md)
  fencelab-live list

Your lock in any language: run --client-cmd CMD takes the lock through CMD, a process speaking
the lock-client protocol (docs/protocol.md), in the setup --design names (a setup or a row).
Your store in any language: run --store-cmd CMD makes CMD, a process speaking the resource
protocol (docs/store-protocol.md), the run's resource, fencing as --design's row claims.
Run 'fencelab-live run -h' (or help run) for the flags. --keep failing (the default), all or
none: which runs are saved under --out (the campaigns' summaries always are).
Exit codes: 0 success (expected violations count as success), 1 a violation where the models
say the property holds (check: verdicts not the saved ones), 2 bad input, a missing service or
a harness error (check, check-history: a missing or malformed file), 129/130/143 stopped by SIGHUP/SIGINT/SIGTERM.
`

// errUsage means a command printed its usage on request: exit 0.
var errUsage = errors.New("usage shown")

// liveJob is a parsed run or matrix: its campaigns, where their failing
// runs go, and the shard of them to run, if any.
type liveJob struct {
	plans []campaign.Config
	out   string
	// probe skips a setup whose service is missing (matrix); run probes
	// its one setup before anything and refuses it instead.
	probe  func(setup.Setup) error
	readme string // matrix's --update-readme
	// parallel is how many of the matrix's campaigns run at once.
	parallel int
	shard    *shard.Spec
	id       shard.Identity
}

// shardOf reads --shard (value, given or not) into job: the shard and the
// identity of its campaign, the flags of fs as given but --shard, --out
// and --parallel.
func shardOf(fs *flag.FlagSet, command, value string, job *liveJob) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "shard" })
	if !given {
		return nil
	}
	spec, err := shard.Parse(value)
	if err != nil {
		return err
	}
	build, err := shard.ThisBuild(liveVersion)
	if err != nil {
		return fmt.Errorf("cannot name this build for the shard's result: %w", err)
	}
	var args []string
	fs.Visit(func(f *flag.Flag) {
		// --parallel changes when campaigns run, not what they find.
		if f.Name != "shard" && f.Name != "out" && f.Name != "parallel" {
			args = append(args, fmt.Sprintf("--%s=%s", f.Name, f.Value.String()))
		}
	})
	job.shard = &spec
	job.id = shard.Identity{Command: "live " + command, Args: args, Build: build}
	return nil
}

// keepFlag declares --keep, run's and matrix's: which runs are saved.
func keepFlag(fs *flag.FlagSet) *campaign.Keep {
	keep := new(campaign.Keep)
	fs.Var(keep, "keep", "which runs to save under --out: `failing` (the default: those that violated a property or ended in a harness error), all, or none (the summaries only)")
	return keep
}

// liveVersion names fencelab-live's release in a shard's identity (its
// executable's checksum is there too).
const liveVersion = "fencelab-live"

func parseRun(setups []setup.Setup, args []string, stdout io.Writer) (*liveJob, error) {
	fs := flag.NewFlagSet("fencelab-live run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	service := fs.String("service", "", "the service (fencelab-live list)")
	design := fs.String("design", "", "the setup's name within the service, as fencelab-live list shows it after --design (a setup name, not its design row)")
	faultName := fs.String("fault", string(history.FaultClientPause), "the fault")
	nemesis := fs.String("nemesis", nemesis.Scripted, "scripted (the classic story) or random (drawn from the seed)")
	runs := fs.Int("runs", 5, "runs")
	seed := fs.Uint64("seed", 1, "the first run's seed (run i has seed+i)")
	out := fs.String("out", filepath.Join("out", "live"), "folder for the saved runs (--keep) and the campaign's summary")
	keep := keepFlag(fs)
	clients := fs.Int("clients", 2, "client processes per run")
	sections := fs.Int("sections", 0, "sections per client (0: the scripted story's, as the matrix runs it: 3, 1 under a network fault or where the setup's story says)")
	think := fs.Duration("think", 0, "think time between a section's read and write (0: what the fault's scripted story needs, or the setup's story's; a restart's and a clock step's grow with the servers' measured start-up, and a saved run's verdicts.json says why)")
	timeout := fs.Duration("timeout", 20*time.Second, "bound of one run")
	shardValue := fs.String("shard", "", shard.Usage)
	client := fs.String("client", clientChecked, clientUsage)
	clientCmd := fs.String("client-cmd", "", clientCmdUsage)
	storeCmd := fs.String("store-cmd", "", storeCmdUsage)
	classic := fs.Bool("classic", false, "a scripted run keeps the fault's classic story (a client pause right after the first read, for 3 TTL) where the row's model has a story of its own: the same story for every setup, as the blind windows compare them")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			showUsage(stdout, fs, "fencelab-live run --service S --design D [flags]")
			return nil, errUsage
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %.40q", fs.Arg(0))
	}
	if *service == "" || *design == "" {
		return nil, fmt.Errorf("--service and --design are required (fencelab-live list shows them)")
	}
	setup, err := findSetup(setups, fs, *service, *design, *clientCmd, *storeCmd)
	if err != nil {
		return nil, err
	}
	checked, unchecked, err := parseClient(*client)
	switch {
	case err != nil:
		return nil, err
	case checked && unchecked:
		return nil, fmt.Errorf("--client %s is the matrix's: a run is one client line (checked or unchecked)", clientBoth)
	case unchecked:
		setup = setup.WithUncheckedClient()
	}
	fault, err := history.ParseFault(*faultName)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("own binary: %w", err)
	}
	story := *think == 0
	if story {
		*think = setup.ScriptedThink(fault)
	}
	if *sections == 0 {
		_, *sections = setup.ScriptedWorkload(fault)
	}
	cfg := campaign.Config{
		Run: run.Config{
			Setup: setup, Fault: fault, Nemesis: *nemesis, Seed: *seed,
			Clients: *clients, Sections: *sections, Think: *think, StoryThink: story, Timeout: *timeout,
			Self: []string{self, "client"}, CheckTimeout: run.DefaultCheckTimeout, Classic: *classic,
		},
		Runs: *runs, Out: *out, Keep: *keep,
	}
	if err := cfg.Run.Validate(); err != nil {
		return nil, err
	}
	if *runs < 1 || *runs > 100000 {
		return nil, fmt.Errorf("--runs %d (want 1 to 100000)", *runs)
	}
	job := &liveJob{plans: []campaign.Config{cfg}, out: *out}
	if err := shardOf(fs, "run", *shardValue, job); err != nil {
		return nil, err
	}
	return job, nil
}

func runCommand(setups []setup.Setup, args []string, stdout, stderr io.Writer) int {
	job, err := parseRun(setups, args, stdout)
	if errors.Is(err, errUsage) {
		return ExitOK
	}
	if err != nil {
		return bad(stderr, "%v", err)
	}
	release, err := takeOut(job.out)
	if err != nil {
		return bad(stderr, "%v", err)
	}
	defer release()
	cfg := job.plans[0]
	cfg.Progress = stderr
	setup := cfg.Run.Setup
	if setup.Probe != nil {
		if _, err := setup.Probe(context.Background()); err != nil {
			return bad(stderr, "%s: %v", setup.ID(), err)
		}
	}

	ctx, stopped, done := onSignal()
	defer done()
	sweep(stderr, "run")
	if job.shard != nil {
		err := campaign.SaveShard(ctx, job.id, *job.shard, []campaign.Config{cfg}, job.out, nil)
		return shardDone(stdout, stderr, "run", job, stopped, err)
	}
	summary, err := campaign.Run(ctx, cfg)
	if code, ok := stopped(stderr, "run"); ok {
		return code
	}
	if summary == nil { // parseRun checked what makes campaign.Run return none
		summary = &campaign.Summary{Setup: setup, Fault: cfg.Run.Fault, Nemesis: cfg.Run.Nemesis}
	}
	if summary.Runs > 0 {
		summary.Write(stdout)
	}
	// The closing verdict line, last on stdout, whatever the outcome.
	fmt.Fprintln(stdout, summary.Verdict(err))
	if err != nil {
		fmt.Fprintf(stderr, "fencelab-live run: %s\n", oneLine(err.Error()))
		return ExitBadInput
	}
	if summary.Failed() {
		fmt.Fprintln(stderr, "fencelab-live run: a property the models say holds was violated")
		return ExitFailure
	}
	return ExitOK
}

// shardDone ends a shard: stopped by a signal, a harness error (no
// result: exit 2), or its result saved (exit 0: the verdict is merge's).
func shardDone(stdout, stderr io.Writer, cmd string, job *liveJob, stopped func(io.Writer, string) (int, bool), err error) int {
	if code, ok := stopped(stderr, cmd); ok {
		return code
	}
	if err != nil {
		fmt.Fprintf(stderr, "fencelab-live %s: %s\n", cmd, oneLine(err.Error()))
		return ExitBadInput
	}
	fmt.Fprintf(stdout, "shard %s saved in %s; when every shard is done: fencelab-live merge DIR...\n", job.shard, filepath.Join(job.out, shard.FileName))
	return ExitOK
}

// sweep removes the data folders in the temporary folder that runs
// killed before their clean-up left (run.SweepRunDirs: their owner is
// dead), saying so on stderr; a folder it cannot remove is said too, and
// does not stop the command.
func sweep(stderr io.Writer, cmd string) {
	removed, err := run.SweepRunDirs("")
	if len(removed) > 0 {
		fmt.Fprintf(stderr, "fencelab-live %s: removed %s that killed runs left in %s\n", cmd, words.Count(len(removed), "data folder"), os.TempDir())
	}
	if err != nil {
		fmt.Fprintf(stderr, "fencelab-live %s: %s\n", cmd, oneLine(err.Error()))
	}
}

// stopSignals end a run or a matrix as a stop, not a crash: an
// interrupt, a kill, and a hang-up (a closed terminal or ssh session),
// which would otherwise end the process before its clean-up.
func stopSignals() []os.Signal {
	return []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
}

// onSignal makes the stopSignals end ctx: the run under way tears down
// (the nemesis stopped, paused processes continued, every process group
// it started ended, its data folder removed) before the exit. stopped
// says, once the work returned, whether a signal ended it, and with what
// exit code (128 + the signal: 129, 130, 143).
func onSignal() (ctx context.Context, stopped func(stderr io.Writer, cmd string) (int, bool), done func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals()...)
	got := make(chan os.Signal, 1)
	go func() {
		if s, ok := <-sigs; ok {
			got <- s
			cancel()
		}
	}()
	stopped = func(stderr io.Writer, cmd string) (int, bool) {
		select {
		case s := <-got:
			fmt.Fprintf(stderr, "fencelab-live %s: stopped by %v; everything it started is stopped and removed\n", cmd, s)
			return 128 + int(s.(syscall.Signal)), true
		default:
			return 0, false
		}
	}
	done = func() {
		signal.Stop(sigs)
		close(sigs)
		cancel()
	}
	return ctx, stopped, done
}

// parseMatrix reads matrix's flags into its campaigns: every setup (of
// --service, or all) under each of its faults, --runs runs each.
func parseMatrix(setups []setup.Setup, args []string, stdout io.Writer) (*liveJob, error) {
	fs := flag.NewFlagSet("fencelab-live matrix", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	service := fs.String("service", "", "only this service's setups")
	runs := fs.Int("runs", 3, "runs per setup and fault")
	seed := fs.Uint64("seed", 1, "the first run's seed")
	out := fs.String("out", filepath.Join("out", "live"), "folder for the saved runs (--keep) and the campaigns' summaries")
	keep := keepFlag(fs)
	readme := fs.String("update-readme", "", "then write the live block of this README (and its runs under docs/live)")
	shardValue := fs.String("shard", "", shard.Usage)
	parallel := fs.Int("parallel", defaultParallel, fmt.Sprintf("campaigns run at once (1 to %d), each with its own servers; the output is a serial run's, in the same order", maxParallel))
	client := fs.String("client", clientChecked, clientUsage+"; both adds the unchecked line where it differs: each setup whose lease has a fixed end, under "+string(history.FaultClientPause))
	design := fs.String("design", "", "with --client-cmd or --store-cmd: the setup (or row) the command claims; its classic faults are the matrix")
	clientCmd := fs.String("client-cmd", "", "the matrix of one setup, --design's, with its lock taken by this command (docs/protocol.md)")
	storeCmd := fs.String("store-cmd", "", "the matrix of one setup, --design's, with its resource this command (docs/store-protocol.md)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			showUsage(stdout, fs, "fencelab-live matrix [--service S] [--runs N] [--seed X] [--out DIR] [--keep failing|all|none] [--update-readme FILE] [--shard i/n] [--client checked|unchecked|both] [--parallel N] [--client-cmd CMD --design D] [--store-cmd CMD --design D]")
			return nil, errUsage
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %.40q", fs.Arg(0))
	}
	if *runs < 1 || *runs > 1000 {
		return nil, fmt.Errorf("--runs %d (want 1 to 1000)", *runs)
	}
	if *parallel < 1 || *parallel > maxParallel {
		return nil, fmt.Errorf("--parallel %d (want 1 to %d)", *parallel, maxParallel)
	}
	checked, unchecked, err := parseClient(*client)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("own binary: %w", err)
	}
	var chosen []setup.Setup
	for _, s := range setups {
		if *service == "" || s.Service == *service {
			chosen = append(chosen, s)
		}
	}
	cmdFlag := ""
	fs.Visit(func(f *flag.Flag) {
		if (f.Name == "client-cmd" || f.Name == "store-cmd") && cmdFlag == "" {
			cmdFlag = "--" + f.Name
		}
	})
	switch {
	case cmdFlag != "" && (*service == "" || *design == ""):
		return nil, fmt.Errorf("%s needs --service and --design (the setup or row it claims)", cmdFlag)
	case cmdFlag != "":
		s, err := findSetup(setups, fs, *service, *design, *clientCmd, *storeCmd)
		if err != nil {
			return nil, err
		}
		if *readme != "" {
			return nil, fmt.Errorf("--update-readme writes the shipped setups' block, not a command's (%s)", cmdFlag)
		}
		chosen = []setup.Setup{s}
	case *design != "":
		return nil, errors.New("--design is --client-cmd's or --store-cmd's (the matrix runs every setup of --service)")
	}
	if len(chosen) == 0 && *service != "" {
		return nil, fmt.Errorf("no setup of service %.40q (fencelab-live list shows them)", *service)
	}
	if len(chosen) == 0 {
		return nil, fmt.Errorf("this binary has no live setups")
	}
	job := &liveJob{out: *out, readme: *readme, parallel: *parallel, probe: func(s setup.Setup) error {
		if s.Probe == nil {
			return nil
		}
		_, err := s.Probe(context.Background())
		return err
	}}
	for _, s := range chosen {
		for _, f := range s.Faults {
			var lines []setup.Setup
			if checked {
				lines = append(lines, s)
			}
			if unchecked && uncheckedDiffers(s, f) {
				lines = append(lines, s.WithUncheckedClient())
			}
			clients, sections := s.ScriptedWorkload(f)
			for _, line := range lines {
				job.plans = append(job.plans, campaign.Config{
					Run: run.Config{
						Setup: line, Fault: f, Nemesis: nemesis.Scripted, Seed: *seed,
						Clients: clients, Sections: sections, Think: line.ScriptedThink(f), StoryThink: true, Timeout: 20 * time.Second,
						Self: []string{self, "client"}, CheckTimeout: run.DefaultCheckTimeout,
					},
					Runs: *runs, Out: *out, Keep: *keep,
				})
			}
		}
	}
	if len(job.plans) == 0 {
		return nil, fmt.Errorf("no campaign: no setup chosen has an unchecked client line (a lease with a fixed end, under %s)", history.FaultClientPause)
	}
	if err := shardOf(fs, "matrix", *shardValue, job); err != nil {
		return nil, err
	}
	if job.shard != nil && *readme != "" {
		return nil, fmt.Errorf("--update-readme is the merge's: fencelab-live merge, then fencelab-live readme")
	}
	return job, nil
}

const clientCmdUsage = "take the lock through this command (sh -c), a process speaking the lock-client protocol (docs/protocol.md), in --design's setup (a setup of --service, or a row: the service's setup of that row)"

const storeCmdUsage = "make the run's resource this command (sh -c), the user's fenced store as a process speaking the resource protocol (docs/store-protocol.md), claiming --design's row's fencing, in place of fencelab's register"

// maxClientCmd bounds --client-cmd and --store-cmd.
const maxClientCmd = 4096

// findSetup is the setup of service and design, with fs's --client-cmd
// cmd, if given, taking its lock and fs's --store-cmd storeCmd, if
// given, its resource: design then names a setup of the service or a row
// of impl.Designs (the service's setup of that row).
func findSetup(setups []setup.Setup, fs *flag.FlagSet, service, design, cmd, storeCmd string) (setup.Setup, error) {
	clientGiven, storeGiven := false, false
	fs.Visit(func(f *flag.Flag) {
		clientGiven = clientGiven || f.Name == "client-cmd"
		storeGiven = storeGiven || f.Name == "store-cmd"
	})
	s, err := setup.Find(setups, service, design)
	if !clientGiven && !storeGiven {
		return s, err
	}
	for _, c := range []struct {
		given      bool
		flag, text string
	}{{clientGiven, "--client-cmd", cmd}, {storeGiven, "--store-cmd", storeCmd}} {
		switch {
		case !c.given:
		case strings.TrimSpace(c.text) == "":
			return setup.Setup{}, fmt.Errorf("%s is empty", c.flag)
		case len(c.text) > maxClientCmd || strings.ContainsAny(c.text, "\x00\n\r"):
			return setup.Setup{}, fmt.Errorf("%s must be one line of at most %d bytes", c.flag, maxClientCmd)
		}
	}
	if err != nil {
		d, derr := impl.ParseDesign(design)
		if derr != nil {
			return setup.Setup{}, fmt.Errorf("%w; nor is it a row (%s)", err, impl.Flags())
		}
		if s, err = setup.OfRow(setups, service, d); err != nil {
			return setup.Setup{}, err
		}
	}
	if storeGiven {
		if s, err = s.WithStoreCommand(storeCmd); err != nil {
			return setup.Setup{}, err
		}
	}
	if clientGiven {
		s = s.WithClientCommand(cmd)
	}
	return s, nil
}

// The --client values: the clients' behaviour.
const (
	clientChecked   = "checked"
	clientUnchecked = "unchecked"
	clientBoth      = "both"
	clientUsage     = "the clients' behaviour: checked (the models' client: it checks its grant's validity before every read and write, and gives the section up past it) or unchecked (application code that does not check: it acts until it releases)"
)

// parseClient reads --client: which client lines to run.
func parseClient(v string) (checked, unchecked bool, err error) {
	switch v {
	case clientChecked:
		return true, false, nil
	case clientUnchecked:
		return false, true, nil
	case clientBoth:
		return true, true, nil
	}
	return false, false, fmt.Errorf("--client %.20q (want %s, %s or %s)", v, clientChecked, clientUnchecked, clientBoth)
}

// uncheckedDiffers says where the matrix runs a setup's unchecked client
// line beside its checked one: a lease with a fixed end (Leased; a
// session lock's client has no end to check, so both lines are one) under
// the client pause, whose scripted story pauses the holder past its
// validity — where the two clients part: the checked one gives up, the
// unchecked one writes. Eight campaigns more than the checked matrix.
func uncheckedDiffers(s setup.Setup, f history.Fault) bool {
	return s.Leased && f == history.FaultClientPause
}

// matrixCommand runs the scripted matrix: every setup (of --service, or
// all) under each of its faults, --runs runs each, the live column
// printed as it goes. A setup whose service is not installed is skipped
// with one line naming its Debian package.
func matrixCommand(setups []setup.Setup, args []string, stdout, stderr io.Writer) int {
	job, err := parseMatrix(setups, args, stdout)
	if errors.Is(err, errUsage) {
		return ExitOK
	}
	if err != nil {
		return badCmd(stderr, "matrix", "%v", err)
	}
	if job.readme != "" {
		// Checked before the first run: a README that cannot take the
		// block is known in a second, not after the matrix.
		if err := campaign.CheckReadme(job.readme); err != nil {
			return badCmd(stderr, "matrix", "--update-readme: %v", err)
		}
	}
	release, err := takeOut(job.out)
	if err != nil {
		return badCmd(stderr, "matrix", "%v", err)
	}
	defer release()
	ctx, stopped, done := onSignal()
	defer done()
	// Campaigns that run at once write their progress lines here, and the
	// matrix its own: one writer, each line whole.
	stderr = &syncWriter{w: stderr}
	sweep(stderr, "matrix")
	for i := range job.plans {
		job.plans[i].Progress = stderr
	}
	if job.shard != nil {
		err := campaign.SaveShard(ctx, job.id, *job.shard, job.plans, job.out, job.probe)
		return shardDone(stdout, stderr, "matrix", job, stopped, err)
	}
	// Every setup is probed first: a matrix none of whose services is
	// installed is known in a second, as one line, and exits 2.
	var seen []setup.Setup
	var skips []campaign.Skip
	skip := map[string]bool{}
	for _, cfg := range job.plans {
		s := cfg.Run.Setup
		if len(seen) == 0 || seen[len(seen)-1].ID() != s.ID() {
			seen = append(seen, s)
			if err := job.probe(s); err != nil {
				skips = append(skips, campaign.Skip{Setup: s.ID(), Reason: oneLine(err.Error())})
				skip[s.ID()] = true
			}
		}
	}
	if len(skips) == len(seen) {
		return badCmd(stderr, "matrix", "%s", nothingRan(skips))
	}
	for _, sk := range skips {
		fmt.Fprintf(stderr, "fencelab-live matrix: skipping %s: %s\n", sk.Setup, sk.Reason)
	}
	// The campaigns run job.parallel at once; their summaries come out in
	// the order of a serial run, each whole, and their progress lines
	// (each naming its campaign) as they come.
	failed, broken := false, false
	ran, inconclusive := 0, 0
	runCampaigns(ctx, job.plans, job.parallel, campaign.Run, func(i int) bool { return skip[job.plans[i].Run.Setup.ID()] }, func(i int, o outcome) {
		if ctx.Err() != nil {
			return // stopped: said once below
		}
		s, f := job.plans[i].Run.Setup, job.plans[i].Run.Fault
		if o.summary != nil && o.summary.Runs > 0 {
			o.summary.Write(stdout)
			failed = failed || o.summary.Failed()
			ran++
			if o.summary.Inconclusive() {
				inconclusive++
			}
		}
		if o.err != nil {
			fmt.Fprintf(stderr, "fencelab-live matrix: %s under %s: %s\n", s.ID(), f, oneLine(o.err.Error()))
			broken = true
		}
	})
	if code, ok := stopped(stderr, "matrix"); ok {
		return code
	}
	if job.readme != "" {
		// Whatever the verdicts, the block shows what was measured; the
		// exit code still says what went wrong.
		cs, err := campaign.ReadSummaries(job.out, seen)
		if err == nil {
			err = campaign.UpdateReadme(job.readme, cs)
		}
		if err != nil {
			fmt.Fprintf(stderr, "fencelab-live matrix: --update-readme: %s\n", oneLine(err.Error()))
			broken = true
		} else {
			fmt.Fprintf(stderr, "fencelab-live matrix: the live block of %s: %d campaigns\n", job.readme, len(cs))
		}
	}
	tooInconclusive := campaign.TooInconclusive(inconclusive, ran)
	if tooInconclusive {
		fmt.Fprintf(stderr, "fencelab-live matrix: %d of %d campaigns inconclusive (no run decided anything), more than %d%%: the stories do not bite\n", inconclusive, ran, campaign.MaxInconclusivePercent)
	}
	switch {
	case failed:
		fmt.Fprintln(stderr, "fencelab-live matrix: a property the models say holds was violated")
		return ExitFailure
	case broken:
		return ExitBadInput
	case tooInconclusive:
		return ExitFailure
	}
	return ExitOK
}

// mergeCommand merges the result folders of a run's or a matrix's shards
// (--shard i/n): it checks they are one campaign's, every shard once (one
// line, exit 2 if not), gathers their failing runs and the campaigns'
// summaries into --out (new or empty; fencelab-live readme reads it as a
// matrix's) and prints each campaign's summary; exit 1 when a property
// the models say holds was violated.
func mergeCommand(setups []setup.Setup, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fencelab-live merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", filepath.Join("out", "live"), "folder for the merged campaigns (new or empty)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			showUsage(stdout, fs, "fencelab-live merge [--out DIR] SHARD_DIR...")
			return ExitOK
		}
		return badCmd(stderr, "merge", "%v", err)
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		return badCmd(stderr, "merge", "no shard result folder given (fencelab-live merge --out DIR SHARD_DIR...)")
	}
	release, err := takeOut(*out)
	if err != nil {
		return badCmd(stderr, "merge", "%v", err)
	}
	defer release()
	build, err := shard.ThisBuild(liveVersion)
	if err != nil {
		return badCmd(stderr, "merge", "cannot name this build: %v", err)
	}
	ms := make([]*shard.Manifest, len(dirs))
	for k, d := range dirs {
		if ms[k], err = shard.Read(d); err != nil {
			return badCmd(stderr, "merge", "%v", err)
		}
	}
	c, err := shard.Check(ms, dirs, build)
	if err != nil {
		return badCmd(stderr, "merge", "%v", err)
	}
	cargs := append(append([]string(nil), c.Identity.Args...), "--out="+*out)
	var job *liveJob
	switch c.Identity.Command {
	case "live run":
		job, err = parseRun(setups, cargs, io.Discard)
	case "live matrix":
		job, err = parseMatrix(setups, cargs, io.Discard)
	default:
		return badCmd(stderr, "merge", "%.60s: shards of %.40q, which fencelab-live merge does not know", dirs[0], c.Identity.Command)
	}
	if err != nil {
		return badCmd(stderr, "merge", "the shards' flags: %v", err)
	}
	results := make([]*campaign.ShardResult, len(c.Shards))
	for k, m := range c.Shards {
		results[k] = &campaign.ShardResult{}
		if err := shard.Decode(m.Result, results[k]); err != nil {
			return badCmd(stderr, "merge", "%.200s: its result is not a live shard's: %v", filepath.Join(c.Dirs[k], shard.FileName), err)
		}
	}
	// A signal ends the copying; the staged folder beside --out is
	// removed before the exit.
	ctx, stopped, done := onSignal()
	defer done()
	merged, err := campaign.MergeShards(ctx, job.plans, c, results, job.out)
	if code, ok := stopped(stderr, "merge"); ok {
		return code
	}
	if err != nil {
		return badCmd(stderr, "merge", "%v", err)
	}
	if len(merged.Summaries) == 0 {
		return badCmd(stderr, "merge", "%s", nothingRan(merged.Skipped))
	}
	failed := false
	for _, sk := range merged.Skipped {
		fmt.Fprintf(stderr, "fencelab-live merge: skipping %s: %s\n", sk.Setup, oneLine(sk.Reason))
	}
	for _, s := range merged.Summaries {
		s.Write(stdout)
		failed = failed || s.Failed()
	}
	fmt.Fprintf(stdout, "merged %s into %s: %s\n", words.Count(len(c.Shards), "shard"), job.out, words.Count(len(merged.Summaries), "campaign"))
	if failed {
		fmt.Fprintln(stderr, "fencelab-live merge: a property the models say holds was violated")
		return ExitFailure
	}
	return ExitOK
}

// checkCommand judges saved runs again from their files alone (no
// service is started) and prints each one's verdicts: exit 0 when every
// run's are the ones it saved, 1 when one differs (what differs is
// printed), 2 on a missing or malformed file (one line naming it).
func checkCommand(setups []setup.Setup, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fencelab-live check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "Usage: fencelab-live check RUN_DIR...   (a run folder saved under --out, or under docs/live)")
			return ExitOK
		}
		return badCmd(stderr, "check", "%v", err)
	}
	if fs.NArg() == 0 {
		return badCmd(stderr, "check", "no run folder given (fencelab-live check RUN_DIR...)")
	}
	audits := make([]*report.Audit, fs.NArg())
	for i, dir := range fs.Args() {
		a, err := report.Recheck(dir, setups)
		if err != nil {
			return badCmd(stderr, "check", "%v", err)
		}
		audits[i] = a
	}
	code := ExitOK
	for _, a := range audits {
		a.Write(stdout)
		if !a.Same() {
			code = ExitFailure
		}
	}
	if code != ExitOK {
		fmt.Fprintln(stderr, "fencelab-live check: the judge's verdicts are not the saved ones")
	}
	return code
}

// readmeCommand writes the live block of a README from the summaries a
// matrix saved in --out, and copies the failing runs it links to under
// docs/live beside the README.
func readmeCommand(setups []setup.Setup, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fencelab-live readme", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", filepath.Join("out", "live"), "the matrix's --out folder")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			showUsage(stdout, fs, "fencelab-live readme [--out DIR] FILE")
			return ExitOK
		}
		return badCmd(stderr, "readme", "%v", err)
	}
	if *out == "" {
		return badCmd(stderr, "readme", "--out is empty: name the matrix's (or merge's) --out folder")
	}
	if fs.NArg() != 1 {
		return badCmd(stderr, "readme", "want one README file, got %d arguments", fs.NArg())
	}
	file := fs.Arg(0)
	if err := campaign.CheckReadme(file); err != nil {
		return badCmd(stderr, "readme", "%v", err)
	}
	info, err := os.Stat(*out)
	if err != nil || !info.IsDir() {
		return badCmd(stderr, "readme", "--out %.60q is not a folder (make live writes out/live)", *out)
	}
	cs, err := campaign.ReadSummaries(*out, setups)
	if err != nil {
		return badCmd(stderr, "readme", "%v", err)
	}
	if len(cs) == 0 {
		return badCmd(stderr, "readme", "no summary.json under %.60q (make live writes them)", *out)
	}
	if err := campaign.UpdateReadme(file, cs); err != nil {
		return badCmd(stderr, "readme", "%v", err)
	}
	fmt.Fprintf(stdout, "the live block of %s: %d campaigns\n", file, len(cs))
	return ExitOK
}

func listCommand(setups []setup.Setup, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fencelab-live list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			showUsage(stdout, fs, "fencelab-live list   (the setups, faults and rows, with the models' verdicts)")
			return ExitOK
		}
		return badCmd(stderr, "list", "%v", err)
	}
	if fs.NArg() > 0 {
		return badCmd(stderr, "list", "list takes no arguments")
	}
	fmt.Fprintln(stdout, "Setups (--service, --design; the row of impl.Designs; faults; versions):")
	for _, s := range setups {
		server := "fencelab"
		if s.Probe != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			v, err := s.Probe(ctx)
			cancel()
			server = v
			if err != nil {
				server = "unavailable: " + oneLine(err.Error())
			}
		}
		fmt.Fprintf(stdout, "  --service %-10s --design %-18s row %-18s %s\n", s.Service, s.Name, s.Design, s.Why)
		var faults, more []string
		for _, f := range s.Faults {
			faults = append(faults, string(f))
		}
		for _, f := range s.MoreFaults {
			more = append(more, string(f))
		}
		fmt.Fprintf(stdout, "      faults: %s", strings.Join(faults, ", "))
		if len(more) > 0 {
			fmt.Fprintf(stdout, "; also (not in the matrix): %s", strings.Join(more, ", "))
		}
		fmt.Fprintf(stdout, "\n      server: %s; library: %s\n", server, s.LibraryVersion())
	}
	fmt.Fprintln(stdout, "\nFaults (--fault; --nemesis scripted or random):")
	for _, f := range history.AllFaults() {
		fmt.Fprintf(stdout, "  %s\n", f)
	}
	fmt.Fprintln(stdout, "\nRows (impl.Designs) and the models' verdicts:")
	for _, d := range impl.Designs() {
		var vs []string
		for _, p := range check.Properties() {
			vs = append(vs, fmt.Sprintf("%s %s", p, check.Expected(d, p)))
		}
		fmt.Fprintf(stdout, "  %-17s %s\n", d, strings.Join(vs, ", "))
	}
	return ExitOK
}

// showUsage prints a command's usage line and its flags, if any, on
// stdout: help asked for is the output, not an error.
func showUsage(stdout io.Writer, fs *flag.FlagSet, line string) {
	fmt.Fprintf(stdout, "Usage: %s\n", line)
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprintln(stdout, "\nFlags:")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

// nothingRan is the line of a matrix or merge in which every setup was
// skipped: nothing ran is never a pass. Setups skipped for the same
// reason (one missing service) are named together.
func nothingRan(skips []campaign.Skip) string {
	var reasons []string
	setups := map[string][]string{}
	for _, sk := range skips {
		if _, ok := setups[sk.Reason]; !ok {
			reasons = append(reasons, sk.Reason)
		}
		if !slices.Contains(setups[sk.Reason], sk.Setup) {
			setups[sk.Reason] = append(setups[sk.Reason], sk.Setup)
		}
	}
	var parts []string
	for _, r := range reasons {
		names := setups[r]
		// Several reasons: each names its first setup and counts the
		// rest, so that every reason fits in the bounded line.
		if len(reasons) > 1 && len(names) > 1 {
			names = []string{fmt.Sprintf("%s and %d more", names[0], len(names)-1)}
		}
		parts = append(parts, strings.Join(names, ", ")+": "+r)
	}
	return "nothing ran: every setup was skipped (" + strings.Join(parts, "; ") + ")"
}

func bad(stderr io.Writer, format string, args ...any) int {
	return badCmd(stderr, "run", format, args...)
}

func badCmd(stderr io.Writer, cmd, format string, args ...any) int {
	fmt.Fprintf(stderr, "fencelab-live %s: %s\n", cmd, oneLine(fmt.Sprintf(format, args...)))
	return ExitBadInput
}

// Bounds of oneLine: its start and its end are kept.
const (
	oneLineHead = 200
	oneLineTail = 300
)

// oneLine puts s on one line (its lines joined by " | ": a joined error's
// second cause, or a server's log quoted after its start-up error, is
// kept, not cut off), at most about 500 bytes: its start (what failed)
// and its end (why: the innermost cause, a server's last log lines).
func oneLine(s string) string {
	var lines []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\r' || r == '\n' }) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	s = strings.Join(lines, " | ")
	if len(s) <= oneLineHead+oneLineTail {
		return s
	}
	head, tail := oneLineHead, len(s)-oneLineTail
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + " … " + s[tail:]
}
