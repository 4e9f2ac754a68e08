package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/shard"
)

// A live campaign past one machine: the items of a list of campaigns (one
// for run, every setup × fault for matrix) are their runs, campaign after
// campaign, so shard i/n of package shard runs a slice of them — the end
// of one campaign and the start of the next, perhaps — each run with the
// seed it has on one machine. A shard saves, per campaign, its counts and
// the folders of its failing runs; MergeShards adds them up and gathers
// the runs' folders into one --out, which fencelab-live readme reads as a
// matrix's. Live runs are not deterministic (real processes, real
// timing): the merged counts are the shards' sums, not a replay.

// ShardResult is a live shard's result: one entry per planned campaign,
// in plan order, every shard listing every campaign.
type ShardResult struct {
	Campaigns []ShardCampaign `json:"campaigns"`
}

// ShardCampaign is one campaign's part in a shard.
type ShardCampaign struct {
	Setup   string        `json:"setup"`
	Fault   history.Fault `json:"fault"`
	Nemesis string        `json:"nemesis"`
	Seed    uint64        `json:"seed"` // the campaign's first seed
	Runs    int           `json:"runs"` // the campaign's runs, on every shard
	// First and Ran are the shard's runs of the campaign: First to
	// First+Ran-1 (seeds Seed+First on).
	First int `json:"first"`
	Ran   int `json:"ran"`
	// Skipped says why the shard did not run its runs (the service is not
	// installed on its machine).
	Skipped    string        `json:"skipped,omitempty"`
	TookEffect int           `json:"took_effect"`
	Committed  int           `json:"committed"`
	Refused    int           `json:"refused"`
	Errors     int           `json:"errors"`
	StartUp    time.Duration `json:"startup_ns"` // the mean over its runs
	Elapsed    time.Duration `json:"elapsed_ns"`
	Versions   string        `json:"versions"`
	Library    string        `json:"library"`
	Tallies    []ShardTally  `json:"tallies"`
	// Saved are its saved runs' folders (the failing ones, by default:
	// Config.Keep), relative to the shard's folder.
	Saved []string `json:"saved"`
	// Model is the simulator's telling of the shard's runs (Summary.Model),
	// checked again when merged; absent from a shard of a fencelab-live
	// that did not keep it (its runs then have no model story).
	Model *Model `json:"model,omitempty"`
}

// ShardTally is one property's counts in a shard's part of a campaign.
type ShardTally struct {
	Property   string `json:"property"`
	Runs       int    `json:"runs"`
	Violated   int    `json:"violated"`
	TookEffect int    `json:"took_effect"`
	Unknown    int    `json:"unknown"`
	Safe       int    `json:"safe,omitempty"`
	// FirstViolation is the folder of its first violating run, relative
	// to the shard's folder.
	FirstViolation string `json:"first_violation,omitempty"`
}

// shardPart is the runs [first, first+n) of campaign k whose runs begin
// at item offset, within the shard's items [lo, hi).
func shardPart(offset, runs, lo, hi int) (first, n int) {
	from, to := max(lo, offset), min(hi, offset+runs)
	if to <= from {
		return 0, 0
	}
	return from - offset, to - from
}

// PlanItems is the item count of plans: their runs.
func PlanItems(plans []Config) int {
	n := 0
	for _, p := range plans {
		n += p.Runs
	}
	return n
}

// RunShard runs the shard's runs [lo, hi) of plans (each plan's Out
// ignored: its failing runs go under out) and returns what it found.
// probe, if set, is asked before a setup's first run; a setup it refuses
// is skipped, with the reason, as matrix skips it. A harness error ends
// the shard: it has no result.
func RunShard(ctx context.Context, plans []Config, lo, hi int, out string, probe func(setup.Setup) error) (*ShardResult, error) {
	res := &ShardResult{Campaigns: []ShardCampaign{}}
	offset := 0
	for _, p := range plans {
		first, n := shardPart(offset, p.Runs, lo, hi)
		offset += p.Runs
		c := ShardCampaign{Setup: p.Run.Setup.ID(), Fault: p.Run.Fault, Nemesis: p.Run.Nemesis, Seed: p.Run.Seed, Runs: p.Runs, First: first, Ran: n,
			Tallies: []ShardTally{}, Saved: []string{}}
		if n > 0 && probe != nil {
			if err := probe(p.Run.Setup); err != nil {
				c.Skipped = err.Error()
			}
		}
		if n > 0 && c.Skipped == "" {
			cfg := p
			cfg.Run.Seed += uint64(first)
			cfg.Runs, cfg.Out = n, out
			s, err := Run(ctx, cfg)
			if err != nil {
				return nil, fmt.Errorf("%s under %s: %w", c.Setup, c.Fault, err)
			}
			c.TookEffect, c.Committed, c.Refused, c.Errors = s.TookEffect, s.Committed, s.Refused, s.Errors
			c.StartUp, c.Elapsed, c.Versions, c.Library = s.StartUp, s.Elapsed, s.Versions, s.Library
			c.Model = &s.Model
			rel := func(dir string) string {
				if dir == "" {
					return ""
				}
				r, _ := filepath.Rel(out, dir)
				return filepath.ToSlash(r)
			}
			for _, t := range s.Tallies {
				c.Tallies = append(c.Tallies, ShardTally{Property: t.Property, Runs: t.Runs, Violated: t.Violated, TookEffect: t.TookEffect, Unknown: t.Unknown, Safe: t.Safe, FirstViolation: rel(t.FirstViolation)})
			}
			for _, d := range s.Saved {
				c.Saved = append(c.Saved, rel(d))
			}
		}
		res.Campaigns = append(res.Campaigns, c)
	}
	return res, nil
}

// Merged is a live campaign merged from its shards: the summaries of the
// campaigns run, and the campaigns every shard skipped (with a reason).
type Merged struct {
	Summaries []*Summary
	Skipped   []Skip
}

// Skip is a setup not run, and why (its service is not installed).
type Skip struct {
	Setup, Reason string
}

// LockFile is the file inside an --out folder that the command writing
// there holds locked (fencelab-live's cli): not a result, so a folder
// holding only it is still a new, empty one.
const LockFile = ".fencelab-live.lock"

// emptyOut reports why out cannot take a shard's or a merge's results
// whole: it holds something besides LockFile. A missing out is empty.
func emptyOut(out, what string) error {
	entries, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--out %.60q: %w", out, err)
	}
	for _, e := range entries {
		if e.Name() != LockFile {
			return fmt.Errorf("--out %.60q is not empty: %s writes a new folder", out, what)
		}
	}
	return nil
}

// outOwner is the writer of a shard's or a merge's --out: the folder it
// replaces holds nothing but the lock file.
func outOwner(name string) *atomicfile.Owner {
	return &atomicfile.Owner{Name: name, Files: []string{LockFile}}
}

// MergeShards adds up the shards' parts of plans (results[k] read from
// c.Shards[k], folder c.Dirs[k]), copies every saved run into out (a new
// or empty folder's staged copy) and saves each campaign's summary.json
// there, as a one-machine campaign saves it. Every claim of a shard is
// checked against what it carries before anything is copied
// (checkShardCampaign, checkSavedRuns); when ctx ends, the copying stops
// and the staged folder is removed.
func MergeShards(ctx context.Context, plans []Config, c *shard.Campaign, results []*ShardResult, out string) (*Merged, error) {
	if c.Items != PlanItems(plans) {
		return nil, fmt.Errorf("the shards' campaign has %d runs, these flags plan %d", c.Items, PlanItems(plans))
	}
	m := &Merged{}
	offset := 0
	for k, p := range plans {
		s := &Summary{Setup: p.Run.Setup, Fault: p.Run.Fault, Nemesis: p.Run.Nemesis}
		for _, prop := range check.Properties() {
			s.Tallies = append(s.Tallies, Tally{Property: prop, Expected: check.ExpectedOf(p.Run.Setup.Design, p.Run.Setup.Unchecked, prop),
				Mechanism: p.Run.Setup.Safe[p.Run.Fault]})
		}
		var startUp time.Duration
		skipped, ran := "", 0
		for i, r := range results {
			if len(r.Campaigns) != len(plans) {
				return nil, fmt.Errorf("%s: %d campaigns, not the plan's %d", c.Dirs[i], len(r.Campaigns), len(plans))
			}
			sc := r.Campaigns[k]
			first, n := shardPart(offset, p.Runs, c.Shards[i].Lo, c.Shards[i].Hi)
			switch {
			case sc.Setup != p.Run.Setup.ID() || sc.Fault != p.Run.Fault || sc.Nemesis != p.Run.Nemesis || sc.Seed != p.Run.Seed || sc.Runs != p.Runs:
				return nil, fmt.Errorf("%s: campaign %d is %s under %s, not the plan's %s under %s", c.Dirs[i], k+1, sc.Setup, sc.Fault, p.Run.Setup.ID(), p.Run.Fault)
			case sc.First != first || sc.Ran != n:
				return nil, fmt.Errorf("%s: %s under %s: runs %d to %d, not the shard's %d to %d", c.Dirs[i], sc.Setup, sc.Fault, sc.First, sc.First+sc.Ran-1, first, first+n-1)
			case n == 0:
				continue
			case sc.Skipped != "":
				skipped = sc.Skipped
				continue
			}
			if err := checkShardCampaign(&sc, len(s.Tallies)); err != nil {
				return nil, fmt.Errorf("%s: %s under %s: %w", c.Dirs[i], sc.Setup, sc.Fault, err)
			}
			if sc.Model == nil {
				s.Model.addNone(NoStory{Reason: noModelKept, Runs: sc.Ran})
			} else if err := sc.Model.verify(p.Run.Setup.Design, sc.Ran); err != nil {
				return nil, fmt.Errorf("%s: %s under %s: %w", c.Dirs[i], sc.Setup, sc.Fault, err)
			} else {
				s.Model.merge(*sc.Model)
			}
			if err := checkSavedRuns(c.Dirs[i], p, &sc); err != nil {
				return nil, fmt.Errorf("%s: %s under %s: %w", c.Dirs[i], sc.Setup, sc.Fault, err)
			}
			ran += n
			s.Runs += n
			s.TookEffect += sc.TookEffect
			s.Committed += sc.Committed
			s.Refused += sc.Refused
			s.Errors += sc.Errors
			startUp += sc.StartUp * time.Duration(n)
			s.Elapsed += sc.Elapsed
			if s.Versions == "" {
				s.Versions, s.Library = sc.Versions, sc.Library
			} else if s.Versions != sc.Versions || s.Library != sc.Library {
				return nil, fmt.Errorf("%s: %s ran %s, %s on another shard: %s, %s", c.Dirs[i], sc.Setup, sc.Versions, sc.Library, s.Versions, s.Library)
			}
			for j, t := range sc.Tallies {
				into := &s.Tallies[j]
				if t.Property != into.Property {
					return nil, fmt.Errorf("%s: %s: property %s where %s is", c.Dirs[i], sc.Setup, t.Property, into.Property)
				}
				into.Runs += t.Runs
				into.Violated += t.Violated
				into.TookEffect += t.TookEffect
				into.Unknown += t.Unknown
				into.Safe += t.Safe
				if into.FirstViolation == "" && t.FirstViolation != "" {
					into.FirstViolation = filepath.Join(out, filepath.FromSlash(t.FirstViolation))
				}
			}
			for _, d := range sc.Saved {
				s.Saved = append(s.Saved, filepath.Join(out, filepath.FromSlash(d)))
			}
		}
		offset += p.Runs
		if skipped != "" && ran > 0 {
			return nil, fmt.Errorf("%s under %s ran on some shards and was skipped on another (%s)", p.Run.Setup.ID(), p.Run.Fault, skipped)
		}
		if skipped != "" {
			m.Skipped = append(m.Skipped, Skip{Setup: p.Run.Setup.ID(), Reason: skipped})
			continue
		}
		if s.Runs > 0 {
			s.StartUp = startUp / time.Duration(s.Runs)
		}
		s.modelWords()
		m.Summaries = append(m.Summaries, s)
	}
	if err := saveMerged(ctx, c, results, m, out); err != nil {
		return nil, err
	}
	return m, nil
}

// checkShardCampaign refuses counts no campaign makes and saved folders
// outside the shard's folder.
func checkShardCampaign(sc *ShardCampaign, props int) error {
	if len(sc.Tallies) != props {
		return fmt.Errorf("%d properties, not %d", len(sc.Tallies), props)
	}
	for _, n := range []int{sc.TookEffect, sc.Committed, sc.Refused, sc.Errors, int(sc.StartUp), int(sc.Elapsed)} {
		if n < 0 {
			return fmt.Errorf("a negative count")
		}
	}
	if sc.TookEffect > sc.Ran {
		return fmt.Errorf("the fault took effect in %d of %d runs", sc.TookEffect, sc.Ran)
	}
	for _, t := range sc.Tallies {
		if t.Runs != sc.Ran || t.Violated < 0 || t.Violated > t.Runs || t.TookEffect < 0 || t.TookEffect > t.Runs || t.Unknown < 0 || t.Unknown > t.Runs || t.Safe < 0 || t.Safe > t.Unknown {
			return fmt.Errorf("%s: counts beyond its %d runs", t.Property, sc.Ran)
		}
		if t.FirstViolation != "" && !filepath.IsLocal(filepath.FromSlash(t.FirstViolation)) {
			return fmt.Errorf("a saved run outside its folder: %.60q", t.FirstViolation)
		}
	}
	for _, d := range sc.Saved {
		if !filepath.IsLocal(filepath.FromSlash(d)) {
			return fmt.Errorf("a saved run outside its folder: %.60q", d)
		}
	}
	// One entry per failing run at most: a list longer than the runs, or
	// one run listed twice, would be copied over and over.
	if len(sc.Saved) > sc.Ran {
		return fmt.Errorf("%d saved runs listed for its %d runs", len(sc.Saved), sc.Ran)
	}
	seen := make(map[string]bool, len(sc.Saved))
	for _, d := range sc.Saved {
		key := path.Clean(d)
		if seen[key] {
			return fmt.Errorf("saved run %.60q listed twice", d)
		}
		seen[key] = true
	}
	return nil
}

// saveMerged writes out whole: every shard's saved runs copied, then each
// campaign's summary.json; out must be new or empty.
func saveMerged(ctx context.Context, c *shard.Campaign, results []*ShardResult, m *Merged, out string) error {
	if err := emptyOut(out, "merge"); err != nil {
		return err
	}
	st, err := atomicfile.NewStage(out)
	if err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	defer st.Abandon()
	staged := st.Folder().Dir()
	for i, r := range results {
		for _, sc := range r.Campaigns {
			for _, d := range sc.Saved {
				if err := copyTree(ctx, filepath.Join(c.Dirs[i], filepath.FromSlash(d)), filepath.Join(staged, filepath.FromSlash(d))); err != nil {
					return fmt.Errorf("%s: saved run %s: %w", c.Dirs[i], d, err)
				}
			}
		}
	}
	for _, s := range m.Summaries {
		if err := s.save(staged); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := st.Commit(outOwner("fencelab-live merge")); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	return nil
}

// copyTree copies the regular files under from (a saved run's folder)
// into to, each written whole, until ctx ends.
func copyTree(ctx context.Context, from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		src, err := os.Open(path)
		if err != nil {
			return err
		}
		defer src.Close()
		return atomicfile.NewFolder(filepath.Join(to, filepath.Dir(rel))).WriteFile(filepath.Base(rel), func(w io.Writer) error {
			_, err := io.Copy(w, src)
			return err
		})
	})
}

// SaveShard runs the shard spec's runs of plans into out, a new or empty
// folder written whole (staged, then renamed into place): its failing
// runs and shard.json, the manifest of identity id and of what it found.
func SaveShard(ctx context.Context, id shard.Identity, spec shard.Spec, plans []Config, out string, probe func(setup.Setup) error) error {
	if err := emptyOut(out, "a shard"); err != nil {
		return err
	}
	st, err := atomicfile.NewStage(out)
	if err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	defer st.Abandon()
	lo, hi := spec.Range(PlanItems(plans))
	res, err := RunShard(ctx, plans, lo, hi, st.Folder().Dir(), probe)
	if err != nil {
		return err
	}
	m, err := shard.New(id, spec, PlanItems(plans), res)
	if err != nil {
		return err
	}
	if err := st.Folder().WriteFile(shard.FileName, m.Write); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	if err := st.Commit(outOwner("fencelab-live --shard")); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	return nil
}

// checkSavedRuns checks a shard's saved runs and tallies of campaign p
// against what it carries: each saved run is the folder of one of the
// shard's runs of p (its seed within the shard's part of the campaign),
// in run order, whose verdicts.json names that run and a violation; each
// property's violated count is the number of those runs that violated
// it, its first violation the first of them. A tally of 0 beside a
// violating run, or a run from elsewhere, is refused.
func checkSavedRuns(dir string, p Config, sc *ShardCampaign) error {
	prefix := path.Join(p.Run.Setup.Service, p.Run.Setup.Name, string(p.Run.Fault)) + "/run-"
	lo := p.Run.Seed + uint64(sc.First)
	hi := lo + uint64(sc.Ran)
	violated := map[string]int{}
	first := map[string]string{}
	last := uint64(0)
	for k, d := range sc.Saved {
		digits, ok := strings.CutPrefix(d, prefix)
		seed, err := strconv.ParseUint(digits, 10, 64)
		if !ok || err != nil || strconv.FormatUint(seed, 10) != digits {
			return fmt.Errorf("saved run %.60q is not a run folder of the campaign (%s<seed>)", d, prefix)
		}
		if seed < lo || seed >= hi {
			return fmt.Errorf("saved run %.60q: seed %d is outside the shard's runs (seeds %d to %d)", d, seed, lo, hi-1)
		}
		if k > 0 && seed <= last {
			return fmt.Errorf("saved run %.60q listed out of run order", d)
		}
		last = seed
		claims, err := report.ReadVerdicts(filepath.Join(dir, filepath.FromSlash(d)))
		if err != nil {
			return fmt.Errorf("saved run %.60q: %w", d, err)
		}
		if claims.Setup != p.Run.Setup.ID() || claims.Fault != p.Run.Fault || claims.Seed != seed {
			return fmt.Errorf("saved run %.60q holds run %s under %s seed %d", d, claims.Setup, claims.Fault, claims.Seed)
		}
		if len(claims.Violated) == 0 {
			return fmt.Errorf("saved run %.60q violated nothing: only failing runs are saved", d)
		}
		for _, prop := range claims.Violated {
			violated[prop]++
			if first[prop] == "" {
				first[prop] = d
			}
		}
	}
	for _, t := range sc.Tallies {
		if t.Violated != violated[t.Property] {
			return fmt.Errorf("%s: violated in %d runs, but %d of its saved runs violate it", t.Property, t.Violated, violated[t.Property])
		}
		if t.FirstViolation != first[t.Property] {
			return fmt.Errorf("%s: first violation %.60q, not its first saved run that violates it (%.60q)", t.Property, t.FirstViolation, first[t.Property])
		}
	}
	return nil
}
