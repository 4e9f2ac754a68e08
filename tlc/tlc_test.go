package tlc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests run the real TLC on the specs. They need Java and a jar
// (TLA2TOOLS_JAR, or a verified copy in the user cache; they never
// download) and are skipped, with the reason, otherwise. make tlc runs
// every model; these run a few fast ones and some mutants.

const specsDir = "../specs"

func tlcRunner(t *testing.T) *Runner {
	t.Helper()
	skip := func(why string) {
		countTLC(false, why)
		t.Skip("TLC-backed test skipped: " + why)
	}
	if testing.Short() {
		skip("-short mode")
	}
	java, err := FindJava()
	if err != nil {
		skip("no java on PATH")
	}
	r, err := DefaultResolver(filepath.Join("..", "tla2tools.version"))
	require.NoError(t, err)
	if r.EnvJar == "" {
		if r.CachePath() == "" || VerifyFile(r.CachePath(), r.Pin.SHA256) != nil {
			skip("no tla2tools.jar: set TLA2TOOLS_JAR=/path/to/tla2tools.jar or cache the pinned release with make tlc")
		}
		r.CacheDir = filepath.Dir(r.CachePath())
	}
	jar, err := r.Resolve(context.Background())
	require.NoError(t, err, "TLA2TOOLS_JAR is set but unusable")
	countTLC(true, "")
	return &Runner{Java: java, Jar: jar.Path, Workers: "auto", Timeout: 5 * time.Minute}
}

func manifestModel(t *testing.T, name string) Model {
	t.Helper()
	m, err := LoadManifest(filepath.Join(specsDir, "models.json"))
	require.NoError(t, err)
	models, err := m.Select(name)
	require.NoError(t, err)
	return models[0]
}

// mutant copies the specs into a fresh folder, applies edits to file
// (each old string must occur), and re-translates it when retranslate is
// set, so the mutant's translation is current.
func mutant(t *testing.T, r *Runner, file string, retranslate bool, edits ...string) string {
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
		out, code, err := r.java(context.Background(), dir, shortRun(), "pcal.trans", "-nocfg", file)
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
	assert.Equal(t, ResultInvariant, res.Got.Result)
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
	m := Model{Name: "mutant", Spec: "DistLock.tla", Cfg: "typeinv.cfg", Expected: ResultInvariant, Property: "TypeInvariant"}
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
	m := Model{Name: "seed000", Spec: "DistLock.tla", Cfg: "deadlock.cfg", Expected: ResultDeadlock}
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
	m := Model{Name: "norestart", Spec: "DistLockTimed.tla", Cfg: "norestart.cfg", Expected: ResultInvariant, Property: "AtMostOneClientHoldLock"}
	res, err := r.Run(context.Background(), dir, m)
	require.NoError(t, err)
	assert.Empty(t, res.Mismatch, string(res.Output))
}
