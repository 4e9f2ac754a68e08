package linearizability

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// lostUpdate is Kleppmann's picture: c1 pauses past its lease, c2 gets the
// lock, both read 0, both write 1. c3 lost its section to fencing.
func lostUpdate() ([]Section, []Annotation) {
	sections := []Section{
		committed(0, 1, 0, 0, 300),
		committed(1, 2, 0, 120, 200),
		aborted(2, 3, 210, 260),
		committed(2, 4, 1, 270, 290),
	}
	annotations := []Annotation{
		{Client: 0, Start: 20, End: 250, Text: "c1 paused 230ns (GC)", Tag: "pause"},
		{Client: -1, Start: 100, End: 100, Text: "lease 1 of c1 expired", Tag: "expiry"},
		{Client: 1, Start: 130, End: 190, Text: "read reply 60ns late", Tag: "spike"},
		{Client: 1, Start: 150, End: 180, Text: "write 30ns late", Tag: "spike"},
		{Client: 2, Start: 0, End: -5, Text: "clock stepped back 5ns", Tag: "clock"},
	}
	return sections, annotations
}

func html(t *testing.T, r Result, anns []Annotation) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, r.WriteHTML(&b, anns))
	return b.String()
}

func TestWriteHTMLSections(t *testing.T) {
	sections, anns := lostUpdate()
	r := CheckSections(sections, generous)
	require.Equal(t, verdict.Violated, r.Verdict.Status)
	page := html(t, r, anns)
	assert.True(t, strings.HasPrefix(page, "<!doctype html>"))
	for _, want := range []string{
		// operations
		"c1 increment → 0 (token 1)", "c2 increment → 0 (token 2)", "c3 increment → 1 (token 4)",
		// the aborted section, drawn though not checked
		"c3 section aborted (token 3)",
		// annotations, in lanes per node and tag, overlapping spikes apart
		"c1 paused 230ns (GC)", "lease 1 of c1 expired", "read reply 60ns late", "write 30ns late", "clock stepped back 5ns",
		`"Tag":"c1 pause"`, `"Tag":"service expiry"`, `"Tag":"c2 spike"`, `"Tag":"c2 spike (2)"`, `"Tag":"c3 clock"`,
		"pause of c1, virtual time 20 to 250 ns",
		// the states along a linearization
		"counter 1",
	} {
		assert.Contains(t, page, want)
	}
	assert.NotContains(t, page, "verdict unknown", "a finished check needs no warning")
}

func TestWriteHTMLResource(t *testing.T) {
	ops := []ResourceOp{
		write(0, 2, 3, 0, 10),
		read(0, 2, 3, 20, 30),
		fenced(write(1, 1, 4, 40, 50)),
		fenced(read(1, 1, 0, 60, 70)),
		read(2, 3, 3, 80, 90),
	}
	r := CheckResource(ops, impl.FenceAll, generous)
	require.Equal(t, verdict.Holds, r.Verdict.Status)
	page := html(t, r, nil)
	for _, want := range []string{
		"c1 write 3 (token 2)", "c1 read → 3 (token 2)", "c2 write 4 (token 1) ✗ fenced", "c2 read (token 1) ✗ fenced",
		"c3 read → 3 (token 3)", "counter 3, highest token 3",
	} {
		assert.Contains(t, page, want)
	}
	// Without tokens (0) the description has none; mode none keeps no
	// highest token, so the state shows none either.
	page = html(t, CheckResource([]ResourceOp{write(2, 0, 5, 0, 10)}, impl.FenceNone, generous), nil)
	assert.Contains(t, page, `"c3 write 5"`)
	assert.Contains(t, page, `"counter 5"`)
}

func TestWriteHTMLIsDeterministic(t *testing.T) {
	// Three sections that all read 0: the check finds three partial
	// linearizations of the same length, which Porcupine hands over in map
	// order. Without canonicalize the pages below differ almost every time.
	sections := []Section{committed(0, 1, 0, 0, 30), committed(1, 2, 0, 10, 40), committed(2, 3, 0, 5, 45), aborted(0, 4, 50, 60)}
	_, anns := lostUpdate()
	first := html(t, CheckSections(sections, generous), anns)
	r := CheckSections(sections, generous)
	reversed := slices.Clone(anns)
	slices.Reverse(reversed)
	for i := range 20 {
		// Compared as booleans: a failure should not print two pages of HTML.
		require.True(t, first == html(t, r, anns), "same Result, drawing %d differs", i)
		require.True(t, first == html(t, CheckSections(sections, generous), reversed), "new check, annotations reversed, drawing %d differs", i)
	}
}

func TestWriteHTMLConcurrently(t *testing.T) {
	sections, anns := lostUpdate()
	r := CheckSections(sections, generous)
	want := html(t, r, anns)
	pages := make(chan string, 4)
	for range cap(pages) {
		go func() {
			var b bytes.Buffer
			if err := r.WriteHTML(&b, anns); err != nil {
				pages <- err.Error()
				return
			}
			pages <- b.String()
		}()
	}
	for range cap(pages) {
		assert.Equal(t, want, <-pages)
	}
}

func TestWriteHTMLUnknown(t *testing.T) {
	r := CheckSections(hardSections(30), time.Millisecond)
	require.Equal(t, verdict.Unknown, r.Verdict.Status)
	assert.Contains(t, html(t, r, nil), "check timed out after 1ms: verdict unknown")
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

func TestWriteHTMLErrors(t *testing.T) {
	var zero Result
	assert.Error(t, zero.WriteHTML(&bytes.Buffer{}, nil), "a Result no check made has nothing to draw")

	full := errors.New("disk full")
	err := CheckSections(nil, generous).WriteHTML(failingWriter{full}, nil)
	assert.ErrorIs(t, err, full)
}

func TestFaultAnnotationLanes(t *testing.T) {
	got := faultAnnotations([]Annotation{
		{Client: 0, Start: 0, End: 10, Text: "a", Tag: "spike"},
		{Client: 0, Start: 5, End: 15, Text: "b", Tag: "spike"},
		{Client: 0, Start: 8, End: 9, Text: "c", Tag: "spike"},
		{Client: 0, Start: 11, End: 20, Text: "d", Tag: "spike"}, // fits after a
		{Client: 0, Start: 10, End: 12, Text: "e", Tag: "spike"}, // touches a: apart
		{Client: -1, Start: 3, Text: "f"},
		{Client: 1, Start: 7, End: 2, Text: "g", Tag: "pause"},
	})
	type lane struct {
		tag, text  string
		start, end int64
	}
	var lanes []lane
	for _, a := range got {
		lanes = append(lanes, lane{a.Tag, a.Description, a.Start, a.End})
	}
	assert.Equal(t, []lane{
		{"c1 spike", "a", 0, 10},
		{"c1 spike (2)", "b", 5, 15},
		{"c1 spike (3)", "c", 8, 9},
		{"c1 spike (3)", "e", 10, 12},
		{"c1 spike", "d", 11, 20},
		{"c2 pause", "g", 7, 7},
		{"service", "f", 3, 3},
	}, lanes)
}
