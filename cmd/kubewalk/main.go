// Command kubewalk starts a real Kubernetes-style API server and walks through its startup
// chain. See README.md.
package main

import (
	"os"

	"github.com/kubewalk/kubewalk/runtime/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
