// Command mylock is fencelab-live with one more setup: the example lock
// of package mylock, as a Go user adds their own. 'mylock list' shows it
// beside the five services' setups; 'mylock run --service mylock
// --design lease' runs it under a client pause.
package main

import (
	"os"

	"github.com/fencelab/fencelab/live/cli"
	"github.com/fencelab/fencelab/live/examples/mylock"
	"github.com/fencelab/fencelab/live/setup"
)

func main() { os.Exit(cli.Main(os.Args, append(setup.All(), mylock.Setup()))) }
