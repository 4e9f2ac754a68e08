package suggest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNearest(t *testing.T) {
	names := []string{"DistLock_2c_AtMostOneClientHoldLock", "DistLock_2c_NoLostUpdate", "DistLock_3c_NoLostUpdate", "DistLockFencing_all_2c_NoLostUpdate", "DieHard"}
	tests := []struct {
		name string
		want []string
	}{
		{"DistLock_2c_NoLostUpdat", []string{"DistLock_2c_NoLostUpdate", "DistLock_3c_NoLostUpdate"}},
		{"distlock_2c_nolostupdate", []string{"DistLock_2c_NoLostUpdate", "DistLock_3c_NoLostUpdate", "DistLockFencing_all_2c_NoLostUpdate"}},
		{"DieHrad", []string{"DieHard"}},
		{"NoLostUpdate", []string{"DistLock_2c_NoLostUpdate", "DistLock_3c_NoLostUpdate", "DistLockFencing_all_2c_NoLostUpdate"}},
		{"Paxos", nil},
		{"", nil},
		{strings.Repeat("x", 100<<20), nil},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Nearest(tc.name, names, 3), "%.40s", tc.name)
	}
	assert.Equal(t, 3, distance("kitten", "sitting"))
	assert.Equal(t, 0, distance("", ""))
	assert.Equal(t, 4, distance("", "abcd"))
}
