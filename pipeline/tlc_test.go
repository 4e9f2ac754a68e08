package pipeline

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/faketlc"
	"github.com/fencelab/fencelab/tlc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// okOutput is what the fake TLC prints for a model that matches the
// manifest's "ok, 1409 distinct states".
const okOutput = "../tlc/testdata/tool_DistLockFencing_all_2c.out"

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	require.NoError(t, err)
	return abs
}

// runTLC runs TLC's pipeline as fencelab tlc --specs specs --out out does:
// the manifest's default models, the pinned tools, auto workers.
func runTLC(t *testing.T, specs, out string) (stdout, stderr string, err error) {
	t.Helper()
	models, err := LoadModels(specs, "", false)
	require.NoError(t, err)
	e, so, se := testEnv()
	err = TLC(e, TLCPlan{Specs: specs, Pin: "../tla2tools.version", Out: out, Models: models, Timeout: 10 * time.Minute, Workers: "auto"})
	return so.String(), se.String(), err
}

// TestTLCResultsReplacedInPlace: each model's results are written to a
// temporary folder inside --out and renamed into place; the former results
// are replaced, other models' folders and whatever a former result linked
// to stay as they were, and no temporary folder is left.
func TestTLCResultsReplacedInPlace(t *testing.T) {
	fake := faketlc.New(t, "cat "+mustAbs(t, okOutput), "exit 0")
	specs := faketlc.Specs(t, `"name": "m", "spec": "S.tla", "cfg": "m.cfg"`, `"name": "n", "spec": "S.tla", "cfg": "n.cfg"`)
	// n's model differs from m's: two identical models share one cached
	// result, and whether the second waits for it or runs TLC beside the
	// first depends on the machine's load.
	require.NoError(t, os.WriteFile(filepath.Join(specs, "n.cfg"), []byte("INIT Init\nNEXT Next\n\\* model n\n"), 0o644))
	out := filepath.Join(t.TempDir(), "out")
	elsewhere := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(elsewhere, "precious"), []byte("x"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(out, "other-model"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, "other-model", "tlc.out"), []byte("other"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(out, "m"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, "m", "from-before.txt"), nil, 0o644))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(out, "n"))) // a former result that is a link

	for range 2 {
		stdout, stderr, err := runTLC(t, specs, out)
		require.NoError(t, err, "stdout: %s\nstderr: %s", stdout, stderr)
	}
	// The second run reads both models' results and the translation from the cache, and
	// still replaces their folders.
	assert.Equal(t, []string{"pcal.trans", "tlc2.TLC", "tlc2.TLC"}, fake.Runs(t))
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"m", "n", "other-model"}, names, "no temporary folder is left")
	assert.FileExists(t, filepath.Join(out, "m", "tlc.out"))
	assert.NoFileExists(t, filepath.Join(out, "m", "from-before.txt"), "the former results are replaced")
	st, err := os.Lstat(filepath.Join(out, "n"))
	require.NoError(t, err)
	assert.True(t, st.IsDir(), "the link was replaced by a folder")
	assert.FileExists(t, filepath.Join(elsewhere, "precious"), "what a former result linked to is untouched")
	other, err := os.ReadFile(filepath.Join(out, "other-model", "tlc.out"))
	require.NoError(t, err)
	assert.Equal(t, "other", string(other))
}

// TestTLCCachedLikeFresh: a second fencelab tlc on unchanged specs reads
// every model's result from the cache, says "(cached)" on each model's
// line, and reports and saves exactly what the fresh run did; a changed
// cfg runs its model again; --no-cache runs every model.
func TestTLCCachedLikeFresh(t *testing.T) {
	fake := faketlc.New(t, "cat "+mustAbs(t, "../tlc/testdata/tool_DistLockFencing_none_2c_TokenIsMonotonical.out")+"; exit 12", "exit 0")
	specs := faketlc.Specs(t)
	require.NoError(t, os.WriteFile(filepath.Join(specs, "models.json"), []byte(`{"models": [{"name": "v", "spec": "S.tla", "cfg": "m.cfg", "design": "none", "expected": "invariant", "property": "TokenIsMonotonical", "counterexample_length": 10}]}`), 0o644))
	run := func(noCache bool) (string, map[string]string) {
		models, err := LoadModels(specs, "", false)
		require.NoError(t, err)
		out := filepath.Join(t.TempDir(), "out")
		e, so, se := testEnv()
		err = TLC(e, TLCPlan{Specs: specs, Pin: "../tla2tools.version", Out: out, Models: models, Timeout: time.Minute, Workers: "auto", NoCache: noCache})
		require.NoError(t, err, "stdout: %s\nstderr: %s", so, se)
		files := map[string]string{}
		entries, err := os.ReadDir(filepath.Join(out, "v"))
		require.NoError(t, err)
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(out, "v", e.Name()))
			require.NoError(t, err)
			files[e.Name()] = string(data)
		}
		require.Contains(t, files, "trace.mmd", "the counterexample is saved")
		return so.String(), files
	}
	fresh, freshFiles := run(false)
	assert.NotContains(t, fresh, "(cached)")
	cached, cachedFiles := run(false)
	assert.Equal(t, []string{"pcal.trans", "tlc2.TLC"}, fake.Runs(t), "TLC and the translator ran once")
	assert.Contains(t, cached, "(cached)")
	// The same report but for the mark (and the table's widths, and the
	// --out folder, a new one each run).
	same := func(s string) string {
		s = strings.Replace(s, " (cached)", "", 1)
		return strings.Join(strings.Fields(regexp.MustCompile(regexp.QuoteMeta(os.TempDir())+`\S*/out`).ReplaceAllString(s, "OUT")), " ")
	}
	assert.Equal(t, 1, strings.Count(cached, "(cached)"), "on the model's line")
	assert.Equal(t, same(fresh), same(cached), "the same report, marked cached")
	assert.Equal(t, freshFiles, cachedFiles, "the same files saved")
	noCache, _ := run(true)
	assert.NotContains(t, noCache, "(cached)")
	assert.Equal(t, []string{"pcal.trans", "tlc2.TLC", "pcal.trans", "tlc2.TLC"}, fake.Runs(t), "--no-cache ran both again")
	f, err := os.OpenFile(filepath.Join(specs, "m.cfg"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\\* changed\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	changed, _ := run(false)
	assert.NotContains(t, changed, "(cached)", "a changed cfg runs again")
}

// TestTLCTranslatorFailureIsNotStale: a translator that fails is reported
// as such (exit 1, an unexpected result), never as a stale translation.
func TestTLCTranslatorFailureIsNotStale(t *testing.T) {
	faketlc.New(t, "cat "+mustAbs(t, okOutput), "echo 'Unrecoverable error: -- Missing `begin`.'; exit 1")
	specs := faketlc.Specs(t)
	stdout, stderr, err := runTLC(t, specs, t.TempDir())
	assert.Equal(t, ExitFailure, exitCodeOf(err))
	assert.ErrorContains(t, err, "the PlusCal translation could not be checked: the PlusCal translator failed on S.tla (exit 1): Unrecoverable error")
	assert.NotContains(t, stdout+stderr+err.Error(), "stale")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "which jar: %s", stderr)
}

// TestTLCErrorShowsWhere: a spec TLC cannot parse is reported with SANY's
// line, column and message in the table row and in the one-line error.
func TestTLCErrorShowsWhere(t *testing.T) {
	faketlc.New(t, "cat "+mustAbs(t, "../tlc/testdata/tool_parse_error.out")+"; exit 150", "exit 0")
	specs := faketlc.Specs(t)
	stdout, _, err := runTLC(t, specs, t.TempDir())
	assert.Equal(t, ExitFailure, exitCodeOf(err))
	where := `DistLock.tla line 264, column 29: encountered "writes"; was expecting "==== or more Module body"`
	assert.Contains(t, stdout, where, "in the table row")
	assert.ErrorContains(t, err, "TLC gave spec parse error (exit 150): "+where, "in the error")
}

// TestTLCPrintsInManifestOrder: models run two at a time, but the
// counterexamples and the table come out in the manifest's order even when
// the later models finish first (the fake TLC takes longest on the first
// model, least on the last), and every model still runs once.
func TestTLCPrintsInManifestOrder(t *testing.T) {
	violation := mustAbs(t, "../tlc/testdata/tool_DistLock_2c_AtMostOneClientHoldLock.out")
	fake := faketlc.New(t, `for a in "$@"; do case $a in a1.cfg) sleep 0.6;; a2.cfg) sleep 0.3;; esac; done
cat `+violation+`; exit 12`, "exit 0")
	var entries []string
	for _, name := range []string{"a1", "a2", "a3"} {
		entries = append(entries, `"name": "`+name+`", "spec": "S.tla", "cfg": "`+name+`.cfg"`)
	}
	specs := faketlc.Specs(t, entries...)
	for _, name := range []string{"a1", "a2", "a3"} {
		require.NoError(t, os.WriteFile(filepath.Join(specs, name+".cfg"), []byte("INIT Init\nNEXT Next\n"), 0o644))
	}
	stdout, _, err := runTLC(t, specs, t.TempDir())
	require.Equal(t, ExitFailure, exitCodeOf(err), "a violation where the manifest expects ok: %v", err)
	var at []int
	for _, name := range []string{"── a1: ", "── a2: ", "── a3: ", "\nmodel ", "\na1 ", "\na2 ", "\na3 "} {
		from := 0
		if len(at) > 0 {
			from = at[len(at)-1]
		}
		i := strings.Index(stdout[from:], name)
		require.GreaterOrEqual(t, i, 0, "%q missing after byte %d of:\n%s", name, from, stdout)
		at = append(at, from+i)
	}
	for _, name := range []string{"── a1: ", "── a2: ", "── a3: "} {
		assert.Equal(t, 1, strings.Count(stdout, name), "one counterexample of each model")
	}
	assert.Equal(t, []string{"pcal.trans", "tlc2.TLC", "tlc2.TLC", "tlc2.TLC"}, fake.Runs(t))
}

// TestBiggestFirst: models start by the states the manifest counts for
// them, most first; models without a count keep the manifest's order,
// after them.
func TestBiggestFirst(t *testing.T) {
	models := []tlc.Model{{Name: "v1"}, {Name: "small", DistinctStates: 10}, {Name: "v2"}, {Name: "big", DistinctStates: 420_541}, {Name: "mid", DistinctStates: 3716}}
	var got []string
	for _, i := range biggestFirst(models) {
		got = append(got, models[i].Name)
	}
	assert.Equal(t, []string{"big", "mid", "small", "v1", "v2"}, got)
}

// TestConformCached: a second fencelab conform on unchanged specs and
// traces reads each group's TLC verdicts from the cache, says "(cached)"
// on each group's line and reaches the same verdicts; --no-cache runs
// TLC for every group again.
func TestConformCached(t *testing.T) {
	// The fake TLC accepts every trace of a group.
	accept := `i=1; while [ $i -le 200 ]; do echo "<<\"fencelab-accepted\", $i>>"; i=$((i+1)); done; echo "TLC2 Version 2.19"; echo "Model checking completed. No error has been found."; echo "Finished in 1s at (2026-11-25 20:10:02)"`
	fake := faketlc.New(t, accept, "exit 0")
	run := func(noCache bool) string {
		e, so, se := testEnv()
		err := Conform(e, ConformPlan{Walks: 2, MaxSteps: 50, Out: filepath.Join(t.TempDir(), "conform"), Specs: "../specs", Pin: "../tla2tools.version",
			Timeout: time.Minute, NoCache: noCache})
		require.NoError(t, err, "stdout: %s\nstderr: %s", so, se)
		return so.String()
	}
	fresh := run(false)
	groups := len(fake.Runs(t))
	require.Positive(t, groups)
	assert.NotContains(t, fresh, "(cached)")
	cached := run(false)
	assert.Len(t, fake.Runs(t), groups, "no TLC run the second time")
	assert.Equal(t, groups, strings.Count(cached, "(cached)"), "each group's line says so")
	assert.Contains(t, cached, "accepted by the specs")
	noCache := run(true)
	assert.NotContains(t, noCache, "(cached)")
	assert.Len(t, fake.Runs(t), 2*groups, "--no-cache ran TLC for every group")
}

// TestTLCFailsOnAChangedCounterexample: a violation whose counterexample is
// longer or shorter than the manifest's, or that names another property,
// fails fencelab tlc with the reason, model by model: a witness reached
// another way, or a counterexample that changed, is not "as expected".
func TestTLCFailsOnAChangedCounterexample(t *testing.T) {
	violation := mustAbs(t, "../tlc/testdata/tool_DistLock_2c_AtMostOneClientHoldLock.out") // 8 states
	faketlc.New(t, "cat "+violation+"; exit 12", "exit 0")
	for _, tc := range []struct {
		name, property string
		length         int
		want           string // "" when the run matches
	}{
		{"as pinned", "AtMostOneClientHoldLock", 8, ""},
		{"longer", "AtMostOneClientHoldLock", 7, "model w: counterexample length 8, manifest says 7"},
		{"shorter", "AtMostOneClientHoldLock", 9, "model w: counterexample length 8, manifest says 9"},
		{"another property", "NoLostUpdate", 8, "model w: violates AtMostOneClientHoldLock, manifest says NoLostUpdate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			specs := faketlc.Specs(t)
			manifest := `{"models": [{"name": "w", "spec": "S.tla", "cfg": "m.cfg", "design": "all", "expected": "invariant", "property": "` +
				tc.property + `", "counterexample_length": ` + strconv.Itoa(tc.length) + `}]}`
			require.NoError(t, os.WriteFile(filepath.Join(specs, "models.json"), []byte(manifest), 0o644))
			_, _, err := runTLC(t, specs, t.TempDir())
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Equal(t, ExitFailure, exitCodeOf(err), "%v", err)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// TestCheckTLCWorkers: the bound follows the machine's cores.
func TestCheckTLCWorkers(t *testing.T) {
	for _, tc := range []struct {
		value string
		cores int
		ok    bool
	}{
		{"auto", 1, true}, {"1", 1, true}, {"4", 1, true}, {"5", 1, false},
		{"8", 2, true}, {"9", 2, false}, {"64", 16, true}, {"65", 16, false},
		{"0", 64, false}, {"-4", 64, false}, {"1", 0, true}, {"5", 0, false},
	} {
		err := CheckTLCWorkers(tc.value, tc.cores)
		assert.Equal(t, tc.ok, err == nil, "%s workers on %d cores: %v", tc.value, tc.cores, err)
	}
}
