package history

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sample() *History {
	return &History{
		Start: 100, End: 900, Clients: 2,
		Records: []Record{
			{Client: 0, Op: OpAcquire, Ev: Call, Wall: 110},
			{Client: 0, Op: OpAcquire, Ev: Return, Wall: 120, Token: 1, OK: true},
			{Client: 1, Op: OpWrite, Ev: Call, Wall: 130, Token: 2, Value: 1},
			{Client: 1, Op: OpWrite, Ev: Return, Wall: 140, Token: 2, Value: 1, Error: "refused\nreally"},
		},
		Faults: []FaultRecord{{Fault: FaultClientPause, Target: "c1", Start: 200, End: 300, Detail: "SIGSTOP"}},
		Exits:  []ClientExit{{Client: 0, Wall: 800, Status: "exit status 0"}, {Client: 1, Wall: 850, Status: "killed", Stderr: "bye"}},
	}
}

func TestReadJSONLReadsWhatWriteJSONLWrote(t *testing.T) {
	h := sample()
	var b bytes.Buffer
	require.NoError(t, h.WriteJSONL(&b))
	got, err := ReadJSONL(&b)
	require.NoError(t, err)
	assert.Equal(t, h, got)
}

// TestReadJSONLRefusesWhatTheJudgeCannotRead: each hostile file is an
// error naming its line, never a history.
func TestReadJSONLRefusesWhatTheJudgeCannotRead(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, sample().WriteJSONL(&b))
	good := b.String()
	lines := strings.SplitAfter(good, "\n")
	tests := []struct {
		name, text, want string
	}{
		{"empty", "", "no run header"},
		{"no header", strings.Join(lines[1:], ""), "line 1: a \"op\" line before the run's header"},
		{"two headers", lines[0] + good, "line 2: a second run header"},
		{"truncated", good[:len(good)-20], "line 8: unexpected end of JSON input"},
		{"not JSON", lines[0] + "hello\n", "line 2"},
		{"unknown kind", lines[0] + `{"kind":"oops"}` + "\n", `unknown kind "oops"`},
		{"client out of range", lines[0] + `{"kind":"op","client":2,"op":"read","ev":"call","wall":1}` + "\n", "client 2 out of range"},
		{"negative client", lines[0] + `{"kind":"op","client":-1,"op":"read","ev":"call","wall":1}` + "\n", "client -1 out of range"},
		{"unknown op", lines[0] + `{"kind":"op","client":0,"op":"delete","ev":"call","wall":1}` + "\n", "unknown operation"},
		{"unknown phase", lines[0] + `{"kind":"op","client":0,"op":"read","ev":"maybe","wall":1}` + "\n", "unknown phase"},
		{"exit out of range", lines[0] + `{"kind":"exit","client":9}` + "\n", "client 9 out of range"},
		{"no clients", `{"kind":"run","start":1,"end":2,"clients":0}` + "\n", "a run of 0 clients"},
		{"ends before it starts", `{"kind":"run","start":5,"end":2,"clients":2}` + "\n", "from 5 to 2"},
		{"a line too long", lines[0] + `{"kind":"exit","client":0,"stderr":"` + strings.Repeat("x", maxLine) + `"}` + "\n", "line 2: longer than 65536 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ReadJSONL(strings.NewReader(tc.text))
			require.Error(t, err)
			assert.Nil(t, h)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestFileRoundTrip: a history file with everything a judge needs besides
// the records (row, lease, fencing, the resource's log) reads back whole,
// written at Version; a header without a version (a file written before
// versions) reads as version 0 with none of them.
func TestFileRoundTrip(t *testing.T) {
	f := &File{Version: Version, Service: "redis", Design: "all", TTL: 1e9, Fence: "all", History: *sample(),
		Resource: []Access{{Client: 0, Op: OpWrite, Accepted: true, Token: 1, Value: 1}, {Client: 1, Op: OpRead, Token: 0}}}
	var b bytes.Buffer
	require.NoError(t, f.WriteJSONL(&b))
	assert.True(t, strings.HasPrefix(b.String(), `{"kind":"run","version":1,`), b.String())
	got, err := ReadFile(&b)
	require.NoError(t, err)
	assert.Equal(t, f, got)

	old, err := ReadFile(strings.NewReader(`{"kind":"run","start":1,"end":2,"clients":1}` + "\n"))
	require.NoError(t, err)
	assert.Equal(t, &File{History: History{Start: 1, End: 2, Clients: 1}}, old)
}

// TestReadFileBounds: a history longer than the judge reads in bounded
// time is refused at the first line past the bound (its number says the
// bound's lines were read).
func TestReadFileBounds(t *testing.T) {
	const head = `{"kind":"run","start":0,"end":9,"clients":1}` + "\n"
	repeat := func(line string, n int) string { return strings.Repeat(line+"\n", n) }
	tests := []struct {
		name, text, want string
	}{
		{"op lines", head + repeat(`{"kind":"op","client":0,"op":"expire","ev":"return","wall":1}`, maxRecords+1), fmt.Sprintf("line %d: more than %d op lines (the judge's bound)", maxRecords+2, maxRecords)},
		{"fault lines", head + repeat(`{"kind":"fault","fault":"x","start":1,"end":1}`, maxFaults+1), fmt.Sprintf("line %d: more than %d fault lines", maxFaults+2, maxFaults)},
		{"exit lines", head + repeat(`{"kind":"exit","client":0}`, maxClients+1), fmt.Sprintf("line %d: more than %d exit lines", maxClients+2, maxClients)},
		{"resource lines", head + repeat(`{"kind":"resource","client":0,"op":"read","accepted":true}`, maxRecords+1), fmt.Sprintf("line %d: more than %d resource lines", maxRecords+2, maxRecords)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFile(strings.NewReader(tc.text))
			assert.EqualError(t, err, tc.want)
		})
	}
}
