package server

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The etcd child itself is tested in live/internal/etcdtest, whose
// TestMain re-executes the test binary as the child.

func TestParseEtcdServerFlags(t *testing.T) {
	got, err := parseEtcdServerFlags([]string{"--dir", "/d", "--client-port", "2379", "--peer-port", "2380", "--log-file", "/d.log"})
	require.NoError(t, err)
	require.Equal(t, etcdServerFlags{dir: "/d", clientPort: 2379, peerPort: 2380, logFile: "/d.log"}, got)

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no dir", []string{"--client-port", "1", "--peer-port", "2"}, "--dir is required"},
		{"no client port", []string{"--dir", "/d", "--peer-port", "2"}, "--client-port must be"},
		{"peer port too big", []string{"--dir", "/d", "--client-port", "1", "--peer-port", "65536"}, "--peer-port must be"},
		{"same ports", []string{"--dir", "/d", "--client-port", "7", "--peer-port", "7"}, "must differ"},
		{"not a number", []string{"--dir", "/d", "--client-port", "x", "--peer-port", "2"}, "invalid value"},
		{"unknown flag", []string{"--wal-dir", "/w"}, "not defined"},
		{"extra argument", []string{"--dir", "/d", "--client-port", "1", "--peer-port", "2", "more"}, "unexpected argument"},
		{"a huge bad value is clipped", []string{"--client-port", strings.Repeat("9", 5000)}, "invalid value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseEtcdServerFlags(tc.args)
			require.ErrorContains(t, err, tc.want)
			require.Less(t, len(err.Error()), 300)
			require.True(t, strings.HasPrefix(err.Error(), EtcdRole+": "), err.Error())
		})
	}
}
