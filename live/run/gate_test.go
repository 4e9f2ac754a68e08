package run

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/examples/mylock"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/live/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientGate: a gated client records its write's call, then sends
// it only when a line after its configuration opens the gate; a gate
// never opened (its input ends) leaves it waiting only to its deadline,
// the call given a return that says so — never a hung run.
func TestClientGate(t *testing.T) {
	s := mylock.Row("toy", "writes", impl.DesignFenceWrites)
	for _, tc := range []struct {
		name   string
		after  string // what follows the configuration on stdin
		opened bool
	}{
		{"opened", "\nopen\n", true},
		{"opened with no final newline", "\n\nopen", true},
		{"never opened", "\n", false},
		{"blank lines open nothing", "\n\n  \n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dep, err := s.Start(context.Background(), setup.StartEnv{Dir: t.TempDir()})
			require.NoError(t, err)
			defer dep.Stop()
			reg, err := store.ServeRegister(s.Design.Mode())
			require.NoError(t, err)
			defer reg.Close()
			cfg := ClientConfig{Service: s.Service, Setup: s.Name, Client: 0, Clients: 2, Key: "k",
				LockAddrs: dep.LockAddrs, Register: reg.Addr(), TTL: s.TTL, Sections: 1, MaxErrors: 1,
				Deadline: time.Now().Add(time.Second).UnixNano(), Gate: history.OpWrite}
			in, err := json.Marshal(cfg)
			require.NoError(t, err)
			var out bytes.Buffer
			begin := time.Now()
			err = ServeClient(context.Background(), []setup.Setup{s}, strings.NewReader(string(in)+tc.after), &out)
			require.NoError(t, err)
			assert.Less(t, time.Since(begin), 5*time.Second, "bounded by the deadline")
			var calls, ok, closed int
			sc := bufio.NewScanner(&out)
			for sc.Scan() {
				var r history.Record
				require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
				if r.Op != history.OpWrite {
					continue
				}
				switch {
				case r.Ev == history.Call:
					calls++
				case r.OK:
					ok++
				case strings.Contains(r.Error, "gate did not open"):
					closed++
				}
			}
			assert.Equal(t, 1, calls, "the write's call is recorded before the gate")
			if tc.opened {
				assert.Equal(t, 1, ok, "sent once the gate opened")
				assert.Zero(t, closed)
			} else {
				assert.Zero(t, ok, "never sent")
				assert.Equal(t, 1, closed, "its return says the gate did not open")
			}
		})
	}
}

// TestClientConfigGate: a gate is a write's or a read's, nothing else.
func TestClientConfigGate(t *testing.T) {
	cfg := ClientConfig{Client: 0, Clients: 2, Sections: 1, TTL: time.Second, Deadline: 1, MaxErrors: 1}
	for _, g := range []string{"", history.OpWrite, history.OpRead} {
		cfg.Gate = g
		assert.NoError(t, cfg.validate(), g)
	}
	for _, g := range []string{history.OpAcquire, "everything", strings.Repeat("w", 100)} {
		cfg.Gate = g
		assert.ErrorContains(t, cfg.validate(), "gate", g)
	}
}

// TestOthersWait: a read fires a story triggered by the run's first read
// only while another client waits in its acquire, in the reader's last
// section, or with no other client; the other events, and a read under a
// schedule that waits for none, reach the nemesis at once.
func TestOthersWait(t *testing.T) {
	for _, tc := range []struct {
		kind      string
		readsWait bool
		others    int
		last      bool
		clients   int
		want      bool
	}{
		{nemesis.EventRead, true, 0, false, 2, false},
		{nemesis.EventRead, true, 0, false, 3, false},
		{nemesis.EventRead, true, 1, false, 2, true},
		{nemesis.EventRead, true, 2, false, 3, true},
		{nemesis.EventRead, true, 0, true, 3, true},
		{nemesis.EventRead, true, 0, false, 1, true},
		{nemesis.EventRead, false, 0, false, 2, true},
		{nemesis.EventGrant, true, 0, false, 2, true},
		{nemesis.EventWriteGate, true, 0, false, 3, true},
	} {
		assert.Equal(t, tc.want, othersWait(tc.kind, tc.readsWait, tc.others, tc.last, tc.clients), "%+v", tc)
	}
}

// TestReadsWaitForOthers: a story triggered by the run's first read waits
// for another client in its acquire in a run of client commands (every
// fault) and before a fault of the service in any run; a fault of the
// Go reader itself keeps its first read, and a story at a gate, or timed,
// never waits.
func TestReadsWaitForOthers(t *testing.T) {
	goSetup := mylock.Row("toy", "all", impl.DesignFenceAll)
	command := goSetup
	command.ClientCommand = "my-client"
	at := func(trigger string, f history.Fault) nemesis.Schedule {
		return nemesis.Schedule{Mode: nemesis.Scripted, Fault: f, Events: []nemesis.FaultEvent{{Fault: f, Trigger: trigger, Client: -1}}}
	}
	for _, tc := range []struct {
		name  string
		s     setup.Setup
		sched nemesis.Schedule
		want  bool
	}{
		{"a Go setup's clock step", goSetup, at(nemesis.TriggerAfterRead, history.FaultClockStep), true},
		{"a Go setup's wiped restart", goSetup, at(nemesis.TriggerAfterRead, history.FaultRestartWipe), true},
		{"a Go setup's kept restart", goSetup, at(nemesis.TriggerAfterRead, history.FaultRestartKeep), true},
		{"a Go setup's server pause", goSetup, at(nemesis.TriggerAfterRead, history.FaultServerPause), true},
		{"a Go setup's client pause", goSetup, at(nemesis.TriggerAfterRead, history.FaultClientPause), false},
		{"a Go setup's delay", goSetup, at(nemesis.TriggerAfterRead, history.FaultDelay), false},
		{"a Go setup's blackhole", goSetup, at(nemesis.TriggerAfterRead, history.FaultBlackhole), false},
		{"a client command's client pause", command, at(nemesis.TriggerAfterRead, history.FaultClientPause), true},
		{"a client command's clock step", command, at(nemesis.TriggerAfterRead, history.FaultClockStep), true},
		{"a story at the write gate", command, at(nemesis.TriggerAtWriteGate, history.FaultClockStep), false},
		{"a story at the read gate", goSetup, at(nemesis.TriggerAtReadGate, history.FaultRestartWipe), false},
		{"a random schedule", command, nemesis.RandomSchedule(1, history.FaultClockStep, nemesis.ScheduleParams{Clients: 2, TTL: time.Second, Window: time.Second}), false},
		{"no fault", goSetup, nemesis.Schedule{Mode: nemesis.Scripted, Fault: history.FaultNone}, false},
	} {
		assert.Equal(t, tc.want, readsWaitForOthers(tc.s, tc.sched), tc.name)
	}
}
