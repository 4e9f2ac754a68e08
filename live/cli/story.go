package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/live/story"
	"github.com/fencelab/fencelab/verdict"
)

const storyLine = "fencelab-live story --setup SERVICE/DESIGN --property P"

// storyCommand prints how a setup's scripted story for a property comes
// from its row's model: the explorer's shortest counterexample, then the
// live schedule each part maps to, then which of the setup's faults
// follow it.
func storyCommand(setups []setup.Setup, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fencelab-live story", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	id := fs.String("setup", "", "the setup, as fencelab-live list names it: SERVICE/DESIGN (redis/none)")
	property := fs.String("property", "", "a property the setup's row's model calls violated: "+strings.Join(impl.InvariantNames(), ", "))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			showUsage(stdout, fs, storyLine)
			return ExitOK
		}
		return badCmd(stderr, "story", "%v", err)
	}
	if fs.NArg() > 0 {
		return badCmd(stderr, "story", "unexpected argument %.40q (%s)", fs.Arg(0), storyLine)
	}
	service, name, ok := strings.Cut(*id, "/")
	if !ok || service == "" || name == "" {
		return badCmd(stderr, "story", "--setup %.60q: want SERVICE/DESIGN, as fencelab-live list names it (%s)", *id, storyLine)
	}
	s, err := setup.Find(setups, service, name)
	if err != nil {
		return badCmd(stderr, "story", "%v", err)
	}
	if _, err := impl.LookupInvariant(*property); err != nil {
		return badCmd(stderr, "story", "--property %.60q: want one of %s", *property, strings.Join(violatedBy(s.Design), ", "))
	}
	if impl.Expected(s.Design, *property) != verdict.Violated {
		return badCmd(stderr, "story", "row %s (of %s) does not violate %s: no counterexample, no story (its model violates %s)", s.Design, s.ID(), *property, strings.Join(violatedBy(s.Design), ", "))
	}
	// The table is the explorer's derivation written down (a test
	// derives it again): the Redlock rows' searches take seconds.
	st, ok := story.Lookup(s.Design, *property)
	if !ok {
		return badCmd(stderr, "story", "row %s has no story of %s", s.Design, *property)
	}
	fmt.Fprintf(stdout, "%s, row %s.\n", s.ID(), s.Design)
	fmt.Fprint(stdout, st.Text(s.TTL))
	fmt.Fprintln(stdout)
	for _, f := range slices.Concat(s.Faults, s.MoreFaults) {
		fmt.Fprintf(stdout, "Fault %s: %s\n", f, follows(s, f, *property))
	}
	return ExitOK
}

// follows says which story the setup's scripted run of fault f follows,
// beside the property asked about.
func follows(s setup.Setup, f history.Fault, property string) string {
	st, ok := story.ForFault(s.Design, f)
	switch {
	case !ok:
		return "the classic story (no counterexample of the row uses this fault)"
	case s.Unchecked:
		return "the classic story (the unchecked client keeps it)"
	case st.Property == property:
		return "this story"
	}
	return "the story of " + st.Property
}

// violatedBy lists the properties design d's model violates.
func violatedBy(d impl.Design) []string {
	var ps []string
	for _, p := range impl.InvariantNames() {
		if impl.Expected(d, p) == verdict.Violated {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return []string{"none"}
	}
	return ps
}
