// Command kubewalk starts a real Kubernetes-style API server and walks through its startup
// chain. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/kubewalk/kubewalk/runtime/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
