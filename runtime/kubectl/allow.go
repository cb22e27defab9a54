package kubectl

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"
)

// In confined mode (Options.Confined: a student's tour in `kubewalk class ssh`, whose screen
// belongs to someone who is not this machine's user) kubectl runs only what is listed here:
// the command paths of confinedCommands, each with only the local flags listed for it, and of
// the global flags only confinedGlobals. Everything else — a command or flag this list does not
// name, including any a later kubectl adds — is refused before the command runs, with the
// reason. The list was made by reading every command and flag of kubectl v0.37.2
// (testdata/kubectl-tree.txt is that tree; TestConfinedTreeReviewed fails when the tree
// changes, until someone reviews what changed). What it leaves out:
//
//   - anything that reads or writes a file on this machine: -f FILE (only `-f -`, which reads
//     the manifest typed into the pane's text box), -k, --from-file, --from-env-file, --env-file,
//     --patch-file, --cert/--key, `-o *-file=`, --cache-dir, --output-directory, --custom (a
//     debug profile from a file), cp, diff, kustomize, plugin, cluster-info dump;
//   - anything that starts a program or hands over the terminal: edit, apply edit-last-applied,
//     create --edit, exec/run/debug/attach with -i/-t/--attach, completion, plugins;
//   - anything that sends requests or credentials elsewhere or keeps a listener: --server,
//     --kubeconfig, --cluster, --user, --token, --username/--password, --client-certificate,
//     --client-key, --certificate-authority, --insecure-skip-tls-verify, --tls-server-name,
//     --proxy-url, proxy, port-forward;
//   - what changes the kubeconfig (config set*, use-context, delete-*, rename-context, unset)
//     or the personal kubectl preferences (kuberc), and profiling (--profile, --profile-output);
//   - commands this server has nothing for (certificate, cordon, drain, taint, top, autoscale,
//     auth reconcile, alpha) and the deprecated --record.

// printFlags are the flags of kubectl's printers: what to print and how.
const printFlags = "allow-missing-template-keys output show-managed-fields template"

// writeFlags are the flags of commands that write: a dry run and the field manager.
const writeFlags = "dry-run field-manager"

// confinedCommands maps each command path that runs in confined mode to its allowed local
// flags (space-separated; the constants above are expanded). `filename` is allowed only as
// `-f -` (see confinedValues).
var confinedCommands = map[string]string{
	"kubectl":         "",
	"kubectl help":    "",
	"kubectl options": "",
	"kubectl version": "client output",
	"kubectl api-resources": "api-group cached categories namespaced no-headers output " +
		"show-managed-fields sort-by verbs",
	"kubectl api-versions": "",
	"kubectl explain":      "api-version max-depth output recursive",
	"kubectl cluster-info": "",
	"kubectl get": printFlags + " all-namespaces chunk-size field-selector filename ignore-not-found " +
		"label-columns no-headers output-watch-events raw selector server-print show-kind " +
		"show-labels sort-by subresource watch watch-only",
	"kubectl describe": "all-namespaces chunk-size filename selector show-events",
	"kubectl events":   printFlags + " all-namespaces chunk-size for no-headers types watch",
	"kubectl create":   printFlags + " " + writeFlags + " filename raw save-config selector validate",
	"kubectl create clusterrole": printFlags + " " + writeFlags + " aggregation-rule non-resource-url " +
		"resource resource-name save-config validate verb",
	"kubectl create clusterrolebinding": printFlags + " " + writeFlags + " clusterrole group save-config " +
		"serviceaccount user validate",
	"kubectl create configmap":  printFlags + " " + writeFlags + " append-hash from-literal save-config validate",
	"kubectl create cronjob":    printFlags + " " + writeFlags + " image restart save-config schedule validate",
	"kubectl create deployment": printFlags + " " + writeFlags + " image port replicas save-config validate",
	"kubectl create ingress": printFlags + " " + writeFlags + " annotation class default-backend rule " +
		"save-config validate",
	"kubectl create job":       printFlags + " " + writeFlags + " from image save-config validate",
	"kubectl create namespace": printFlags + " " + writeFlags + " save-config validate",
	"kubectl create poddisruptionbudget": printFlags + " " + writeFlags + " max-unavailable min-available " +
		"save-config selector validate",
	"kubectl create priorityclass": printFlags + " " + writeFlags + " description global-default " +
		"preemption-policy save-config validate value",
	"kubectl create quota": printFlags + " " + writeFlags + " hard save-config scopes validate",
	"kubectl create role":  printFlags + " " + writeFlags + " resource resource-name save-config validate verb",
	"kubectl create rolebinding": printFlags + " " + writeFlags + " clusterrole group role save-config " +
		"serviceaccount user validate",
	"kubectl create secret generic": printFlags + " " + writeFlags + " append-hash from-literal save-config " +
		"type validate",
	"kubectl create secret docker-registry": printFlags + " " + writeFlags + " append-hash docker-email " +
		"docker-password docker-server docker-username save-config validate",
	"kubectl create service clusterip":    printFlags + " " + writeFlags + " clusterip save-config tcp validate",
	"kubectl create service externalname": printFlags + " " + writeFlags + " external-name save-config tcp validate",
	"kubectl create service loadbalancer": printFlags + " " + writeFlags + " save-config tcp validate",
	"kubectl create service nodeport":     printFlags + " " + writeFlags + " node-port save-config tcp validate",
	"kubectl create serviceaccount":       printFlags + " " + writeFlags + " save-config validate",
	"kubectl create token": printFlags + " audience bound-object-kind bound-object-name bound-object-uid " +
		"duration",
	"kubectl apply": printFlags + " " + writeFlags + " cascade filename force force-conflicts grace-period " +
		"overwrite selector server-side subresource timeout validate wait",
	"kubectl apply view-last-applied": "all output selector",
	"kubectl replace": printFlags + " " + writeFlags + " cascade filename force grace-period raw save-config " +
		"subresource timeout validate wait",
	"kubectl delete": "all all-namespaces cascade dry-run field-selector filename force grace-period " +
		"ignore-not-found now output raw selector timeout wait",
	"kubectl label": printFlags + " " + writeFlags + " all all-namespaces field-selector list overwrite " +
		"resource-version selector",
	"kubectl annotate": printFlags + " " + writeFlags + " all all-namespaces field-selector list overwrite " +
		"resource-version selector",
	"kubectl patch": printFlags + " " + writeFlags + " patch subresource type",
	"kubectl scale": printFlags + " all current-replicas dry-run replicas resource-version selector timeout",
	"kubectl set env": printFlags + " " + writeFlags + " all containers env from keys list overwrite prefix " +
		"resolve selector",
	"kubectl set image":          printFlags + " " + writeFlags + " all selector",
	"kubectl set resources":      printFlags + " " + writeFlags + " all containers limits requests selector",
	"kubectl set selector":       printFlags + " " + writeFlags + " all resource-version",
	"kubectl set serviceaccount": printFlags + " " + writeFlags + " all",
	"kubectl set subject":        printFlags + " " + writeFlags + " all group selector serviceaccount user",
	"kubectl rollout status":     "revision selector timeout watch",
	"kubectl rollout history":    printFlags + " revision selector",
	"kubectl rollout pause":      printFlags + " field-manager selector",
	"kubectl rollout resume":     printFlags + " field-manager selector",
	"kubectl rollout restart":    printFlags + " field-manager selector",
	"kubectl rollout undo":       printFlags + " dry-run selector to-revision",
	"kubectl run": printFlags + " " + writeFlags + " annotations cascade command env expose force " +
		"grace-period image image-pull-policy labels override-type overrides pod-running-timeout port " +
		"privileged quiet restart save-config timeout wait",
	"kubectl expose": printFlags + " " + writeFlags + " cluster-ip external-ip labels load-balancer-ip name " +
		"override-type overrides port protocol save-config selector session-affinity target-port type",
	"kubectl exec": "container pod-running-timeout quiet",
	"kubectl logs": "all-containers all-pods container follow ignore-errors insecure-skip-tls-verify-backend " +
		"limit-bytes max-log-requests pod-running-timeout prefix previous selector since since-time tail " +
		"timestamps",
	"kubectl debug": "arguments-only container copy-to env image image-pull-policy keep-annotations " +
		"keep-init-containers keep-labels keep-liveness keep-readiness keep-startup profile quiet replace " +
		"same-node set-image share-processes target",
	"kubectl wait":                   printFlags + " all all-namespaces field-selector for selector timeout",
	"kubectl auth can-i":             "all-namespaces list no-headers quiet subresource",
	"kubectl auth whoami":            printFlags,
	"kubectl config view":            printFlags + " flatten merge minify raw",
	"kubectl config current-context": "",
	"kubectl config get-contexts":    "no-headers output",
	"kubectl config get-clusters":    "",
	"kubectl config get-users":       "",
}

// confinedGlobals are kubectl's global (root persistent) flags allowed in confined mode: who to
// act as (a context of the run's kubeconfig, impersonation) and how to ask.
var confinedGlobals = map[string]bool{
	"context": true, "namespace": true, "as": true, "as-group": true, "as-uid": true,
	"as-user-extra": true, "request-timeout": true, "warnings-as-errors": true,
	"match-server-version": true, "disable-compression": true,
}

// flagReasons say why a well-known flag is not on the list, for the refusal.
var flagReasons = map[string]string{
	"filename":  "-f reads a file on the class host; `-f -` reads the manifest you type into the text box",
	"kustomize": "-k reads a directory on the class host", "from-file": "it reads files on the class host",
	"from-env-file": "it reads a file on the class host", "env-file": "it reads a file on the class host",
	"patch-file": "it reads a file on the class host", "cert": "it reads a file on the class host",
	"key": "it reads a file on the class host", "custom": "it reads a file on the class host",
	"output-directory": "it writes files on the class host", "cache-dir": "it writes files on the class host",
	"edit": "it starts an editor on the class host", "stdin": "it connects the terminal to a container",
	"tty": "it connects the terminal to a container", "attach": "it connects the terminal to a container",
	"kubeconfig": "kubectl here talks only to this run's server with its kubeconfig",
	"server":     "kubectl here talks only to this run's server", "cluster": "kubectl here talks only to this run's server",
	"proxy-url": "it would send your requests and credentials through another host",
	"user":      "pick an identity with --context instead", "token": "pick an identity with --context instead",
	"username": "pick an identity with --context instead", "password": "pick an identity with --context instead",
	"client-certificate": "pick an identity with --context instead", "client-key": "pick an identity with --context instead",
	"certificate-authority": "kubectl here trusts only this run's CA", "insecure-skip-tls-verify": "kubectl here trusts only this run's CA",
	"tls-server-name": "kubectl here trusts only this run's CA", "profile": "it writes profile files on the class host",
	"profile-output": "it writes profile files on the class host", "kuberc": "personal kubectl preferences are not applied here",
	"record": "it is deprecated and does nothing useful here", "recursive": "it walks directories on the class host",
	"local": "it works on local files", "interactive": "it asks on the terminal, which the screen owns",
}

// commandReasons say why a well-known command is not on the list.
var commandReasons = map[string]string{
	"kubectl edit":                    "it starts an editor on the class host",
	"kubectl apply edit-last-applied": "it starts an editor on the class host",
	"kubectl attach":                  "it connects the terminal to a container",
	"kubectl cp":                      "it copies files of the class host",
	"kubectl diff":                    "it runs a diff program on the class host",
	"kubectl kustomize":               "it reads directories (and may run programs) on the class host",
	"kubectl plugin":                  "plugins are programs on the class host",
	"kubectl plugin list":             "plugins are programs on the class host",
	"kubectl proxy":                   "it keeps a listener open on the class host",
	"kubectl port-forward":            "it keeps a listener open on the class host",
	"kubectl cluster-info dump":       "it writes files on the class host",
	"kubectl completion":              "it is for your own shell, not this screen",
	"kubectl kuberc":                  "personal kubectl preferences are not applied here",
	"kubectl kuberc set":              "personal kubectl preferences are not applied here",
	"kubectl kuberc view":             "personal kubectl preferences are not applied here",
	"kubectl config set":              "it would change this run's kubeconfig; pass --context to a command instead",
	"kubectl config set-cluster":      "it would change this run's kubeconfig; pass --context to a command instead",
	"kubectl config set-context":      "it would change this run's kubeconfig; pass --context to a command instead",
	"kubectl config set-credentials":  "it would change this run's kubeconfig; pass --context to a command instead",
	"kubectl config unset":            "it would change this run's kubeconfig; pass --context to a command instead",
	"kubectl config use-context":      "it would change this run's kubeconfig; pass --context to a command instead",
	"kubectl config delete-cluster":   "it would change this run's kubeconfig; pass --context to a command instead",
	"kubectl config delete-context":   "it would change this run's kubeconfig; pass --context to a command instead",
	"kubectl config delete-user":      "it would change this run's kubeconfig; pass --context to a command instead",
	"kubectl config rename-context":   "it would change this run's kubeconfig; pass --context to a command instead",
	"kubectl apply set-last-applied":  "it is not needed here: apply -f - keeps the annotation itself",
	"kubectl create secret tls":       "it reads a certificate and key from files on the class host",
	"kubectl auth reconcile":          "it is not needed here",
	"kubectl certificate":             "this server has no certificate signing requests",
	"kubectl certificate approve":     "this server has no certificate signing requests",
	"kubectl certificate deny":        "this server has no certificate signing requests",
	"kubectl top":                     "this server has no metrics API",
	"kubectl top node":                "this server has no metrics API",
	"kubectl top pod":                 "this server has no metrics API",
}

// allowedFlags is confinedCommands parsed: path → flag name → allowed.
var allowedFlags = func() map[string]map[string]bool {
	m := make(map[string]map[string]bool, len(confinedCommands))
	for path, list := range confinedCommands {
		set := map[string]bool{}
		for _, f := range strings.Fields(list) {
			set[f] = true
		}
		m[path] = set
	}
	return m
}()

// confinedCommandNames lists the commands that run in confined mode, by their first word
// (create, set and rollout stand for their subcommands), for refusals.
func confinedCommandNames() string {
	seen := map[string]bool{}
	var names []string
	for p := range confinedCommands {
		f := strings.Fields(p)
		if len(f) < 2 || f[1] == "help" || f[1] == "options" || seen[f[1]] {
			continue
		}
		seen[f[1]] = true
		names = append(names, f[1])
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// refuseConfined says why cmd, as parsed, may not run in confined mode ("" if it may).
// kubeconfig is the run's, whose contexts --context may name.
func refuseConfined(cmd *cobra.Command, kubeconfig string) string {
	path := cmd.CommandPath()
	allowed, ok := allowedFlags[path]
	if !ok {
		why := commandReasons[path]
		if why == "" {
			why = "it is not among the commands reviewed for a class"
		}
		return fmt.Sprintf("`%s` does not run here: %s. Commands that do: %s", path, why, confinedCommandNames())
	}
	root := cmd.Root()
	var bad string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if bad != "" || f.Name == "help" {
			return
		}
		global := root.PersistentFlags().Lookup(f.Name) == f
		if (global && confinedGlobals[f.Name]) || (!global && allowed[f.Name]) {
			return
		}
		why := flagReasons[f.Name]
		if why == "" {
			why = "it is not among the flags reviewed for a class"
		}
		bad = fmt.Sprintf("--%s does not run here with `%s`: %s", f.Name, path, why)
	})
	if bad != "" {
		return bad
	}
	return refuseConfinedValues(cmd, kubeconfig)
}

// refuseConfinedValues checks the values of the allowed flags that could still name a file or
// another identity: -f only as `-f -` (with the text box's manifest), -o without a *-file
// format, --context only a context of the run's kubeconfig.
func refuseConfinedValues(cmd *cobra.Command, kubeconfig string) string {
	fs := cmd.Flags()
	if f := fs.Lookup("filename"); f != nil && f.Changed {
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				if v != "-" {
					return fmt.Sprintf("-f %s reads a file on the class host; `-f -` reads the manifest you type into the text box", v)
				}
			}
		}
	}
	if f := fs.Lookup("output"); f != nil && f.Changed {
		format, _, _ := strings.Cut(f.Value.String(), "=")
		if strings.HasSuffix(format, "file") {
			return fmt.Sprintf("-o %s reads a file on the class host; write the template itself (-o %s=…)", format, strings.TrimSuffix(strings.TrimSuffix(format, "file"), "-"))
		}
	}
	if f := fs.Lookup("context"); f != nil && f.Changed {
		cfg, err := clientcmd.LoadFromFile(kubeconfig)
		if err != nil {
			return "the run's kubeconfig cannot be read: " + err.Error()
		}
		if _, ok := cfg.Contexts[f.Value.String()]; !ok {
			var names []string
			for n := range cfg.Contexts {
				names = append(names, n)
			}
			sort.Strings(names)
			return fmt.Sprintf("--context %s is not a context of this run's kubeconfig (%s)", f.Value.String(), strings.Join(names, ", "))
		}
	}
	return ""
}
