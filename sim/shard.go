package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fencelab/fencelab/impl"
)

// A batch's summary is saved by each shard of a campaign (package shard)
// and the shards' summaries are merged into the campaign's: the counts
// add up and each first seed is the lowest, exactly as Run merges its
// chunks, so the merged summary is the unsharded batch's.

// designJSON is DesignSummary as saved, its per-property counts by name.
type designJSON struct {
	Design               string          `json:"design"`
	Runs                 int             `json:"runs"`
	Committed            int             `json:"committed"`
	Witnessed            int             `json:"witnessed"`
	Violations           map[string]int  `json:"violations,omitempty"`
	FirstSeed            map[string]Seed `json:"first_seed,omitempty"`
	Stalls               int             `json:"stalls"`
	FirstStall           Seed            `json:"first_stall"`
	SectionsIllegal      int             `json:"sections_illegal"`
	SectionsUnknown      int             `json:"sections_unknown"`
	RegisterIllegal      int             `json:"register_illegal"`
	RegisterUnknown      int             `json:"register_unknown"`
	FirstRegisterIllegal Seed            `json:"first_register_illegal"`
	Disagree             int             `json:"disagree"`
	FirstDisagree        Seed            `json:"first_disagree"`
	FirstFailing         Seed            `json:"first_failing"`
	Steps                int64           `json:"steps"`
	Virtual              time.Duration   `json:"virtual_ns"`
	PorcupineRuns        int             `json:"porcupine_runs"`
}

// MarshalJSON saves every count of d, those unexported too.
func (d DesignSummary) MarshalJSON() ([]byte, error) {
	j := designJSON{Design: d.Design.String(), Runs: d.Runs, Committed: d.Committed, Witnessed: d.Witnessed,
		Stalls: d.Stalls, FirstStall: d.FirstStall, SectionsIllegal: d.SectionsIllegal, SectionsUnknown: d.SectionsUnknown,
		RegisterIllegal: d.RegisterIllegal, RegisterUnknown: d.RegisterUnknown, FirstRegisterIllegal: d.FirstRegisterIllegal,
		Disagree: d.Disagree, FirstDisagree: d.FirstDisagree, FirstFailing: d.FirstFailing, Steps: d.Steps, Virtual: d.Virtual,
		PorcupineRuns: d.porcupineRuns, Violations: map[string]int{}, FirstSeed: map[string]Seed{}}
	for p := range numProps {
		if d.violations[p] > 0 || d.firstSeed[p].Ok {
			j.Violations[propName(p)] = d.violations[p]
			j.FirstSeed[propName(p)] = d.firstSeed[p]
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON saved, refusing counts that no
// batch makes (negative, a property unknown, a violation without its seed).
func (d *DesignSummary) UnmarshalJSON(data []byte) error {
	var j designJSON
	// A custom decoder does not inherit its caller's strictness: a field
	// this version does not know is refused here, not dropped.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return err
	}
	design, err := impl.ParseDesign(j.Design)
	if err != nil {
		return err
	}
	out := DesignSummary{Design: design, Runs: j.Runs, Committed: j.Committed, Witnessed: j.Witnessed,
		Stalls: j.Stalls, FirstStall: j.FirstStall, SectionsIllegal: j.SectionsIllegal, SectionsUnknown: j.SectionsUnknown,
		RegisterIllegal: j.RegisterIllegal, RegisterUnknown: j.RegisterUnknown, FirstRegisterIllegal: j.FirstRegisterIllegal,
		Disagree: j.Disagree, FirstDisagree: j.FirstDisagree, FirstFailing: j.FirstFailing, Steps: j.Steps, Virtual: j.Virtual,
		porcupineRuns: j.PorcupineRuns}
	for name, n := range j.Violations {
		p := propIndex(name)
		if p < 0 {
			return fmt.Errorf("design %s: unknown property %q", design, name)
		}
		if n < 0 || n > j.Runs || (n > 0) != j.FirstSeed[name].Ok {
			return fmt.Errorf("design %s: %d violations of %s in %d runs, first seed %v", design, n, name, j.Runs, j.FirstSeed[name])
		}
		out.violations[p], out.firstSeed[p] = n, j.FirstSeed[name]
	}
	for name := range j.FirstSeed {
		if _, ok := j.Violations[name]; !ok {
			return fmt.Errorf("design %s: a first seed of %s without its violations", design, name)
		}
	}
	for _, n := range []int{j.Runs, j.Committed, j.Witnessed, j.Stalls, j.SectionsIllegal, j.SectionsUnknown, j.RegisterIllegal, j.RegisterUnknown, j.Disagree, j.PorcupineRuns} {
		if n < 0 {
			return fmt.Errorf("design %s: a negative count", design)
		}
	}
	if j.Witnessed > j.Runs || j.Stalls > j.Runs || j.PorcupineRuns > j.Runs || j.Steps < 0 || j.Virtual < 0 {
		return fmt.Errorf("design %s: counts beyond its %d runs", design, j.Runs)
	}
	// A count of runs that failed has its first seed, and a first seed its
	// count (Add offers the seed with every run it counts).
	failed := j.Stalls > 0 || j.SectionsIllegal > 0 || j.RegisterIllegal > 0
	for name := range j.Violations {
		failed = failed || j.Violations[name] > 0
	}
	for _, c := range []struct {
		what  string
		n     bool
		first Seed
	}{
		{"stalls", j.Stalls > 0, j.FirstStall}, {"illegal register histories", j.RegisterIllegal > 0, j.FirstRegisterIllegal},
		{"disagreements", j.Disagree > 0, j.FirstDisagree}, {"failing runs", failed, j.FirstFailing},
	} {
		if c.n != c.first.Ok {
			return fmt.Errorf("design %s: %s without a first seed, or a first seed without them", design, c.what)
		}
	}
	*d = out
	return nil
}

// Merge adds the summary of other seeds of the same batch (a shard's) to
// s: the same fault kinds and designs, in the same order.
func (s *Summary) Merge(o *Summary) error {
	if s.Faults != o.Faults {
		return fmt.Errorf("faults %s and %s: not one batch's", s.Faults, o.Faults)
	}
	if len(s.Designs) != len(o.Designs) {
		return fmt.Errorf("%d and %d designs: not one batch's", len(s.Designs), len(o.Designs))
	}
	for i := range s.Designs {
		if s.Designs[i].Design != o.Designs[i].Design {
			return fmt.Errorf("designs %s and %s: not one batch's", s.Designs[i].Design, o.Designs[i].Design)
		}
	}
	for i := range s.Designs {
		s.Designs[i].merge(&o.Designs[i])
	}
	return nil
}

// EmptySummary is the summary of a batch of no runs: what a shard holds
// when the campaign has fewer runs than shards.
func (b Batch) EmptySummary() *Summary {
	ds := b.Designs
	if len(ds) == 0 {
		ds = []impl.Design{b.Config.Design}
	}
	s := &Summary{Faults: b.Config.Faults, Designs: make([]DesignSummary, len(ds))}
	for i, d := range ds {
		s.Designs[i].Design = d
	}
	return s
}
