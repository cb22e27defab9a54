package kubectl

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// RefusedError says a command was not run, why, and — when it can run in a terminal of its
// own — the shell command line that runs it there against the same server.
type RefusedError struct {
	// Args are the arguments as given.
	Args []string
	// Reason says why, in one sentence, in English (ReasonIn words it in the learner's
	// language).
	Reason string
	// Command is the line to run in another terminal ("" when running it elsewhere would not
	// help, e.g. for a pinned flag).
	Command string

	why reason // Reason, as the catalogue words it
}

// refused is the RefusedError for args with the reason r (Reason is its English).
func refused(args []string, r reason, command string) *RefusedError {
	return &RefusedError{Args: args, Reason: r.in(englishStrings()), Command: command, why: r}
}

// ReasonIn is Reason in tr's language: every reason kubectl inside kubewalk gives is in the
// i18n catalogue, with commands, flags and paths as kubectl spells them. A RefusedError built
// with a Reason of its own (not by this package) gives that Reason.
func (e *RefusedError) ReasonIn(tr *i18n.Strings) string {
	if e.why.isZero() {
		return e.Reason
	}
	return e.why.in(tr)
}

// Error implements error.
func (e *RefusedError) Error() string {
	if e.Command == "" {
		return "kubectl " + Quote(e.Args) + ": " + e.Reason
	}
	return fmt.Sprintf("kubectl %s: %s\nRun it in another terminal:\n  %s", Quote(e.Args), e.Reason, e.Command)
}

// pinnedFlags are kubectl's global flags that choose the server or the credentials. kubectl
// inside kubewalk talks only to this run's server with the kubeconfig's own identities (chosen
// with --context; --as impersonates): these flags would let a command send a token elsewhere or
// make client-go prompt for a password on the terminal the TUI owns.
var pinnedFlags = []string{
	"kubeconfig", "server", "cluster", "user", "token", "username", "password",
	"client-certificate", "client-key", "certificate-authority", "insecure-skip-tls-verify",
	"tls-server-name", "proxy-url",
}

// ownTerminal lists, by command path (and the subcommands under it), the kubectl v0.37.2 commands (k8s.io/kubectl/pkg/cmd,
// NewKubectlCommand's tree) that cannot run in a pane: they need the terminal itself, keep a
// local listener open until interrupted, or end the process on their own. Commands listed with
// a flag test are refused only when it holds. Everything else in the tree runs, including the
// commands that stream over plain HTTP until interrupted — get -w, logs -f, events -w, wait,
// rollout status, delete --wait — which end when the Run's context does. `alpha` has no
// subcommands at this version; plugins (kubectl-NAME on PATH) are refused by refuseUnparsed
// because they are programs of their own. Also refused: the `kubectl config` subcommands that
// write the kubeconfig (kubeconfigWriters), -f - and paths naming the terminal (stdinPaths),
// the pinned flags, --profile and --kuberc (refuseParsed), klog's -v (refuseUnparsed).
var ownTerminal = []struct {
	path   string
	when   func(*pflag.FlagSet) bool // nil: always
	reason reason
}{
	{"kubectl edit", nil, why("RefuseTermEdit")},
	{"kubectl attach", nil, why("RefuseTermAttach")},
	{"kubectl port-forward", nil, why("RefuseTermPortForward")},
	{"kubectl proxy", nil, why("RefuseTermProxy")},
	{"kubectl cp", nil, why("RefuseTermCp")},
	{"kubectl exec", anyBool("stdin", "tty"), why("RefuseTermExec")},
	{"kubectl run", anyBool("stdin", "tty", "attach"), why("RefuseTermRun")},
	{"kubectl debug", anyBool("stdin", "tty", "attach"), why("RefuseTermDebug")},
	{"kubectl kuberc", nil, why("RefuseTermKuberc")},
}

// kubeconfigWriters are the `kubectl config` subcommands that change the kubeconfig. The run's
// kubeconfig is kubewalk's (it defines admin, alice and bob); changing it from the pane would
// break the pane's own --context choices.
var kubeconfigWriters = map[string]bool{
	"set": true, "set-cluster": true, "set-context": true, "set-credentials": true, "unset": true,
	"use-context": true, "delete-cluster": true, "delete-context": true, "delete-user": true,
	"rename-context": true,
}

// stdinPaths are paths that read the process's standard input or terminal, which the TUI owns.
var stdinPaths = []string{"/dev/stdin", "/dev/tty", "/dev/fd/0", "/proc/self/fd/0"}

func anyBool(names ...string) func(*pflag.FlagSet) bool {
	return func(fs *pflag.FlagSet) bool {
		for _, n := range names {
			if v, err := fs.GetBool(n); err == nil && v {
				return true
			}
		}
		return false
	}
}

// refuseParsed decides, once cobra has parsed the command line, whether the command may run.
// It runs before any request is made. In every mode it refuses what needs the terminal the TUI
// owns (ownTerminal, standard input without a manifest from the text box, paths naming the
// terminal). Unless Options.Unguarded, it also refuses the pinned flags, profiling, kuberc and
// the kubeconfig writers; under Options.Confined, anything not on the allow-list (allow.go).
// Under Options.NoExecPlugins a kubeconfig user with a credential plugin is refused.
func (r *Runner) refuseParsed(cmd *cobra.Command, rawArgs []string, input bool) *RefusedError {
	fs := cmd.Flags()
	refuse := func(why reason, elsewhere bool) *RefusedError {
		command := ""
		if elsewhere && !r.opts.Confined {
			command = r.ExternalCommand(rawArgs)
		}
		return refused(rawArgs, why, command)
	}
	path := cmd.CommandPath()
	for _, o := range ownTerminal {
		under := path == o.path || strings.HasPrefix(path, o.path+" ")
		if under && (o.when == nil || o.when(fs)) {
			return refuse(why("RefuseOwnTerminal", o.reason), true)
		}
	}
	if f := fs.Lookup("filename"); f != nil && !input {
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				if v == "-" {
					return refuse(why("RefuseStdinDash", Quote(rawArgs)), true)
				}
			}
		}
	}
	for _, a := range rawArgs {
		for _, p := range stdinPaths {
			if strings.Contains(a, p) {
				return refuse(why("RefuseStdinPath", p), true)
			}
		}
	}
	if r.opts.NoExecPlugins {
		if w := refuseCredentialPlugin(cmd, r.opts.Kubeconfig, r.opts.DefaultContext); !w.isZero() {
			return refuse(w, false)
		}
	}
	if r.opts.Unguarded {
		return nil
	}
	for _, name := range pinnedFlags {
		// `config`'s own --kubeconfig is pinned too; other same-named flags of a command's own
		// (create rolebinding --user) are not these.
		if f := fs.Lookup(name); f != nil && f.Changed && (isGlobal(cmd, f) || name == "kubeconfig") {
			return refuse(why("RefusePinned", name), false)
		}
	}
	for _, name := range []string{"profile", "profile-output"} {
		// `kubectl debug --profile=general` is debug's own flag (a debugging profile), not
		// kubectl's global profiling flag.
		if f := fs.Lookup(name); f != nil && f.Changed && isGlobal(cmd, f) {
			return refuse(why("RefuseProfiling", name), true)
		}
	}
	if fs.Changed("kuberc") {
		return refuse(why("RefuseKuberc"), true)
	}
	if cmd.HasParent() && cmd.Parent().CommandPath() == "kubectl config" && kubeconfigWriters[cmd.Name()] {
		return refuse(why("RefuseChangesKubeconfig"), false)
	}
	if r.opts.Confined {
		if w := refuseConfined(cmd, r.opts.Kubeconfig); !w.isZero() {
			return refuse(w, false)
		}
	}
	return nil
}

// isGlobal reports whether f is one of kubectl's global flags (the root's persistent flags)
// rather than a flag of cmd's own with the same name.
func isGlobal(cmd *cobra.Command, f *pflag.Flag) bool {
	return cmd.Root().PersistentFlags().Lookup(f.Name) == f
}

// refuseCredentialPlugin says why the identity cmd would use may not be used: its kubeconfig
// user runs a credential plugin (exec:) or an auth provider, programs of their own on this
// machine. The zero reason if it may.
func refuseCredentialPlugin(cmd *cobra.Command, kubeconfig, defaultContext string) reason {
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		return why("RefuseKubeconfigUnreadable", err.Error())
	}
	ctxName := defaultContext
	if f := cmd.Flags().Lookup("context"); f != nil && f.Changed {
		ctxName = f.Value.String()
	}
	user := ""
	if c, ok := cfg.Contexts[ctxName]; ok {
		user = c.AuthInfo
	}
	if f := cmd.Flags().Lookup("user"); f != nil && f.Changed && isGlobal(cmd, f) {
		user = f.Value.String()
	}
	if a, ok := cfg.AuthInfos[user]; ok && (a.Exec != nil || a.AuthProvider != nil) {
		return why("RefuseCredentialPlugin", user)
	}
	return reason{}
}

// refuseUnparsed refuses, before cobra parses anything, what cobra would only reject with a
// confusing message: klog's -v (kubectl's binary adds klog's flags; klog is process-wide and
// kubewalk sends it to the log file, shared with the server) and plugins.
func (r *Runner) refuseUnparsed(root *cobra.Command, args []string) *RefusedError {
	for _, a := range args {
		if a == "--" {
			break
		}
		if isVerbosityFlag(a) {
			return refused(args, why("RefuseVerbosity"), r.ExternalCommand(args))
		}
	}
	if _, _, err := root.Find(args); err == nil {
		return nil
	}
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if p, err := exec.LookPath("kubectl-" + a); err == nil {
			return refused(args, why("RefusePlugin", a, p), r.ExternalCommand(args))
		}
		break
	}
	return nil
}

// isVerbosityFlag reports whether a is klog's -v/--v or --vmodule flag.
func isVerbosityFlag(a string) bool {
	for _, p := range []string{"--v", "-v", "--vmodule"} {
		if a == p || strings.HasPrefix(a, p+"=") {
			return true
		}
	}
	// -v8, pflag's shorthand with an attached value.
	return len(a) > 2 && strings.HasPrefix(a, "-v") && a[2] >= '0' && a[2] <= '9'
}
