package cli

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/kubewalk/kubewalk/server"
)

func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print kubewalk's version and the versions of the libraries it is built on",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprint(stdout, versionText())
			return nil
		},
	}
}

// versionText reports the module versions compiled into this binary.
func versionText() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "kubewalk (no build information)\n"
	}
	mods := map[string]string{}
	for _, d := range info.Deps {
		v := d.Version
		if d.Replace != nil {
			v = d.Replace.Version
		}
		mods[d.Path] = v
	}
	self := info.Main.Version
	if self == "" || self == "(devel)" {
		self = "devel"
	}
	return fmt.Sprintf(`kubewalk %s
  serves Kubernetes API version v%s
  k8s.io/apiserver                  %s
  k8s.io/client-go                  %s
  go.etcd.io/etcd/server/v3 (embed) %s
  go                                %s
`, self, server.KubernetesVersion, mods["k8s.io/apiserver"], mods["k8s.io/client-go"],
		mods["go.etcd.io/etcd/server/v3"], info.GoVersion)
}
