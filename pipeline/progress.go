package pipeline

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/verdict"
)

// progress reports how far a long stage has come, on stderr (stdout
// stays byte-identical): on a terminal a bar (schollz/progressbar), on
// anything else — CI, a pipe, a file — plain lines. Of runs (fast, many):
// a line every tenth of the runs or every progressEvery, whichever comes
// first, after the first progressQuiet (a batch that ends sooner prints
// none); the rate is computed here, from the batch's start (the bar's own
// rate, taken over the first chunk of runs alone, read millions of runs
// per second). Of steps (slow, few: TLC models, conformance groups): a line
// per step, at most one every progressStepGap, naming the step, and the
// last step's line whatever the gap, after the first progressQuiet (a
// stage that ends sooner prints none).
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	what  string
	unit  string // the noun counted, for words.Count
	steps bool   // a line per step (newStepProgress), not per tenth
	total int    // 0: not known in advance
	done  int
	start time.Time
	now   func() time.Time
	bar   *progressbar.ProgressBar
	// plain output: the last tenth and time a line was printed at, the
	// steps counted then, and the last step's name
	tenth   int
	last    time.Time
	printed int
	name    string
}

const (
	progressQuiet   = time.Second
	progressEvery   = 5 * time.Second
	progressStepGap = time.Second
)

// NewProgress returns a progress callback for total runs (safe for
// concurrent calls) and done, which ends the report.
func NewProgress(e *Env, total int, what string) (add func(int), done func()) {
	p := newProgressTo(e.Stderr, e.Terminal, total, what, time.Now)
	return p.add, p.finish
}

// NewStepProgress returns a progress callback for a stage of total steps
// (0 when the count is not known in advance) counted as unit ("model"),
// each step named as it ends (safe for concurrent calls), and done, which
// ends the report.
func NewStepProgress(e *Env, total int, what, unit string) (step func(name string), done func()) {
	p := newStepProgressTo(e.Stderr, e.Terminal, total, what, unit, time.Now)
	return p.step, p.finish
}

func newStepProgressTo(w io.Writer, terminal bool, total int, what, unit string, now func() time.Time) *progress {
	p := &progress{w: w, what: what, unit: unit, steps: true, total: max(total, 0), now: now}
	p.start = now()
	if terminal {
		max := total
		if total <= 0 {
			max = -1 // a spinner: the count is not known
		}
		p.bar = progressbar.NewOptions(max,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// step counts one step, named name, as ended.
func (p *progress) step(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.name = name
	if p.bar != nil {
		p.bar.Describe(p.what + " " + name)
		_ = p.bar.Add(1)
		return
	}
	t := p.now()
	if t.Sub(p.start) < progressQuiet || (p.printed > 0 && t.Sub(p.last) < progressStepGap && p.done != p.total) {
		return
	}
	p.printStep(t)
}

// printStep prints the plain line of the steps so far.
func (p *progress) printStep(t time.Time) {
	p.last, p.printed = t, p.done
	count := words.Count(p.done, p.unit)
	if p.total > 0 {
		count = fmt.Sprintf("%d of %s (%d%%)", p.done, words.Count(p.total, p.unit), p.done*100/p.total)
	}
	fmt.Fprintf(p.w, "%s: %s, %.0fs; last: %s\n", p.what, count, t.Sub(p.start).Seconds(), p.name)
}

func newProgressTo(w io.Writer, terminal bool, total int, what string, now func() time.Time) *progress {
	p := &progress{w: w, what: what, unit: "run", total: max(total, 1), now: now}
	p.start, p.last = now(), now()
	if terminal {
		p.bar = progressbar.NewOptions(p.total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// rate is the runs per second so far, "" before there is a fair measure
// (the first half second).
func (p *progress) rate(t time.Time) string {
	elapsed := t.Sub(p.start)
	if elapsed < 500*time.Millisecond {
		return ""
	}
	return fmt.Sprintf("%s runs/s", verdict.Thousands(int(float64(p.done)/elapsed.Seconds())))
}

func (p *progress) add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	t := p.now()
	if p.bar != nil {
		if r := p.rate(t); r != "" {
			p.bar.Describe(p.what + " " + r)
		}
		_ = p.bar.Add(n)
		return
	}
	tenth := p.done * 10 / p.total
	if t.Sub(p.start) < progressQuiet || (tenth == p.tenth && t.Sub(p.last) < progressEvery) {
		return
	}
	p.tenth, p.last = tenth, t
	line := fmt.Sprintf("%s: %s of %s (%d%%)", p.what, verdict.Thousands(p.done), words.Count(p.total, p.unit), p.done*100/p.total)
	if r := p.rate(t); r != "" {
		line += ", " + r
	}
	fmt.Fprintln(p.w, line)
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		return
	}
	if p.steps && p.printed > 0 && p.done > p.printed {
		// The steps the gap held back: the stage's last line says them.
		p.printStep(p.now())
	}
}

// searchProgressEvery is how often an explorer search on a pipe prints a
// line: one that lasts an hour prints 360, one that ends sooner none.
const searchProgressEvery = 10 * time.Second

// NewSearchProgress returns the explorer's progress callback
// (explore.Config.Progress) for a search named what, on stderr (stdout
// stays byte-identical): on a terminal a running line, rewritten at each
// call and cleared by done; on anything else — CI, a pipe, a file — a
// plain line every searchProgressEvery, the first after it, so that a
// long search is never silent and a short one prints nothing.
func NewSearchProgress(e *Env, what string) (progress func(depth, distinct, queued int), done func()) {
	return newSearchProgressTo(e.Stderr, e.Terminal, what, time.Now)
}

func newSearchProgressTo(w io.Writer, terminal bool, what string, now func() time.Time) (func(depth, distinct, queued int), func()) {
	if terminal {
		return func(depth, distinct, queued int) {
				fmt.Fprintf(w, "\r%s: depth %d, %s distinct states, %s queued ", what, depth, verdict.Thousands(distinct), verdict.Thousands(queued))
			}, func() {
				fmt.Fprint(w, "\r\033[K")
			}
	}
	start := now()
	last := start
	return func(depth, distinct, queued int) {
		t := now()
		if t.Sub(last) < searchProgressEvery {
			return
		}
		last = t
		fmt.Fprintf(w, "%s: depth %d, %s distinct states, %s queued, %.0fs\n", what, depth, verdict.Thousands(distinct), verdict.Thousands(queued), t.Sub(start).Seconds())
	}, func() {}
}
