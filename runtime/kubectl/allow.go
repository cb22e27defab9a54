package kubectl

import (
	"sort"
	"strings"
	"sync"

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
var flagReasons = map[string]reason{
	"filename":                 why("RefuseFlagFilename"),
	"kustomize":                why("RefuseFlagKustomize"),
	"from-file":                why("RefuseReadsFiles"),
	"from-env-file":            why("RefuseReadsFile"),
	"env-file":                 why("RefuseReadsFile"),
	"patch-file":               why("RefuseReadsFile"),
	"cert":                     why("RefuseReadsFile"),
	"key":                      why("RefuseReadsFile"),
	"custom":                   why("RefuseReadsFile"),
	"output-directory":         why("RefuseWritesFiles"),
	"cache-dir":                why("RefuseWritesFiles"),
	"edit":                     why("RefuseEditor"),
	"stdin":                    why("RefuseToContainer"),
	"tty":                      why("RefuseToContainer"),
	"attach":                   why("RefuseToContainer"),
	"kubeconfig":               why("RefuseOnlyKubeconfig"),
	"server":                   why("RefuseOnlyServer"),
	"cluster":                  why("RefuseOnlyServer"),
	"proxy-url":                why("RefuseProxyURL"),
	"user":                     why("RefuseUseContext"),
	"token":                    why("RefuseUseContext"),
	"username":                 why("RefuseUseContext"),
	"password":                 why("RefuseUseContext"),
	"client-certificate":       why("RefuseUseContext"),
	"client-key":               why("RefuseUseContext"),
	"certificate-authority":    why("RefuseOnlyCA"),
	"insecure-skip-tls-verify": why("RefuseOnlyCA"),
	"tls-server-name":          why("RefuseOnlyCA"),
	"profile":                  why("RefuseProfileFiles"),
	"profile-output":           why("RefuseProfileFiles"),
	"kuberc":                   why("RefuseKuberc"),
	"record":                   why("RefuseRecord"),
	"recursive":                why("RefuseRecursive"),
	"local":                    why("RefuseLocal"),
	"interactive":              why("RefuseInteractive"),
}

// commandReasons say why a well-known command is not on the list.
var commandReasons = map[string]reason{
	"kubectl edit":                    why("RefuseEditor"),
	"kubectl apply edit-last-applied": why("RefuseEditor"),
	"kubectl attach":                  why("RefuseToContainer"),
	"kubectl cp":                      why("RefuseCopiesFiles"),
	"kubectl diff":                    why("RefuseDiffProgram"),
	"kubectl kustomize":               why("RefuseKustomizeCmd"),
	"kubectl plugin":                  why("RefusePluginPrograms"),
	"kubectl plugin list":             why("RefusePluginPrograms"),
	"kubectl proxy":                   why("RefuseListener"),
	"kubectl port-forward":            why("RefuseListener"),
	"kubectl cluster-info dump":       why("RefuseWritesFiles"),
	"kubectl completion":              why("RefuseCompletion"),
	"kubectl kuberc":                  why("RefuseKuberc"),
	"kubectl kuberc set":              why("RefuseKuberc"),
	"kubectl kuberc view":             why("RefuseKuberc"),
	"kubectl config set":              why("RefuseChangesKubeconfig"),
	"kubectl config set-cluster":      why("RefuseChangesKubeconfig"),
	"kubectl config set-context":      why("RefuseChangesKubeconfig"),
	"kubectl config set-credentials":  why("RefuseChangesKubeconfig"),
	"kubectl config unset":            why("RefuseChangesKubeconfig"),
	"kubectl config use-context":      why("RefuseChangesKubeconfig"),
	"kubectl config delete-cluster":   why("RefuseChangesKubeconfig"),
	"kubectl config delete-context":   why("RefuseChangesKubeconfig"),
	"kubectl config delete-user":      why("RefuseChangesKubeconfig"),
	"kubectl config rename-context":   why("RefuseChangesKubeconfig"),
	"kubectl apply set-last-applied":  why("RefuseSetLastApplied"),
	"kubectl create secret tls":       why("RefuseSecretTLS"),
	"kubectl auth reconcile":          why("RefuseNotNeeded"),
	"kubectl certificate":             why("RefuseNoCSR"),
	"kubectl certificate approve":     why("RefuseNoCSR"),
	"kubectl certificate deny":        why("RefuseNoCSR"),
	"kubectl top":                     why("RefuseNoMetrics"),
	"kubectl top node":                why("RefuseNoMetrics"),
	"kubectl top pod":                 why("RefuseNoMetrics"),
}

// allowedFlags is confinedCommands parsed: path → flag name → allowed; built on first use,
// not during package initialisation.
var allowedFlags = sync.OnceValue(func() map[string]map[string]bool {
	m := make(map[string]map[string]bool, len(confinedCommands))
	for path, list := range confinedCommands {
		set := map[string]bool{}
		for _, f := range strings.Fields(list) {
			set[f] = true
		}
		m[path] = set
	}
	return m
})

// confinedCommandNames lists the commands that run in confined mode, by their first word
// (create, set and rollout stand for their subcommands), for refusals.
func confinedCommandNames() names {
	seen := map[string]bool{}
	var list names
	for p := range confinedCommands {
		f := strings.Fields(p)
		if len(f) < 2 || f[1] == "help" || f[1] == "options" || seen[f[1]] {
			continue
		}
		seen[f[1]] = true
		list = append(list, f[1])
	}
	sort.Strings(list)
	return list
}

// refuseConfined says why cmd, as parsed, may not run in confined mode (the zero reason if it
// may). kubeconfig is the run's, whose contexts --context may name.
func refuseConfined(cmd *cobra.Command, kubeconfig string) reason {
	path := cmd.CommandPath()
	allowed, ok := allowedFlags()[path]
	if !ok {
		w, ok := commandReasons[path]
		if !ok {
			w = why("RefuseUnreviewedCommand")
		}
		return why("RefuseCommand", path, w, confinedCommandNames())
	}
	root := cmd.Root()
	var bad reason
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if !bad.isZero() || f.Name == "help" {
			return
		}
		global := root.PersistentFlags().Lookup(f.Name) == f
		if (global && confinedGlobals[f.Name]) || (!global && allowed[f.Name]) {
			return
		}
		w, ok := flagReasons[f.Name]
		if !ok {
			w = why("RefuseUnreviewedFlag")
		}
		bad = why("RefuseFlag", f.Name, path, w)
	})
	if !bad.isZero() {
		return bad
	}
	return refuseConfinedValues(cmd, kubeconfig)
}

// refuseConfinedValues checks the values of the allowed flags that could still name a file or
// another identity: -f only as `-f -` (with the text box's manifest), -o without a *-file
// format, --context only a context of the run's kubeconfig.
func refuseConfinedValues(cmd *cobra.Command, kubeconfig string) reason {
	fs := cmd.Flags()
	if f := fs.Lookup("filename"); f != nil && f.Changed {
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				if v != "-" {
					return why("RefuseFileValue", v)
				}
			}
		}
	}
	if f := fs.Lookup("output"); f != nil && f.Changed {
		format, _, _ := strings.Cut(f.Value.String(), "=")
		if strings.HasSuffix(format, "file") {
			return why("RefuseOutputFile", format, strings.TrimSuffix(strings.TrimSuffix(format, "file"), "-"))
		}
	}
	if f := fs.Lookup("context"); f != nil && f.Changed {
		cfg, err := clientcmd.LoadFromFile(kubeconfig)
		if err != nil {
			return why("RefuseKubeconfigUnreadable", err.Error())
		}
		if _, ok := cfg.Contexts[f.Value.String()]; !ok {
			var contexts names
			for n := range cfg.Contexts {
				contexts = append(contexts, n)
			}
			sort.Strings(contexts)
			return why("RefuseContextUnknown", f.Value.String(), contexts)
		}
	}
	return reason{}
}
