package conform

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/tlc"
)

// TestCheckRefusesWhatTheMachineCannotHold: a trace validation whose
// traces need more heap than the machine allows TLC is refused before
// TLC starts (tlc.ErrTooBig, no verdicts), never run into a full heap.
func TestCheckRefusesWhatTheMachineCannotHold(t *testing.T) {
	c := UntimedConfigs()[15]
	g, err := Walks(c, 20, 200)
	require.NoError(t, err)
	k := &Checker{TLC: &tlc.Runner{Java: "/nonexistent/java", Jar: "/nonexistent.jar"}, SpecsDir: specsDir, HeapLimit: 1 << 20}
	run, err := k.Check(context.Background(), c, g.Traces)
	require.ErrorIs(t, err, tlc.ErrTooBig)
	assert.Contains(t, err.Error(), "fewer traces")
	assert.Empty(t, run.Verdict, "no verdict")
}
