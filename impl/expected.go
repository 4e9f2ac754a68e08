package impl

// Verdict is what a property does in a design.
type Verdict uint8

// Verdicts.
const (
	NotApplicable Verdict = iota // the property is meaningless here ("—")
	Holds
	Violated
)

func (v Verdict) String() string {
	switch v {
	case Holds:
		return "holds"
	case Violated:
		return "violated"
	}
	return "—"
}

// Expected is DESIGN.md's table of verdicts under the asynchronous model
// (TLC and the explorer) and under the simulator's default faults: what
// property does in design d. It is the one copy of the table in code;
// tests of every runtime compare against it. Without faults every property
// holds in every design.
func Expected(d Design, property string) Verdict {
	switch property {
	case AtMostOneClientHoldLock:
		return Violated // fencing protects the resource, not the clients' beliefs
	case TokenIsMonotonical:
		switch {
		case !d.Tokens():
			return NotApplicable
		case d == DesignFenceAll:
			return Holds
		}
		return Violated
	case NoLostUpdate:
		if d == DesignFenceAll {
			return Holds
		}
		return Violated
	}
	return NotApplicable
}
