package explore

import (
	"fmt"
	"testing"

	"github.com/fencelab/fencelab/impl"
)

// BenchmarkExplore measures the explorer on whole models: distinct states
// per second of wall time (one goroutine: the search is single-threaded),
// and the bytes of memory per stored state — the fingerprint table alone
// (table-B/state) and with the peak breadth-first frontier (B/state).
// The headline model is the 3-client "all" design, the one whose state
// space must be explored to the end; run it with
//
//	go test -run '^$' -bench 'Explore/all/3c' -benchtime 5x ./explore
func BenchmarkExplore(b *testing.B) {
	symmetric := DefaultConfig(impl.DesignFenceAll, 3)
	symmetric.Symmetry = true
	for _, cfg := range []Config{
		DefaultConfig(impl.DesignFenceAll, 3),
		symmetric,
		DefaultConfig(impl.DesignFenceNone, 3),
		DefaultConfig(impl.DesignFenceAll, 2),
	} {
		name := fmt.Sprintf("%s/%dc", cfg.Design, cfg.Clients)
		if cfg.Symmetry {
			name += "/symmetry"
		}
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
			b.ReportMetric(float64(distinct)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(res.TableBytes)/float64(res.Distinct), "table-B/state")
			b.ReportMetric(float64(res.TableBytes+res.FrontierBytes)/float64(res.Distinct), "B/state")
			b.ReportMetric(float64(res.Distinct), "states")
		})
	}
}
