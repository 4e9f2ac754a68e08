package explore

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
)

// ParseSizes reads a comma-separated list of model sizes (fencelab demo
// --clients), each checked by Validate, so a bad size reads as in
// fencelab explore.
func ParseSizes(s string) ([]int, error) {
	var sizes []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("clients: %s is not a number", quote.Q(part))
		}
		if err := DefaultConfig(impl.DesignFenceAll, n).Validate(); err != nil {
			return nil, err
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}
