package history

import (
	"fmt"
	"strings"
)

// Fault is a kind of fault the nemesis injects.
type Fault string

// Faults. Each is scripted (aimed at the moment that matters: right after
// c1's first read, with c1 believing it holds the lock) or random (seeded:
// which target, when, how long).
const (
	// FaultNone injects nothing: the baseline, every run inconclusive
	// unless beliefs overlap on their own.
	FaultNone Fault = "none"
	// FaultClientPause stops a client process (SIGSTOP) and resumes it
	// (SIGCONT): scripted, c1 right after its read, for longer than the
	// TTL, so that c2 acquires meanwhile.
	FaultClientPause Fault = "client-pause"
	// FaultServerPause stops every process of the service (SIGSTOP) and
	// resumes them.
	FaultServerPause Fault = "server-pause"
	// FaultRestartKeep kills the service (SIGKILL) and restarts it on the
	// same port with its data folder kept: what it persisted survives.
	FaultRestartKeep Fault = "restart-keep"
	// FaultRestartWipe kills the service and restarts it with its data
	// folder emptied: a restart without persistence.
	FaultRestartWipe Fault = "restart-wipe"
	// FaultDelay delays every byte of one client's links to the lock
	// service (its own proxies, Deployment.Network) by two thirds of the
	// fault's length: scripted, the first reader's, by twice the TTL, so
	// that its renewals arrive after its lease ended. Its link to the
	// resource stays up.
	FaultDelay Fault = "delay"
	// FaultBlackhole drops every byte of one client's links to the lock
	// service (Deployment.Network): scripted, the first reader's, for
	// three TTLs; its link to the resource stays up.
	FaultBlackhole Fault = "blackhole"
	// FaultClockStep steps the service's wall clock forward
	// (Deployment.Clock).
	FaultClockStep Fault = "clock-step"
	// FaultHolderDeath kills a client (SIGKILL of its process group)
	// while it holds the lock: scripted, the first reader, right after its
	// read. It sends no release; its kernel closes its connections (a FIN,
	// or a reset where data was unread), which is all the service sees.
	// The run measures when another client is granted after the kill
	// (check.MeasureLiveness: LockFreedAfterHolderDeath).
	FaultHolderDeath Fault = "holder-death"
)

// AllFaults lists every fault, in the order listings show them.
func AllFaults() []Fault {
	return []Fault{FaultNone, FaultClientPause, FaultServerPause, FaultRestartKeep, FaultRestartWipe, FaultDelay, FaultBlackhole, FaultClockStep, FaultHolderDeath}
}

// ParseFault reads a --fault value.
func ParseFault(s string) (Fault, error) {
	for _, f := range AllFaults() {
		if string(f) == s {
			return f, nil
		}
	}
	var names []string
	for _, f := range AllFaults() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown fault %.40q (want one of %s)", s, strings.Join(names, ", "))
}

// FaultDeployment is no fault the nemesis injects (it is not among
// AllFaults, and --fault does not take it): a run of a setup whose
// deployment is itself the fault (setup.Setup.Deployed) records it over
// the whole run, so that the judge reads an overlap of beliefs as the
// deployment's doing rather than the harness's error.
const FaultDeployment Fault = "deployment"

// DeploymentFault is the fault record of a run from start to end whose
// deployment is the fault: target names what is at fault ("pgbouncer"),
// why says how.
func DeploymentFault(target, why string, start, end int64) FaultRecord {
	return FaultRecord{Fault: FaultDeployment, Target: target, Start: start, End: end, Detail: why}
}
