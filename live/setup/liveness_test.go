package setup

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/history"
)

// TestFreedom: a lock its session's connection frees is bounded by ε
// alone; a lease or a session timeout by it plus ε, ε carrying the
// service's expiry sweep.
func TestFreedom(t *testing.T) {
	for _, tc := range []struct {
		service, name string
		want          time.Duration
		why           string
	}{
		{"redis", "none", 500*time.Millisecond + 100*time.Millisecond, "TTL"},
		{"redlock", "redlock", time.Second + 100*time.Millisecond, "TTL"},
		{"etcd", "mutex", time.Second + 600*time.Millisecond, "lease sweep"},
		{"zookeeper", "zxid-none", time.Second + 300*time.Millisecond, "session timeout"},
		{"mariadb", "getlock", 100 * time.Millisecond, "connection closes"},
		{"postgres", "advisory", 100 * time.Millisecond, "connection closes"},
		{"redlock", "node-redlock", time.Second + 450*time.Millisecond, "redlock's retry delay"},
		{"redis", "redis-py", 500*time.Millisecond + 150*time.Millisecond, "redis-py's 100ms sleep"},
		{"redis", "redis-semaphore", time.Second + 100*time.Millisecond, "next attempt and round trip 100ms"},
		// 2 s + 2 looks of 266.666666 ms × 2.2 + 50 ms.
		{"kubernetes", "lease", 2*time.Second + 2*586666665 + 50*time.Millisecond, "a candidate waits from the last renewal it saw"},
	} {
		s, err := Find(All(), tc.service, tc.name)
		require.NoError(t, err)
		bound, why := s.Freedom()
		assert.Equal(t, tc.want, bound, s.ID())
		assert.Contains(t, why, tc.why, s.ID())
		assert.True(t, s.Applies(history.FaultHolderDeath), "every setup's holder can die: %s", s.ID())
	}
}
