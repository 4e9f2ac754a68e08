//go:build !race

package testbuild

const race = false
