package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/live/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// committedHistory is a committed run's history.jsonl (redis, row none,
// a client pause that took effect: beliefs overlapped, an update lost),
// written before headers carried a row and a lease.
// committedHistory is a real run's history (redis/none under the classic
// client pause, unchecked: two holders and a lost update), kept here
// rather than read from docs/live, which every make live rewrites.
var committedHistory = filepath.Join("testdata", "redis-none-client-pause.history.jsonl")

// TestCheckHistoryLinesVerdictsUpWithTheRow: the same history judged
// against its own row is what the row allows (exit 0, pages written);
// against row all (fenced) its lost update is a violation where the row
// says holds (exit 1, named on stderr).
func TestCheckHistoryLinesVerdictsUpWithTheRow(t *testing.T) {
	tests := []struct {
		design string
		code   int
		out    string
		stderr string
	}{
		{"none", ExitOK, "every verdict is what row none allows", ""},
		{"all", ExitFailure, "VIOLATED where row all says it holds: SectionsLinearizable, RegisterLinearizable",
			"fencelab-live check-history: SectionsLinearizable, RegisterLinearizable violated where row all says it holds\n"},
	}
	for _, tc := range tests {
		t.Run(tc.design, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "pages")
			var stdout, stderr bytes.Buffer
			code := Run(setup.All(), []string{"check-history", "--design", tc.design, "--ttl", "1s", "--out", out, committedHistory}, nil, &stdout, &stderr)
			assert.Equal(t, tc.code, code, stderr.String())
			assert.Contains(t, stdout.String(), tc.out)
			assert.Contains(t, stdout.String(), "NoLostUpdate")
			assert.Equal(t, tc.stderr, stderr.String())
			for _, name := range []string{"trace.html", "porcupine.html", "register.html", "verdicts.json"} {
				assert.FileExists(t, filepath.Join(out, name))
			}
		})
	}
}

// TestCheckHistoryRefusesMalformed: each class of malformed history is
// exit 2 with one bounded line on stderr naming the line, nothing on
// stdout and no pages.
func TestCheckHistoryRefusesMalformed(t *testing.T) {
	const head = `{"kind":"run","version":1,"start":0,"end":100,"clients":2,"design":"all","ttl_ns":50}` + "\n"
	const call = `{"kind":"op","client":0,"op":"read","ev":"call","wall":10,"token":1}` + "\n"
	binary := string([]byte{0x7f, 'E', 'L', 'F', 0, 0, 0xff, 0xfe, '\n', 0, 1, 2})
	tests := []struct {
		name, text string
		args       []string
		want       string
	}{
		{"empty file", "", nil, "line 1: no run header (an empty history)"},
		{"blank lines only", "\n \n", nil, "line 3: no run header"},
		{"binary", binary, nil, "line 1: invalid character"},
		{"bad JSON", head + "{\"kind\":\"op\",\n", nil, "line 2: unexpected end of JSON input"},
		{"two values on a line", head + call[:len(call)-1] + " {}\n", nil, "line 2: invalid character '{' after top-level value"},
		{"unknown op", head + `{"kind":"op","client":0,"op":"steal","ev":"call","wall":5}` + "\n", nil, `line 2: unknown operation "steal"`},
		{"unknown field", head + `{"kind":"op","client":0,"op":"read","ev":"call","wall":5,"tokn":3}` + "\n", nil, `line 2: json: unknown field "tokn"`},
		{"unknown kind", head + `{"kind":"grant"}` + "\n", nil, `line 2: unknown kind "grant"`},
		{"return without call", head + `{"kind":"op","client":1,"op":"write","ev":"return","wall":5,"ok":true}` + "\n", nil, "line 2: c2's write return without its call"},
		{"return of another call", head + call + `{"kind":"op","client":0,"op":"write","ev":"return","wall":12,"ok":true}` + "\n", nil, "line 3: c1's write return without its call"},
		{"two calls at once", head + call + `{"kind":"op","client":0,"op":"write","ev":"call","wall":12}` + "\n", nil, "line 3: c1 calls write while its read is pending"},
		{"time goes back", head + call + `{"kind":"op","client":0,"op":"read","ev":"return","wall":9,"ok":true}` + "\n", nil, "line 3: c1's read return at 9 is before its previous record (10)"},
		{"before the run", head + `{"kind":"op","client":0,"op":"read","ev":"call","wall":-1}` + "\n", nil, "line 2: c1's read call at -1 is outside the run (0 to 100)"},
		{"after the run", head + `{"kind":"op","client":1,"op":"acquire","ev":"call","wall":101}` + "\n", nil, "line 2: c2's acquire call at 101 is outside the run (0 to 100)"},
		{"huge line", head + `{"kind":"exit","client":0,"stderr":"` + strings.Repeat("x", 70<<10) + "\"}\n", nil, "line 2: longer than 65536 bytes"},
		{"no header", call, nil, `line 1: a "op" line before the run's header`},
		{"second header", head + call + head, nil, "line 3: a second run header"},
		{"future version", strings.Replace(head, `"version":1`, `"version":2`, 1), nil, "line 1: version 2 (this reader reads versions up to 1)"},
		{"no clients", strings.Replace(head, `"clients":2`, `"clients":0`, 1), nil, "line 1: a run of 0 clients"},
		{"client out of range", head + `{"kind":"op","client":2,"op":"read","ev":"call","wall":5}` + "\n", nil, "line 2: client 2 out of range"},
		{"resource op unknown", head + `{"kind":"resource","client":0,"op":"cas","accepted":true}` + "\n", nil, `line 2: unknown resource operation "cas"`},
		{"no row", strings.Replace(head, `"design":"all",`, "", 1), nil, "line 1: no design row: give --design ROW"},
		{"unknown row", head, []string{"--design", "fort-knox"}, "--design: unknown design"},
		{"unknown row in the header", strings.Replace(head, `"design":"all"`, `"design":"fort-knox"`, 1), nil, "line 1: unknown design"},
		{"no lease", strings.Replace(head, `,"ttl_ns":50`, "", 1), nil, "line 1: the header has no ttl_ns"},
		{"negative ttl flag", head, []string{"--ttl", "-1s"}, "--ttl -1s: want a positive duration"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "h.jsonl")
			require.NoError(t, os.WriteFile(file, []byte(tc.text), 0o644))
			out := filepath.Join(dir, "pages")
			var stdout, stderr bytes.Buffer
			code := Run(setup.All(), append(append([]string{"check-history", "--out", out}, tc.args...), file), nil, &stdout, &stderr)
			assert.Equal(t, ExitBadInput, code)
			line := stderr.String()
			assert.Contains(t, line, tc.want)
			assert.True(t, strings.HasPrefix(line, "fencelab-live check-history: "), line)
			assert.Equal(t, 1, strings.Count(line, "\n"), "one line: %q", line)
			assert.Less(t, len(line), 600, "a bounded line")
			assert.Empty(t, stdout.String())
			assert.NoDirExists(t, out)
		})
	}
}

// TestCheckHistoryBadArguments: a missing file, a folder, no file, two.
func TestCheckHistoryBadArguments(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"check-history"}, "want one history file, got 0 arguments"},
		{"two files", []string{"check-history", "a", "b"}, "want one history file, got 2 arguments"},
		{"missing", []string{"check-history", "/nonexistent/h.jsonl"}, "/nonexistent/h.jsonl: stat"},
		{"a folder", []string{"check-history", "."}, "not a regular file"},
		{"empty out", []string{"check-history", "--out", "", "x"}, "--out is empty"},
		{"tlc without a jar", []string{"check-history", "--tlc", committedHistory}, "--tlc: TLA2TOOLS_JAR is not set"},
		{"tlc with no jar there", []string{"check-history", "--tlc", committedHistory}, "--tlc: TLA2TOOLS_JAR: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TLA2TOOLS_JAR", "")
			if tc.name == "tlc with no jar there" {
				t.Setenv("TLA2TOOLS_JAR", filepath.Join(t.TempDir(), "tla2tools.jar"))
			}
			var stdout, stderr bytes.Buffer
			assert.Equal(t, ExitBadInput, Run(setup.All(), tc.args, nil, &stdout, &stderr))
			assert.Contains(t, stderr.String(), tc.want)
			assert.Equal(t, 1, strings.Count(stderr.String(), "\n"))
		})
	}
}
