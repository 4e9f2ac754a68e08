package linearizability

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// WriteHTML writes Porcupine's visualization of the checked history: one
// lane per client with its operations, the linearization found (or, for an
// Illegal history, the longest partial ones and where they fail), the
// aborted sections greyed in their clients' lanes, and annotations drawn in
// lanes of their own, one per node and tag ("c1 pause", "service expiry";
// overlapping ones of a lane are spread over "c1 spike (2)"...).
//
// It searches the history again, with the linearization data the plain
// check does not keep, within the same timeout. Because of that a Result
// can be drawn any number of times, also concurrently, and the same history
// and annotations give the same bytes whenever the search finishes. For an
// Unknown verdict the picture shows how far a time-limited search got,
// which depends on the machine, and a note in a "check" lane says so.
func (r Result) WriteHTML(w io.Writer, annotations []Annotation) error {
	if r.model.Init == nil {
		return errors.New("linearizability: no checked history to draw (the Result did not come from a check)")
	}
	res, info := porcupine.CheckOperationsVerbose(r.model, r.ops, r.timeout)
	canonicalize(&info)
	notes := slices.Clone(r.notes)
	notes = append(notes, faultAnnotations(annotations)...)
	if note, ok := r.verdictNote(verdictOf(res)); ok {
		notes = append(notes, note)
	}
	info.AddAnnotations(notes)
	var page bytes.Buffer
	if err := porcupine.Visualize(r.model, info, &page); err != nil {
		return fmt.Errorf("linearizability: writing the visualization: %w", err)
	}
	out, err := withPageScript(page.Bytes(), r.clientNames())
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// clientNames are the names of the history's clients by Porcupine's
// ClientId, as the bars and traces name them: c1 for client 0.
func (r Result) clientNames() []string {
	n := 0
	for _, op := range r.ops {
		n = max(n, op.ClientId+1)
	}
	names := make([]string, n)
	for i := range names {
		names[i] = impl.ClientNode(i).String()
	}
	return names
}

// renderCall is where Porcupine's page draws itself; pageScript runs
// after it.
const renderCall = "render(data)"

// pageScript labels the clients' rows as the bars and traces do (c1, c2 for
// Porcupine's 0, 1: the row labels that are a client's number become its
// name) and opens the page at the first violation: it follows Porcupine's
// own "jump to first error" link (which selects the failing partial
// linearization) and brings the first invalid linearization point into
// view at once, where the link scrolls smoothly.
const pageScript = `
      ;(function () {
        const names = %s
        for (const text of document.querySelectorAll('#canvas svg > g > text')) {
          const i = Number(text.textContent)
          if (text.textContent !== '' && String(i) === text.textContent && i >= 0 && i < names.length) {
            text.textContent = names[i]
          }
        }
        const jump = document.querySelector('#jump-link')
        if (jump && !jump.classList.contains('inactive')) {
          jump.dispatchEvent(new MouseEvent('click'))
          const first = [...document.querySelectorAll('.linearization-invalid')]
            .filter((el) => !el.parentElement.classList.contains('hidden'))
            .sort((a, b) => a.getBBox().x - b.getBBox().x)[0]
          if (first) {
            first.scrollIntoView({block: 'center', inline: 'center'})
          }
        }
      })()
`

// withPageScript is Porcupine's page with pageScript after its render call.
func withPageScript(page []byte, names []string) ([]byte, error) {
	at := bytes.LastIndex(page, []byte(renderCall))
	if at < 0 {
		return nil, errors.New("linearizability: Porcupine's page has no render call to follow")
	}
	js, err := json.Marshal(names)
	if err != nil {
		return nil, err
	}
	at += len(renderCall)
	out := slices.Clone(page[:at])
	out = fmt.Appendf(out, pageScript, js)
	return append(out, page[at:]...), nil
}

// canonicalize orders the partial linearizations of each partition. Porcupine
// collects them through a map, so their order changes from run to run, and
// its Visualize only sorts them by length (unstably); ties would then come
// out in a random order and the HTML would differ byte for byte. This relies
// on PartialLinearizations returning the info's own slices, as v1.3.1 does;
// TestWriteHTMLIsDeterministic fails if that ever stops being true.
func canonicalize(info *porcupine.LinearizationInfo) {
	for _, partials := range info.PartialLinearizations() {
		slices.SortFunc(partials, func(a, b []int) int {
			if c := cmp.Compare(len(b), len(a)); c != 0 {
				return c // longest first, as Visualize wants them
			}
			return slices.Compare(a, b)
		})
	}
}

// verdictNote explains a picture that is not the final word: the search
// timed out, or (near the timeout) ended otherwise than the check did.
func (r Result) verdictNote(drawn verdict.Status) (porcupine.Annotation, bool) {
	var text string
	switch {
	case drawn == verdict.Unknown:
		text = fmt.Sprintf("check timed out after %v: verdict unknown; the picture shows only how far the search got", r.timeout)
	case drawn != r.Verdict.Status:
		text = fmt.Sprintf("the check said %s; this picture's search, with the same %v timeout, ended %s", Word(r.Verdict.Status), r.timeout, Word(drawn))
	default:
		return porcupine.Annotation{}, false
	}
	var start, end int64
	for i, op := range r.ops {
		if i == 0 || op.Call < start {
			start = op.Call
		}
		end = max(end, op.Return)
	}
	return porcupine.Annotation{Tag: "check", Start: start, End: end, Description: text, BackgroundColor: "#ffd6d6"}, true
}

// abortedNote draws an aborted section in its client's lane. A client runs
// its sections one after another, so the note never covers one of its
// checked operations.
func abortedNote(s Section) porcupine.Annotation {
	return porcupine.Annotation{
		ClientId:        s.Client,
		Start:           s.Call,
		End:             s.Return,
		Description:     fmt.Sprintf("%s section aborted%s", clientName(s.Client), tokenSuffix(s.Token)),
		Details:         "aborted: no effect on the counter, so not part of the check",
		BackgroundColor: "#e4e4e4",
		TextColor:       "#666666",
	}
}

// tagColor tells the kinds of annotation apart at a glance; other tags get
// Porcupine's default.
func tagColor(tag string) string {
	switch tag {
	case "pause":
		return "#ffe0a3"
	case "spike":
		return "#cfe6ff"
	case "clock":
		return "#e6d7ff"
	case "expiry":
		return "#ffc9c9"
	}
	return ""
}

// faultAnnotations turns the simulator's annotations into Porcupine's, each
// in a lane named for its node and tag. They do not go into the clients'
// own lanes: a pause of c1 lies over c1's section, and the two boxes would
// hide each other. Porcupine draws overlapping annotations of one lane on
// top of each other, so an annotation that overlaps an earlier one of its
// lane moves to a numbered lane beside it.
func faultAnnotations(anns []Annotation) []porcupine.Annotation {
	type item struct {
		Annotation
		node, lane string
	}
	items := make([]item, len(anns))
	for i, a := range anns {
		node := "service"
		if a.Client >= 0 {
			node = clientName(a.Client)
		}
		lane := node
		if a.Tag != "" {
			lane = node + " " + a.Tag
		}
		a.End = max(a.End, a.Start)
		items[i] = item{Annotation: a, node: node, lane: lane}
	}
	// Sorting makes the packing, and so the picture, independent of the
	// order the simulator recorded them in.
	slices.SortStableFunc(items, func(a, b item) int {
		return cmp.Or(strings.Compare(a.lane, b.lane), cmp.Compare(a.Start, b.Start),
			cmp.Compare(a.End, b.End), strings.Compare(a.Text, b.Text))
	})
	out := make([]porcupine.Annotation, 0, len(items))
	var ends []int64 // the end of the last annotation in each sub-lane of the current lane
	for i, it := range items {
		if i == 0 || it.lane != items[i-1].lane {
			ends = ends[:0]
		}
		k := slices.IndexFunc(ends, func(end int64) bool { return end < it.Start })
		if k < 0 {
			k = len(ends)
			ends = append(ends, it.End)
		} else {
			ends[k] = it.End
		}
		tag := it.lane
		if k > 0 {
			tag = fmt.Sprintf("%s (%d)", it.lane, k+1)
		}
		what := it.Tag
		if what == "" {
			what = "note"
		}
		out = append(out, porcupine.Annotation{
			Tag:             tag,
			Start:           it.Start,
			End:             it.End,
			Description:     it.Text,
			Details:         fmt.Sprintf("%s of %s, virtual time %d to %d ns", what, it.node, it.Start, it.End),
			BackgroundColor: tagColor(it.Tag),
		})
	}
	return out
}
