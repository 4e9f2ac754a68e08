package run_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/internal/servertest"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/setup"
)

func TestKubeSetupsNameTheirRows(t *testing.T) {
	for name, d := range map[string]impl.Design{
		"lease":             impl.DesignRenewal,
		"lease-transitions": impl.DesignRevision,
	} {
		s := livetest.MustSetup(t, setup.All(), "kubernetes", name)
		assert.Equal(t, d, s.Design, name)
		assert.NotEmpty(t, s.Why, name)
		assert.Equal(t, "k8s.io/client-go", s.Library, "the module whose version the binary reports")
		assert.True(t, s.Renewed && !s.Leased, "renewed from the client process")
	}
}

// kubeConfig is a run of setup name under f against a real kube-apiserver:
// its handovers wait a lease duration (2 s), so the clients get 20 s.
func kubeConfig(t *testing.T, name string, f history.Fault) run.Config {
	t.Helper()
	servertest.NeedKubeAPIServer(t)
	cfg := livetest.Config(t, livetest.MustSetup(t, setup.All(), "kubernetes", name), f)
	cfg.Timeout = 20 * time.Second
	return cfg
}

// A client paused past its lease: its elector stops renewing, the other
// client's elector takes the Lease over, and the paused one resumes
// believing and writes.
func TestKubeLeasePauseUnfenced(t *testing.T) {
	res := livetest.CheckStory(t, kubeConfig(t, "lease", history.FaultClientPause), livetest.Story{
		Violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate, linearizability.SectionsLinearizable},
		Holds:    []string{linearizability.RegisterLinearizable},
	}, false)
	assert.Regexp(t, `kube-apiserver v\d+\.\d+\.\d+`, res.Versions)
	t.Logf("%s, %s: started in %v, run in %v", res.Versions, res.Library, res.StartUp.Round(time.Millisecond), res.Duration.Round(time.Millisecond))
}

// The same story with leaseTransitions checked >= at the register: the
// resumed client's stale write is refused.
func TestKubeLeasePauseFenced(t *testing.T) {
	livetest.CheckStory(t, kubeConfig(t, "lease-transitions", history.FaultClientPause), livetest.Story{
		Violated: []string{impl.AtMostOneClientHoldLock},
		Holds:    []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
	}, true)
}
