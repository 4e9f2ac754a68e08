package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/setup"
)

// TestRunClassicAndHolderDeath: --classic keeps the fault's classic story
// (no model story, no gate), the default follows the row's model; every
// setup takes --fault holder-death.
func TestRunClassicAndHolderDeath(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		classic bool
	}{
		{[]string{"--service", "etcd", "--design", "mutex"}, false},
		{[]string{"--service", "etcd", "--design", "mutex", "--classic"}, true},
	} {
		job, err := parseRun(setup.All(), tc.args, &bytes.Buffer{})
		require.NoError(t, err)
		rc := job.plans[0].Run
		assert.Equal(t, tc.classic, rc.Classic, "%v", tc.args)
		_, modelStory := rc.Story()
		assert.Equal(t, !tc.classic, modelStory, "etcd/mutex's row has a client-pause story of its own: %v", tc.args)
	}
	for _, s := range setup.All() {
		job, err := parseRun(setup.All(), []string{"--service", s.Service, "--design", s.Name, "--fault", "holder-death"}, &bytes.Buffer{})
		require.NoError(t, err, s.ID())
		assert.Equal(t, history.FaultHolderDeath, job.plans[0].Run.Fault)
	}
}
