package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/verdict"
)

// TestCutShortIsNoViolation cuts runs short with stall bounds far below the
// derived one, so that many end with operations and sections open: a run
// cut short must read as cut short (a stall), never as a violation of a
// property its row holds. The history of such a run closes what was open
// (recorder.finish); an accepted read whose reply never arrived once kept
// the zero its call began with, and the register check judged that
// history illegal (issue 36: design all, pause faults, 200ms stall bound).
func TestCutShortIsNoViolation(t *testing.T) {
	t.Parallel()
	seeds := uint64(runs(300, 120))
	for _, faults := range []FaultKinds{PauseFaults, AllFaults} {
		for _, stall := range []time.Duration{50 * time.Millisecond, 200 * time.Millisecond} {
			t.Run(fmt.Sprintf("%s/%v", faults, stall), func(t *testing.T) {
				t.Parallel()
				cut := 0
				for _, d := range impl.Designs() {
					c := config(d, faults)
					c.StallAfter = stall
					r, err := NewRunner(c)
					require.NoError(t, err)
					for seed := uint64(1); seed <= seeds; seed++ {
						res := r.Run(Generate(seed, c))
						if res.Stall == "" {
							continue
						}
						cut++
						r.Check(&res, 0)
						for _, v := range res.Verdicts() {
							want := impl.Expected(d, v.Property)
							switch v.Property {
							case linearizability.RegisterLinearizable:
								// A resource that is not the register the
								// model specifies (Design.AtomicRegister).
								if !d.AtomicRegister() {
									continue
								}
								want = verdict.Holds
							case linearizability.SectionsLinearizable:
								want = impl.Expected(d, impl.NoLostUpdate)
							}
							if want != verdict.Violated {
								assert.NotEqual(t, verdict.Violated, v.Status, "%s seed %d cut short (%s): %s %s", d, seed, res.Stall, v.Property, v.Detail)
							}
						}
					}
				}
				assert.Positive(t, cut, "the stall bound must cut runs short")
			})
		}
	}
}

// TestFinishKeepsTheResourcesOutcome closes a client's operation the
// resource handled but whose reply never arrived: it returns when the
// resource handled it, with the resource's outcome (the value an accepted
// read read, also the section's read), and one the resource never saw is
// left out. The open section returns at the end of the run.
func TestFinishKeepsTheResourcesOutcome(t *testing.T) {
	c0 := impl.ClientNode(0)
	read := linearizability.ResourceOp{Client: 0, Kind: impl.OpRead, Token: 2, Value: 4, Accepted: true, Call: 1, Return: 2}
	tests := []struct {
		name      string
		kind      impl.MsgKind
		handled   impl.EventKind // 0: the resource never saw it
		want      []linearizability.ResourceOp
		read      int64 // the section's read
		committed bool
	}{
		{"read accepted", impl.MsgRead, impl.EvOpAccepted,
			[]linearizability.ResourceOp{{Client: 0, Kind: impl.OpRead, Token: 2, Value: 7, Accepted: true, Call: 10, Return: 20}}, 7, false},
		{"read rejected", impl.MsgRead, impl.EvOpRejected,
			[]linearizability.ResourceOp{{Client: 0, Kind: impl.OpRead, Token: 2, Call: 10, Return: 20}}, 0, false},
		{"read unseen", impl.MsgRead, 0, []linearizability.ResourceOp{}, 0, false},
		{"write accepted", impl.MsgWrite, impl.EvOpAccepted,
			[]linearizability.ResourceOp{read, {Client: 0, Kind: impl.OpWrite, Token: 2, Value: 5, Accepted: true, Call: 10, Return: 20}}, 4, true},
		{"write rejected", impl.MsgWrite, impl.EvOpRejected,
			[]linearizability.ResourceOp{read, {Client: 0, Kind: impl.OpWrite, Token: 2, Value: 5, Call: 10, Return: 20}}, 4, false},
		{"write unseen", impl.MsgWrite, 0, []linearizability.ResourceOp{read}, 4, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r recorder
			r.reset(1)
			op := impl.Op{Client: c0, Kind: impl.OpRead, Token: 2, Accepted: tt.handled == impl.EvOpAccepted}
			if tt.kind == impl.MsgWrite {
				// The section's read came back: its write is what is open.
				r.sent(0, &impl.Message{Kind: impl.MsgRead, Token: 2}, 1)
				r.input(c0, &impl.Input{Kind: impl.InputMessage, Msg: impl.Message{Kind: impl.MsgReadReply, OK: true, Value: 4}}, 2)
				op.Kind, op.Value = impl.OpWrite, 5
			} else if op.Accepted {
				op.Value = 7
			}
			r.sent(0, &impl.Message{Kind: tt.kind, Token: 2, Value: 5}, 10)
			if tt.handled != 0 {
				r.event(impl.ResourceNode, &impl.Event{Kind: tt.handled, Node: impl.ResourceNode, Peer: c0, Token: 2, Op: op}, 20)
			}
			r.finish(30)
			assert.Equal(t, tt.want, r.h.Ops)
			require.Len(t, r.h.Sections, 1)
			sec := r.h.Sections[0]
			assert.Equal(t, int64(30), sec.Return, "an open section returns at the end")
			assert.Equal(t, tt.read, sec.Read)
			assert.Equal(t, tt.committed, sec.Committed)
		})
	}
}
