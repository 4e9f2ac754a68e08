package check

import (
	"fmt"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/verdict"
)

// sameDecision are the pairs of properties that decide the same thing of
// a live history, so a judge that decides them apart is broken: a lost
// update is exactly a sections history the atomic counter cannot explain
// (Expected gives them one expectation for that reason). The others have
// no partner: AtMostOneClientHoldLock and TokenIsMonotonical read other
// things than the counter, and RegisterLinearizable holds in every row
// whose resource is the atomic register (Expected), so its violation
// there is already an unexpected verdict (exit 1).
func sameDecision() [][2]string {
	return [][2]string{{impl.NoLostUpdate, linearizability.SectionsLinearizable}}
}

// Contradiction is a judge that decided two properties of sameDecision
// apart in one run: a harness error, not a verdict.
type Contradiction struct {
	Holds, Violated verdict.Verdict
}

func (c *Contradiction) Error() string {
	return fmt.Sprintf("the judge contradicts itself: %s violated (%s) while %s held (%s); they decide the same thing, a lost update being exactly a sections history the atomic counter cannot explain",
		c.Violated.Property, why(c.Violated), c.Holds.Property, why(c.Holds))
}

// why is what a verdict says of itself: its detail, else what it covered.
func why(v verdict.Verdict) string {
	if v.Detail != "" {
		return v.Detail
	}
	return v.Covered
}

// SelfCheck is the judge checking itself after it decided a run: a
// *Contradiction if two properties that decide the same thing were both
// decided, one violated and the other held; nil otherwise. A verdict
// made Unknown only because the fault did not take effect (Inconclusive)
// or because no write was accepted (NothingCommitted) was decided Holds by
// its check, and counts as held here: the wording of a run does not hide
// a broken judge.
func SelfCheck(j *Judgement) error {
	for _, pair := range sameDecision() {
		a, b := j.Verdicts.Get(pair[0]), j.Verdicts.Get(pair[1])
		switch {
		case a.Status == verdict.Violated && held(b):
			return &Contradiction{Holds: b, Violated: a}
		case b.Status == verdict.Violated && held(a):
			return &Contradiction{Holds: a, Violated: b}
		}
	}
	return nil
}

// held reports whether v's check decided the property holds.
func held(v verdict.Verdict) bool {
	return v.Status == verdict.Holds || (v.Status == verdict.Unknown && (v.Detail == Inconclusive || v.Detail == NothingCommitted))
}
