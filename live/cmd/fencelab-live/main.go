// Command fencelab-live runs fencelab's question against real lock
// services under real faults, judged against the models: the command line
// of package cli over the five services' setups (setup.All). Run
// 'fencelab-live -h' for its commands.
package main

import (
	"os"

	"github.com/fencelab/fencelab/live/cli"
	"github.com/fencelab/fencelab/live/setup"
)

func main() { os.Exit(cli.Main(os.Args, setup.All())) }
