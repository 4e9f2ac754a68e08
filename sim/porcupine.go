package sim

import "time"

// Verdict is a Porcupine verdict on a run's history; "" means not checked.
//
// TODO(linearizability): the linearizability package's checks have not
// landed on main yet; until they do, runs are not checked and every verdict
// stays "" (shown as "not checked", never as ok).
type Verdict string

const (
	ok      Verdict = "ok"
	illegal Verdict = "illegal"
	unknown Verdict = "unknown"
)

// Check judges the history of the runner's last run with Porcupine.
func (r *Runner) Check(res *Result, timeout time.Duration) {}

// porcupineAvailable says whether runs are judged by Porcupine.
const porcupineAvailable = false
