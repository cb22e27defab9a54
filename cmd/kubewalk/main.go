// Command kubewalk starts a real Kubernetes-style API server and walks through its startup
// chain. See README.md.
package main

import (
	"os"

	// First: a tour or serve is supervised from here, before the libraries' initialisation.
	_ "github.com/kubewalk/kubewalk/runtime/cli/supervisor/boot"

	"github.com/kubewalk/kubewalk/runtime/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
