package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fencelab/fencelab/live/campaign"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeCampaigns stands in for campaign.Run: campaign i (its seed) blocks
// until release[i] is closed, so a test decides the order they end in.
type fakeCampaigns struct {
	mu             sync.Mutex
	running, most  int
	started        []int
	release        []chan struct{}
	startedSignals chan int
}

func newFake(n int) *fakeCampaigns {
	f := &fakeCampaigns{startedSignals: make(chan int, n)}
	for range n {
		f.release = append(f.release, make(chan struct{}))
	}
	return f
}

func (f *fakeCampaigns) run(ctx context.Context, cfg campaign.Config) (*campaign.Summary, error) {
	i := int(cfg.Run.Seed)
	f.mu.Lock()
	f.running++
	f.most = max(f.most, f.running)
	f.started = append(f.started, i)
	f.mu.Unlock()
	f.startedSignals <- i
	defer func() {
		f.mu.Lock()
		f.running--
		f.mu.Unlock()
	}()
	select {
	case <-f.release[i]:
		return &campaign.Summary{Runs: i + 1}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func fakePlans(n int) []campaign.Config {
	plans := make([]campaign.Config, n)
	for i := range plans {
		plans[i].Run.Seed = uint64(i)
	}
	return plans
}

// TestRunCampaignsInPlanOrder: campaigns that end in the reverse order
// are handed on in the plans' order, at most parallel run at once, the
// skipped ones never run nor are handed on, and every one ran.
func TestRunCampaignsInPlanOrder(t *testing.T) {
	for _, parallel := range []int{1, 2, 3, 8} {
		t.Run(fmt.Sprint("parallel ", parallel), func(t *testing.T) {
			const n = 7
			f := newFake(n)
			skip := func(i int) bool { return i == 2 }
			var got []int
			finished := make(chan struct{})
			go func() {
				defer close(finished)
				runCampaigns(context.Background(), fakePlans(n), parallel, f.run, skip, func(i int, o outcome) {
					require.NoError(t, o.err)
					assert.Equal(t, i+1, o.summary.Runs, "campaign %d's own outcome", i)
					got = append(got, i)
				})
			}()
			// Release the running campaigns newest first, as they start.
			for left := n - 1; left > 0; {
				var batch []int
				batch = append(batch, <-f.startedSignals)
				for len(batch) < parallel && len(batch) < left {
					batch = append(batch, <-f.startedSignals)
				}
				slices.Sort(batch)
				for k := len(batch) - 1; k >= 0; k-- {
					close(f.release[batch[k]])
				}
				left -= len(batch)
			}
			<-finished
			assert.Equal(t, []int{0, 1, 3, 4, 5, 6}, got, "in plan order, the skipped one left out")
			assert.LessOrEqual(t, f.most, parallel, "at most parallel at once")
			if parallel > 1 {
				assert.Greater(t, f.most, 1, "campaigns ran at once")
			}
			assert.NotContains(t, f.started, 2, "a skipped campaign never runs")
		})
	}
}

// TestRunCampaignsStopped: once ctx ends no campaign starts, those
// running end with ctx, each is handed on with ctx's error, and
// runCampaigns returns only after every campaign it started returned.
func TestRunCampaignsStopped(t *testing.T) {
	const n, parallel = 6, 2
	f := newFake(n)
	ctx, cancel := context.WithCancel(context.Background())
	var errs []error
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		runCampaigns(ctx, fakePlans(n), parallel, f.run, func(int) bool { return false }, func(i int, o outcome) {
			errs = append(errs, o.err)
		})
	}()
	<-f.startedSignals
	<-f.startedSignals
	cancel()
	<-finished
	require.Len(t, errs, n, "every campaign handed on")
	for i, err := range errs {
		assert.ErrorIs(t, err, context.Canceled, "campaign %d", i)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	assert.Len(t, f.started, parallel, "none started after the stop")
	assert.Zero(t, f.running, "none still running")
}

// matrixTable is a matrix's verdict table from its stdout: its
// campaigns in order, each property's expected verdict and the live
// verdict's word — violated, held, safe, inconclusive, not applicable. The
// counts behind the words (runs the fault took effect in, runs that
// violated) are samples of real runs on a loaded machine and may differ
// between two runs of one campaign; the verdicts may not.
func matrixTable(stdout string) string {
	header := regexp.MustCompile(`^(\S+ \(row \S+\) under \S+ \S+): (\d+) runs in .*$`)
	property := regexp.MustCompile(`^  (\S+) +expected (\S+) +live (violated|held|safe|inconclusive|—).*$`)
	var lines []string
	for _, l := range strings.Split(stdout, "\n") {
		switch {
		case header.MatchString(l):
			lines = append(lines, header.ReplaceAllString(l, "$1: $2 runs"))
		case property.MatchString(l):
			lines = append(lines, property.ReplaceAllString(l, "$1 expected $2, live $3"))
		}
	}
	return strings.Join(lines, "\n")
}

// TestMatrixConcurrentIsSerial: the scripted matrix run with its
// campaigns at once prints the same verdict table, in the same order, as
// run one campaign at a time, and their runs did overlap (a later
// campaign's progress line before an earlier one's last): the toy
// service's rows (the example lock, an in-process server) and Redis's
// (real servers on free ports, the clock shim) where it is installed.
func TestMatrixConcurrentIsSerial(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs: client processes and servers")
	}
	t.Setenv(livetest.RoleEnv, "client") // the client processes' role
	var toy []setup.Setup
	for _, s := range livetest.Toy() {
		// The example lock's rows only: broken-all shares its register
		// between its Start and its Audit (one run at a time), keeper's
		// section outlives its lease, and the other planted bugs fail the
		// matrix on purpose. The toy's wipe hands token 1 out again, and
		// the old holder's release of it frees the new holder's lock, an
		// overlap the judge does not lay on the restart (a harness error,
		// serial or not): client pauses only.
		if slices.Contains([]string{"none", "all", "off", "writes"}, s.Name) {
			s.Faults = []history.Fault{history.FaultClientPause}
			toy = append(toy, s)
		}
	}
	// The checked client only, and Redis's Go setups: an unchecked
	// client slowed past its 200 ms lease by a loaded machine, or a Node
	// library's late refresh, makes two holders no fault explains (a
	// harness error, both cores busy); serial against parallel is what
	// this test compares.
	var redis []setup.Setup
	for _, s := range setup.All() {
		if s.ClientCommand == "" {
			redis = append(redis, s)
		}
	}
	services := []struct {
		name, client string
		setups       []setup.Setup
		need         func(*testing.T)
	}{
		{"toy", "checked", toy, func(*testing.T) {}},
		{"redis", "checked", redis, livetest.NeedRedis},
	}
	for _, sv := range services {
		t.Run(sv.name, func(t *testing.T) {
			sv.need(t)
			tables := map[string]string{}
			for _, parallel := range []string{"1", "4"} {
				out := t.TempDir()
				var stdout, stderr bytes.Buffer
				code := Run(sv.setups, []string{"matrix", "--service", sv.name, "--runs", "2", "--client", sv.client,
					"--parallel", parallel, "--out", out}, nil, &stdout, &stderr)
				require.Equal(t, ExitOK, code, "--parallel %s: stdout: %s\nstderr: %s", parallel, stdout.String(), stderr.String())
				tables[parallel] = matrixTable(stdout.String())
				order := campaignsOf(stdout.String())
				require.NotEmpty(t, order)
				if parallel != "1" {
					assert.True(t, overlapped(stderr.String(), order), "campaigns ran at once: %s", stderr.String())
				}
				// Each campaign's summary in its own folder, its own.
				for _, c := range order {
					f := strings.Fields(c) // setup, nemesis, fault:
					file := filepath.Join(out, filepath.FromSlash(f[0]), strings.TrimSuffix(f[2], ":"), campaign.SummaryFile)
					var saved campaign.SavedSummary
					data, err := os.ReadFile(file)
					require.NoError(t, err)
					require.NoError(t, json.Unmarshal(data, &saved))
					assert.Equal(t, f[0], saved.Setup, file)
					assert.Equal(t, 2, saved.Runs, file)
				}
			}
			assert.Equal(t, tables["1"], tables["4"], "the same verdicts in the same order")
		})
	}
}

// campaignsOf is the campaigns of a matrix's stdout in order, as their
// progress lines name them ("toy/none scripted client-pause").
func campaignsOf(stdout string) []string {
	header := regexp.MustCompile(`(?m)^(\S+) \(row \S+\) under (\S+) (\S+):`)
	var names []string
	for _, m := range header.FindAllStringSubmatch(stdout, -1) {
		names = append(names, m[1]+" "+m[2]+" "+m[3]+":")
	}
	return names
}

// overlapped says whether some campaign's progress line on stderr came
// before the last of an earlier campaign's: they ran at once.
func overlapped(stderr string, order []string) bool {
	lines := strings.Split(stderr, "\n")
	first, last := map[string]int{}, map[string]int{}
	for i, l := range lines {
		for _, c := range order {
			if strings.HasPrefix(l, c) {
				if _, ok := first[c]; !ok {
					first[c] = i
				}
				last[c] = i
			}
		}
	}
	for k := 1; k < len(order); k++ {
		for j := range k {
			if f, ok := first[order[k]]; ok && f < last[order[j]] {
				return true
			}
		}
	}
	return false
}

// TestRunCampaignsLongestFirst: campaigns start restarts first, then
// server pauses, then network faults, then the rest, the plans' order
// kept within each; they are still handed on in the plans' order.
func TestRunCampaignsLongestFirst(t *testing.T) {
	faults := []history.Fault{history.FaultClientPause, history.FaultRestartKeep, history.FaultDelay,
		history.FaultServerPause, history.FaultRestartWipe, history.FaultClockStep, history.FaultBlackhole}
	plans := fakePlans(len(faults))
	for i, f := range faults {
		plans[i].Run.Fault = f
	}
	f := newFake(len(plans))
	var got []int
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		runCampaigns(context.Background(), plans, 1, f.run, func(int) bool { return false }, func(i int, o outcome) {
			require.NoError(t, o.err)
			got = append(got, i)
		})
	}()
	for range plans {
		close(f.release[<-f.startedSignals])
	}
	<-finished
	assert.Equal(t, []int{1, 4, 3, 2, 6, 0, 5}, f.started, "restarts, server pause, network faults, the rest")
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6}, got, "handed on in the plans' order")
}
