package explore

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// searchOnce is one configuration's search, run at most once per test
// binary.
type searchOnce struct {
	once   sync.Once
	res    *Result
	levels []int // distinct states after each breadth-first level
	err    error
}

// searches holds the searches of this test binary by configuration (see
// runShared). Test code only: the explorer itself keeps no state between
// searches.
var searches sync.Map // string → *searchOnce

// runShared returns Run(c) and the distinct states after each level, from
// one search per configuration and test binary: the pinned figures, the
// matrix, --first, the naive search, symmetry, sleep sets and the witnesses
// all look at the same models, and under the race detector a large one
// costs seconds each time. The Result is shared: callers only read it.
// Tests of Run itself (determinism, workers) call Run.
func runShared(t *testing.T, c Config) (*Result, []int) {
	t.Helper()
	require.Nil(t, c.Progress, "runShared records the levels itself")
	c.Workers = 0 // any number of workers gives the same Result (TestWorkersDoNotChangeTheResult)
	v, _ := searches.LoadOrStore(fmt.Sprintf("%#v", c), new(searchOnce))
	s := v.(*searchOnce)
	s.once.Do(func() {
		c.Progress = func(_, distinct, _ int) { s.levels = append(s.levels, distinct) }
		if s.res, s.err = Run(c); s.err == nil {
			s.res.Config.Progress = nil
		}
	})
	require.NoError(t, s.err)
	return s.res, s.levels
}
