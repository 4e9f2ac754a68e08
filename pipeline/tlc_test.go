package pipeline

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/faketlc"
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
	specs := faketlc.Specs(t, `"name": "m", "spec": "S.tla", "cfg": "m.cfg"`, `"name": "n", "spec": "S.tla", "cfg": "m.cfg"`)
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
	assert.Equal(t, []string{"pcal.trans", "tlc2.TLC", "tlc2.TLC", "pcal.trans", "tlc2.TLC", "tlc2.TLC"}, fake.Runs(t))
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
