package pipeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/report"
	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUpdateReadmeAcceptsTheREADME: the project's README passes the
// check (the witness that the check lets the good path through).
func TestUpdateReadmeAcceptsTheREADME(t *testing.T) {
	dir := t.TempDir() // its folder is probed
	for _, f := range []string{"README.md", MatrixPage, LivePage} {
		data, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(f)))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(f)), data, 0o644))
	}
	assert.NoError(t, CheckReadme(filepath.Join(dir, "README.md")))
}

// TestUpdateReadmeWritesTheMatrix: from a run's table, --update-readme
// writes each counterexample's page under docs/matrix, the full table into
// MatrixPage with links that resolve from there, the picture drawn from it
// and LivePage's live block, and the README's block showing the picture;
// the README's other text and its live block stay as they were, and so
// does LivePage.
func TestUpdateReadmeWritesTheMatrix(t *testing.T) {
	dir := t.TempDir()
	begin, end := ReadmeMarkers("matrix")
	lb, le := ReadmeMarkers("live")
	vb, ve := ReadmeMarkers("verdicts")
	live := "| Row | AtMostOneClientHoldLock: model · live |\n|---|---|\n| `off` | violated · [violated (3 of 3)](docs/live/x/) |\n| `all` | violated · not observed (0 of 3; the fault took effect in 3) |\n"
	readme := "# intro\n" + begin + "old\n" + end + "\ntext\n" + lb + "| Setup (row) | client-pause |\n" + le + "\n"
	livePage := "# live\n" + lb + live + le + "\n"
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(LivePage)), []byte(livePage), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(MatrixPage)), []byte("# page\n"+vb+"old\n"+ve+"\n"), 0o644))
	picture := filepath.Join(t.TempDir(), "trace.mmd")
	require.NoError(t, os.WriteFile(picture, []byte("sequenceDiagram\n"), 0o644))
	violated := verdict.Verdict{Property: impl.NoLostUpdate, Status: verdict.Violated, Shortest: 15}
	table := report.Join([]report.Reached{{Design: impl.DesignNoFencing.Describe(), Checker: report.Explorer, Clients: 2,
		Verdicts: verdict.Set{violated}, Pictures: map[string]string{impl.NoLostUpdate: picture}}})

	require.NoError(t, updateReadme(&Env{}, filepath.Join(dir, "README.md"), table))

	got, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Equal(t, "# intro\n"+begin+MatrixPictureBlock()+end+"\ntext\n"+lb+"| Setup (row) | client-pause |\n"+le+"\n", string(got))
	page, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(MatrixPage)))
	require.NoError(t, err)
	assert.Contains(t, string(page), "[violated (16 steps)](matrix/off-NoLostUpdate-explorer.md)")
	assert.FileExists(t, filepath.Join(dir, "docs", "matrix", "off-NoLostUpdate-explorer.md"), "the link resolves from the page")
	svg, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(MatrixPicture)))
	require.NoError(t, err)
	gotLive, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(LivePage)))
	require.NoError(t, err)
	assert.Equal(t, livePage, string(gotLive))
	want, err := DrawMatrix(string(page), string(gotLive))
	require.NoError(t, err)
	assert.Equal(t, want, string(svg))
}

// TestRelativeLinkReachesThePage: the demo's matrix.md links each
// counterexample's page (trace.html, beside its trace.mmd), which a
// browser shows, not the raw Mermaid file.
func TestRelativeLinkReachesThePage(t *testing.T) {
	link := relativeLink(filepath.Join("out", "demo"))
	assert.Equal(t, "../explore/off-2c-NoLostUpdate/"+trace.HTMLFile, link("", "", "", filepath.Join("out", "explore", "off-2c-NoLostUpdate", trace.MermaidFile)))
}

// TestMatrixPagesReplaceOnlyTheirOwn: saving the matrix's pages writes the
// new ones, removes a page an older run wrote and this one did not, and
// leaves everything else in docs/matrix: a user's file, a folder.
func TestMatrixPagesReplaceOnlyTheirOwn(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "docs", "matrix")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	stale := filepath.Join(dir, "off-NoLostUpdate-tlc.md")
	require.NoError(t, os.WriteFile(stale, []byte("# old\n\n"+matrixPageMark+"\n"), 0o644))
	user := filepath.Join(dir, "notes.md")
	require.NoError(t, os.WriteFile(user, []byte("my notes"), 0o644))
	picture := filepath.Join(t.TempDir(), "trace.mmd")
	require.NoError(t, os.WriteFile(picture, []byte("sequenceDiagram\n"), 0o644))

	pages := newMatrixPages(root)
	link := pages.link(impl.DesignFenceNone.Describe(), "NoLostUpdate", "Explorer", picture)
	assert.Equal(t, "matrix/none-NoLostUpdate-explorer.md", link, "linked from docs/matrix.md")
	require.NoError(t, pages.save(nil))
	page, err := os.ReadFile(filepath.Join(dir, "none-NoLostUpdate-explorer.md"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "sequenceDiagram")
	assert.NoFileExists(t, stale, "an older run's page goes")
	assert.FileExists(t, user, "a user's file stays")
	assert.DirExists(t, filepath.Join(dir, "sub"))

	// A full disk: the page is not half written, the older pages stay.
	require.NoError(t, os.WriteFile(stale, []byte("# old\n\n"+matrixPageMark+"\n"), 0o644))
	pages = newMatrixPages(root)
	pages.link(impl.DesignFenceNone.Describe(), "AtMostOneClientHoldLock", "TLC", picture)
	err = pages.save(atomicfile.FullAfter(10))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "could not save")
	assert.NoFileExists(t, filepath.Join(dir, "none-AtMostOneClientHoldLock-tlc.md"))
	assert.FileExists(t, stale)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasSuffix(e.Name(), ".tmp"), "temporary file %s left", e.Name())
	}
}

// TestProgressWhenStderrIsNotATerminal: on a pipe or in CI, progress is
// plain lines, every tenth of the runs (or every few seconds) after the
// first second, with a rate measured from the batch's start — not the
// millions of runs per second a first tick over a single chunk reads.
func TestProgressWhenStderrIsNotATerminal(t *testing.T) {
	var b bytes.Buffer
	clock := time.Unix(0, 0)
	p := newProgressTo(&b, false, 1000, "sim", func() time.Time { return clock })
	p.add(256) // the first chunk, at once: quiet, no rate yet
	assert.Empty(t, b.String())
	for range 744 / 4 {
		clock = clock.Add(10 * time.Millisecond)
		p.add(4)
	}
	p.finish()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.NotEmpty(t, lines)
	assert.LessOrEqual(t, len(lines), 10, "a line per tenth at most: %q", lines)
	assert.Equal(t, "sim: 1,000 of 1,000 runs (100%), 537 runs/s", lines[len(lines)-1])
	for _, l := range lines {
		assert.Regexp(t, `^sim: [0-9,]+ of 1,000 runs \([0-9]+%\), [0-9,]+ runs/s$`, l)
	}

	// A long stretch inside one tenth still prints, every few seconds.
	b.Reset()
	clock = time.Unix(0, 0)
	p = newProgressTo(&b, false, 1_000_000, "npc", func() time.Time { return clock })
	for range 4 {
		clock = clock.Add(6 * time.Second)
		p.add(1)
	}
	assert.Equal(t, 4, strings.Count(b.String(), "\n"), b.String())
	assert.Contains(t, b.String(), "npc: 4 of 1,000,000 runs (0%), 0 runs/s")
}

// TestSearchProgressOnAPipe: an explorer search on a pipe prints a plain
// line every 10 s of its clock, the first after 10 s, however often the
// search calls (after every chunk of states): a search that ends sooner is
// silent, one of an hour is never silent for long.
func TestSearchProgressOnAPipe(t *testing.T) {
	var b bytes.Buffer
	clock := time.Unix(0, 0)
	progress, done := newSearchProgressTo(&b, false, "conform explore redlock, 3 clients", func() time.Time { return clock })
	// 9.9 s of calls, every 100 ms: nothing yet.
	for k := range 99 {
		clock = clock.Add(100 * time.Millisecond)
		progress(k/10, 1000*k, 50)
	}
	assert.Empty(t, b.String(), "a search of less than 10 s prints nothing")
	// 60 s more of calls, one per second and one per 10 s stretch that
	// has none: six lines, one each 10 s.
	for k := range 60 {
		clock = clock.Add(time.Second)
		progress(12, 1_234_567+k, 89)
	}
	done()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, 6, b.String())
	assert.Equal(t, "conform explore redlock, 3 clients: depth 12, 1,234,567 distinct states, 89 queued, 11s", lines[0])
	for _, l := range lines {
		assert.Regexp(t, `^conform explore redlock, 3 clients: depth 12, [0-9,]+ distinct states, 89 queued, [0-9]+s$`, l)
	}
	// A long level with no call for a minute: the next call prints at once.
	b.Reset()
	clock = clock.Add(time.Minute)
	progress(13, 2_000_000, 0)
	assert.Equal(t, "conform explore redlock, 3 clients: depth 13, 2,000,000 distinct states, 0 queued, 130s\n", b.String())

	// On a terminal: a running line, rewritten, cleared at the end.
	b.Reset()
	progress, done = newSearchProgressTo(&b, true, "explore redlock", func() time.Time { return clock })
	progress(3, 40, 7)
	done()
	assert.Equal(t, "\rexplore redlock: depth 3, 40 distinct states, 7 queued \r\033[K", b.String())
}

// TestSaveRunWritesTheTraceFiles: a TLC run's folder holds TLC's output
// and the counterexample under the names every runtime uses, and is
// cleared of files a run before left.
func TestSaveRunWritesTheTraceFiles(t *testing.T) {
	data, err := os.ReadFile("../tlc/testdata/tool_DistLock_2c_AtMostOneClientHoldLock.out")
	require.NoError(t, err)
	parsed, err := tlc.ParseOutput(bytes.NewReader(data))
	require.NoError(t, err)
	res := &tlc.Result{
		Model:  tlc.Model{Name: "DistLock_2c_AtMostOneClientHoldLock", Spec: "DistLock.tla", Cfg: "DistLock_2c.cfg"},
		Got:    tlc.Got{ExitCode: 12, Result: "invariant", Property: "AtMostOneClientHoldLock"},
		Output: data,
		Parsed: parsed,
	}
	dir := filepath.Join(t.TempDir(), res.Model.Name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stale.txt"), nil, 0o644))
	require.NoError(t, saveRun(nil, dir, res))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, append(trace.FileNames(), "tlc.out"), names)
	out, err := os.ReadFile(filepath.Join(dir, "tlc.out"))
	require.NoError(t, err)
	assert.Equal(t, data, out, "TLC's output as it printed it")
	text, err := os.ReadFile(filepath.Join(dir, trace.TextFile))
	require.NoError(t, err)
	assert.Contains(t, string(text), "AtMostOneClientHoldLock violated at step 8")
}

func TestSpliceReadme(t *testing.T) {
	begin, end := ReadmeMarkers("x")
	readme := "intro\n" + begin + "old\n" + end + "\nrest\n"
	got, err := SpliceReadme(readme, "x", "new\n")
	require.NoError(t, err)
	assert.Equal(t, "intro\n"+begin+"new\n"+end+"\nrest\n", got)
	_, err = SpliceReadme("no markers", "x", "new")
	assert.ErrorContains(t, err, `README has no "x" block`)
	block, err := ReadmeBlock(got, "x")
	require.NoError(t, err)
	assert.Equal(t, "new\n", block)
}

// TestDemoFailsOnAnyTLCMismatch: a model outside the verdict table that
// differs from the manifest (here a witness TLC found holding) fails the
// demo, exit 1, naming it; models that match do not.
func TestDemoFailsOnAnyTLCMismatch(t *testing.T) {
	ok := tlc.Outcome{Model: tlc.Model{Name: "DistLock_2c_AtMostOneClientHoldLock"}}
	witness := tlc.Outcome{Model: tlc.Model{Name: "DistLockFencing_all_2c_Witness"}, Mismatch: "expected invariant NotEveryClientCommits, got ok"}
	variant := tlc.Outcome{Model: tlc.Model{Name: "DistLock_2c_2s_EveryClientCommits", Family: tlc.FamilyVariant}, Mismatch: "expected ok, got liveness"}
	assert.NoError(t, tlcMismatches([]tlc.Outcome{ok, ok}))
	assert.NoError(t, tlcMismatches(nil))
	err := tlcMismatches([]tlc.Outcome{ok, witness, variant})
	var ee *ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, ExitFailure, ee.Code)
	assert.Contains(t, err.Error(), "the manifest differs in 2 TLC models")
	assert.Contains(t, err.Error(), "DistLockFencing_all_2c_Witness (expected invariant NotEveryClientCommits, got ok)")
	assert.Contains(t, err.Error(), "DistLock_2c_2s_EveryClientCommits")
	assert.NotContains(t, err.Error(), "AtMostOneClientHoldLock")
}

// TestDemoSummary: the demo's closing lines, one per part, each saying
// its outcome: agreement, a difference counted for its checker only, TLC
// not run (never passed, and conformance with it), a failed conformance.
func TestDemoSummary(t *testing.T) {
	o := &SimOptions{Runs: 1000, Designs: impl.Designs()}
	agree := report.Join(nil, report.TLC, report.Explorer, report.Simulator)
	violated := verdict.Verdict{Property: impl.NoLostUpdate, Status: verdict.Violated, Violating: 3, Runs: 1000}
	differs := report.Join([]report.Reached{{Design: impl.DesignFenceAll.Describe(), Checker: report.Simulator, Verdicts: verdict.Set{violated}}}, report.TLC, report.Explorer)
	tests := []struct {
		name                         string
		table                        report.Verdicts
		missing, mismatch, conformed error
		want                         []string
	}{
		{"every part agrees", agree, nil, nil, nil, []string{
			"  explorer     28 models, every interleaving: every verdict as DESIGN.md's table expects\n",
			"  simulator    15,000 runs with every fault kind together, 45,000 with one kind alone (the NPC table), 15,000 without faults: every verdict as DESIGN.md's table expects\n",
			"  TLC          60 models, each as the manifest expects: every verdict as DESIGN.md's table expects\n",
			"  conformance  the Go code and the specs agree on every row checked\n"}},
		{"the simulator differs", differs, nil, nil, nil, []string{
			"  simulator    15,000 runs with every fault kind together, 45,000 with one kind alone (the NPC table), 15,000 without faults: ✗ 1 verdict against DESIGN.md's table\n",
			"  explorer     28 models, every interleaving: every verdict as DESIGN.md's table expects\n"}},
		{"no TLC", agree, errors.New("no tla2tools.jar"), nil, nil, []string{
			"  TLC          not run (never passed): no tla2tools.jar\n",
			"  conformance  not run: it needs TLC\n"}},
		{"a model differs from the manifest, conformance fails", agree, nil, errors.New("the manifest differs in 1 TLC model"), errors.New("1 walk rejected"), []string{
			"  TLC          ✗ the manifest differs in 1 TLC model\n",
			"  conformance  ✗ 1 walk rejected\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := demoSummary(tc.table, 28, o, 60, tc.missing, tc.mismatch, tc.conformed)
			for _, w := range tc.want {
				assert.Contains(t, got, w)
			}
			assert.Equal(t, 4, strings.Count(got, "\n"), "a line per part: %s", got)
		})
	}
}
