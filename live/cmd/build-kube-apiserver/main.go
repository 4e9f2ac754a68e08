// Command build-kube-apiserver builds the kube-apiserver of the
// Kubernetes setups from the k8s.io/kubernetes module its build module
// pins (live/kube-apiserver/go.mod, a tool there) into fencelab's cache
// (server.KubeAPIServerCacheDir), unless an intact build is there, and
// prints its path. `make live-deps` and `make test-deps` run it from
// live/: `go run ./cmd/build-kube-apiserver`.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/fencelab/fencelab/live/server"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run builds the binary; bad input is one line on stderr and exit 2, a
// failed build exit 1.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("build-kube-apiserver", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	goCmd := fs.String("go", "go", "the go command to build with")
	module := fs.String("module", "kube-apiserver", "kube-apiserver's build module's folder (its go.mod pins k8s.io/kubernetes)")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "build-kube-apiserver: %.200s\n", err.Error())
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "build-kube-apiserver: unexpected argument %.64q\n", fs.Arg(0))
		return 2
	}
	if err := server.CheckKubeModule(*module); err != nil {
		fmt.Fprintf(stderr, "build-kube-apiserver: %v\n", err)
		return 2
	}
	cache, err := server.KubeAPIServerCacheDir()
	if err != nil {
		fmt.Fprintf(stderr, "build-kube-apiserver: %v\n", err)
		return 2
	}
	if _, err := server.KubeAPIServerPath(); err != nil {
		// Minutes of silence would look like a hang.
		fmt.Fprintf(stderr, "build-kube-apiserver: building %s %s into %s (about 13 minutes of CPU: minutes more on a busy machine)\n", server.KubeAPIServerPackage, server.KubernetesVersion, cache)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	bin, err := server.BuildKubeAPIServer(ctx, *goCmd, *module, cache, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "build-kube-apiserver: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, bin)
	return 0
}
