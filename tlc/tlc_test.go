package tlc_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/internal/tlctest"
	"github.com/fencelab/fencelab/tlc"
)

// These tests run the real TLC on the specs. They need Java and a jar
// (TLA2TOOLS_JAR, or a verified copy in the user cache; they never
// download) and are skipped, with the reason, otherwise. make tlc runs
// every model; these run a few fast ones and some mutants.

const specsDir = "../specs"

// tlcRunner is a Runner with the real TLC, or skips t (tlctest.Require).
func tlcRunner(t *testing.T) *tlc.Runner {
	t.Helper()
	tool := tlctest.Require(t, &tlcChecks)
	return &tlc.Runner{Java: tool.Java, Jar: tool.Jar, Workers: "auto", Timeout: 5 * time.Minute}
}

func manifestModel(t *testing.T, name string) tlc.Model {
	t.Helper()
	m, err := tlc.LoadManifest(filepath.Join(specsDir, "models.json"))
	require.NoError(t, err)
	models, err := m.Select(name)
	require.NoError(t, err)
	return models[0]
}

// mutant copies the specs into a fresh folder, applies edits to file
// (each old string must occur), and re-translates it when retranslate is
// set, so the mutant's translation is current.
func mutant(t *testing.T, r *tlc.Runner, file string, retranslate bool, edits ...string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(specsDir)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(specsDir, e.Name()))
		require.NoError(t, err)
		if e.Name() == file {
			text := string(data)
			for i := 0; i+1 < len(edits); i += 2 {
				require.Contains(t, text, edits[i], "mutation target")
				text = strings.Replace(text, edits[i], edits[i+1], 1)
			}
			data = []byte(text)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644))
	}
	if retranslate {
		out, code, err := r.Translate(context.Background(), dir, file)
		require.NoError(t, err)
		require.Equal(t, 0, code, string(out))
	}
	return dir
}

func TestTLCTranslationsAreCurrent(t *testing.T) {
	r := tlcRunner(t)
	for _, spec := range []string{"DistLock.tla", "DistLockFencing.tla", "DistLockTimed.tla"} {
		why, err := r.StaleTranslation(context.Background(), filepath.Join(specsDir, spec))
		require.NoError(t, err)
		assert.Empty(t, why, spec)
	}
}

func TestTLCModelsMatchManifest(t *testing.T) {
	r := tlcRunner(t)
	for _, name := range []string{"DistLock_2c_AtMostOneClientHoldLock", "DistLockFencing_all_2c"} {
		t.Run(name, func(t *testing.T) {
			res, err := r.Run(context.Background(), specsDir, manifestModel(t, name))
			require.NoError(t, err)
			require.NoError(t, res.ParseErr)
			assert.Empty(t, res.Mismatch, string(res.Output))
			assert.Positive(t, res.Got.Distinct)
		})
	}
	res, err := r.Run(context.Background(), specsDir, manifestModel(t, "DistLock_2c_AtMostOneClientHoldLock"))
	require.NoError(t, err)
	require.NotNil(t, res.Parsed)
	assert.Equal(t, "AtMostOneClientHoldLock", res.Parsed.Invariant)
	assert.LessOrEqual(t, len(res.Parsed.States), 15, "no longer than seed 000's counterexample")
}

// Breaking the "all" model on purpose (the check made "writes") must make
// the run differ from the manifest.
func TestTLCBrokenModelIsNoticed(t *testing.T) {
	r := tlcRunner(t)
	dir := mutant(t, r, "DistLockFencing_all_2c.cfg", false, `Check = "all"`, `Check = "writes"`)
	res, err := r.Run(context.Background(), dir, manifestModel(t, "DistLockFencing_all_2c"))
	require.NoError(t, err)
	assert.Equal(t, tlc.ResultInvariant, res.Got.Result)
	assert.Contains(t, res.Mismatch, "expected ok, TLC gave invariant")
}

// A PlusCal edit without re-translation is caught twice: by the fresh
// translation and by TLC's own warning.
func TestTLCStaleTranslationIsNoticed(t *testing.T) {
	r := tlcRunner(t)
	dir := mutant(t, r, "DistLock.tla", false, "WriteMsg(self, 0, read_val + 1)", "WriteMsg(self, 0, read_val + 2)")
	why, err := r.StaleTranslation(context.Background(), filepath.Join(dir, "DistLock.tla"))
	require.NoError(t, err)
	assert.Contains(t, why, "differs from a fresh translation")
	res, err := r.Run(context.Background(), dir, manifestModel(t, "DistLock_2c_AtMostOneClientHoldLock"))
	require.NoError(t, err)
	assert.NotEmpty(t, res.Got.Stale, "TLC warns about the stale translation")
	assert.Contains(t, res.Mismatch, "stale PlusCal translation")
}

// constants are DistLock.tla's constants for the hand-written mutant
// models, all but MaxRetries: 2 clients, one section, the table's system.
const constants = "  Clients = {c1, c2}\n  Service = service\n  Resource = resource\n  Validity = \"arrival\"\n  InvalidId = none\n  Sections = 1\n  Timeouts = TRUE\n  GiveUp = TRUE\n  Renewals = 0\n"

// TypeInvariant has teeth: a service that answers "refused" violates it.
func TestTLCTypeInvariantCanFail(t *testing.T) {
	r := tlcRunner(t)
	dir := mutant(t, r, "DistLock.tla", true, `network := (network \ {m}) \cup {RejectMsg(m.from)};`,
		`network := (network \ {m}) \cup {[RejectMsg(m.from) EXCEPT !.type = "refused"]};`)
	cfg := "SPECIFICATION Spec\nCONSTANTS\n" + constants + "  MaxRetries = 1\nINVARIANT TypeInvariant\nCHECK_DEADLOCK TRUE\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "typeinv.cfg"), []byte(cfg), 0o644))
	m := tlc.Model{Name: "mutant", Spec: "DistLock.tla", Cfg: "typeinv.cfg", Expected: tlc.ResultInvariant, Property: "TypeInvariant"}
	res, err := r.Run(context.Background(), dir, m)
	require.NoError(t, err)
	assert.Empty(t, res.Mismatch, string(res.Output))
}

// Seed 000's deadlock (a rejected client waits forever) is found, so the
// specs' deadlock checking is live.
func TestTLCSeed000DeadlockIsFound(t *testing.T) {
	r := tlcRunner(t)
	dir := mutant(t, r, "DistLock.tla", true, `\* ... or gives the section up after MaxRetries.
                network := (network \ {m}) \cup EndMsgs(self, 0, committed + aborted + 1);
                timers := EndTimers(self, 0, committed + aborted + 1, timers);
                end_section(FALSE);
                if (committed + aborted < Sections) { goto Receive } else { goto Done };`, `\* seed 000: it waits for another answer forever.
                network := network \ {m};
                goto Receive;`)
	cfg := "SPECIFICATION Spec\nCONSTANTS\n" + constants + "  MaxRetries = 0\nINVARIANT TypeInvariant\nCHECK_DEADLOCK TRUE\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "deadlock.cfg"), []byte(cfg), 0o644))
	m := tlc.Model{Name: "seed000", Spec: "DistLock.tla", Cfg: "deadlock.cfg", Expected: tlc.ResultDeadlock}
	res, err := r.Run(context.Background(), dir, m)
	require.NoError(t, err)
	assert.Empty(t, res.Mismatch, string(res.Output))
	require.NotNil(t, res.Parsed)
	assert.True(t, res.Parsed.Deadlock, "TLC reports the deadlock")
	assert.NotEmpty(t, res.Parsed.States, "with its counterexample")
}

// The timed spec's renewal has teeth: a service that grants a renewal
// without restarting the lease lets the renewed holder believe past it, and
// the model that holds one tick inside the bound (its constants, with the
// other client asking by tick 4, enough here) is violated.
func TestTLCTimedRenewalMustRestartTheLease(t *testing.T) {
	r := tlcRunner(t)
	dir := mutant(t, r, "DistLockTimed.tla", false,
		`lastGrant' = IF current THEN Clock(Service) ELSE lastGrant`, `lastGrant' = lastGrant`)
	inside := manifestModel(t, "DistLockTimed_renewal_2c_AtMostOneClientHoldLock_inside")
	cfg, err := os.ReadFile(filepath.Join(specsDir, inside.Cfg))
	require.NoError(t, err)
	require.Contains(t, string(cfg), "MaxStart = 5\n")
	mutated := strings.Replace(string(cfg), "MaxStart = 5\n", "MaxStart = 4\n", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "norestart.cfg"), []byte(mutated), 0o644))
	m := tlc.Model{Name: "norestart", Spec: "DistLockTimed.tla", Cfg: "norestart.cfg", Expected: tlc.ResultInvariant, Property: "AtMostOneClientHoldLock"}
	res, err := r.Run(context.Background(), dir, m)
	require.NoError(t, err)
	assert.Empty(t, res.Mismatch, string(res.Output))
}

// TestTranslationCurrentInAnyLocale (TLC): the committed specs, one with
// non-ASCII comments (DistLockRedlock.tla), are current whatever the
// locale java inherits: LC_ALL=C, LANG=C, none. (Before, LC_ALL=C made
// the translator write "—" as "???" and the spec was called stale.)
func TestTranslationCurrentInAnyLocale(t *testing.T) {
	r := tlcRunner(t)
	path := filepath.Join(specsDir, "DistLockRedlock.tla")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), "—", "the spec keeps a non-ASCII comment")
	for _, env := range []map[string]string{{"LC_ALL": "C"}, {"LC_ALL": "", "LANG": "C"}, {"LC_ALL": "", "LANG": "", "LC_CTYPE": ""}} {
		t.Run(strings.TrimSpace(strings.ReplaceAll(envText(env), "=", "=")), func(t *testing.T) {
			for k, v := range env {
				t.Setenv(k, v)
			}
			why, err := r.StaleTranslation(context.Background(), path)
			require.NoError(t, err)
			assert.Empty(t, why)
			// The good path: a real change of the translation is seen.
			dir := t.TempDir()
			stale := strings.Replace(string(data), "\\* END TRANSLATION", "Extra == 1\n\\* END TRANSLATION", 1)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "DistLockRedlock.tla"), []byte(stale), 0o644))
			why, err = r.StaleTranslation(context.Background(), filepath.Join(dir, "DistLockRedlock.tla"))
			require.NoError(t, err)
			assert.Contains(t, why, "differs from a fresh translation")
		})
	}
}

func envText(env map[string]string) string {
	var parts []string
	for _, k := range []string{"LC_ALL", "LANG", "LC_CTYPE"} {
		if v, ok := env[k]; ok {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, " ")
}
