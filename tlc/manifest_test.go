package tlc

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/verdict"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResultForExit(t *testing.T) {
	tests := map[int]string{
		0: ResultOK, 10: ResultAssume, 11: ResultDeadlock, 12: ResultInvariant, 13: ResultLiveness, 14: ResultAssert,
		75: "evaluation error", 150: "spec parse error", 151: "config parse error", 152: "state space too large",
		153: "system error", 255: "error (exit 255)", 1: "error (exit 1)",
	}
	for code, want := range tests {
		assert.Equal(t, want, ResultForExit(code), "exit %d", code)
	}
}

func TestJudge(t *testing.T) {
	inv := Model{Name: "m", Expected: ResultInvariant, Property: "AtMostOneClientHoldLock", CounterexampleLength: 7}
	invStop := inv
	invStop.DistinctStates = 51
	ok := Model{Name: "m", Expected: ResultOK, DistinctStates: 383}
	live := Model{Name: "m", Expected: ResultLiveness, Property: "AllClientsFinish"}
	tests := []struct {
		name    string
		model   Model
		got     Got
		wantErr string // "" means the run matches
	}{
		{"expected violation", inv, Got{ExitCode: 12, Result: ResultInvariant, Property: "AtMostOneClientHoldLock", Trace: 7}, ""},
		{"a longer counterexample is a failure", inv, Got{ExitCode: 12, Result: ResultInvariant, Property: "AtMostOneClientHoldLock", Trace: 9}, "counterexample length 9, manifest says 7"},
		{"a shorter counterexample is a failure", inv, Got{ExitCode: 12, Result: ResultInvariant, Property: "AtMostOneClientHoldLock", Trace: 5}, "counterexample length 5, manifest says 7"},
		{"a violation after the manifest's states", invStop, Got{ExitCode: 12, Result: ResultInvariant, Property: "AtMostOneClientHoldLock", Trace: 7, Distinct: 51}, ""},
		{"a violation after other states is a failure", invStop, Got{ExitCode: 12, Result: ResultInvariant, Property: "AtMostOneClientHoldLock", Trace: 7, Distinct: 60}, "TLC stopped at the violation after 60 distinct states, the manifest says 51"},
		{"a violation with no count is a failure", invStop, Got{ExitCode: 12, Result: ResultInvariant, Property: "AtMostOneClientHoldLock", Trace: 7, Distinct: -1}, "TLC reported no distinct state count at the violation, the manifest says 51"},
		{"a violation found by several workers is not judged on its count", invStop, Got{ExitCode: 12, Result: ResultInvariant, Property: "AtMostOneClientHoldLock", Trace: 7, Distinct: 60, Workers: 2}, ""},
		{"one worker's count is judged", invStop, Got{ExitCode: 12, Result: ResultInvariant, Property: "AtMostOneClientHoldLock", Trace: 7, Distinct: 60, Workers: 1}, "after 60 distinct states"},
		{"a violation's count is not judged where none is pinned", inv, Got{ExitCode: 12, Result: ResultInvariant, Property: "AtMostOneClientHoldLock", Trace: 7, Distinct: 60}, ""},
		{"different invariant is a failure", inv, Got{ExitCode: 12, Result: ResultInvariant, Property: "TypeInvariant", Trace: 7}, "violates TypeInvariant, manifest says AtMostOneClientHoldLock"},
		{"unnamed invariant is a failure", inv, Got{ExitCode: 12, Result: ResultInvariant}, "an unnamed property"},
		{"parse error is a failure", inv, Got{ExitCode: 150, Result: ResultForExit(150)}, "TLC gave spec parse error (exit 150)"},
		{"deadlock instead of the invariant", inv, Got{ExitCode: 11, Result: ResultDeadlock}, "expected invariant AtMostOneClientHoldLock, TLC gave deadlock"},
		{"no violation where one is expected", inv, Got{ExitCode: 0, Result: ResultOK, Distinct: 10}, "TLC gave ok"},
		{"ok with the manifest's states", ok, Got{Result: ResultOK, Distinct: 383}, ""},
		{"ok with other states", ok, Got{Result: ResultOK, Distinct: 384}, "TLC found 384 distinct states, the manifest says 383"},
		{"violation where ok is expected", ok, Got{ExitCode: 12, Result: ResultInvariant, Property: "NoLostUpdate"}, "expected ok, TLC gave invariant NoLostUpdate"},
		{"stale translation fails even when the rest matches", ok, Got{Result: ResultOK, Distinct: 383, Stale: []string{"DistLock.tla line 9 differs"}}, "stale PlusCal translation"},
		{"a slow model with no length pinned is not judged on it", Model{Name: "m", Expected: ResultInvariant, Property: "AtMostOneClientHoldLock", Slow: true}, Got{ExitCode: 12, Result: ResultInvariant, Property: "AtMostOneClientHoldLock", Trace: 30}, ""},
		{"liveness", live, Got{ExitCode: 13, Result: ResultLiveness, Property: "AllClientsFinish"}, ""},
		{"liveness of another property", live, Got{ExitCode: 13, Result: ResultLiveness, Property: "Termination"}, "violates Termination, manifest says AllClientsFinish"},
		{"a liveness lasso's length is not judged", live, Got{ExitCode: 13, Result: ResultLiveness, Property: "AllClientsFinish", Trace: 32}, ""},
		{"system error", ok, Got{ExitCode: 153, Result: ResultForExit(153)}, "system error"},
		{"translator failure is not called stale", ok, Got{Result: ResultOK, Distinct: 383, Untranslated: "the PlusCal translator failed"}, "the PlusCal translation could not be checked: the PlusCal translator failed"},
		{"parse error says where", inv, Got{ExitCode: 150, Result: ResultForExit(150), Detail: "S.tla line 3, column 1: oops"}, "TLC gave spec parse error (exit 150): S.tla line 3, column 1: oops"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			why := Judge(tc.model, tc.got)
			if tc.wantErr == "" {
				assert.Empty(t, why)
				return
			}
			assert.Contains(t, why, tc.wantErr)
		})
	}
}

func TestInterpretFixtures(t *testing.T) {
	cfgLiveness := "SPECIFICATION UnfairSpec\nINVARIANT TypeInvariant\nPROPERTY AllClientsFinish \\* the liveness property\n"
	tests := []struct {
		file  string
		code  int
		cfg   string
		model Model
		match bool
	}{
		{"tool_DistLock_2c_AtMostOneClientHoldLock.out", 12, "", Model{Expected: ResultInvariant, Property: "AtMostOneClientHoldLock", CounterexampleLength: 8}, true},
		{"tool_DistLock_2c_AtMostOneClientHoldLock.out", 12, "", Model{Expected: ResultInvariant, Property: "AtMostOneClientHoldLock", CounterexampleLength: 7}, false},
		{"tool_DistLock_2c_AtMostOneClientHoldLock.out", 12, "", Model{Expected: ResultInvariant, Property: "NoLostUpdate", CounterexampleLength: 8}, false},
		{"tool_DistLockFencing_all_2c.out", 0, "", Model{Expected: ResultOK, DistinctStates: 1409}, true},
		{"tool_DistLock_2c_Liveness_Unfair.out", 13, cfgLiveness, Model{Expected: ResultLiveness, Property: "AllClientsFinish"}, true},
		{"tool_seed000_deadlock.out", 11, "", Model{Expected: ResultDeadlock}, true},
		{"tool_seed000_deadlock.out", 11, "", Model{Expected: ResultOK, DistinctStates: 185}, false},
		{"tool_parse_error.out", 150, "", Model{Expected: ResultInvariant, Property: "NoLostUpdate"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, parsed, err := Interpret(readFixture(t, tc.file), tc.code, tc.cfg)
			require.NoError(t, err)
			require.NotNil(t, parsed)
			assert.Equal(t, tc.match, Judge(tc.model, got) == "", "judge(%+v, %+v)", tc.model, got)
		})
	}
}

func TestInterpretStaleWarning(t *testing.T) {
	out := "@!@!@STARTMSG 2262:0 @!@!@\nTLC2 Version 2.19\n@!@!@ENDMSG 2262 @!@!@\n" +
		"!! WARNING: The PlusCal algorithm in module DistLock has changed since its last translation.\n" +
		"@!@!@STARTMSG 2199:0 @!@!@\n698 states generated, 383 distinct states found, 0 states left on queue.\n@!@!@ENDMSG 2199 @!@!@\n"
	got, _, err := Interpret([]byte(out), 0, "")
	require.NoError(t, err)
	assert.Len(t, got.Stale, 1)
	assert.Contains(t, Judge(Model{Expected: ResultOK, DistinctStates: 383}, got), "stale PlusCal translation")
}

func TestCfgProperties(t *testing.T) {
	cfg := "\\* PROPERTY Commented\nSPECIFICATION Spec\nPROPERTIES A\n  B\nINVARIANT C\nPROPERTY D\n"
	assert.Equal(t, []string{"A", "B", "D"}, CfgProperties(cfg))
	assert.Empty(t, CfgProperties("INVARIANT X\n"))
	assert.Equal(t, []string{"C"}, CfgInvariants(cfg))
	assert.Equal(t, []string{"X", "Y"}, CfgInvariants("INVARIANTS X Y\nCHECK_DEADLOCK TRUE\n"))
}

func TestParseManifestRejects(t *testing.T) {
	tests := []struct{ name, json, wantErr string }{
		{"not json", "{", "models manifest"},
		{"no models", `{"models": []}`, "no models"},
		{"unknown field", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "ok", "distinct_states": 1, "bogus": 1}]}`, "unknown field"},
		{"no design", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "expected": "deadlock"}]}`, "design is required"},
		{"missing cfg", `{"models": [{"name": "a", "spec": "S.tla", "expected": "ok", "distinct_states": 1}]}`, "required"},
		{"duplicate", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "deadlock"}, {"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "deadlock"}]}`, "duplicate"},
		{"ok without states", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "ok"}]}`, "distinct_states"},
		{"invariant without property", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "invariant"}]}`, "needs its property"},
		{"invariant without counterexample length", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "invariant", "property": "P"}]}`, "needs its counterexample_length"},
		{"negative counterexample length", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "invariant", "property": "P", "slow": true, "counterexample_length": -1}]}`, "must be positive"},
		{"liveness with counterexample length", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "liveness", "property": "P", "counterexample_length": 30}]}`, "only an invariant violation pins a counterexample_length"},
		{"ok with counterexample length", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "ok", "distinct_states": 1, "counterexample_length": 3}]}`, "only an invariant violation"},
		{"negative distinct states", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "invariant", "property": "P", "counterexample_length": 3, "distinct_states": -4}]}`, "distinct_states must be positive"},
		{"liveness with distinct states", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "liveness", "property": "P", "distinct_states": 30}]}`, "only an ok model and an invariant violation pin distinct_states"},
		{"deadlock with distinct states", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "deadlock", "distinct_states": 30}]}`, "only an ok model and an invariant violation pin distinct_states"},
		{"unknown family", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "family": "fast", "expected": "deadlock"}]}`, "family must be"},
		{"unknown result", `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "fine"}]}`, "unknown expected result"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseManifest([]byte(tc.json))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestSelect(t *testing.T) {
	m := &Manifest{Models: []Model{{Name: "a"}, {Name: "b"}}}
	all, err := m.Select("")
	require.NoError(t, err)
	assert.Len(t, all, 2)
	one, err := m.Select("b")
	require.NoError(t, err)
	assert.Equal(t, []Model{{Name: "b"}}, one)
	_, err = m.Select("c")
	assert.EqualError(t, err, `no model "c" in the manifest (did you mean a, b?)`)
	_, err = m.Select("Paxos")
	assert.EqualError(t, err, `no model "Paxos" in the manifest (2 models in the manifest, none near it)`)

	// An unknown name is answered with the nearest names, not the list.
	m = &Manifest{Models: []Model{{Name: "DistLock_2c_NoLostUpdate"}, {Name: "DistLock_2c_AtMostOneClientHoldLock"}, {Name: "DieHard"}}}
	_, err = m.Select("DistLock_2c_NoLostUpdat")
	assert.EqualError(t, err, `no model "DistLock_2c_NoLostUpdat" in the manifest (did you mean DistLock_2c_NoLostUpdate?)`)
	_, err = m.Select(strings.Repeat("x", 100<<20))
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 200, "a long name is echoed by a bounded prefix")
}

func TestVerdicts(t *testing.T) {
	invs := []string{"TypeInvariant", "NoLostUpdate"}
	ok := Verdicts(Got{Result: ResultOK, Distinct: 10104}, invs, 0)
	assert.Equal(t, verdict.Set{
		{Property: "TypeInvariant", Status: verdict.Holds, Covered: "10,104 states"},
		{Property: "NoLostUpdate", Status: verdict.Holds, Covered: "10,104 states"},
	}, ok)
	bad := Verdicts(Got{Result: ResultInvariant, Property: "NoLostUpdate", ExitCode: 12}, invs, 11)
	assert.Equal(t, verdict.Set{{Property: "NoLostUpdate", Status: verdict.Violated, Shortest: 11}}, bad)
	dead := Verdicts(Got{Result: ResultDeadlock, ExitCode: 11}, invs, 5)
	assert.Equal(t, verdict.Set{{Property: Deadlock, Status: verdict.Violated, Shortest: 5}}, dead)
	broken := Verdicts(Got{Result: ResultForExit(150), ExitCode: 150}, invs, 0)
	require.Len(t, broken, 2)
	assert.Equal(t, verdict.Unknown, broken.Get("NoLostUpdate").Status, "an error is no verdict")
	assert.Equal(t, "TLC gave spec parse error (exit 150)", broken.Get("NoLostUpdate").Detail)
	stale := Verdicts(Got{Result: ResultOK, Distinct: 1, Stale: []string{"old"}}, invs, 0)
	assert.Equal(t, verdict.Unknown, stale.Get("TypeInvariant").Status, "a stale translation checks nothing")
}

// TestModelNamesArePlainIdentifiers: a model's name becomes a folder under
// --out, so only a letter followed by letters, digits, '_' or '-' is
// accepted; every name that could be a path, a hidden file, a device or
// an overlong element is refused by the manifest, with the rule.
func TestModelNamesArePlainIdentifiers(t *testing.T) {
	bad := []string{
		"", ".", "..", "../x", "../../etc", "a/b", `a\b`, "/abs", "/", "./a", "a/..", ".hidden", "a.b", "a..b",
		"-flag", "_x", "1model", "a b", "a\tb", "a\nb", "a\x00b", "é", "ａ", "a:b", "a*", "~", "con", "CON", "Nul",
		"aux", "prn", "com1", "LPT9", strings.Repeat("a", 101),
	}
	for _, name := range bad {
		t.Run("bad "+name, func(t *testing.T) {
			assert.Error(t, ValidModelName(name))
			js, err := json.Marshal(map[string]any{"models": []map[string]any{{"name": name, "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "deadlock"}}})
			require.NoError(t, err)
			_, err = ParseManifest(js)
			require.Error(t, err)
			if name != "" {
				assert.Contains(t, err.Error(), "a model name is a letter followed by letters, digits, '_' or '-'")
			}
			assert.NotContains(t, err.Error(), "\n")
		})
	}
	for _, name := range []string{"a", "DistLock_2c_AtMostOneClientHoldLock", "m-1", "console", "com10", "Z9", strings.Repeat("a", 100)} {
		assert.NoError(t, ValidModelName(name), name)
	}
}

// TestSpecAndCfgAreFileNames: spec and cfg name files directly in the
// specs folder with their extension; a path, "..", an absolute name or a
// wrong extension is refused by the manifest.
func TestSpecAndCfgAreFileNames(t *testing.T) {
	bad := []string{"", ".tla", "../S.tla", "/etc/S.tla", "sub/S.tla", `sub\S.tla`, "..tla", "S..tla", "S.cfg", "S", ".S.tla",
		"S .tla", "con.tla", "S.tla/", "S.tla\x00", "~/S.tla", strings.Repeat("a", 97) + ".tla"}
	for _, spec := range bad {
		t.Run("spec "+spec, func(t *testing.T) {
			js, err := json.Marshal(map[string]any{"models": []map[string]any{{"name": "a", "spec": spec, "cfg": "a.cfg", "design": "all", "expected": "deadlock"}}})
			require.NoError(t, err)
			_, err = ParseManifest(js)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
	badCfg := []string{"", ".cfg", "../m.cfg", "/etc/m.cfg", "sub/m.cfg", "m..cfg", "m.tla", "m", "nul.cfg", "m .cfg", "m.cfg\x00"}
	for _, cfg := range badCfg {
		t.Run("cfg "+cfg, func(t *testing.T) {
			js, err := json.Marshal(map[string]any{"models": []map[string]any{{"name": "a", "spec": "S.tla", "cfg": cfg, "design": "all", "expected": "deadlock"}}})
			require.NoError(t, err)
			_, err = ParseManifest(js)
			require.Error(t, err)
		})
	}
	for _, ok := range []string{"S.tla", "DistLock.tla", "a-b_c.v2.tla"} {
		assert.NoError(t, ValidFileName(ok, ".tla"), ok)
	}
}

// TestFilesStayInsideTheSpecsFolder: every spec and cfg the manifest names
// must exist as a regular file inside the specs folder, found before
// anything runs (CheckFiles) and refused again when read (Run): a missing
// file, a folder, a symbolic link out of the folder (absolute or relative)
// and a dangling link are errors; a link that stays inside is followed.
func TestFilesStayInsideTheSpecsFolder(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "Secret.tla"), []byte("---- MODULE Secret ----\n====\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "x.cfg"), []byte("INIT Init\n"), 0o644))
	tests := []struct {
		name    string
		setup   func(specs string)
		wantErr string // "" means accepted
	}{
		{"both present", func(string) {}, ""},
		{"missing cfg", func(s string) { require.NoError(t, os.Remove(filepath.Join(s, "m.cfg"))) }, "m.cfg does not exist"},
		{"missing spec", func(s string) { require.NoError(t, os.Remove(filepath.Join(s, "S.tla"))) }, "S.tla does not exist"},
		{"cfg is a folder", func(s string) {
			require.NoError(t, os.Remove(filepath.Join(s, "m.cfg")))
			require.NoError(t, os.Mkdir(filepath.Join(s, "m.cfg"), 0o755))
		}, "is a folder, not a regular file"},
		{"cfg links outside (absolute)", func(s string) {
			require.NoError(t, os.Remove(filepath.Join(s, "m.cfg")))
			require.NoError(t, os.Symlink(filepath.Join(outside, "x.cfg"), filepath.Join(s, "m.cfg")))
		}, "m.cfg"},
		{"spec links outside (relative)", func(s string) {
			require.NoError(t, os.Remove(filepath.Join(s, "S.tla")))
			rel, err := filepath.Rel(s, filepath.Join(outside, "Secret.tla"))
			require.NoError(t, err)
			require.NoError(t, os.Symlink(rel, filepath.Join(s, "S.tla")))
		}, "S.tla"},
		{"dangling link", func(s string) {
			require.NoError(t, os.Remove(filepath.Join(s, "m.cfg")))
			require.NoError(t, os.Symlink("nowhere.cfg", filepath.Join(s, "m.cfg")))
		}, "m.cfg"},
		{"link inside the folder", func(s string) {
			require.NoError(t, os.Rename(filepath.Join(s, "m.cfg"), filepath.Join(s, "real.cfg")))
			require.NoError(t, os.Symlink("real.cfg", filepath.Join(s, "m.cfg")))
		}, ""},
	}
	m := Model{Name: "m", Spec: "S.tla", Cfg: "m.cfg", Expected: ResultDeadlock}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			specs := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(specs, "S.tla"), []byte("---- MODULE S ----\n====\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(specs, "m.cfg"), []byte("INIT Init\n"), 0o644))
			tc.setup(specs)
			err := CheckFiles(specs, []Model{m})
			// Run refuses the same files before java is started: this
			// runner's java does not exist.
			_, runErr := (&Runner{Java: filepath.Join(specs, "no-java"), Jar: "x.jar"}).Run(context.Background(), specs, m)
			if tc.wantErr == "" {
				assert.NoError(t, err)
				assert.ErrorContains(t, runErr, "no-java", "only the missing java stops it")
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.Contains(t, err.Error(), "model m")
			require.Error(t, runErr)
			assert.NotContains(t, runErr.Error(), "no-java", "refused before java runs")
		})
	}
	// A hostile Model that did not come through the manifest is refused by Run.
	for _, bad := range []Model{{Name: "m", Spec: "../S.tla", Cfg: "m.cfg"}, {Name: "m", Spec: "S.tla", Cfg: "/etc/passwd"}} {
		_, err := (&Runner{Java: "no-java"}).Run(context.Background(), t.TempDir(), bad)
		assert.ErrorContains(t, err, "must be a file name in the specs folder")
	}
}

func TestCheckFilesNoSpecsFolder(t *testing.T) {
	err := CheckFiles(filepath.Join(t.TempDir(), "nope"), []Model{{Name: "m", Spec: "S.tla", Cfg: "m.cfg"}})
	assert.ErrorContains(t, err, "the specs folder")
}
