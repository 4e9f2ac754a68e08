package explore

import (
	"fmt"
	"testing"

	"github.com/fencelab/fencelab/impl"
)

// BenchmarkExplore measures the explorer on whole models, with one worker
// and with two: distinct states per second of wall time, and the bytes of
// memory per stored state — the fingerprint table alone (table-B/state),
// with the peak frontier (B/state), and the most the search held at once,
// the workers' buffers included (peak-B/state) — and on disk
// (disk-B/state: the trace file, 5 bytes a state, and whatever spilled).
// The whole process's peak RSS is /usr/bin/time -v's to measure (see
// docs/performance.md). The
// headline models are the 3-client "all" design, whose state space must
// be explored to the end, and its 4-client symmetric version; compare the
// worker counts in one invocation (the machine is shared):
//
//	go test -run '^$' -bench 'Explore/all/3c' -count 5 ./explore
//	go test -run '^$' -bench 'Explore/all/4c' -benchtime 1x -count 3 ./explore
//
// BenchmarkExploreOnDisk runs a model with a memory bound far below what
// it needs, so that the fingerprints and the levels go to disk.
//
// The /por models add partial-order reduction (sleep sets): the same
// states, fewer transitions.
func BenchmarkExplore(b *testing.B) {
	sym3 := DefaultConfig(impl.DesignFenceAll, 3)
	sym3.Symmetry = true
	sym4 := DefaultConfig(impl.DesignFenceAll, 4)
	sym4.Symmetry = true
	por3, por4 := sym3, sym4
	por3.SleepSets, por4.SleepSets = true, true
	for _, cfg := range []Config{
		DefaultConfig(impl.DesignFenceAll, 3),
		sym3,
		sym4,
		por3,
		por4,
		DefaultConfig(impl.DesignFenceNone, 3),
		DefaultConfig(impl.DesignFenceAll, 2),
	} {
		for _, workers := range []int{1, 2} {
			cfg.Workers = workers
			name := fmt.Sprintf("%s/%dc", cfg.Design, cfg.Clients)
			if cfg.Symmetry {
				name += "/symmetry"
			}
			if cfg.SleepSets {
				name += "/por"
			}
			name += fmt.Sprintf("/workers=%d", workers)
			b.Run(name, func(b *testing.B) {
				var res *Result
				var distinct int
				for b.Loop() {
					var err error
					if res, err = Run(cfg); err != nil {
						b.Fatal(err)
					}
					distinct += res.Distinct
				}
				n := float64(res.Distinct)
				b.ReportMetric(float64(distinct)/b.Elapsed().Seconds(), "states/s")
				b.ReportMetric(float64(res.TableBytes)/n, "table-B/state")
				b.ReportMetric(float64(res.TableBytes+res.FrontierBytes)/n, "B/state")
				b.ReportMetric(float64(res.PeakBytes)/n, "peak-B/state")
				b.ReportMetric(float64(res.DiskBytes)/n, "disk-B/state")
				b.ReportMetric(n, "states")
			})
		}
	}
}

// BenchmarkExploreOnDisk is the 3-client symmetric model of mode all
// (75,272 states) under a memory bound of 1 MiB: the table flushes to disk
// every few chunks and the levels spill, beside the same model unbounded.
//
//	go test -run '^$' -bench 'ExploreOnDisk' -count 5 ./explore
func BenchmarkExploreOnDisk(b *testing.B) {
	for _, bound := range []int{0, 1 << 20} {
		cfg := DefaultConfig(impl.DesignFenceAll, 3)
		cfg.Symmetry, cfg.SleepSets, cfg.Workers, cfg.MaxMemory = true, true, 1, bound
		b.Run(fmt.Sprintf("max-memory=%s", Bytes(bound)), func(b *testing.B) {
			var res *Result
			var distinct int
			for b.Loop() {
				var err error
				if res, err = Run(cfg); err != nil {
					b.Fatal(err)
				}
				distinct += res.Distinct
			}
			b.ReportMetric(float64(distinct)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(res.PeakBytes)/float64(res.Distinct), "peak-B/state")
			b.ReportMetric(float64(res.Flushes), "flushes")
		})
	}
}
