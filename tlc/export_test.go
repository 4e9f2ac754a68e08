package tlc

import "context"

// Translate runs the PlusCal translator on file in dir, for the tests of
// package tlc_test that mutate a spec (they run the real TLC, so they get
// it from internal/tlctest, which imports this package).
func (r *Runner) Translate(ctx context.Context, dir, file string) ([]byte, int, error) {
	return r.java(ctx, dir, shortRun(), "pcal.trans", "-nocfg", file)
}
