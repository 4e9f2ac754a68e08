//go:build race

package main

// raceEnabled: the race detector is on (about ten times slower here); a
// few output-format tests run a smaller form of their commands, and the
// plain build runs the full ones.
const raceEnabled = true
