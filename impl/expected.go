package impl

import "github.com/fencelab/fencelab/verdict"

// Expected is DESIGN.md's table of verdicts under the asynchronous model
// (TLC and the explorer) and under the simulator's default faults: what
// property does in design d — verdict.Holds, verdict.Violated or
// verdict.NotApplicable (DESIGN.md's "—"). It is the one copy of the table
// in code; tests of every runtime compare against it. Without faults every
// property holds in every design.
func Expected(d Design, property string) verdict.Status {
	switch property {
	case AtMostOneClientHoldLock:
		return verdict.Violated // fencing protects the resource, not the clients' beliefs
	case TokenIsMonotonical:
		switch {
		case !d.Tokens():
			return verdict.NotApplicable
		case d == DesignFenceAll:
			return verdict.Holds
		}
		return verdict.Violated
	case NoLostUpdate:
		if d == DesignFenceAll {
			return verdict.Holds
		}
		return verdict.Violated
	}
	return verdict.NotApplicable
}
