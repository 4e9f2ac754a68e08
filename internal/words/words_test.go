package words

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "section", "0 sections"}, {1, "section", "1 section"}, {2, "section", "2 sections"}, {-1, "step", "-1 step"},
		{1, "retry", "1 retry"}, {3, "retry", "3 retries"}, {2, "property", "2 properties"}, {2, "day", "2 days"},
		{2, "process", "2 processes"}, {2, "box", "2 boxes"}, {2, "batch", "2 batches"},
		{1, "random run", "1 random run"}, {2, "random run", "2 random runs"}, {3, "unexpected verdict", "3 unexpected verdicts"},
		{2, "TLC model", "2 TLC models"}, {2, "expected violation", "2 expected violations"},
		{1000, "run", "1,000 runs"}, {1234567, "state", "1,234,567 states"}, {-1234, "step", "-1,234 steps"},
		{math.MinInt64, "step", "-9,223,372,036,854,775,808 steps"},
	} {
		assert.Equal(t, tc.want, Count(tc.n, tc.noun))
	}
}
