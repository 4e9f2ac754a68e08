package trace

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name       string
		prev, next []Var
		want       []Change
	}{
		{
			name: "initial state lists everything",
			next: []Var{{"a", "1"}, {"b", "2"}},
			want: []Change{{Path: "a", New: "1"}, {Path: "b", New: "2"}},
		},
		{
			name: "only changed elements",
			prev: []Var{{"lock_held[c1]", "FALSE"}, {"lock_held[c2]", "FALSE"}},
			next: []Var{{"lock_held[c1]", "TRUE"}, {"lock_held[c2]", "FALSE"}},
			want: []Change{{Path: "lock_held[c1]", Old: "FALSE", New: "TRUE"}},
		},
		{
			name: "appeared and disappeared paths",
			prev: []Var{{"q[1]", "x"}, {"q[2]", "y"}},
			next: []Var{{"q[1]", "y"}},
			want: []Change{{Path: "q[1]", Old: "x", New: "y"}, {Path: "q[2]", Old: "y", New: "—"}},
		},
		{
			name: "nothing changed",
			prev: []Var{{"a", "1"}},
			next: []Var{{"a", "1"}},
			want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Diff(tc.prev, tc.next))
		})
	}
}

func TestWriteTable(t *testing.T) {
	tr := &Trace{
		Title: "demo",
		Lanes: []string{"service", "c1"},
		Timed: true,
		Steps: []Step{
			{Number: 1, Action: "Init", Changes: []Change{{Path: "held", New: "FALSE"}}},
			{Number: 2, At: 1500 * time.Millisecond, Actor: "c1", Action: "Grant", Changes: []Change{{Path: "held", Old: "FALSE", New: "TRUE"}}},
		},
		Notes:     []Note{{Lane: "service", Step: 2, Kind: NoteExpiry, Text: "lease expired"}},
		Violation: &Violation{Property: "P", Step: 2, Explanation: "c1 holds"},
	}
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, tr))
	want := "demo\n\n" +
		"step  time    process  action  changes\n" +
		"1     0.000s  —        Init    held = FALSE\n" +
		"2     1.500s  c1       Grant   held: FALSE → TRUE\n" +
		"                               ◷ service: lease expired\n" +
		"\n✗ P violated at step 2: c1 holds\n"
	assert.Equal(t, want, buf.String())
}
