//go:build race

package testbuild

const race = true
