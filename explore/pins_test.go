package explore

import (
	"flag"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/golden"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/verdict"
)

var update = flag.Bool("update", false, golden.UpdateUsage)

// pinnedModels is a table of pinned models: the explorer's figures of
// each of these designs with clients clients and DefaultConfig changed by
// setup are those of the row's golden file (internal/golden) under
// explore.<clients>c[.<variant>]. A change that is meant to keep
// behaviour must keep every figure; a change that alters the model on
// purpose rewrites them with -update in the same commit and says why.
type pinnedModels struct {
	clients int
	// variant names setup in the keys: "" for DefaultConfig, else e.g.
	// "sym" (client symmetry), "send" (the send rule), "sym.2nodes".
	variant string
	setup   func(*Config)
	designs []impl.Design
}

// prefix is the keys' common part for this table's models.
func (p pinnedModels) prefix() string {
	if p.variant == "" {
		return fmt.Sprintf("explore.%dc", p.clients)
	}
	return fmt.Sprintf("explore.%dc.%s", p.clients, p.variant)
}

// verdictWord is a verdict as a golden value: one word.
func verdictWord(s verdict.Status) string {
	if s == verdict.NotApplicable {
		return "not-applicable"
	}
	return s.String()
}

// checkPinned runs each pinned model, checks its figures against the
// row's golden file — distinct and generated states, depth, and per
// property of impl.Invariants its verdict and, violated, the length of its
// shortest counterexample in actions — and checks it as a row of the
// matrix (checkMatrixRow: DESIGN.md's verdicts, replayed traces, no
// deadlock), so that a model pinned here is explored once, not again by
// TestMatrix.
func checkPinned(t *testing.T, p pinnedModels) {
	require.NotEmpty(t, p.designs)
	for _, d := range p.designs {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			c := p.config(d)
			res, _ := runShared(t, c)
			checkMatrixRow(t, c, res)
			row, prefix := d.String(), p.prefix()
			golden.Check(t, *update, row, prefix+".states", res.Distinct)
			golden.Check(t, *update, row, prefix+".generated", res.Generated)
			golden.Check(t, *update, row, prefix+".depth", res.Depth)
			assert.Equal(t, verdict.Holds, res.Deadlock.Status, "deadlock")
			for _, inv := range impl.Invariants() {
				v, ok := res.Verdict(inv.Name)
				require.True(t, ok, inv.Name)
				golden.Check(t, *update, row, prefix+"."+inv.Name+".verdict", verdictWord(v.Status))
				if v.Status == verdict.Violated {
					golden.Check(t, *update, row, prefix+"."+inv.Name+".shortest", v.Steps())
				}
			}
		})
	}
}

// config is the configuration of design d's pinned model.
func (p pinnedModels) config(d impl.Design) Config {
	c := DefaultConfig(d, p.clients)
	if p.setup != nil {
		p.setup(&c)
	}
	return c
}

// TestPinnedFigures2Clients: the 2-client models' figures are those
// pinned before the refactoring of issue 9 ("one house"). Issue 11 kept
// them: the untimed model keeps the arrival rule (DefaultValidity), which
// is the client of before.
func TestPinnedFigures2Clients(t *testing.T) {
	checkPinned(t, pinnedModels{clients: 2, designs: []impl.Design{
		impl.DesignNoFencing, impl.DesignFenceNone, impl.DesignFenceWrites, impl.DesignFenceAll,
	}})
}

// TestPinnedFigures2ClientsSendRule: the same models under the send rule
// of issue 11 (the validity timer set when the acquire is sent, a late
// grant given back and asked for again within the retry budget): the same
// verdicts and shortest traces, about fourteen times the states — the
// timer pending while acquiring, and the runs with late grants.
func TestPinnedFigures2ClientsSendRule(t *testing.T) {
	testbuild.SkipUnderRace(t)
	checkPinned(t, pinnedModels{clients: 2, variant: "send", setup: func(c *Config) { c.Validity = impl.ValiditySend }, designs: []impl.Design{
		impl.DesignNoFencing, impl.DesignFenceNone, impl.DesignFenceWrites, impl.DesignFenceAll,
	}})
}

// TestPinnedFiguresSharedByRows: rows whose models are one state graph by
// construction have the same pinned figures, so that a rewrite (-update)
// that tells them apart shows as a failure, not only as a diff.
func TestPinnedFiguresSharedByRows(t *testing.T) {
	size := []string{"states", "generated", "depth"}
	traces := append(size, impl.AtMostOneClientHoldLock+".shortest", impl.TokenIsMonotonical+".verdict", impl.NoLostUpdate+".verdict")
	for _, tc := range []struct {
		row, as impl.Design
		prefix  string
		figures []string
		why     string
	}{
		{impl.DesignFenceWrites, impl.DesignFenceNone, "explore.2c", size, "a rejected write and an accepted one lead the client to the same control flow"},
		{impl.DesignFenceWrites, impl.DesignFenceNone, "explore.3c.sym", size, "as with 2 clients"},
		{impl.DesignUniqueCAS, impl.DesignFenceNone, "explore.2c", size, "the resource keeps one token either way, and the explorer's tokens are one fixed order"},
		{impl.DesignUniqueCAS, impl.DesignFenceNone, "explore.3c.sym", size, "as with 2 clients"},
		{impl.DesignRevision, impl.DesignFenceAll, "explore.2c", traces, "the revision is a function of the rest of the state"},
		{impl.DesignRevision, impl.DesignFenceAll, "explore.3c.sym", traces, "as with 2 clients"},
		{impl.DesignRedlockUnique, impl.DesignRedlock, "explore.2c.sym.2nodes", size, "check-and-set changes what is accepted, not the runs"},
	} {
		t.Run(tc.row.String()+"/"+tc.prefix, func(t *testing.T) {
			for _, f := range tc.figures {
				key := tc.prefix + "." + f
				got, ok, err := golden.Lookup(tc.row.String(), key)
				require.NoError(t, err)
				require.True(t, ok, "%s: no pinned %s", tc.row, key)
				want, ok, err := golden.Lookup(tc.as.String(), key)
				require.NoError(t, err)
				require.True(t, ok, "%s: no pinned %s", tc.as, key)
				assert.Equal(t, want, got, "%s %s is %s's: %s", tc.row, key, tc.as, tc.why)
			}
		})
	}
}
