//go:build race

package tlc

// raceEnabled: the race detector is on (the parser, single-threaded, runs
// about five times slower); TestParseOutputTruncated cuts the fixtures at
// fewer line boundaries, and the plain build at every one.
const raceEnabled = true
