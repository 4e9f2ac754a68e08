package campaign

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/sim"
	"github.com/fencelab/fencelab/verdict"
)

// Model is the simulator's telling of a campaign's runs
// (report.TellSim): for each story that mapped, the schedule, how many
// runs told it and what the simulator violated on it; for the runs that
// did not map, why. It is the model's word for this very story, beside
// the row's (impl.Expected), which is about every story.
type Model struct {
	Stories []Story   `json:"stories"`
	None    []NoStory `json:"none"`
}

// Story is one simulator schedule told by Runs runs of the campaign.
type Story struct {
	Clients  int `json:"clients"`
	Sections int `json:"sections"`
	// Think is the simulator's think (0: its default's, as a summary
	// written before stories kept theirs).
	Think    time.Duration `json:"think,omitempty"`
	Schedule *sim.Schedule `json:"schedule"`
	Runs     int           `json:"runs"`
	// Violated are the properties of report.ModelProperties the
	// simulator violated on the schedule: what a reader recomputes
	// (Model.verify), never takes from the file.
	Violated []string `json:"violated"`
}

// NoStory is why Runs runs of the campaign have no simulator story.
type NoStory struct {
	Reason string `json:"reason"`
	Runs   int    `json:"runs"`
}

// maxReason bounds a reason kept in a summary.
const maxReason = 400

// tell adds one run's story, or why it has none (err from TellSim).
func (m *Model) tell(st *report.SimStory, err error) {
	if err != nil {
		m.addNone(NoStory{Reason: quote.Cut(history.OneLine(err.Error(), maxReason), maxReason), Runs: 1})
		return
	}
	m.addStory(Story{Clients: st.Config.Clients, Sections: st.Config.Sections, Think: st.Config.Think, Schedule: st.Schedule, Runs: 1, Violated: st.Violated(check.Properties())})
}

// addStory counts s's runs in the story with the same schedule, or adds
// it.
func (m *Model) addStory(s Story) {
	for i := range m.Stories {
		if m.Stories[i].sameSchedule(s) {
			m.Stories[i].Runs += s.Runs
			return
		}
	}
	m.Stories = append(m.Stories, s)
}

func (m *Model) addNone(n NoStory) {
	for i := range m.None {
		if m.None[i].Reason == n.Reason {
			m.None[i].Runs += n.Runs
			return
		}
	}
	m.None = append(m.None, n)
}

// merge adds o's stories and reasons to m (a shard's part of a campaign).
func (m *Model) merge(o Model) {
	for _, s := range o.Stories {
		m.addStory(s)
	}
	for _, n := range o.None {
		m.addNone(n)
	}
}

func (s Story) sameSchedule(o Story) bool {
	if s.Clients != o.Clients || s.Sections != o.Sections || s.Think != o.Think {
		return false
	}
	a, errA := json.Marshal(s.Schedule)
	b, errB := json.Marshal(o.Schedule)
	return errA == nil && errB == nil && string(a) == string(b)
}

// runs is how many runs the model holds: mapped and not.
func (m *Model) runs() int {
	n := 0
	for _, s := range m.Stories {
		n += s.Runs
	}
	for _, r := range m.None {
		n += r.Runs
	}
	return n
}

// verify checks m as a campaign of runs runs of row d: every run told
// once, and each story's verdicts those the simulator gives its schedule
// now (report.RetellSim) — a summary's model words are recomputed, and
// one that claims others is refused.
func (m *Model) verify(d impl.Design, runs int) error {
	for i, s := range m.Stories {
		if s.Runs < 1 {
			return fmt.Errorf("model story %d: %d runs", i+1, s.Runs)
		}
		got, err := report.RetellSim(d, s.Clients, s.Sections, s.Think, s.Schedule, check.Properties())
		if err != nil {
			return fmt.Errorf("model story %d: %w", i+1, err)
		}
		want := slices.Sorted(slices.Values(s.Violated))
		slices.Sort(got)
		if !slices.Equal(got, want) {
			return fmt.Errorf("model story %d: the summary says the simulator violated [%s] on it, the simulator violates [%s]", i+1, strings.Join(want, " "), strings.Join(got, " "))
		}
	}
	for i, n := range m.None {
		if n.Runs < 1 || n.Reason == "" || len(n.Reason) > maxReason {
			return fmt.Errorf("no-story reason %d: %d runs, %d bytes", i+1, n.Runs, len(n.Reason))
		}
	}
	if got := m.runs(); got != runs {
		return fmt.Errorf("the model's stories tell %d runs of %d", got, runs)
	}
	return nil
}

// ModelWord is the model's word on one property for a campaign's own
// story: what the simulator said of the runs whose faults mapped, or,
// where none did, the row's verdict and why.
type ModelWord struct {
	// Decides says the simulator's story speaks to the property
	// (report.ModelProperties); the others keep the row's word.
	Decides bool
	// Runs is how many runs' stories mapped; Violated how many of those
	// the simulator violated the property on.
	Runs, Violated int
	// Caveat says why the story is not the live client's own
	// (report.StoryCaveat): its violations bind nobody.
	Caveat string
	// NoStory is why no run mapped (the reason most runs gave), when
	// none did.
	NoStory string
}

// wordOn is the model's word on property p for runs of s under f.
func (m *Model) wordOn(p string, s setup.Setup, f history.Fault) ModelWord {
	w := ModelWord{Decides: slices.Contains(report.ModelProperties(check.Properties()), p), Caveat: report.StoryCaveat(s, f)}
	for _, st := range m.Stories {
		w.Runs += st.Runs
		if slices.Contains(st.Violated, p) {
			w.Violated += st.Runs
		}
	}
	if w.Runs == 0 && len(m.None) > 0 {
		// The reason of the most runs, the least of those: the same word
		// whatever order the runs (or a campaign's shards) came in.
		first := slices.MinFunc(m.None, func(a, b NoStory) int {
			return cmp.Or(cmp.Compare(b.Runs, a.Runs), cmp.Compare(a.Reason, b.Reason))
		})
		w.NoStory = first.Reason
	}
	return w
}

// Story is the model's verdict for this story: the simulator's where it
// decides the property and some run mapped (Violated where it violated
// it on every story, Holds on none, Unknown between), else row, the
// row's.
func (w ModelWord) Story(row verdict.Status) (s verdict.Status, fromStory bool) {
	if !w.Decides || w.Runs == 0 || row == verdict.NotApplicable {
		return row, false
	}
	switch w.Violated {
	case w.Runs:
		return verdict.Violated, true
	case 0:
		return verdict.Holds, true
	}
	return verdict.Unknown, true
}

// modelWords sets each tally's model word from s.Model.
func (s *Summary) modelWords() {
	for i := range s.Tallies {
		s.Tallies[i].Model = s.Model.wordOn(s.Tallies[i].Property, s.Setup, s.Fault)
	}
}
