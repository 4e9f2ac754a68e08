package impl

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// walkLog walks the world of c with seed and returns every action taken
// and the final encoding.
func walkLog(t *testing.T, c Config, seed uint64) ([]Action, []byte) {
	w, err := NewWorld(c)
	require.NoError(t, err)
	var acts []Action
	w.Walk(SeededChooser(seed), 200, func(a Action, _ *Effects) bool {
		acts = append(acts, a)
		return true
	})
	return acts, w.Encode(nil)
}

// TestSeededWalkIsReproducible: one seed, one walk; other seeds, other walks.
func TestSeededWalkIsReproducible(t *testing.T) {
	c := Config{Design: DesignFenceAll, Clients: 3, Sections: 2, Retries: 1, TTL: 10, Margin: 1}
	a1, e1 := walkLog(t, c, 42)
	a2, e2 := walkLog(t, c, 42)
	assert.Equal(t, a1, a2)
	assert.Equal(t, e1, e2)
	distinct := map[string]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		acts, _ := walkLog(t, c, seed)
		distinct[fmt.Sprint(acts)] = true
	}
	assert.Greater(t, len(distinct), 15, "seeds draw different walks")
}

// TestWalksTakeTheGoodPath: random walks of every design grant the lock and
// commit sections, and some end with every client finished — so a world
// whose service never grants, or whose resource refuses everything, would
// fail here instead of passing every invariant vacuously.
func TestWalksTakeTheGoodPath(t *testing.T) {
	for _, d := range Designs() {
		t.Run(d.String(), func(t *testing.T) {
			c := Config{Design: d, Clients: 2, Sections: 2, Retries: 1, TTL: 10, Margin: 1}
			granted, committed, finished := 0, 0, 0
			for seed := uint64(1); seed <= 100; seed++ {
				w, err := NewWorld(c)
				require.NoError(t, err)
				w.Walk(goodPathChooser(w, seed), 1000, func(_ Action, out *Effects) bool {
					for _, ev := range out.Events {
						switch ev.Kind {
						case EvGranted:
							granted++
						case EvSectionCommitted:
							committed++
						}
					}
					return true
				})
				assert.Zero(t, w.Actions(), "seed %d: a walk of 1000 steps ends", seed)
				if w.Done() {
					finished++
				}
			}
			assert.Positive(t, granted)
			assert.Positive(t, committed)
			assert.Positive(t, finished)
		})
	}
}

// goodPathChooser draws as SeededChooser does, but takes a timer only one
// time in ten when something else is enabled: a uniform walk lets the
// lease expire within a few steps of the grant, and in the sequencer row,
// where a section takes effect only while its lease is current across two
// round trips to the service, hardly a walk in a thousand commits.
func goodPathChooser(w *World, seed uint64) func(n int) int {
	draw := SeededChooser(seed)
	return func(n int) int {
		var others []int
		for i := range n {
			if w.Action(i).Input.Kind != InputTimer {
				others = append(others, i)
			}
		}
		if len(others) == 0 || draw(10) == 0 {
			return draw(n)
		}
		return others[draw(len(others))]
	}
}

// TestWorldEncodingRoundTrips: every world a walk reaches decodes back to
// itself, and equal encodings mean equal worlds.
func TestWorldEncodingRoundTrips(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawConfig(t)
		w, err := NewWorld(c)
		require.NoError(t, err)
		dec, err := NewWorld(c)
		require.NoError(t, err)
		choose := func(n int) int { return rapid.IntRange(0, n-1).Draw(t, "choice") }
		w.Walk(choose, rapid.IntRange(0, 60).Draw(t, "steps"), func(Action, *Effects) bool {
			enc := w.Encode(nil)
			require.NoError(t, dec.Decode(enc))
			require.Equal(t, enc, dec.Encode(nil))
			require.Equal(t, w.InFlight, dec.InFlight)
			require.Equal(t, w.Timers, dec.Timers)
			require.Equal(t, w.Sys.String(), dec.Sys.String())
			return true
		})
	})
}

// recordingHandler notes the order in which effects are carried out.
type recordingHandler struct{ order []string }

func (h *recordingHandler) Cancel(NodeID, Timer)  { h.order = append(h.order, "cancel") }
func (h *recordingHandler) Set(NodeID, TimerSet)  { h.order = append(h.order, "set") }
func (h *recordingHandler) Send(NodeID, *Message) { h.order = append(h.order, "send") }

// TestCarryOutOrder: cancels, then sets, then sends, whatever order the
// actor appended them in — the one order every runtime uses.
func TestCarryOutOrder(t *testing.T) {
	var e Effects
	e.send(Message{Kind: MsgAcquire})
	e.set(TimerThink, 1)
	e.cancel(TimerValidity)
	e.send(Message{Kind: MsgRelease})
	e.set(TimerBackoff, 1)
	var h recordingHandler
	e.CarryOut(ClientNode(0), &h)
	assert.Equal(t, []string{"cancel", "set", "set", "send", "send"}, h.order)
}

// TestCloneKeepsTheRestart: a clone of a world whose service restarts
// can still restart it, as the original can, and is independent of it.
func TestCloneKeepsTheRestart(t *testing.T) {
	c := Config{Design: DesignRestartVolatile, Clients: 2, Sections: 1, Retries: 1, TTL: 10, Margin: 1}
	w, err := NewWorld(c)
	require.NoError(t, err)
	cl := w.Clone()
	require.Equal(t, w.Actions(), cl.Actions())
	assert.Equal(t, InputRestart, cl.Action(cl.Actions()-1).Input.Kind)
	cl.Apply(cl.Actions() - 1)
	assert.Equal(t, 1, cl.Restarts)
	assert.Equal(t, 0, w.Restarts, "the original is untouched")
}
