package sim

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

// TestPorcupinePageNamesOnlyRealTokens: the Porcupine page of a run of a
// row without tokens (off) never labels a message, operation or note
// "token 0", though its spikes delay reads and writes (their notes name the
// message); a fencing row's page names its tokens.
func TestPorcupinePageNamesOnlyRealTokens(t *testing.T) {
	for _, tc := range []struct {
		design impl.Design
		tokens bool
	}{{impl.DesignNoFencing, false}, {impl.DesignFenceAll, true}} {
		t.Run(tc.design.String(), func(t *testing.T) {
			c := DefaultConfig()
			c.Design, c.Faults = tc.design, DelayFaults
			// The first seed whose page has a spike of a resource
			// operation: its note names the message.
			var page string
			for seed := uint64(1); seed <= 200 && page == ""; seed++ {
				rp, err := NewReplay(c, Generate(seed, c), 0)
				require.NoError(t, err)
				var b bytes.Buffer
				require.NoError(t, rp.sections.WriteHTML(&b, rp.annotations))
				if strings.Contains(b.String(), "Write(") && strings.Contains(b.String(), "(spike)") {
					page = b.String()
				}
			}
			require.NotEmpty(t, page, "no seed of 200 spikes a write")
			if i := strings.Index(page, "token 0"); i >= 0 {
				t.Errorf("the page says token 0: …%s…", page[max(0, i-80):i+20])
			}
			assert.Equal(t, tc.tokens, strings.Contains(page, "token "), "the page names tokens")
		})
	}
}
