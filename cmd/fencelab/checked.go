package main

// nothingChecked is the error of a command that would check nothing: no
// model, no trace, no run. Nothing checked is never success (exit 0) nor
// a failed check (exit 1): it is bad input, exit 2, saying why.
func nothingChecked(why string, args ...any) error {
	return badInput("nothing to check: "+why, args...)
}
