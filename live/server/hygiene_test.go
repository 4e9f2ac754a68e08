package server

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A server that fails to start says why in its log; the error carries
// the end of that log on the error's one line (every caller prints an
// error as one line: a reason after a newline was cut off).
func TestProcStartFailureQuotesItsLogOnOneLine(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		want   []string
		not    []string
	}{
		{
			name:   "reason on stderr",
			script: "echo starting up; echo 'FATAL: reason-marker: cannot open the data folder' >&2; exit 1",
			want:   []string{"exit status 1", "its log ends: starting up | FATAL: reason-marker: cannot open the data folder"},
		},
		{
			name:   "only the last lines",
			script: "for i in 1 2 3 4 5 6 7 8; do echo line-$i; done; echo; echo '   '; exit 1",
			want:   []string{"its log ends: line-5 | line-6 | line-7 | line-8"},
			not:    []string{"line-4"},
		},
		{
			name:   "a long line is cut",
			script: "printf 'x%.0s' $(seq 1 5000); echo; echo reason-marker; exit 1",
			want:   []string{"bytes) | reason-marker"},
		},
		{
			name:   "nothing logged",
			script: "exit 1",
			want:   []string{"its log is empty"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := helperSpec(t, false)
			spec.Path, spec.Args, spec.Env = "/bin/sh", []string{"-c", tc.script}, nil
			_, err := StartProc(context.Background(), spec)
			require.Error(t, err)
			msg := err.Error()
			require.NotContains(t, msg, "\n", "one line")
			require.Less(t, len(msg), 1500, "bounded")
			for _, w := range tc.want {
				require.Contains(t, msg, w)
			}
			for _, w := range tc.not {
				require.NotContains(t, msg, w)
			}
		})
	}
}

// Only root needs (and may pass) --user=root: as anyone else mariadbd
// would try to switch to root and fail for every non-root user.
func TestMariaDBRunsAsRootOnlyAsRoot(t *testing.T) {
	for _, tc := range []struct {
		euid int
		want []string
	}{
		{0, []string{"--user=root"}},
		{1000, nil},
		{65534, nil},
	} {
		require.Equal(t, tc.want, runAsArgs(tc.euid), "euid %d", tc.euid)
	}
}

func TestLogEndIgnoresBlankLines(t *testing.T) {
	require.Equal(t, "its log ends: a | b", logEnd("\n  a  \n\n\tb\n\n"))
	require.Equal(t, "its log is empty", logEnd(" \n\t\n"))
	require.False(t, strings.Contains(logEnd("a\r\nb"), "\r"))
}
