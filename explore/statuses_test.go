package explore

import "github.com/fencelab/fencelab/verdict"

// The verdict statuses under short names, for this package's tests (the
// pinned figures in pins_test.go are written with them).
const (
	NotChecked    = verdict.NotChecked
	NotApplicable = verdict.NotApplicable
	Holds         = verdict.Holds
	Violated      = verdict.Violated
	Unknown       = verdict.Unknown
)
