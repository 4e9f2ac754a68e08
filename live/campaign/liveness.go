package campaign

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/run"
)

// measuresLiveness reports whether a campaign of fault f measures
// liveness: a holder's death (kill→grant) and a client pause (the blind
// window); the others write no liveness.json.
func measuresLiveness(f history.Fault) bool {
	return f == history.FaultHolderDeath || f == history.FaultClientPause
}

// measure adds one judged run's liveness figures to the summary.
func (s *Summary) measure(rc run.Config, res *run.Result) {
	if !measuresLiveness(s.Fault) || res.Judgement == nil {
		return
	}
	bound, why := s.Setup.Freedom()
	m := check.MeasureLiveness(res.History, res.Judgement.Beliefs, s.Setup.TTL, s.Setup.Leased, check.Freedom{Bound: bound, Why: why})
	m.Seed = rc.Seed
	s.Liveness = append(s.Liveness, m)
}

// liveDoc is the campaign's liveness.json (bounds.Live).
func (s *Summary) liveDoc() bounds.Live {
	bound, why := s.Setup.Freedom()
	return bounds.Live{Format: bounds.LiveFormat, Setup: s.Setup.ID(), Fault: string(s.Fault), TTL: int64(s.Setup.TTL),
		FreedBound: int64(bound), FreedWhy: why, Runs: append([]bounds.LiveRun{}, s.Liveness...)}
}

// saveLiveness writes liveness.json into the campaign's folder dir.
func (s *Summary) saveLiveness(dir string) error {
	if !measuresLiveness(s.Fault) {
		return nil
	}
	doc := s.liveDoc()
	return atomicfile.WriteFile(filepath.Join(dir, bounds.LiveFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	})
}

// writeLiveness prints the campaign's liveness lines:
// LockFreedAfterHolderDeath with kill→grant's spread against the bound,
// and the blind window's spread.
func (s *Summary) writeLiveness(w io.Writer) error {
	if !measuresLiveness(s.Fault) {
		return nil
	}
	bound, _ := s.Setup.Freedom()
	var k2g, blind []time.Duration
	count := map[string]int{}
	for _, r := range s.Liveness {
		if r.KillToGrant != nil {
			k2g = append(k2g, time.Duration(*r.KillToGrant))
		}
		if r.Blind != nil {
			blind = append(blind, time.Duration(*r.Blind))
		}
		if r.Freed != "" {
			count[r.Freed]++
		}
	}
	if s.Fault == history.FaultHolderDeath {
		word := fmt.Sprintf("holds in %d, violated in %d, unknown in %d of %d", count[bounds.FreedHolds], count[bounds.FreedViolated], count[bounds.FreedUnknown], len(s.Liveness))
		spread := "kill→grant not measured"
		if sp, ok := bounds.SpreadOf(k2g); ok {
			spread = fmt.Sprintf("kill→grant min %v, median %v, max %v", round(sp.Min), round(sp.Median), round(sp.Max))
		}
		if _, err := fmt.Fprintf(w, "  %-24s bound %v: %s; %s\n", impl.LockFreedAfterHolderDeath, bound, word, spread); err != nil {
			return err
		}
	}
	if s.Fault == history.FaultClientPause {
		spread := "not measured (no paused holder was followed by another client)"
		if sp, ok := bounds.SpreadOf(blind); ok {
			spread = fmt.Sprintf("min %v, median %v, max %v over %d runs (positive: the old holder believed that long after the service had let go at the latest; negative: it stopped before the service could have)", round(sp.Min), round(sp.Median), round(sp.Max), len(blind))
		}
		if _, err := fmt.Fprintf(w, "  %-24s %s\n", "blind window", spread); err != nil {
			return err
		}
	}
	return nil
}

func round(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
