package pipeline

import (
	"fmt"
	"io"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/report"
	"github.com/fencelab/fencelab/shard"
	"github.com/fencelab/fencelab/sim"
)

// simShardResult is a sim shard's result: the summary of its runs, and
// the first failing run of each design among them, saved as its schedule
// (DESIGN.schedule.json beside shard.json).
type simShardResult struct {
	Summary *sim.Summary    `json:"summary"`
	Failing []simShardSaved `json:"failing"`
}

type simShardSaved struct {
	Design string `json:"design"`
	Seed   uint64 `json:"seed"`
	File   string `json:"file"`
}

// simShardFiles are the files a sim shard may save besides shard.json.
func simShardFiles() []string {
	var names []string
	for _, d := range impl.Designs() {
		names = append(names, d.String()+".schedule.json")
	}
	return names
}

// CheckSimShardOut refuses, before any work, an --out a sim shard cannot
// save its result folder in.
func CheckSimShardOut(out string) error { return CheckShardOut("sim", out, simShardFiles()...) }

// saveShard prints the shard's table and saves its result folder.
func (o *SimOptions) saveShard(e *Env, sum *sim.Summary) error {
	lo, hi := o.Shard.Spec.Range(o.Runs)
	fmt.Fprintf(e.Stdout, "fencelab sim: shard %s, runs %d to %d of %s per design (seeds %d–%d)\n\n",
		o.Shard.Spec, lo, hi, words.Count(o.Runs, "run"), o.Seed+uint64(lo), o.Seed+uint64(hi)-1)
	if err := report.SimTable(e.Stdout, sum); err != nil {
		return err
	}
	res := simShardResult{Summary: sum, Failing: []simShardSaved{}}
	files := map[string]func(io.Writer) error{}
	for _, d := range sum.Designs {
		if !d.FirstFailing.Ok {
			continue
		}
		name := d.Design.String() + ".schedule.json"
		res.Failing = append(res.Failing, simShardSaved{Design: d.Design.String(), Seed: d.FirstFailing.Seed, File: name})
		files[name] = sim.Generate(d.FirstFailing.Seed, o.config(d.Design)).WriteJSON
	}
	return saveShard(e, "sim", o.Out, o.Shard, o.Runs, res, files, simShardFiles())
}

// MergeSim finishes the batch o from its shards' results c: their
// summaries merged as one machine's chunks are, then the batch's report
// (its first failing runs shrunk and saved in o.Out), byte for byte what
// the batch run on one machine prints and saves.
func MergeSim(e *Env, o *SimOptions, c *shard.Campaign) error {
	results, err := decodeShards(c, func(m *shard.Manifest, r *simShardResult) error {
		return o.checkShard(m, r)
	})
	if err != nil {
		return err
	}
	total := results[0].Summary
	for _, r := range results[1:] {
		if err := total.Merge(r.Summary); err != nil {
			return BadInput("%v", err)
		}
	}
	return o.report(e, total)
}

// checkShard judges a shard's result against its manifest and o: its
// designs and faults o's, each design's runs the shard's, every seed it
// names among the shard's seeds.
func (o *SimOptions) checkShard(m *shard.Manifest, r *simShardResult) error {
	if r.Summary == nil {
		return fmt.Errorf("no summary")
	}
	if r.Summary.Faults != o.Cfg.Faults {
		return fmt.Errorf("faults %s, not the campaign's %s", r.Summary.Faults, o.Cfg.Faults)
	}
	if len(r.Summary.Designs) != len(o.Designs) {
		return fmt.Errorf("%d designs, not the campaign's %d", len(r.Summary.Designs), len(o.Designs))
	}
	lo, hi := o.Seed+uint64(m.Lo), o.Seed+uint64(m.Hi)
	inShard := func(s sim.Seed) bool { return !s.Ok || (s.Seed >= lo && s.Seed < hi) }
	for i := range r.Summary.Designs {
		d := &r.Summary.Designs[i]
		switch {
		case d.Design != o.Designs[i]:
			return fmt.Errorf("design %s where the campaign has %s", d.Design, o.Designs[i])
		case d.Runs != m.Hi-m.Lo:
			return fmt.Errorf("design %s: %s, not the shard's %d", d.Design, words.Count(d.Runs, "run"), m.Hi-m.Lo)
		case !inShard(d.FirstFailing) || !inShard(d.FirstStall) || !inShard(d.FirstRegisterIllegal) || !inShard(d.FirstDisagree):
			return fmt.Errorf("design %s: a first seed outside the shard's seeds %d to %d", d.Design, lo, hi-1)
		}
		for _, name := range impl.InvariantNames() {
			if !inShard(d.FirstSeed(name)) {
				return fmt.Errorf("design %s: a first seed outside the shard's seeds %d to %d", d.Design, lo, hi-1)
			}
		}
	}
	return nil
}
