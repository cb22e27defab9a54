package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/server"
)

// newEnvCommand builds "kubewalk env": the export line for the kubeconfig of the kubewalk that
// is running, for another terminal (eval "$(kubewalk env)"), found as a second run finds the
// first: at the default kubeconfig path, by the kubewalk.io/run marker kubewalk writes into
// its kubeconfig and the lock beside it.
func newEnvCommand(stdout io.Writer) *cobra.Command {
	var lang, path string
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Print export KUBECONFIG=... for the kubewalk that is running (eval \"$(kubewalk env)\")",
		Long: `Print the shell line that points kubectl at the running kubewalk's server:

  export KUBECONFIG=<the kubeconfig it wrote>

followed by a comment saying which run serves where. kubewalk writes its kubeconfig, when the
server serves, at the same path every run (` + "`--kubeconfig`" + `'s default), marked as its own; env finds
it there, checks that the run that wrote it is still alive, and fails, saying why, when none is
(none started, not served yet, ended). A run that found the default path taken writes its
kubeconfig in its temp dir and prints that path instead.`,
		Example: `  eval "$(kubewalk env)"
  kubectl get ns`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkLang(lang); err != nil {
				return err
			}
			line, err := envLines(path, msgs(lang))
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(stdout, line)
			return err
		},
	}
	cmd.Flags().StringVar(&path, "kubeconfig", server.DefaultKubeconfigPath(), "the kubeconfig path the running kubewalk was given (--kubeconfig), if not the default")
	cmd.Flags().StringVar(&lang, "lang", "", "language of the comment and the errors (en, zh-CN); default from LANGUAGE, LC_ALL, LC_MESSAGES, LANG")
	return cmd
}

// envLines returns the export line and its comment for the live run whose kubeconfig is at
// path, or the error saying why there is none. The comment comes after the export, so that
// an unquoted eval $(kubewalk env), which joins the lines, still runs the export.
func envLines(path string, tr *i18n.Strings) (string, error) {
	if path == "" {
		return "", errors.New(tr.ErrEnvNoPath)
	}
	pid, err := server.RunningKubeconfig(path)
	switch {
	case errors.Is(err, server.ErrNoKubeconfig):
		return "", fmt.Errorf(tr.ErrEnvNone, path)
	case errors.Is(err, server.ErrNotWritten):
		return "", fmt.Errorf(tr.ErrEnvNotYet, pid, path)
	case errors.Is(err, server.ErrRunEnded):
		return "", fmt.Errorf(tr.ErrEnvEnded, path, pid)
	case errors.Is(err, server.ErrForeignKubeconfig):
		return "", fmt.Errorf(tr.ErrEnvForeign, path)
	case err != nil:
		return "", fmt.Errorf(tr.ErrEnvRead, path, err)
	}
	addr := "?"
	if cfg, err := clientcmd.LoadFromFile(path); err == nil {
		if ctx, ok := cfg.Contexts[cfg.CurrentContext]; ok {
			if c, ok := cfg.Clusters[ctx.Cluster]; ok {
				addr = c.Server
			}
		}
	}
	return fmt.Sprintf("export KUBECONFIG=%s\n"+tr.CLIEnvComment+"\n", kubectl.Quote([]string{path}), pid, addr), nil
}
