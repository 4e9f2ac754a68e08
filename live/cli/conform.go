package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/fencelab/fencelab/impl"

	"github.com/fencelab/fencelab/live/conform"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/live/store"
)

// conformCommand checks a client command against docs/protocol.md with a
// real server of its service: exit 0 when every check passes, 1 when one
// fails, 2 for bad flags or a service that is not there.
func conformCommand(setups []setup.Setup, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fencelab-live conform-client", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	service := fs.String("service", "", "the service whose server the checks start (fencelab-live list)")
	design := fs.String("design", "", "the setup (or row) whose servers are started (default: the service's first setup)")
	clientCmd := fs.String("client-cmd", "", "the client command (sh -c) to check")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			showUsage(stdout, fs, "fencelab-live conform-client --client-cmd CMD --service S [--design D]")
			return ExitOK
		}
		return badCmd(stderr, "conform-client", "%v", err)
	}
	if fs.NArg() > 0 {
		return badCmd(stderr, "conform-client", "unexpected argument %.40q", fs.Arg(0))
	}
	if *service == "" {
		return badCmd(stderr, "conform-client", "--service is required (fencelab-live list shows them)")
	}
	if *design == "" {
		for _, s := range setups {
			if s.Service == *service && s.ClientCommand == "" {
				*design = s.Name
				break
			}
		}
	}
	s, err := findSetup(setups, fs, *service, *design, *clientCmd, "")
	if err != nil {
		return badCmd(stderr, "conform-client", "%v", err)
	}
	if s.ClientCommand == "" {
		return badCmd(stderr, "conform-client", "--client-cmd is required")
	}
	if s.Probe != nil {
		if _, err := s.Probe(context.Background()); err != nil {
			return badCmd(stderr, "conform-client", "%s: %v", s.ID(), err)
		}
	}
	ctx, stopped, done := onSignal()
	defer done()
	checks, err := conform.Run(ctx, conform.Config{Command: s.ClientCommand, Setup: s, Stderr: stderr})
	if code, ok := stopped(stderr, "conform-client"); ok {
		return code
	}
	if err != nil {
		return badCmd(stderr, "conform-client", "%v", err)
	}
	return printChecks(stdout, checks, "the client command does not conform to docs/protocol.md", "the client command conforms to docs/protocol.md (fencelab-lock-client/1)")
}

// printChecks writes a line per check and the closing line, which ends
// in failed or passed, and returns the exit code: ExitFailure when a
// check failed.
func printChecks(stdout io.Writer, checks []conform.Check, failed, passed string) int {
	n := 0
	for _, c := range checks {
		if c.Err != nil {
			n++
			fmt.Fprintf(stdout, "FAIL %s: %s\n", c.Name, oneLine(c.Err.Error()))
			continue
		}
		fmt.Fprintf(stdout, "ok   %s\n", c.Name)
	}
	if n > 0 {
		fmt.Fprintf(stdout, "%d passed, %d failed: %s\n", len(checks)-n, n, failed)
		return ExitFailure
	}
	fmt.Fprintf(stdout, "%d passed, 0 failed: %s\n", len(checks), passed)
	return ExitOK
}

// conformStoreCommand checks a store command against
// docs/store-protocol.md and the fencing of the row it claims: exit 0
// when every check passes, 1 when one fails, 2 for bad flags.
func conformStoreCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fencelab-live conform-store", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	design := fs.String("design", impl.DesignFenceAll.String(), "the row whose fencing the store claims ("+impl.Flags()+")")
	storeCmd := fs.String("store-cmd", "", "the store command (sh -c) to check")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			showUsage(stdout, fs, "fencelab-live conform-store --store-cmd CMD [--design ROW]")
			return ExitOK
		}
		return badCmd(stderr, "conform-store", "%v", err)
	}
	if fs.NArg() > 0 {
		return badCmd(stderr, "conform-store", "unexpected argument %.40q", fs.Arg(0))
	}
	switch {
	case strings.TrimSpace(*storeCmd) == "":
		return badCmd(stderr, "conform-store", "--store-cmd is required")
	case len(*storeCmd) > maxClientCmd || strings.ContainsAny(*storeCmd, "\x00\n\r"):
		return badCmd(stderr, "conform-store", "--store-cmd must be one line of at most %d bytes", maxClientCmd)
	}
	d, err := impl.ParseDesign(*design)
	if err != nil {
		return badCmd(stderr, "conform-store", "%v", err)
	}
	checks, err := conform.Store(*storeCmd, d)
	if err != nil {
		return badCmd(stderr, "conform-store", "%v", err)
	}
	return printChecks(stdout, checks, fmt.Sprintf("the store command does not conform to docs/store-protocol.md as row %s", d),
		fmt.Sprintf("the store command conforms to docs/store-protocol.md (%s) and fences as row %s", store.StoreProtocolName, d))
}
