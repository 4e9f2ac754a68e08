package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/fencelab/fencelab/live/conform"
	"github.com/fencelab/fencelab/live/setup"
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
	s, err := findSetup(setups, fs, *service, *design, *clientCmd)
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
	failed := 0
	for _, c := range checks {
		if c.Err != nil {
			failed++
			fmt.Fprintf(stdout, "FAIL %s: %s\n", c.Name, oneLine(c.Err.Error()))
			continue
		}
		fmt.Fprintf(stdout, "ok   %s\n", c.Name)
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "%d passed, %d failed: the client command does not conform to docs/protocol.md\n", len(checks)-failed, failed)
		return ExitFailure
	}
	fmt.Fprintf(stdout, "%d passed, 0 failed: the client command conforms to docs/protocol.md (fencelab-lock-client/1)\n", len(checks))
	return ExitOK
}
