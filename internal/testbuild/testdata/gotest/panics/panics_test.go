package panics

import "testing"

func TestPanics(t *testing.T) { panic("a panicking test") }
