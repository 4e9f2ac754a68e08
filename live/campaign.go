// Package live runs fencelab's question against real lock services: real
// server processes (package server), real client libraries (package lock),
// each client its own OS process, real faults (SIGSTOP/SIGCONT of a client
// or a server, kill and restart, a delay or blackhole of one client's
// links through its own proxy, a clock step inside a service), and the
// resource a lock protects (package store). A Setup names the design row
// of impl.Designs it instantiates (package setup), so that every live verdict lines up
// with the model's for the same row.
//
// A run: fresh servers on 127.0.0.1 with their own data folders, the
// resource, the clients (the harness's own binary re-executed with the
// role "client", run.RunClient), the nemesis; the clients' call/return records
// and the fault log make the History, and the judge decides
// AtMostOneClientHoldLock from the clients' beliefs, TokenIsMonotonical
// and NoLostUpdate from the resource's log (impl's own invariants), and
// linearizability with Porcupine (package linearizability). A campaign is
// N such runs (RunCampaign) and says, per property, "violated (k of N)",
// "held while the fault took effect in H of N" or "inconclusive (the
// fault took effect in M of N)".
//
// This package is the public entry, RunCampaign, over rooms beneath it,
// each a package that imports only the rooms below it and never this one:
// history (the records and the fault names), nemesis (every fault against
// one Target), setup (the registry of setups), check (the judge), run (one
// run and the client role), report (a run's saved folder), campaign (N
// runs, shards, the README block) and cli (the command line over a list
// of setups, cli.Main).
package live

import (
	"context"

	"github.com/fencelab/fencelab/live/campaign"
)

// CampaignConfig is N runs of one setup under one fault.
type CampaignConfig = campaign.Config

// Summary is a campaign's outcome; Tally one property over its runs.
type (
	Summary = campaign.Summary
	Tally   = campaign.Tally
)

// RunCampaign runs cfg.Runs runs one after another, judging and tallying
// each, and saves every run that violated a property (campaign.Run).
func RunCampaign(ctx context.Context, cfg CampaignConfig) (*Summary, error) {
	return campaign.Run(ctx, cfg)
}
