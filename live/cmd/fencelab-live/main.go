// Command fencelab-live runs fencelab's question against real lock
// services: each run starts fresh servers on 127.0.0.1, its clients as
// processes of their own (this binary re-executed with the hidden role
// "client"), a nemesis, and the resource; it judges the history against
// the model's verdict of the design row the setup instantiates.
//
//	fencelab-live run --service redis --design all --fault client-pause --runs 5 --out out/live
//	fencelab-live matrix --runs 3 --out out/live
//	fencelab-live readme --out out/live README.md
//	fencelab-live list
//
// Exit codes: 0 success (expected violations count as success), 1 a
// violation where the models say the property holds, 2 bad input, a
// missing service or a harness error, 130/143 stopped by SIGINT/SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live"
	"github.com/fencelab/fencelab/live/server"
)

const (
	exitOK       = 0
	exitFailure  = 1
	exitBadInput = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "fencelab-live: no command given (want run, matrix, readme or list)")
		return exitBadInput
	}
	switch args[0] {
	case "run":
		return runCommand(args[1:], stdout, stderr)
	case "list":
		return listCommand(args[1:], stdout, stderr)
	case "matrix":
		return matrixCommand(args[1:], stdout, stderr)
	case "readme":
		return readmeCommand(args[1:], stdout, stderr)
	case "client":
		// Hidden: one client process of a run.
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
		defer stop()
		if err := live.ServeClient(ctx, live.Setups(), stdin, stdout); err != nil {
			fmt.Fprintf(stderr, "fencelab-live client: %s\n", oneLine(err.Error()))
			return exitFailure
		}
		return exitOK
	case server.EtcdRole:
		// Hidden: the embedded etcd of the etcd setups, a process of its
		// own so that it can be paused and killed.
		if err := server.RunEtcdServer(context.Background(), args[1:]); err != nil {
			fmt.Fprintf(stderr, "fencelab-live %s\n", oneLine(err.Error()))
			return exitBadInput
		}
		return exitOK
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "fencelab-live: unknown command %.40q (want run, matrix, readme or list)\n", args[0])
	return exitBadInput
}

const usage = `fencelab-live — real lock services under real faults, judged against the models

Usage:
  fencelab-live run --service S --design D [--fault F] [--runs N] [--seed X] [--out DIR] [flags]
  fencelab-live matrix [--runs N] [--seed X] [--out DIR] [--service S] [--update-readme FILE]
  fencelab-live readme [--out DIR] FILE   (the live block of FILE from a matrix's --out)
  fencelab-live list

Run 'fencelab-live run -h' for the flags.
Exit codes: 0 success (expected violations count as success), 1 a violation where the models
say the property holds, 2 bad input, a missing service or a harness error, 130/143 stopped by a signal.
`

func runCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fencelab-live run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	service := fs.String("service", "", "the service (fencelab-live list)")
	design := fs.String("design", "", "the setup of the service, named by its design row (fencelab-live list)")
	faultName := fs.String("fault", string(live.FaultClientPause), "the fault")
	nemesis := fs.String("nemesis", live.Scripted, "scripted (the classic story) or random (drawn from the seed)")
	runs := fs.Int("runs", 5, "runs")
	seed := fs.Uint64("seed", 1, "the first run's seed (run i has seed+i)")
	out := fs.String("out", filepath.Join("out", "live"), "folder for failing runs")
	clients := fs.Int("clients", 2, "client processes per run")
	sections := fs.Int("sections", 3, "sections per client")
	think := fs.Duration("think", 0, "think time between a section's read and write (0: what the fault's scripted story needs, 150ms, 400ms for restarts)")
	timeout := fs.Duration("timeout", 20*time.Second, "bound of one run")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "Usage: fencelab-live run --service S --design D [flags]\n\nFlags:")
			fs.PrintDefaults()
			return exitOK
		}
		return bad(stderr, "%v", err)
	}
	if fs.NArg() > 0 {
		return bad(stderr, "unexpected argument %.40q", fs.Arg(0))
	}
	if *service == "" || *design == "" {
		return bad(stderr, "--service and --design are required (fencelab-live list shows them)")
	}
	setup, err := live.FindSetup(live.Setups(), *service, *design)
	if err != nil {
		return bad(stderr, "%v", err)
	}
	fault, err := live.ParseFault(*faultName)
	if err != nil {
		return bad(stderr, "%v", err)
	}
	self, err := os.Executable()
	if err != nil {
		return bad(stderr, "own binary: %v", err)
	}
	if *think == 0 {
		*think = setup.ScriptedThink(fault)
	}
	cfg := live.CampaignConfig{
		Run: live.RunConfig{
			Setup: setup, Fault: fault, Nemesis: *nemesis, Seed: *seed,
			Clients: *clients, Sections: *sections, Think: *think, Timeout: *timeout,
			Self: []string{self, "client"}, CheckTimeout: 10 * time.Second,
		},
		Runs: *runs, Out: *out, Progress: stderr,
	}
	if err := cfg.Run.Validate(); err != nil {
		return bad(stderr, "%v", err)
	}
	if *runs < 1 || *runs > 100000 {
		return bad(stderr, "--runs %d (want 1 to 100000)", *runs)
	}
	if setup.Probe != nil {
		if _, err := setup.Probe(context.Background()); err != nil {
			return bad(stderr, "%s: %v", setup.ID(), err)
		}
	}

	ctx, stopped, done := onSignal()
	defer done()
	summary, err := live.RunCampaign(ctx, cfg)
	if code, ok := stopped(stderr, "run"); ok {
		return code
	}
	if summary != nil && summary.Runs > 0 {
		summary.Write(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "fencelab-live run: %s\n", oneLine(err.Error()))
		return exitBadInput
	}
	if summary.Failed() {
		fmt.Fprintln(stderr, "fencelab-live run: a property the models say holds was violated")
		return exitFailure
	}
	return exitOK
}

// onSignal makes SIGINT and SIGTERM end ctx: the run under way tears down
// (the nemesis stopped, paused processes continued, every process group
// it started ended, its data folder removed) before the exit. stopped
// says, once the work returned, whether a signal ended it, and with what
// exit code (128 + the signal).
func onSignal() (ctx context.Context, stopped func(stderr io.Writer, cmd string) (int, bool), done func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
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

// matrixCommand runs the scripted matrix: every setup (of --service, or
// all) under each of its faults, --runs runs each, the live column
// printed as it goes. A setup whose service is not installed is skipped
// with one line naming its Debian package.
func matrixCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fencelab-live matrix", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	service := fs.String("service", "", "only this service's setups")
	runs := fs.Int("runs", 3, "runs per setup and fault")
	seed := fs.Uint64("seed", 1, "the first run's seed")
	out := fs.String("out", filepath.Join("out", "live"), "folder for failing runs")
	readme := fs.String("update-readme", "", "then write the live block of this README (and its runs under docs/live)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "Usage: fencelab-live matrix [--service S] [--runs N] [--seed X] [--out DIR] [--update-readme FILE]")
			return exitOK
		}
		return badCmd(stderr, "matrix", "%v", err)
	}
	if fs.NArg() > 0 {
		return badCmd(stderr, "matrix", "unexpected argument %.40q", fs.Arg(0))
	}
	if *runs < 1 || *runs > 1000 {
		return badCmd(stderr, "matrix", "--runs %d (want 1 to 1000)", *runs)
	}
	self, err := os.Executable()
	if err != nil {
		return badCmd(stderr, "matrix", "own binary: %v", err)
	}
	var setups []live.Setup
	for _, s := range live.Setups() {
		if *service == "" || s.Service == *service {
			setups = append(setups, s)
		}
	}
	if len(setups) == 0 && *service != "" {
		return badCmd(stderr, "matrix", "no setup of service %.40q (fencelab-live list shows them)", *service)
	}
	if len(setups) == 0 {
		return badCmd(stderr, "matrix", "this binary has no live setups")
	}
	if *readme != "" {
		// Checked before the first run: a README that cannot take the
		// block is known in a second, not after the matrix.
		if err := live.CheckReadme(*readme); err != nil {
			return badCmd(stderr, "matrix", "--update-readme: %v", err)
		}
	}
	ctx, stopped, done := onSignal()
	defer done()
	failed, broken := false, false
	for _, s := range setups {
		if s.Probe != nil {
			if _, err := s.Probe(ctx); err != nil {
				fmt.Fprintf(stderr, "fencelab-live matrix: skipping %s: %s\n", s.ID(), oneLine(err.Error()))
				continue
			}
		}
		for _, f := range s.Faults {
			clients, sections := live.ScriptedWorkload(f)
			cfg := live.CampaignConfig{
				Run: live.RunConfig{
					Setup: s, Fault: f, Nemesis: live.Scripted, Seed: *seed,
					Clients: clients, Sections: sections, Think: s.ScriptedThink(f), Timeout: 20 * time.Second,
					Self: []string{self, "client"}, CheckTimeout: 10 * time.Second,
				},
				Runs: *runs, Out: *out, Progress: stderr,
			}
			summary, err := live.RunCampaign(ctx, cfg)
			if code, ok := stopped(stderr, "matrix"); ok {
				return code
			}
			if summary != nil && summary.Runs > 0 {
				summary.Write(stdout)
				failed = failed || summary.Failed()
			}
			if err != nil {
				fmt.Fprintf(stderr, "fencelab-live matrix: %s under %s: %s\n", s.ID(), f, oneLine(err.Error()))
				broken = true
			}
		}
	}
	if *readme != "" {
		// Whatever the verdicts, the block shows what was measured; the
		// exit code still says what went wrong.
		cs, err := live.ReadSummaries(*out, setups)
		if err == nil {
			err = live.UpdateReadme(*readme, cs)
		}
		if err != nil {
			fmt.Fprintf(stderr, "fencelab-live matrix: --update-readme: %s\n", oneLine(err.Error()))
			broken = true
		} else {
			fmt.Fprintf(stderr, "fencelab-live matrix: the live block of %s: %d campaigns\n", *readme, len(cs))
		}
	}
	switch {
	case failed:
		fmt.Fprintln(stderr, "fencelab-live matrix: a property the models say holds was violated")
		return exitFailure
	case broken:
		return exitBadInput
	}
	return exitOK
}

// readmeCommand writes the live block of a README from the summaries a
// matrix saved in --out, and copies the failing runs it links to under
// docs/live beside the README.
func readmeCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fencelab-live readme", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", filepath.Join("out", "live"), "the matrix's --out folder")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "Usage: fencelab-live readme [--out DIR] FILE")
			return exitOK
		}
		return badCmd(stderr, "readme", "%v", err)
	}
	if fs.NArg() != 1 {
		return badCmd(stderr, "readme", "want one README file, got %d arguments", fs.NArg())
	}
	file := fs.Arg(0)
	if err := live.CheckReadme(file); err != nil {
		return badCmd(stderr, "readme", "%v", err)
	}
	info, err := os.Stat(*out)
	if err != nil || !info.IsDir() {
		return badCmd(stderr, "readme", "--out %.60q is not a folder (make live writes out/live)", *out)
	}
	cs, err := live.ReadSummaries(*out, live.Setups())
	if err != nil {
		return badCmd(stderr, "readme", "%v", err)
	}
	if len(cs) == 0 {
		return badCmd(stderr, "readme", "no summary.json under %.60q (make live writes them)", *out)
	}
	if err := live.UpdateReadme(file, cs); err != nil {
		return badCmd(stderr, "readme", "%v", err)
	}
	fmt.Fprintf(stdout, "the live block of %s: %d campaigns\n", file, len(cs))
	return exitOK
}

func listCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return badCmd(stderr, "list", "list takes no arguments")
	}
	fmt.Fprintln(stdout, "Setups (--service, --design; the row of impl.Designs; faults; versions):")
	for _, s := range live.Setups() {
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
	for _, f := range live.AllFaults() {
		fmt.Fprintf(stdout, "  %s\n", f)
	}
	fmt.Fprintln(stdout, "\nRows (impl.Designs) and the models' verdicts:")
	for _, d := range impl.Designs() {
		var vs []string
		for _, p := range live.Properties() {
			vs = append(vs, fmt.Sprintf("%s %s", p, live.Expected(d, p)))
		}
		fmt.Fprintf(stdout, "  %-17s %s\n", d, strings.Join(vs, ", "))
	}
	return exitOK
}

func bad(stderr io.Writer, format string, args ...any) int {
	return badCmd(stderr, "run", format, args...)
}

func badCmd(stderr io.Writer, cmd, format string, args ...any) int {
	fmt.Fprintf(stderr, "fencelab-live %s: %s\n", cmd, oneLine(fmt.Sprintf(format, args...)))
	return exitBadInput
}

// oneLine keeps the first line of s, at most 300 bytes.
func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
