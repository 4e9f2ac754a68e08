package bounds

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/inputfile"
)

// LiveFile is a live campaign's measurements, which fencelab-live writes
// beside the campaign's summary.json (one entry per run) and `fencelab
// bounds --from-live` reads in place of assumed bounds. The format is
// defined here, once: the live module writes these types.
const LiveFile = "liveness.json"

// LiveFormat names the file's format, its first field.
const LiveFormat = "fencelab-liveness/1"

// Live is one campaign's liveness.json: a setup under one fault, and what
// each run measured. Durations are nanoseconds.
type Live struct {
	Format string `json:"format"`
	Setup  string `json:"setup"`
	Fault  string `json:"fault"`
	TTL    int64  `json:"ttl_ns"`
	// FreedBound is how soon after its holder's death the setup's lock
	// must be granted again, by what the service documents (FreedWhy):
	// the lease or session timeout plus ε, or ε alone for a lock the
	// connection's close frees.
	FreedBound int64     `json:"freed_bound_ns"`
	FreedWhy   string    `json:"freed_bound_why"`
	Runs       []LiveRun `json:"runs"`
}

// Verdicts of LockFreedAfterHolderDeath in a run (LiveRun.Freed).
const (
	FreedHolds    = "holds"
	FreedViolated = "violated"
	FreedUnknown  = "unknown"
)

// LiveRun is what one run measured.
type LiveRun struct {
	Seed uint64 `json:"seed"`
	// Validity is the longest validity a grant of the run reported (0:
	// none had a window the client can check: a session, a renewed lease).
	Validity int64 `json:"validity_ns,omitempty"`
	// Pauses are the lengths of the run's client pauses, as the nemesis
	// logged them (SIGSTOP to SIGCONT).
	Pauses []int64 `json:"pauses_ns,omitempty"`
	// KillToGrant is a holder's death to the next grant to another
	// client (absent when no holder was killed, or none was granted
	// after: Freed then says which); Freed is LockFreedAfterHolderDeath.
	KillToGrant *int64 `json:"kill_to_grant_ns,omitempty"`
	Freed       string `json:"freed,omitempty"`
	// Blind is the blind window of a paused holder: from the latest
	// moment the service can have let its lock go (the next grant, or
	// for a fixed lease the TTL after the holder's grant, whichever came
	// first) to the end of the old holder's belief. Positive: the old
	// holder believed that long after the service had let go; negative:
	// it stopped that long before the service could have. Absent when no
	// holder lost the lock while paused.
	Blind *int64 `json:"blind_window_ns,omitempty"`
	// Detail says how the figures were read from the run's history.
	Detail string `json:"detail,omitempty"`
}

// Validate checks what FromLive relies on.
func (l *Live) Validate() error {
	switch {
	case l.Format != LiveFormat:
		return fmt.Errorf("format %.40q (want %s)", l.Format, LiveFormat)
	case l.Setup == "":
		return errors.New("no setup")
	case l.TTL <= 0:
		return fmt.Errorf("ttl_ns %d (want more than 0)", l.TTL)
	case l.FreedBound < 0:
		return fmt.Errorf("freed_bound_ns %d (want at least 0)", l.FreedBound)
	}
	for i, r := range l.Runs {
		bad := r.Validity < 0 || r.Validity > l.TTL || slices.ContainsFunc(r.Pauses, func(p int64) bool { return p < 0 }) ||
			r.KillToGrant != nil && *r.KillToGrant < 0
		if bad {
			return fmt.Errorf("run %d (seed %d): a negative figure, or a validity longer than the TTL", i+1, r.Seed)
		}
		switch r.Freed {
		case "", FreedHolds, FreedViolated, FreedUnknown:
		default:
			return fmt.Errorf("run %d (seed %d): freed %.20q (want %s, %s or %s)", i+1, r.Seed, r.Freed, FreedHolds, FreedViolated, FreedUnknown)
		}
	}
	return nil
}

// Measured is a figure a live run measured, and where it came from.
type Measured struct {
	Value time.Duration
	File  string
	Seed  uint64
}

// LiveFigures are every liveness.json of one setup under a folder, taken
// together: the measured bounds and the liveness figures.
type LiveFigures struct {
	Setup string
	Files []string
	TTL   Measured
	// Validity is the longest validity (0 Value: no grant had one);
	// Pause the longest client pause (0 Value: none).
	Validity, Pause Measured
	// KillToGrant is every run's kill→grant, in the order read; Freed
	// counts the runs' verdicts by word; FreedBound the setup's bound.
	KillToGrant []time.Duration
	Freed       map[string]int
	FreedBound  Measured
	FreedWhy    string
	// Blind is every run's blind window.
	Blind []time.Duration
}

// maxLiveFiles bounds how many liveness.json files one folder may hold,
// maxLiveDepth how many folders deep below it they are looked for (a
// run's --out/<service>/<setup>/<fault>/).
const (
	maxLiveFiles = 1000
	maxLiveDepth = 3
)

// ReadLive reads every liveness.json under dir (dir's own, or those of
// the campaigns below it), which must be one setup's: an error names the
// folder or the file and what is wrong with it.
func ReadLive(dir string) (*LiveFigures, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a folder (give a live run's --out folder, or a campaign's below it)", dir)
	}
	var files []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != dir {
			// A campaign's file is at most <service>/<setup>/<fault>/
			// below a run's --out: the walk goes no deeper, whatever
			// folder it is given.
			if rel, _ := filepath.Rel(dir, path); strings.Count(rel, string(filepath.Separator)) >= maxLiveDepth {
				return filepath.SkipDir
			}
		}
		if !d.IsDir() && d.Name() == LiveFile {
			if files = append(files, path); len(files) > maxLiveFiles {
				return fmt.Errorf("more than %d %s files under %s: give one setup's folder", maxLiveFiles, LiveFile, dir)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no measurements (no %s: run fencelab-live run --fault holder-death or client-pause with --out)", dir, LiveFile)
	}
	fig := &LiveFigures{Freed: map[string]int{}}
	for _, f := range files {
		data, err := inputfile.Read(f, inputfile.MaxText)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		var l Live
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("%s: malformed: %w", f, err)
		}
		if err := l.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if err := fig.add(f, &l); err != nil {
			return nil, err
		}
	}
	return fig, nil
}

// add takes one file's figures in.
func (g *LiveFigures) add(file string, l *Live) error {
	if g.Setup != "" && g.Setup != l.Setup {
		return fmt.Errorf("%s is setup %s, %s setup %s: give one setup's folder", file, l.Setup, g.Files[0], g.Setup)
	}
	if g.Setup != "" && g.TTL.Value != time.Duration(l.TTL) {
		return fmt.Errorf("%s has ttl %v, %s %v: one setup has one TTL", file, time.Duration(l.TTL), g.Files[0], g.TTL.Value)
	}
	if g.Setup == "" {
		g.Setup, g.TTL = l.Setup, Measured{time.Duration(l.TTL), file, 0}
	}
	g.Files = append(g.Files, file)
	if time.Duration(l.FreedBound) > g.FreedBound.Value || g.FreedBound.File == "" {
		g.FreedBound, g.FreedWhy = Measured{time.Duration(l.FreedBound), file, 0}, l.FreedWhy
	}
	for _, r := range l.Runs {
		if v := time.Duration(r.Validity); v > g.Validity.Value {
			g.Validity = Measured{v, file, r.Seed}
		}
		for _, p := range r.Pauses {
			if p := time.Duration(p); p > g.Pause.Value {
				g.Pause = Measured{p, file, r.Seed}
			}
		}
		if r.KillToGrant != nil {
			g.KillToGrant = append(g.KillToGrant, time.Duration(*r.KillToGrant))
		}
		if r.Freed != "" {
			g.Freed[r.Freed]++
		}
		if r.Blind != nil {
			g.Blind = append(g.Blind, time.Duration(*r.Blind))
		}
	}
	return nil
}

// Bounds are the measured bounds in place of assumed ones: the setup's
// TTL, the margin its grants left (the TTL less the longest validity; 0
// when no grant had one), the longest pause; the rest as given in b.
func (g *LiveFigures) Bounds(b Bounds) Bounds {
	b.TTL, b.Pause = g.TTL.Value, g.Pause.Value
	b.Margin = 0
	if g.Validity.Value > 0 {
		b.Margin = g.TTL.Value - g.Validity.Value
	}
	return b
}

// Spread is a distribution's least, median and greatest value (the
// median of an even count is the lower middle one: a value measured,
// never an average of two).
type Spread struct{ Min, Median, Max time.Duration }

// SpreadOf is ds's spread; false when ds is empty.
func SpreadOf(ds []time.Duration) (Spread, bool) {
	if len(ds) == 0 {
		return Spread{}, false
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return Spread{s[0], s[(len(s)-1)/2], s[len(s)-1]}, true
}
