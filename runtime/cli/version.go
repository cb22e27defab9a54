package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/kubewalk/kubewalk/server"
)

func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print kubewalk's version and the versions of the libraries it is built on",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprint(stdout, versionText(server.ReadBuild()))
			return nil
		},
	}
}

// versionText reports what the binary records about its build: kubewalk's own revision (or
// that none was recorded, as with `go run`) and the module versions compiled in.
func versionText(b server.Build) string {
	self := b.Version
	if self == "" {
		self = "devel"
	}
	commit := "commit unknown (go run, or built without VCS information)"
	if b.Revision != "" {
		commit = "commit " + b.Revision
		if b.Modified {
			commit += " with uncommitted changes"
		}
		if !b.Time.IsZero() {
			commit += ", " + b.Date()
		}
	}
	kubectlVersion := server.KubernetesRelease(b.Module("k8s.io/kubectl"))
	if kubectlVersion == "" {
		kubectlVersion = server.Unknown
	}
	orNone := func(v string) string {
		if v == "" {
			return server.Unknown
		}
		return v
	}
	return fmt.Sprintf(`kubewalk %s, %s
  serves Kubernetes API version v%s
  in-process kubectl                %s (k8s.io/kubectl %s)
  k8s.io/apiserver                  %s
  k8s.io/client-go                  %s
  go.etcd.io/etcd/server/v3 (embed) %s
  go                                %s
`, self, commit, server.KubernetesVersion, kubectlVersion, orNone(b.Module("k8s.io/kubectl")),
		orNone(b.Module("k8s.io/apiserver")), orNone(b.Module("k8s.io/client-go")),
		orNone(b.Module("go.etcd.io/etcd/server/v3")), orNone(b.GoVersion))
}
