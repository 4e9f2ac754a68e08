package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/fencelab/fencelab/verdict"
)

// progress reports how far a batch of runs has come, on stderr (stdout
// stays byte-identical): on a terminal a bar (schollz/progressbar), on
// anything else — CI, a pipe, a file — a plain line every tenth of the
// runs or every progressEvery, whichever comes first, after the first
// progressQuiet (a batch that ends sooner prints none). The rate is
// computed here, from the batch's start: the bar's own rate, taken over the
// first chunk of runs alone, read millions of runs per second.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	what  string
	total int
	done  int
	start time.Time
	now   func() time.Time
	bar   *progressbar.ProgressBar
	// plain output: the last tenth and time a line was printed at
	tenth int
	last  time.Time
}

const (
	progressQuiet = time.Second
	progressEvery = 5 * time.Second
)

// newProgress returns a progress callback for total runs (safe for
// concurrent calls) and done, which ends the report.
func newProgress(e *env, total int, what string) (add func(int), done func()) {
	p := newProgressTo(e.stderr, e.terminal, total, what, time.Now)
	return p.add, p.finish
}

func newProgressTo(w io.Writer, terminal bool, total int, what string, now func() time.Time) *progress {
	p := &progress{w: w, what: what, total: max(total, 1), now: now}
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
	line := fmt.Sprintf("%s: %s of %s runs (%d%%)", p.what, verdict.Thousands(p.done), verdict.Thousands(p.total), p.done*100/p.total)
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
	}
}
