//go:build !race

package tlc

const raceEnabled = false
