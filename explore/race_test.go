//go:build race

package explore

// raceEnabled: the race detector is on; the costliest models give way to
// their symmetric versions.
const raceEnabled = true
