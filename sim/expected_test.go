package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/verdict"
)

// The expected results of issue 4, asserted with fixed seeds. Counts are
// moderate; TestManyRunsAllStaysSafe runs 100,000 when FENCELAB_LONG is
// set.

// runs is full runs at full size and reduced at reduced size
// (internal/testbuild: the race build, -short). The reduced counts still
// show every violation DESIGN.md's table expects (the tests assert it);
// go test ./... runs the full counts.
func runs(full, reduced int) int {
	if testbuild.Reduced() {
		return reduced
	}
	return full
}

func runBatch(t *testing.T, faults FaultKinds, runs int) *Summary {
	t.Helper()
	return runBatchFrom(t, faults, 1, runs)
}

// runBatchFrom runs every design on seeds first to first+runs-1.
func runBatchFrom(t *testing.T, faults FaultKinds, first uint64, runs int) *Summary {
	t.Helper()
	c := DefaultConfig()
	c.Faults = faults
	sum, err := Batch{Config: c, Designs: impl.Designs(), Seed: first, Runs: runs}.Run()
	require.NoError(t, err)
	for _, d := range sum.Designs {
		t.Logf("%-14s %-6s runs %d: AtMostOne %d, Token %d, NoLostUpdate %d, sections illegal %d unknown %d, register illegal %d unknown %d, stalls %d, disagree %d",
			faults, d.Design, d.Runs, d.violations[propAtMostOne], d.violations[propToken], d.violations[propLostUpdate],
			d.SectionsIllegal, d.SectionsUnknown, d.RegisterIllegal, d.RegisterUnknown, d.Stalls, d.Disagree)
	}
	return sum
}

func TestNoFaultsEveryPropertyHolds(t *testing.T) {
	t.Parallel()
	testbuild.SkipUnderRace(t)
	n := runs(1000, 100)
	sum := runBatch(t, NoFaults, n)
	for _, d := range sum.Designs {
		t.Run(d.Design.String(), func(t *testing.T) {
			assert.Equal(t, n, d.Runs)
			assert.Equal(t, [numProps]int{}, d.violations, "no fault, no violation")
			assert.Zero(t, d.Stalls)
			assert.Zero(t, d.SectionsIllegal+d.SectionsUnknown+d.RegisterIllegal+d.RegisterUnknown, "every history linearizable")
			assert.Empty(t, d.Unexpected(NoFaults))
		})
	}
}

// expectShape asserts DESIGN.md's table on a summary under faults: a
// property the table says holds is never violated, and one it says is
// violated is violated in at least min runs.
func expectShape(t *testing.T, sum *Summary, min [numProps]int) {
	t.Helper()
	for _, d := range sum.Designs {
		t.Run(d.Design.String(), func(t *testing.T) {
			// The table's invariants and the client-side
			// NoActionPastValidity, which holds in every design.
			for p, inv := range impl.Checked() {
				switch impl.Expected(d.Design, inv.Name) {
				case verdict.Holds, verdict.NotApplicable:
					assert.Zero(t, d.violations[p], "%s must hold in %s", inv.Name, d.Design)
				case verdict.Violated:
					assert.GreaterOrEqual(t, d.violations[p], min[p], "%s should be violated in %s", inv.Name, d.Design)
				}
			}
			assert.Zero(t, d.Stalls, "no stall")
			if !d.Design.AtomicRegister() {
				// Not the atomic register: what came between a check
				// and its apply, or after a snapshot, is the row's point.
				assert.Equal(t, d.violations[propToken] > 0, d.RegisterIllegal > 0, "a non-atomic resource's illegal register histories")
			} else {
				assert.Zero(t, d.RegisterIllegal, "the resource follows its fencing rule")
			}
			assert.Zero(t, d.Disagree, "Porcupine and NoLostUpdate agree run by run")
			assert.Equal(t, d.violations[propLostUpdate], d.SectionsIllegal)
			assert.Empty(t, d.Unexpected(sum.Faults))
		})
	}
}

func TestDefaultFaultsMatchDesign(t *testing.T) {
	t.Parallel()
	testbuild.SkipUnderRace(t)
	n := runs(1000, 300)
	sum := runBatch(t, AllFaults, n)
	// A clear fraction: at least 1% of the runs lose an update in every
	// unfenced design (measured: off and none 6.6%, writes 2.0% over
	// seeds 1-500), and two clients believe they hold the lock in some.
	expectShape(t, sum, [numProps]int{propAtMostOne: n / 100, propToken: n / 100, propLostUpdate: n / 100})
}

// TestNPCEachFaultKindAlone: each fault kind alone breaks what DESIGN.md's
// table says is violated — except that delay alone never gives two
// holders: under the send rule a late grant is given back (issue 11; the
// arrival rule's flaw is TestArrivalRuleShowsTheFlaw). Delay still loses
// updates: a write can land after the lease ended.
//
// At full size it runs seeds 1–600 of each kind: the rarest expected
// violation, a lost update under fencing writes with pauses alone, first
// comes at seed 581. At reduced size (internal/testbuild; the race build
// skips it) it runs 110 seeds of each kind from a seed where every expected violation
// of that kind comes within them (found with fencelab sim --faults KIND
// --seed S --runs 110, whose "first seed violating" table lists them):
// the same shape asserted, on a sixth of the runs.
func TestNPCEachFaultKindAlone(t *testing.T) {
	t.Parallel()
	testbuild.SkipUnderRace(t)
	reducedFirst := map[FaultKinds]uint64{DelayFaults: 150, PauseFaults: 520, DriftFaults: 150}
	for _, k := range Singles() {
		t.Run(k.String(), func(t *testing.T) {
			first, n := uint64(1), 600
			if testbuild.Reduced() {
				first, n = reducedFirst[k], 110
				require.NotZero(t, first, "no reduced-size seeds for %s", k)
			}
			sum := runBatchFrom(t, k, first, n)
			min := [numProps]int{propAtMostOne: 1, propToken: 1, propLostUpdate: 1}
			if k == DelayFaults {
				min[propAtMostOne] = 0
				for _, d := range sum.Designs {
					if d.Design.Restart() != impl.NoRestart {
						// A crash frees the lock under every fault
						// setting: two holders are its own doing.
						continue
					}
					assert.Zero(t, d.violations[propAtMostOne], "%s: delay alone gave two holders", d.Design)
				}
			}
			expectShape(t, sum, min)
		})
	}
}

// TestPorcupineAgreesWithNoLostUpdate checks run by run that a run violates
// NoLostUpdate iff Porcupine finds its critical sections Illegal, and that
// the resource's operations always fit the fenced register.
func TestPorcupineAgreesWithNoLostUpdate(t *testing.T) {
	t.Parallel()
	testbuild.SkipUnderRace(t)
	n := runs(1500, 300)
	for _, d := range impl.Designs() {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			c := DefaultConfig()
			c.Design = d
			r, err := NewRunner(c)
			require.NoError(t, err)
			lost, illegalRuns, unknownRuns := 0, 0, 0
			for seed := uint64(1); seed <= uint64(n); seed++ {
				res := r.Run(Generate(seed, c))
				r.Check(&res, 0)
				require.NotEqual(t, verdict.Unknown, res.Sections.Status, "seed %d: the check must finish", seed)
				require.Equal(t, res.Violated(impl.NoLostUpdate), res.Sections.Status == verdict.Violated, "seed %d: NoLostUpdate %v but sections %s", seed, res.Violated(impl.NoLostUpdate), res.Sections)
				if !d.AtomicRegister() {
					// The register model is the atomic resource: a
					// non-atomic one fails it exactly when an operation
					// came between a write's check and its apply with a
					// newer token, a snapshot-checked one when an older
					// token's operation passed after a newer one's:
					// TokenIsMonotonical sees both.
					require.Equal(t, res.Violated(impl.TokenIsMonotonical), res.Register.Status == verdict.Violated, "seed %d: register %s", seed, res.Register)
				} else {
					require.Equal(t, verdict.Holds, res.Register.Status, "seed %d: register", seed)
				}
				if res.Violated(impl.NoLostUpdate) {
					lost++
				}
				if res.Sections.Status == verdict.Violated {
					illegalRuns++
				}
				if res.Sections.Status == verdict.Unknown {
					unknownRuns++
				}
			}
			t.Logf("%s: %d runs, %d lost an update, %d Illegal, %d Unknown", d, n, lost, illegalRuns, unknownRuns)
			if impl.Expected(d, impl.NoLostUpdate) == verdict.Violated {
				assert.Positive(t, lost, "the agreement must be tested on failing runs too")
			}
		})
	}
}
