package pipeline

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/fencelab/fencelab/conform"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/shard"
	"github.com/fencelab/fencelab/tlc"
)

// conformShardResult is a conform shard's result: one tally per walk
// configuration (conform.UntimedConfigs), of the shard's walk seeds.
type conformShardResult struct {
	Groups []conformTally `json:"groups"`
}

// CheckConformShardOut refuses, before any work, an --out a conform
// shard cannot save its result folder in.
func CheckConformShardOut(out string) error { return CheckShardOut("conform", out) }

// newConformChecker finds TLC (bad input without it) and the checker of
// traces against the specs of p.
func newConformChecker(ctx context.Context, e *Env, p ConformPlan) (*conform.Checker, error) {
	jar, java, err := ResolveTLC(ctx, p.Pin)
	if err != nil {
		return nil, BadInput("conformance: not run (no tla2tools.jar: %v)", err)
	}
	fmt.Fprintf(e.Stderr, "fencelab conform: %s (from %s)\n", jar.Path, jar.Source)
	return &conform.Checker{TLC: &tlc.Runner{Java: java, Jar: jar.Path, Timeout: p.Timeout, Classes: tlc.DefaultClassArchive()}, SpecsDir: p.Specs}, nil
}

// conformShard validates the shard's walk seeds of every configuration
// with TLC, one run per configuration, prints its table and saves the
// tallies (each rejected walk by its seed) for MergeConform.
func conformShard(e *Env, p ConformPlan) error {
	if err := CheckConformShardOut(p.Out); err != nil {
		return err
	}
	ctx, stop := Interruptible()
	defer stop()
	checker, err := newConformChecker(ctx, e, p)
	if err != nil {
		return err
	}
	lo, hi := p.Shard.Spec.Range(p.Walks)
	configs := conform.UntimedConfigs()
	step, stepsDone := NewStepProgress(e, len(configs), "conform", "group")
	defer stepsDone()
	res := conformShardResult{Groups: []conformTally{}}
	tw := newConformTable(e.Stdout)
	for _, c := range configs {
		g, err := conform.WalkSeeds(c, lo+1, hi, p.MaxSteps)
		if err != nil {
			return fmt.Errorf("walk: %w", err)
		}
		run := &conform.Run{Config: c}
		if len(g.Traces) > 0 {
			if run, err = checkGroup(ctx, checker, conform.SourceWalk, g); err != nil {
				if isToolOrStop(err) {
					return err
				}
				return Failed("%s, %s: %v", conform.SourceWalk, c.Design, err)
			}
		}
		step(fmt.Sprintf("walk %s, %d × %d", c.Design, c.Clients, c.Sections))
		t, _ := tallyRun(conform.SourceWalk, c, run)
		for k, v := range run.Verdict {
			if !v.Accepted {
				t.RejectedSeeds = append(t.RejectedSeeds, lo+1+k)
			}
		}
		t.writeRow(tw)
		res.Groups = append(res.Groups, t)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	stepsDone()
	fmt.Fprintf(e.Stdout, "\nfencelab conform: shard %s, walk seeds %d to %d of %d\n", p.Shard.Spec, lo+1, hi, p.Walks)
	return saveShard(e, "conform", p.Out, p.Shard, p.Walks, res, nil, nil)
}

// MergeConform finishes the walks' validation p from its shards' tallies
// c: the table of the unsharded run (TLC's time added over the shards),
// the first p.Show rejections of each configuration rendered from their
// walks (with TLC, as the unsharded run renders them) and its verdict.
func MergeConform(e *Env, p ConformPlan, c *shard.Campaign) error {
	configs := conform.UntimedConfigs()
	results, err := decodeShards(c, func(m *shard.Manifest, r *conformShardResult) error {
		return checkConformShard(m, r, configs)
	})
	if err != nil {
		return err
	}
	if err := CheckOutDir("out", p.Out); err != nil {
		return err
	}
	merged := make([]conformTally, len(configs))
	var total, rejected, steps, failing int
	var wall time.Duration
	for i := range configs {
		t := results[0].Groups[i]
		t.RejectedSeeds = slices.Clone(t.RejectedSeeds)
		for _, r := range results[1:] {
			u := r.Groups[i]
			t.Traces += u.Traces
			t.Accepted += u.Accepted
			t.Rejected += u.Rejected
			t.Steps += u.Steps
			t.LeaseLost += u.LeaseLost
			t.Expired += u.Expired
			t.Failing += u.Failing
			t.Wall += u.Wall
			t.RejectedSeeds = append(t.RejectedSeeds, u.RejectedSeeds...)
		}
		merged[i] = t
		total += t.Traces
		rejected += t.Rejected
		steps += t.Steps
		failing += t.Failing
		wall += t.Wall
	}
	removeIfEmpty, err := MakeOutDir(e, p.Out)
	if err != nil {
		return err
	}
	defer removeIfEmpty()
	var rendered []string
	if rejected > 0 && p.Show > 0 {
		ctx, stop := Interruptible()
		defer stop()
		checker, err := newConformChecker(ctx, e, p)
		if err != nil {
			return err
		}
		for i, cfg := range configs {
			for k, seed := range merged[i].RejectedSeeds {
				if k >= p.Show {
					break
				}
				t, err := conform.WalkTrace(cfg, seed, p.MaxSteps)
				if err != nil {
					return fmt.Errorf("walk: %w", err)
				}
				g := conform.Group{Source: conform.SourceWalk, Config: cfg}
				dir, err := renderRejection(ctx, e.Disk, checker, p.Out, conform.SourceWalk, g, k, conform.Verdict{Trace: t, Matched: -1})
				if err != nil {
					return err
				}
				rendered = append(rendered, dir)
			}
		}
	}
	tw := newConformTable(e.Stdout)
	for i := range merged {
		merged[i].writeRow(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if why := conformTotals(e, total, steps, failing, rejected, wall, rendered, nil); why != "" {
		return Failed("%s", why)
	}
	fmt.Fprintf(e.Stdout, "conformance: all %s accepted by the specs\n", words.Count(total, "trace"))
	return nil
}

// checkConformShard judges a shard's tallies against its manifest: one
// per configuration, in order, each of the shard's walks, its counts
// within them and its rejected seeds the shard's, in order.
func checkConformShard(m *shard.Manifest, r *conformShardResult, configs []impl.Config) error {
	if len(r.Groups) != len(configs) {
		return fmt.Errorf("%d groups, not the %d walk configurations", len(r.Groups), len(configs))
	}
	walks := m.Hi - m.Lo
	for i, t := range r.Groups {
		c := configs[i]
		switch {
		case t.Source != conform.SourceWalk || t.Design != c.Design.String() || t.Clients != c.Clients || t.Sections != c.Sections || t.Validity != c.Validity.String():
			return fmt.Errorf("group %d is %s %s %d × %d, not walk %s %d × %d", i+1, t.Source, t.Design, t.Clients, t.Sections, c.Design, c.Clients, c.Sections)
		case t.Traces != walks || t.Accepted+t.Rejected != t.Traces || t.Accepted < 0 || t.Rejected < 0:
			return fmt.Errorf("group %d: %d traces, %d accepted, %d rejected, not the shard's %d walks", i+1, t.Traces, t.Accepted, t.Rejected, walks)
		case min(t.Steps, t.LeaseLost, t.Expired, t.Failing, int(t.Wall)) < 0 || max(t.LeaseLost, t.Expired, t.Failing) > t.Traces:
			return fmt.Errorf("group %d: counts out of range", i+1)
		case len(t.RejectedSeeds) != t.Rejected:
			return fmt.Errorf("group %d: %d rejected, %d rejected seeds", i+1, t.Rejected, len(t.RejectedSeeds))
		}
		for k, seed := range t.RejectedSeeds {
			if seed < m.Lo+1 || seed > m.Hi || (k > 0 && seed <= t.RejectedSeeds[k-1]) {
				return fmt.Errorf("group %d: rejected seed %d, not one of the shard's seeds %d to %d in order", i+1, seed, m.Lo+1, m.Hi)
			}
		}
	}
	return nil
}
