package shard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
)

// FileName is the manifest's name in a shard's result folder.
const FileName = "shard.json"

// Format names the manifest's layout; a manifest of another is refused.
const Format = "fencelab shard result 1"

// MaxManifest bounds the manifest read: a sweep's cells or a campaign's
// walks, a few hundred bytes each.
const MaxManifest = 256 << 20

// Identity is what makes shards pieces of one campaign: the same command
// with the same flags, run by the same fencelab build.
type Identity struct {
	Command string `json:"command"`
	// Args are the flags the user gave, as --name=value in name order,
	// but --shard, --out and --workers, which change no result.
	Args []string `json:"args"`
	Build
}

// Build is the fencelab that ran a shard: its release, its Go build and
// the checksum of its executable, so that a merge never mixes the results
// of two versions of the code.
type Build struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	VCS     string `json:"vcs,omitempty"`
	Binary  string `json:"binary"`
}

// ThisBuild is the running executable's Build, of fencelab release version.
func ThisBuild(version string) (Build, error) {
	b := Build{Version: version}
	if info, ok := debug.ReadBuildInfo(); ok {
		b.Go = info.GoVersion
		var vcs []string
		for _, s := range info.Settings {
			if strings.HasPrefix(s.Key, "vcs.") && s.Key != "vcs.time" {
				vcs = append(vcs, s.Key+"="+s.Value)
			}
		}
		b.VCS = strings.Join(vcs, " ")
	}
	exe, err := os.Executable()
	if err != nil {
		return b, fmt.Errorf("the running executable: %w", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return b, fmt.Errorf("the running executable: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return b, fmt.Errorf("the running executable: %w", err)
	}
	b.Binary = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return b, nil
}

// Manifest is a shard's result: whose campaign, which shard, which items,
// and the command's results for them (Result, the command's own JSON).
type Manifest struct {
	Format   string   `json:"format"`
	Identity Identity `json:"identity"`
	Shard    Spec     `json:"shard"`
	// Items is the campaign's count of items (runs, cells, walks); the
	// shard's are [Lo, Hi).
	Items  int             `json:"items"`
	Lo     int             `json:"lo"`
	Hi     int             `json:"hi"`
	Result json.RawMessage `json:"result"`
}

// New is the manifest of shard s of a campaign of items items, holding result.
func New(id Identity, s Spec, items int, result any) (*Manifest, error) {
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	lo, hi := s.Range(items)
	return &Manifest{Format: Format, Identity: id, Shard: s, Items: items, Lo: lo, Hi: hi, Result: raw}, nil
}

// Write writes m as indented JSON.
func (m *Manifest) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// Read reads the manifest of the shard result folder dir and checks it
// is whole and consistent; its Result is for the command to decode.
func Read(dir string) (*Manifest, error) {
	path := filepath.Join(dir, FileName)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a shard result folder (fencelab ... --shard i/n --out DIR)", quote.S(dir))
	}
	data, err := inputfile.Read(path, MaxManifest)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: not a shard result folder, or its shard did not finish", quote.S(dir), FileName)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", quote.S(path), err)
	}
	var m Manifest
	if err := Decode(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not a whole shard result (truncated or edited?): %w", quote.S(path), err)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", quote.S(path), err)
	}
	return &m, nil
}

// Decode decodes one JSON value of data into v: unknown fields, a second
// value or a value cut short are errors.
func Decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the JSON value")
	}
	return nil
}

// check is a manifest's own consistency.
func (m *Manifest) check() error {
	lo, hi := m.Shard.Range(m.Items)
	switch {
	case m.Format != Format:
		return fmt.Errorf("format %s, want %q", quote.Q(m.Format), Format)
	case m.Identity.Command == "":
		return fmt.Errorf("names no command")
	case !m.Shard.Valid():
		return fmt.Errorf("shard %d/%d is not a shard (i from 0 to n-1, n from 1 to %d)", m.Shard.Index, m.Shard.Count, MaxCount)
	case m.Items < 0:
		return fmt.Errorf("%d items", m.Items)
	case m.Lo != lo || m.Hi != hi:
		return fmt.Errorf("shard %s of %d items holds items %d to %d, not %d to %d", m.Shard, m.Items, m.Lo, m.Hi, lo, hi)
	case len(m.Result) == 0 || string(m.Result) == "null":
		return fmt.Errorf("holds no result")
	}
	return nil
}

// Campaign is the shards of one campaign, in index order.
type Campaign struct {
	Identity Identity
	Items    int
	Shards   []*Manifest
	Dirs     []string // Dirs[i] is where Shards[i] was read from
}

// Check makes a Campaign of the manifests read from dirs (ms[k] from
// dirs[k]): one campaign's (same identity and items), every shard 0..n-1
// present exactly once, made by build (the merge's own executable, which
// finishes the campaign's work). The first failure is the error.
func Check(ms []*Manifest, dirs []string, build Build) (*Campaign, error) {
	if len(ms) == 0 {
		return nil, fmt.Errorf("no shard result folder given")
	}
	first := ms[0]
	for k, m := range ms[1:] {
		if why := differ(first, m); why != "" {
			return nil, fmt.Errorf("%s and %s are shards of different campaigns: %s", quote.S(dirs[0]), quote.S(dirs[k+1]), why)
		}
	}
	if first.Identity.Build != build {
		return nil, fmt.Errorf("%s was made by another fencelab build (%s), not this one (%s): merge with the executable that ran the shards", quote.S(dirs[0]), describe(first.Identity.Build), describe(build))
	}
	n := first.Shard.Count
	byIndex := make([]int, n)
	for k := range byIndex {
		byIndex[k] = -1
	}
	for k, m := range ms {
		if at := byIndex[m.Shard.Index]; at >= 0 {
			return nil, fmt.Errorf("shard %s given twice: %s and %s", m.Shard, quote.S(dirs[at]), quote.S(dirs[k]))
		}
		byIndex[m.Shard.Index] = k
	}
	var missing []string
	for i, k := range byIndex {
		if k < 0 {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		list := strings.Join(missing, ", ")
		if len(missing) > 10 {
			list = strings.Join(missing[:10], ", ") + fmt.Sprintf(" and %d more", len(missing)-10)
		}
		return nil, fmt.Errorf("%d of %d shards missing: %s (of 0 to %d)", len(missing), n, list, n-1)
	}
	c := &Campaign{Identity: first.Identity, Items: first.Items}
	for _, k := range byIndex {
		c.Shards = append(c.Shards, ms[k])
		c.Dirs = append(c.Dirs, dirs[k])
	}
	return c, nil
}

// differ says how m's campaign differs from first's, "" if it does not.
func differ(first, m *Manifest) string {
	a, b := first.Identity, m.Identity
	switch {
	case a.Command != b.Command:
		return fmt.Sprintf("command %s, then %s", quote.Q(a.Command), quote.Q(b.Command))
	case !slices.Equal(a.Args, b.Args):
		return fmt.Sprintf("flags %s, then %s", quote.Q(strings.Join(a.Args, " ")), quote.Q(strings.Join(b.Args, " ")))
	case a.Build != b.Build:
		return fmt.Sprintf("fencelab build %s, then %s", describe(a.Build), describe(b.Build))
	case first.Shard.Count != m.Shard.Count:
		return fmt.Sprintf("split into %d shards, then %d", first.Shard.Count, m.Shard.Count)
	case first.Items != m.Items:
		return fmt.Sprintf("%d items, then %d", first.Items, m.Items)
	}
	return ""
}

// describe names a build briefly: its release and a prefix of its checksum.
func describe(b Build) string {
	sum := strings.TrimPrefix(b.Binary, "sha256:")
	if len(sum) > 12 {
		sum = sum[:12]
	}
	return quote.S(fmt.Sprintf("fencelab %s, %s, binary %s", b.Version, b.Go, sum))
}
