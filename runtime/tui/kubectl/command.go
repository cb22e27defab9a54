package kubectl

import (
	"strings"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/cmdline"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
	"github.com/kubewalk/kubewalk/server"
)

var _ view.Commander = (*Model)(nil)

// Words the kubectl suggestions offer; the root's :break suggestions use them too.
var (
	// Resources are the resources the server serves, as kubectl names them.
	Resources = []string{"configmaps", "namespaces", "roles", "rolebindings", "clusterroles",
		"clusterrolebindings", "secrets", "serviceaccounts", "events"}
	// APIVerbs are the verbs of a request.
	APIVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete"}

	createKinds = []string{"configmap", "namespace", "role", "rolebinding", "clusterrole", "clusterrolebinding", "secret"}
)

// Commands is the view's : command, :kubectl (:k) ARGS: it runs kubectl with ARGS here (Line)
// and shows the view; alone it shows the view with the last command. Tab completes kubectl's
// verbs, the resources, the flags and the contexts of the run.
func (v *Model) Commands() []cmdline.Command {
	return []cmdline.Command{{
		Name: "kubectl", Aliases: []string{"k"}, Args: "ARGS",
		Desc:     func(tr *i18n.Strings) string { return tr.CmdKubectl },
		Complete: v.complete,
		Run: func(args string) cmdline.Action {
			cmd, problem := v.Line(args)
			return cmdline.Action{Cmd: cmd, Show: true, Problem: problem}
		},
	}}
}

// contexts are the kubeconfig's contexts: the server's identities once it serves (else the
// three a walkthrough writes), then the two that show a failed authentication.
func (v *Model) contexts() []string {
	var out []string
	if s := v.opts.Server; s != nil && s.ServeStatus() == server.Serving {
		for _, id := range s.Identities() {
			out = append(out, id.Context)
		}
	}
	if len(out) == 0 {
		out = []string{"admin", "alice", "bob"}
	}
	return append(out, server.ContextAnonymous, server.ContextBadToken)
}

// verbs are the kubectl commands suggested first.
func verbs(tr *i18n.Strings) []cmdline.Suggestion {
	return []cmdline.Suggestion{
		{Text: "get", Desc: tr.VerbGet}, {Text: "describe", Desc: tr.VerbDescribe},
		{Text: "create", Desc: tr.VerbCreate}, {Text: "apply", Desc: tr.VerbApply},
		{Text: "delete", Desc: tr.VerbDelete}, {Text: "auth", Desc: tr.VerbAuth},
		{Text: "api-resources", Desc: tr.VerbAPIResources},
		{Text: "api-versions", Desc: tr.VerbAPIVersions},
		{Text: "label", Desc: tr.VerbLabel}, {Text: "annotate", Desc: tr.VerbAnnotate},
		{Text: "patch", Desc: tr.VerbPatch}, {Text: "explain", Desc: tr.VerbExplain},
		{Text: "version", Desc: tr.VerbVersion}, {Text: "config", Desc: tr.VerbConfig},
	}
}

// flags are the kubectl flags suggested after a "-".
func flags(tr *i18n.Strings) []cmdline.Suggestion {
	return []cmdline.Suggestion{
		{Text: "--context", Desc: tr.FlagContext}, {Text: "-w", Desc: tr.FlagWatch},
		{Text: "-o", Desc: tr.FlagOutput}, {Text: "-n", Desc: tr.FlagNamespace},
		{Text: "-A", Desc: tr.FlagAllNamespaces}, {Text: "--as", Desc: tr.FlagAs},
		{Text: "-f", Desc: tr.FlagFile}, {Text: "--dry-run=server", Desc: tr.FlagDryRun},
	}
}

// complete suggests the next kubectl word after args.
func (v *Model) complete(args []string, word string) []cmdline.Suggestion {
	tr := v.c.Tr
	if len(args) > 0 && (args[len(args)-1] == "--context") {
		return cmdline.Words(v.contexts(), tr.SuggestContext)
	}
	if strings.HasPrefix(word, "--context=") {
		var out []cmdline.Suggestion
		for _, x := range v.contexts() {
			out = append(out, cmdline.Suggestion{Text: "--context=" + x, Desc: tr.SuggestContext})
		}
		return out
	}
	if strings.HasPrefix(word, "-") {
		return flags(tr)
	}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && (a == "--context" || a == "-o" || a == "-n" || a == "--as" || a == "-f") {
				i++ // its value
			}
			continue
		}
		pos = append(pos, a)
	}
	switch {
	case len(pos) == 0:
		return verbs(tr)
	case len(pos) == 1 && pos[0] == "auth":
		return []cmdline.Suggestion{{Text: "can-i", Desc: tr.SuggestCanI}, {Text: "whoami", Desc: tr.SuggestWhoami}}
	case len(pos) == 1 && pos[0] == "create":
		return cmdline.Words(createKinds, tr.SuggestKind)
	case len(pos) == 1 && strings.Contains(" get describe delete label annotate patch explain edit ", " "+pos[0]+" "):
		return cmdline.Words(Resources, tr.SuggestResource)
	case len(pos) == 2 && pos[0] == "auth" && pos[1] == "can-i":
		return cmdline.Words(APIVerbs, tr.SuggestVerb)
	case len(pos) == 3 && pos[0] == "auth" && pos[1] == "can-i":
		return cmdline.Words(Resources, tr.SuggestResource)
	}
	return nil
}
