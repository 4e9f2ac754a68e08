package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// firstResult is a --first search of fencing all stopped at its first
// violation, NoLostUpdate and the deadlock check left unknown.
func firstResult() *explore.Result {
	r := &explore.Result{Config: explore.DefaultConfig(impl.DesignFenceAll, 2), Stopped: explore.StoppedAtFirst}
	why := "the search stopped at the first violation (--first)"
	for _, inv := range impl.Invariants() {
		v := verdict.Verdict{Property: inv.Name, Status: verdict.Unknown, Detail: why}
		if inv.Name == impl.AtMostOneClientHoldLock {
			v.Status, v.Detail, v.Shortest = verdict.Violated, "", 7
		}
		r.Findings = append(r.Findings, explore.Finding{Verdict: v})
	}
	r.Deadlock = explore.Finding{Verdict: verdict.Verdict{Property: explore.Deadlock, Status: verdict.Unknown, Detail: why}}
	return r
}

// TestFirstUnknownsAreMismatches: what --first leaves unknown is compared
// with DESIGN.md like any unknown, so the run fails (exit 1), never
// passes; a property left out by --invariant (not checked) is not.
func TestFirstUnknownsAreMismatches(t *testing.T) {
	r := firstResult()
	diff := ExploreMismatches([]*explore.Result{r})
	require.NotEmpty(t, diff)
	joined := strings.Join(diff, "; ")
	assert.Contains(t, joined, "NoLostUpdate with tokens, mode all: unknown, expected holds")
	assert.Contains(t, joined, "Deadlock with tokens, mode all: unknown, expected holds")
	assert.NotContains(t, joined, impl.AtMostOneClientHoldLock)

	for i := range r.Findings {
		if r.Findings[i].Status == verdict.Unknown {
			r.Findings[i].Status = verdict.NotChecked
		}
	}
	r.Deadlock.Status = verdict.Holds
	assert.Empty(t, ExploreMismatches([]*explore.Result{r}), "not checked is not compared")
}

// TestAsymmetryIsPrinted: a result searched again without symmetry (the
// system was not symmetric in its clients) says so in its output.
func TestAsymmetryIsPrinted(t *testing.T) {
	r := firstResult()
	r.Asymmetry = "the system is not symmetric in its clients: at step 5 of a shortest path, …"
	var b strings.Builder
	require.NoError(t, ExploreResult(&b, r))
	assert.Contains(t, b.String(), "✗ the system is not symmetric in its clients: at step 5 of a shortest path, …: searched again without symmetry")
	b.Reset()
	require.NoError(t, ExploreMatrix(&b, []*explore.Result{r}))
	assert.Contains(t, b.String(), "✗ tokens, mode all: the system is not symmetric in its clients")
}
