package server

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestIdleTimeoutArgs: no setting without a timeout; both idle timeouts,
// in whole milliseconds and at least 1 (0 would turn them off), with one.
func TestIdleTimeoutArgs(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want []string
	}{
		{0, nil},
		{-time.Second, nil},
		{time.Second, []string{"-c", "idle_session_timeout=1000", "-c", "idle_in_transaction_session_timeout=1000"}},
		{1500 * time.Microsecond, []string{"-c", "idle_session_timeout=1", "-c", "idle_in_transaction_session_timeout=1"}},
		{time.Microsecond, []string{"-c", "idle_session_timeout=1", "-c", "idle_in_transaction_session_timeout=1"}},
	} {
		assert.Equal(t, tc.want, idleTimeoutArgs(tc.d), "%v", tc.d)
	}
}
