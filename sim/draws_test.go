package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDrawsBatchedAreKeyed: the batched draws hand out, for every stream,
// exactly the value its key and counter give (mix(key ^ mix(stream<<40 ^
// k)) for its k-th draw), whatever the interleaving of streams and across
// runs of one draws — the values a run drew one at a time, so its pins
// hold.
func TestDrawsBatchedAreKeyed(t *testing.T) {
	var d draws
	for _, seed := range []uint64{1, 7, 1 << 63} {
		const streams = 5
		d.reset(seed, streams)
		key := mix(seed ^ streamRun)
		var taken [streams]uint64
		x := seed | 1
		for range 1000 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			s := int(x % streams)
			taken[s]++
			want := mix(key ^ mix(uint64(s)<<40^taken[s]))
			require.Equal(t, want, d.next(s), "seed %d stream %d draw %d", seed, s, taken[s])
		}
	}
}
