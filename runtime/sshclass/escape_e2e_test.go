package sshclass

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubewalk/kubewalk/runtime/sandbox"
	"github.com/kubewalk/kubewalk/server"
)

// The escape suite: a student, through nothing but the real tour's screen over real OpenSSH,
// tries to get out of their tour. Every attempt lists the layers that must stop it on their
// own (see Layers); the suite runs one tour per configuration — all layers, each layer alone,
// and, as the control that shows the suite can tell an escape, no layer at all — and runs in it,
// one after the other, the attempts that configuration must stop. In the control every attempt
// must get through: each is harmless there, because what it aims at is the test's own stand-in
// (a fake program in a test directory that leaves a mark, files in a test directory standing in
// for the class host's, another student's server and a host service run by the test), so the
// control shows that the attempt is real and that the suite can see it succeed.
//
// A few attempts are refused, whatever the layers, by a part of the tour that no flag turns
// off (the kubectl pane's guard of its own terminal, its plugin refusal, the pinned
// --kubeconfig): they run once, in the control, where nothing else could refuse them, and must
// be refused there. Which layers would also stop them alone is not tested, and the table says so.
//
// To extend it, add an escapeAttempt: the :k command line (its first three words must differ
// from those of the command run before it in every configuration: runKubectl tells the results
// apart by them, and checkSequences fails the suite otherwise), what the screen shows when each
// layer refuses it, how an escape shows (a file appears, the screen shows what was read, the fake
// program ran, a test server was reached), and a note for the table. Then update the table in
// docs/classroom.md (TestEscapeTableInDocs prints it).

// escapeAttempt is one try at leaving the tour.
type escapeAttempt struct {
	name string
	// setup are :k commands run first, which must succeed.
	setup []string
	// command is the attempt, as typed after ":k "; {WORDS} in braces are filled in by
	// escapeEnv.expand.
	command string
	// stoppedBy reports whether a layer on its own must stop the attempt (nil with guard).
	stoppedBy func(l Layers, e *escapeEnv) bool
	// guard names what refuses the attempt in every configuration, before any layer could;
	// refusals["guard"] is what it shows ("" : nothing, the escape check decides alone).
	guard string
	// refusals are what the screen shows (a regular expression) when the attempt is stopped
	// by each layer, keyed "allow-list", "no-exec", "landlock" (and "guard"); "" when the layer
	// leaves nothing on the screen (the escape check then decides alone). The allow-list's
	// defaults to allowRefused.
	refusals map[string]string
	// escaped reports whether the attempt got through, from the screen after it and the
	// files it would have made (nil: the refusal alone decides).
	escaped func(e *escapeEnv, screen string) bool
	// note says, for the table, why a layer cannot stop the attempt alone, or what stands in
	// for the real target.
	note string
}

// escapeEnv is what the attempts aim at: files and servers the tour must not reach, world
// readable or writable so that Unix permissions alone cannot explain a refusal.
type escapeEnv struct {
	fake         string // a program standing in for a shell: it leaves a mark when it runs
	marks        string
	outside      string // a world-writable directory outside the session's
	host         string // world-readable files standing in for the class host's
	otherSession string // another student's session directory (the tours' user owns it, 0700)
	otherState   string // another student's progress directory (the same)
	session      string // this tour's session directory
	victim       victimServer
	victimNS     string // a namespace only the other student's server has
	service      string // a service on the class host's loopback (its URL), which counts requests
	serviceHits  atomic.Int64
	hasAllowList bool // the tour has the allow-list (--kubectl-unguarded turns it off)

	marksBefore int   // the fake program's marks before the attempt
	hitsBefore  int64 // the service's requests before the attempt
}

func (e *escapeEnv) marked() int {
	m, _ := filepath.Glob(filepath.Join(e.marks, "ran.*"))
	return len(m)
}

func (e *escapeEnv) ranProgram() bool { return e.marked() > e.marksBefore }

func (e *escapeEnv) reachedService() bool { return e.serviceHits.Load() > e.hitsBefore }

// kubeconfig is this tour's kubeconfig, as the tour left it.
func (e *escapeEnv) kubeconfig() *clientcmdapi.Config {
	cfg, err := clientcmd.LoadFromFile(filepath.Join(e.session, "kubeconfig"))
	if err != nil {
		return clientcmdapi.NewConfig()
	}
	return cfg
}

// expand fills in an attempt's command line.
func (e *escapeEnv) expand(s string) string {
	return strings.NewReplacer("{OTHER_SESSION}", e.otherSession, "{OTHER_STATE}", e.otherState,
		"{OUTSIDE}", e.outside, "{HOST}", e.host, "{SESSION}", e.session, "{FAKE}", e.fake,
		"{VICTIM_URL}", e.victim.server, "{VICTIM_TOKEN}", e.victim.token,
		"{SERVICE}", e.service).Replace(s)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// allowRefused is what the allow-list layer's refusals say (a command or flag that "does not
// run here", a value that reads a file, a pinned flag, profiling, a kubeconfig writer: what
// --kubectl-unguarded turns off).
const allowRefused = `does not run here|is not a context of this run's kubeconfig|reads a file on the class host|is pinned|` +
	`writes profile files|would change the kubeconfig`

// The refusals of the OS layers: seccomp's EPERM, Landlock's EACCES; kubectl hides the errno
// of a failed editor.
const (
	denied      = `permission denied`
	notPermited = `operation not permitted`
	editorFail  = `there was a problem with the editor`
	connDenied  = `connect: permission denied`
	terminal    = `needs a terminal of its own`
	// k8s.io/utils/exec turns a failed execve (EPERM, EACCES) into this.
	execNotFound = `failed to run "[^"]*fake-shell": executable file not found`
	// kustomize takes a kustomization it may not open for a missing one.
	kustNotFound = `unable to find one of 'kustomization.yaml'`
)

// escapeAttempts is the suite.
func escapeAttempts() []escapeAttempt {
	files := func(l Layers, _ *escapeEnv) bool { return l.AllowList || l.Landlock }
	programs := func(l Layers, _ *escapeEnv) bool { return l.AllowList || l.NoExec || l.Landlock }
	onScreen := func(s string) func(*escapeEnv, string) bool {
		return func(_ *escapeEnv, screen string) bool { return strings.Contains(screen, s) }
	}
	victimNS := func(e *escapeEnv, screen string) bool { return strings.Contains(screen, e.victimNS) }
	ran := func(e *escapeEnv, _ string) bool { return e.ranProgram() }
	service := func(e *escapeEnv, _ string) bool { return e.reachedService() }
	made := func(name string) func(*escapeEnv, string) bool {
		return func(e *escapeEnv, _ string) bool { return exists(filepath.Join(e.outside, name)) }
	}
	fileRefusals := map[string]string{"landlock": denied}
	return []escapeAttempt{
		// Programs: a shell (the fake program stands in) started by kubectl.
		{
			name:    "editor: apply edit-last-applied starts $EDITOR",
			setup:   []string{"create cm ea --from-literal=a=b --save-config"},
			command: "apply edit-last-applied cm/ea",
			stoppedBy: func(l Layers, e *escapeEnv) bool {
				return l.NoExec || l.Landlock || (l.AllowList && e.hasAllowList)
			},
			refusals: map[string]string{"no-exec": editorFail, "landlock": editorFail},
			escaped:  ran,
			note:     "the issue's root shell; $EDITOR is the fake program where no-exec is off",
		},
		{
			name:      "editor: create --edit starts $EDITOR",
			command:   "create --edit -f {SESSION}/ce.yaml",
			stoppedBy: programs,
			refusals:  map[string]string{"no-exec": editorFail, "landlock": editorFail},
			escaped:   ran,
			note:      "the manifest is the tour's own file (Landlock lets it read it)",
		},
		{
			name:      "exec credential plugin of a kubeconfig context (--context)",
			command:   "--context cred get ns",
			stoppedBy: func(l Layers, _ *escapeEnv) bool { return l.NoExec || l.Landlock },
			refusals:  map[string]string{"no-exec": notPermited + `|credential plugin`, "landlock": denied},
			escaped:   ran,
			note: "allow-list: --context may name any context of the run's kubeconfig, and the class's " +
				"has none with a plugin; the suite plants one",
		},
		{
			name:      "exec credential plugin of a kubeconfig user (--user)",
			command:   "--user cred get ns",
			stoppedBy: programs,
			refusals:  map[string]string{"no-exec": notPermited + `|credential plugin`, "landlock": denied},
			escaped:   ran,
		},
		{
			name:      "diff runs an external program (KUBECTL_EXTERNAL_DIFF)",
			command:   "diff -f {SESSION}/ce.yaml",
			stoppedBy: programs,
			refusals:  map[string]string{"no-exec": execNotFound, "landlock": execNotFound},
			escaped:   ran,
			note: "kubectl runs diff(1) from PATH by default; the suite names the fake program in every " +
				"configuration; k8s.io/utils/exec reports EPERM and EACCES as \"executable file not found\"",
		},
		{
			name:      "plugin list reads the PATH directories",
			command:   "plugin list",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   onScreen("kubectl-foo"),
			note:      "no-exec: listing runs nothing; a `kubectl-foo` in a test directory on PATH",
		},

		// Reading the class host's files.
		{
			name:      "read /etc/passwd (--from-file)",
			command:   "create cm pw --from-file=/etc/passwd",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   onScreen("configmap/pw created"),
			note:      "no-exec (here and below for files and ports): reading runs no program",
		},
		{
			name:      "read /etc/passwd as a manifest (-f)",
			command:   "get -f /etc/passwd",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   onScreen(`unable to decode "/etc/passwd"`),
			note:      "the control shows kubectl read it (it is no manifest)",
		},
		{
			name:      "read a host file with a manifest (create -f), for /etc/shadow",
			command:   "create -f {HOST}/shadow.yaml",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   onScreen("configmap/host-shadow created"),
			note:      "/etc/shadow is 0640 root:shadow: Unix permissions alone keep nobody out; the suite's file is world-readable",
		},
		{
			name:      "read another student's session directory",
			command:   "create cm os --from-file={OTHER_SESSION}/kubeconfig",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   onScreen("configmap/os created"),
			note:      "same Unix user as this tour: only the layers keep it out",
		},
		{
			name:      "read another student's progress directory",
			command:   "create cm op --from-file={OTHER_STATE}/kubewalk/progress.json",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   onScreen("configmap/op created"),
		},
		{
			name:      "read the tour's own session directory (its kubeconfig)",
			command:   "create cm own --from-file={SESSION}/kubeconfig",
			stoppedBy: func(l Layers, _ *escapeEnv) bool { return l.AllowList },
			escaped:   onScreen("configmap/own created"),
			note: "no escape, listed to show the limit: Landlock lets the tour read and write its own " +
				"session directory (its server's data, keys and kubeconfig, nothing of anyone else's); " +
				"only the allow-list refuses the file flag",
		},
		{
			name:      "read a host file (--from-env-file)",
			command:   "create secret generic hs --from-env-file={HOST}/env",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   onScreen("secret/hs created"),
		},
		{
			name:      "read a template from a host file (-o go-template-file=)",
			command:   "get ns kube-system -o go-template-file={HOST}/template",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   onScreen("host-template Namespace"),
		},
		{
			name:      "read a template from a host file (-o jsonpath-file --template)",
			command:   "get namespace default -o jsonpath-file --template={HOST}/jsonpath",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   onScreen("host-jsonpath Namespace"),
		},
		{
			name:      "read columns from a host file (-o custom-columns-file=)",
			command:   "get namespaces default -o custom-columns-file={HOST}/columns",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   onScreen("HOSTCOLUMN"),
		},
		{
			name:      "read a host directory (create -k)",
			command:   "create -k {HOST}/kust",
			stoppedBy: files,
			refusals:  map[string]string{"landlock": kustNotFound},
			escaped:   onScreen("configmap/host-kust created"),
		},
		{
			name:      "read a host directory (kustomize)",
			command:   "kustomize {HOST}/kust",
			stoppedBy: files,
			refusals:  map[string]string{"landlock": kustNotFound},
			note:      "Landlock: kustomize reports the kustomization it may not open as missing",
			escaped:   onScreen("name: host-kust"),
		},
		{
			name:      "read a host file (debug --custom)",
			command:   "debug pod/nope --image=busybox --custom={HOST}/custom.json",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   onScreen(`pods "nope" not found`),
			note:      "the control shows kubectl read the file and went on to ask for the pod",
		},
		{
			name:      "read a CA from a host file (--certificate-authority)",
			command:   "get ns --certificate-authority={HOST}/ca.crt",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   onScreen("kube-system"),
			note:      "the file is the tour's own CA, copied out by the suite",
		},
		{
			name:      "read a client certificate and key from host files (--client-certificate, --client-key)",
			command:   "--context anonymous --client-certificate={HOST}/admin.crt --client-key={HOST}/admin.key get ns",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   onScreen("kube-system"),
			note:      "the files are the tour's own admin's, copied out by the suite",
		},

		// Reaching another student's server and the class host's services.
		{
			name:      "reach another student's server with their token (a kubeconfig context)",
			command:   "--context other get ns",
			stoppedBy: func(l Layers, _ *escapeEnv) bool { return l.Landlock },
			refusals:  map[string]string{"landlock": connDenied},
			escaped:   victimNS,
			note: "allow-list: the context is in the kubeconfig, planted by the suite (see the " +
				"exec plugin's context)",
		},
		{
			name:      "reach another student's server with their token (--server, --token)",
			command:   "--context badtoken --server={VICTIM_URL} --insecure-skip-tls-verify --token={VICTIM_TOKEN} get cm",
			stoppedBy: files,
			refusals:  map[string]string{"landlock": connDenied},
			escaped:   onScreen(victimCM),
			note:      "the other server's alice may list its config maps",
		},
		{
			name:      "reach another student's server with no credentials (--server)",
			command:   "--server={VICTIM_URL} --insecure-skip-tls-verify --context anonymous get ns",
			stoppedBy: files,
			refusals:  map[string]string{"landlock": connDenied},
			escaped:   onScreen("(Unauthorized)"),
			note:      "the control shows the other server's 401",
		},
		{
			name:      "reach another student's server (--cluster, --user)",
			command:   "--cluster other --user other get ns",
			stoppedBy: files,
			refusals:  map[string]string{"landlock": connDenied},
			escaped:   victimNS,
		},
		{
			name:      "reach a service on the class host's 127.0.0.1 (--server)",
			command:   "--server={SERVICE} get ns",
			stoppedBy: files,
			refusals:  map[string]string{"landlock": connDenied},
			escaped:   service,
			note:      "a test server that counts requests",
		},
		{
			name:      "send requests through a service on the class host (--proxy-url)",
			command:   "--proxy-url={SERVICE} get ns",
			stoppedBy: files,
			refusals:  map[string]string{"landlock": connDenied},
			escaped:   service,
		},

		// Writing outside the session directory.
		{
			name:      "write outside the session directory (--cache-dir)",
			command:   "get ns --cache-dir={OUTSIDE}/cache",
			stoppedBy: files,
			refusals:  map[string]string{"landlock": ""},
			escaped:   made("cache"),
			note:      "Landlock: kubectl ignores a cache it cannot write, silently",
		},
		{
			name:      "write into another student's session directory (--cache-dir)",
			command:   "get namespaces --cache-dir={OTHER_SESSION}/cache",
			stoppedBy: files,
			refusals:  map[string]string{"landlock": ""},
			escaped:   func(e *escapeEnv, _ string) bool { return exists(filepath.Join(e.otherSession, "cache")) },
		},
		{
			name:      "write into another student's progress directory (--cache-dir)",
			command:   "get namespace --cache-dir={OTHER_STATE}/cache",
			stoppedBy: files,
			refusals:  map[string]string{"landlock": ""},
			escaped:   func(e *escapeEnv, _ string) bool { return exists(filepath.Join(e.otherState, "cache")) },
		},
		{
			name:      "write a profile outside the session directory (--profile-output)",
			command:   "get ns --profile=heap --profile-output={OUTSIDE}/heap.prof",
			stoppedBy: files,
			refusals:  fileRefusals,
			escaped:   made("heap.prof"),
		},

		// Changing the run's kubeconfig, the tour's own file.
		{
			name:      "add an exec plugin user to the run's kubeconfig (config set-credentials)",
			command:   "config set-credentials evil --exec-command={FAKE} --exec-api-version=client.authentication.k8s.io/v1",
			stoppedBy: func(l Layers, _ *escapeEnv) bool { return l.AllowList },
			escaped: func(e *escapeEnv, _ string) bool {
				_, ok := e.kubeconfig().AuthInfos["evil"]
				return ok
			},
			note: "allow-list only: the kubeconfig is in the tour's own session directory, which " +
				"Landlock lets it write and writing runs nothing; using such a user is what no-exec " +
				"and Landlock stop (the exec plugin attempts)",
		},
		{
			name:      "switch the run's kubeconfig to another context (config use-context)",
			command:   "config use-context anonymous",
			stoppedBy: func(l Layers, _ *escapeEnv) bool { return l.AllowList },
			escaped:   func(e *escapeEnv, _ string) bool { return e.kubeconfig().CurrentContext == "anonymous" },
			note:      "allow-list only, as above; the in-TUI kubectl passes its own --context anyway",
		},

		// Refused before any layer, in every configuration.
		{
			name:     "editor: edit starts $EDITOR",
			command:  "edit cm/ea",
			guard:    "the pane's terminal guard",
			refusals: map[string]string{"guard": terminal},
			escaped:  ran,
		},
		{
			name:     "attach the terminal to a container (attach)",
			command:  "attach pod/nope",
			guard:    "the pane's terminal guard",
			refusals: map[string]string{"guard": terminal},
		},
		{
			name:     "open a shell in a container (exec -it)",
			command:  "exec -it pod/nope -- /bin/sh",
			guard:    "the pane's terminal guard",
			refusals: map[string]string{"guard": terminal},
		},
		{
			name:     "listen on the class host (proxy)",
			command:  "proxy --port=0",
			guard:    "the pane's terminal guard",
			refusals: map[string]string{"guard": terminal},
			escaped:  onScreen("Starting to serve"),
		},
		{
			name:     "listen on the class host (port-forward)",
			command:  "port-forward pod/nope 8080:80",
			guard:    "the pane's terminal guard",
			refusals: map[string]string{"guard": terminal},
			escaped:  onScreen("Forwarding from"),
		},
		{
			name:     "copy a host file into a container (cp)",
			command:  "cp {HOST}/shadow.yaml default/nope:/tmp/shadow",
			guard:    "the pane's terminal guard",
			refusals: map[string]string{"guard": terminal},
		},
		{
			name:     "run a kubectl plugin on PATH (kubectl-foo)",
			command:  "foo",
			guard:    "the pane's plugin refusal",
			refusals: map[string]string{"guard": `is a kubectl plugin`},
			escaped:  ran,
		},
		{
			name:     "use another student's kubeconfig, a host file (--kubeconfig)",
			command:  "--kubeconfig={HOST}/victim.kubeconfig get ns",
			guard:    "the pinned --kubeconfig",
			refusals: map[string]string{"guard": ""},
			escaped:  victimNS,
			note:     "pinned silently: the command runs against the tour's own server",
		},
	}
}

// escapeConfig is one configuration of the suite.
type escapeConfig struct {
	name   string
	layers Layers
	only   string // the layer whose refusal the screen must show ("" : any that stops it)
}

func (c escapeConfig) control() bool { return c.layers == Layers{} }

// attemptsFor are the attempts configuration c runs: those a layer on in it must stop; in the
// control, every attempt.
func attemptsFor(c escapeConfig, e *escapeEnv) []escapeAttempt {
	var out []escapeAttempt
	for _, a := range escapeAttempts() {
		if c.control() || (a.guard == "" && a.stoppedBy(c.layers, e)) {
			out = append(out, a)
		}
	}
	return out
}

// escapeConfigs are the suite's configurations.
func escapeConfigs(hasAllowList bool) []escapeConfig {
	configs := []escapeConfig{
		{"all layers", AllLayers(), ""},
		{"no-exec alone", Layers{NoExec: true}, "no-exec"},
		{"landlock alone", Layers{Landlock: true}, "landlock"},
	}
	if hasAllowList {
		configs = append(configs, escapeConfig{"allow-list alone", Layers{AllowList: true}, "allow-list"})
	}
	return append(configs, escapeConfig{"control with no layer", Layers{}, ""})
}

// titleWords are what runKubectl recognises a command's result by: its first three words, cut
// to 20 characters each.
func titleWords(args string) string {
	words := strings.Fields(args)[:min(len(strings.Fields(args)), 3)]
	for i, w := range words {
		words[i] = w[:min(len(w), 20)]
	}
	return strings.Join(words, " ")
}

// checkSequences fails when two commands run one after the other in a configuration share
// their title words (runKubectl could take the first's result for the second's). Every
// placeholder stands for the same long path here: the real ones may share their first 20
// characters (all test directories start /tmp/TestEscapeSuite).
func checkSequences(t *testing.T, configs []escapeConfig, e *escapeEnv) {
	t.Helper()
	placeholder := regexp.MustCompile(`\{[A-Z_]+\}`)
	expand := func(s string) string { return placeholder.ReplaceAllString(s, "/placeholder/of/twenty/characters") }
	for _, c := range configs {
		prev := ""
		if c.name == "all layers" {
			prev = titleWords("get ns") // checkSandboxedTourWorks
		}
		for _, a := range attemptsFor(c, e) {
			for _, line := range append(append([]string(nil), a.setup...), a.command) {
				w := titleWords(expand(line))
				if w == prev {
					t.Fatalf("%s: %q follows a command with the same first three words (%q): reorder the attempts or change a word", c.name, line, w)
				}
				prev = w
			}
		}
	}
}

// TestEscapeSuite runs escapeAttempts through the real tour over real OpenSSH, as nobody when
// the test runs as root, once per configuration.
func TestEscapeSuite(t *testing.T) {
	support := sandbox.Probe()
	if !support.Seccomp || !support.Net() {
		t.Fatalf("the escape suite needs seccomp and Landlock with network rules: %s", support)
	}
	bin := requireBinary(t)
	runAs := nobody(t)
	hasFlag := tourFlags(t, bin, flagUnguarded, flagNoExecPlugins)
	root := t.TempDir()
	traversable(t, root)
	env := &escapeEnv{marks: filepath.Join(root, "marks"), outside: filepath.Join(root, "outside"),
		host: filepath.Join(root, "host"), victimNS: "victim-only-ns", hasAllowList: hasFlag(flagUnguarded)}
	binDir := filepath.Join(root, "bin")
	for _, d := range []string{env.marks, env.outside, binDir} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o777)
	}
	env.fake = filepath.Join(binDir, "fake-shell")
	mark := []byte("#!/bin/sh\necho ran > " + env.marks + "/ran.$$\nexit 1\n")
	for _, p := range []string{env.fake, filepath.Join(binDir, "kubectl-foo")} {
		if err := os.WriteFile(p, mark, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env.victim = startVictim(t, env.victimNS)
	hostFiles(t, env)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		env.serviceHits.Add(1)
		http.Error(w, "a service of the class host", http.StatusForbidden)
	}))
	t.Cleanup(svc.Close)
	env.service = svc.URL

	configs := escapeConfigs(env.hasAllowList)
	if !env.hasAllowList {
		t.Logf("allow-list alone: not run — this tour has no --%s, so its kubectl cannot be left without refusals while the OS layers are off", flagUnguarded)
	}
	checkSequences(t, configs, env)
	refused := map[string]int{}
	through := 0
	for _, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			control := cfg.control()
			layers := cfg.layers
			// The fake program stands in for every program a command might start: the editor
			// where the no-exec layer does not name a refusing one, the external diff always,
			// and kubectl-foo on PATH.
			extra := []string{"KUBECTL_EXTERNAL_DIFF=" + env.fake, "PATH=" + binDir + ":" + os.Getenv("PATH")}
			c := startClass(t, "", Config{Executable: bin, RunAs: runAs, Layers: &layers, MaxSessions: 1,
				TourHasFlag: hasFlag, Env: append(fakeEditor(layers, env.fake), extra...)})
			env.otherSession, env.otherState = otherStudent(t, c, runAs)
			keyDir := t.TempDir()
			key := sshKeygen(t, keyDir, "student")
			pub, _ := os.ReadFile(key + ".pub")
			if err := os.WriteFile(c.srv.cfg.AuthorizedKeys, pub, 0o644); err != nil {
				t.Fatal(err)
			}
			o := newOpenSSH(t, c, key)
			p, rc := o.inTmux("alice", 200, 50)
			p.waitFor(`Welcome to kubewalk`, tourBound)
			p.keys("Enter")
			p.waitFor(`space next`, bound)
			p.keys("E")
			p.waitFor(`SERVING`, tourBound)
			si := c.waitSessions(t, 1, bound)[0]
			if runAs != nil {
				if uid := procUID(t, si.PID); uid != runAs.UID {
					t.Errorf("the tour runs as uid %d, want %s (%d)", uid, runAs.Name, runAs.UID)
				}
			}
			env.session = si.Dir
			kubeconfig := filepath.Join(si.Dir, "kubeconfig")
			addEscapeContexts(t, kubeconfig, env.victim, env.fake)
			sessionFiles(t, env, kubeconfig, runAs)
			if cfg.name == "all layers" {
				checkSandboxedTourWorks(t, p)
			}
			for _, a := range attemptsFor(cfg, env) {
				for _, s := range a.setup {
					if code, screen := runKubectl(p, s); code != 0 {
						t.Fatalf("%s: setup %q: exit %d\n%s", a.name, s, code, screen)
					}
				}
				env.marksBefore, env.hitsBefore = env.marked(), env.serviceHits.Load()
				code, screen := runKubectl(p, env.expand(a.command))
				escaped := a.escaped != nil && a.escaped(env, screen)
				if d := os.Getenv("ESCAPE_SCREENS"); d != "" {
					os.WriteFile(filepath.Join(d, strings.ReplaceAll(cfg.name+"-"+a.name, "/", "_")), []byte(screen), 0o644)
				}
				switch {
				case a.guard != "":
					want := regexp.MustCompile(a.refusals["guard"])
					if escaped || !want.MatchString(screen) {
						t.Errorf("ESCAPE: %s was not refused by %s (exit %d; want %q on the screen):\n%s", a.name, a.guard, code, want, screen)
					} else {
						refused[cfg.name]++
					}
				case control && !escaped:
					t.Errorf("control: %s did not get through with no layer on (exit %d), so the suite could not tell an escape:\n%s", a.name, code, screen)
				case control:
					through++
				case escaped:
					t.Errorf("ESCAPE: %s got through with %s (exit %d):\n%s", a.name, cfg.layers, code, screen)
				default:
					if want := refusalFor(a, cfg.layers, cfg.only, env); want != nil && !want.MatchString(screen) {
						t.Errorf("%s: refused, but the screen does not show the refusal of %s (%s):\n%s", a.name, cfg.layers, want, screen)
					}
					refused[cfg.name]++
				}
			}
			p.keys("q") // the kubectl view quits on q too (Escape then q would arrive as alt+q)
			if code := waitRC(t, rc, bound); code != "0" {
				t.Errorf("the student's ssh exited %s after q", code)
			}
			waitGone(t, si.PID, si.Dir, bound)
			if cfg.name == "all layers" {
				progress := filepath.Join(c.srv.cfg.StateDir, "users", "alice", "kubewalk", "progress.json")
				if b, err := os.ReadFile(progress); err != nil || !strings.Contains(string(b), "serve") {
					t.Errorf("progress not saved for alice: %v\n%s", err, b)
				}
			}
			left, _ := os.ReadDir(env.outside)
			if len(left) > 0 && !control {
				t.Errorf("written outside the session directory: %v", left)
			}
			for _, f := range left {
				os.RemoveAll(filepath.Join(env.outside, f.Name()))
			}
			for _, d := range []string{env.otherSession, env.otherState} {
				os.RemoveAll(filepath.Join(d, "cache"))
			}
		})
	}
	var counts []string
	for _, c := range configs {
		counts = append(counts, fmt.Sprintf("%s %d of %d", c.name, refused[c.name], len(attemptsFor(c, env))))
	}
	t.Logf("%d attempts; refused per configuration: %s; in the control %d got through (the others are refused by the guards)",
		len(escapeAttempts()), strings.Join(counts, " · "), through)
}

// hostFiles writes the files the attempts read in place of the class host's, world-readable:
// a manifest (for /etc/shadow), an env file, templates, a kustomization, a debug profile, and
// the other student's kubeconfig.
func hostFiles(t *testing.T, e *escapeEnv) {
	t.Helper()
	v := clientcmdapi.NewConfig()
	v.Clusters["victim"] = &clientcmdapi.Cluster{Server: e.victim.server, CertificateAuthorityData: e.victim.ca}
	v.AuthInfos["victim"] = e.victim.admin
	v.Contexts["admin"] = &clientcmdapi.Context{Cluster: "victim", AuthInfo: "victim"}
	v.CurrentContext = "admin"
	victim, err := clientcmd.Write(*v)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"shadow.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: host-shadow\ndata:\n  shadow: \"root:*:19000:0:99999:7:::\"\n",
		"env":                     "LEAK=from-the-class-host\n",
		"template":                "host-template {{.kind}}\n",
		"jsonpath":                "host-jsonpath {.kind}\n",
		"columns":                 "HOSTCOLUMN\n.metadata.name\n",
		"kust/kustomization.yaml": "configMapGenerator:\n- name: host-kust\n  literals: [a=b]\ngeneratorOptions:\n  disableNameSuffixHash: true\n",
		"custom.json":             `{"env":[{"name":"FROM_HOST","value":"1"}]}` + "\n",
		"victim.kubeconfig":       string(victim),
	}
	for name, content := range files {
		p := filepath.Join(e.host, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sessionFiles writes, once the tour serves, the host files made of its own credentials (its CA,
// its admin's certificate and key: a tour that read them could use them) and, in its session
// directory, the manifest create --edit and diff start from.
func sessionFiles(t *testing.T, e *escapeEnv, kubeconfig string, runAs *RunAs) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	admin := cfg.Contexts["admin"]
	own := map[string][]byte{
		filepath.Join(e.host, "ca.crt"):     cfg.Clusters[admin.Cluster].CertificateAuthorityData,
		filepath.Join(e.host, "admin.crt"):  cfg.AuthInfos[admin.AuthInfo].ClientCertificateData,
		filepath.Join(e.host, "admin.key"):  cfg.AuthInfos[admin.AuthInfo].ClientKeyData,
		filepath.Join(e.session, "ce.yaml"): []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ce\n  namespace: default\ndata:\n  a: b\n"),
	}
	for p, b := range own {
		if len(b) == 0 {
			t.Fatalf("%s: nothing to write (the tour's kubeconfig has no such credential)", p)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if runAs != nil && filepath.Dir(p) == e.session {
			if err := os.Chown(p, runAs.UID, runAs.GID); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// refusalFor is what the screen must show for attempt a refused under layers: with only, the
// refusal of that layer; else that of any layer on (the first to refuse wins, and a layer may
// refuse more than it must: the allow-list also refuses contexts it does not know). Nil when a
// layer that may have stopped it leaves no trace on the screen.
func refusalFor(a escapeAttempt, layers Layers, only string, e *escapeEnv) *regexp.Regexp {
	var res []string
	for name, on := range map[string]bool{"allow-list": layers.AllowList, "no-exec": layers.NoExec, "landlock": layers.Landlock} {
		if !on || (only != "" && name != only) {
			continue
		}
		re, ok := a.refusals[name]
		if name == "allow-list" && !ok {
			re, ok = allowRefused, true
		}
		alone := Layers{AllowList: name == "allow-list", NoExec: name == "no-exec", Landlock: name == "landlock"}
		if a.stoppedBy(alone, e) && (!ok || re == "") {
			return nil // this layer may be the one that stopped it, silently
		}
		if ok && re != "" {
			res = append(res, "(?:"+re+")")
		}
	}
	if len(res) == 0 {
		return nil
	}
	return regexp.MustCompile(strings.Join(res, "|"))
}

// fakeEditor points the editor variables at the fake program when the no-exec layer (whose
// refusing values they otherwise are) is off: the control must never start a real vi.
func fakeEditor(l Layers, fake string) []string {
	if l.NoExec {
		return nil
	}
	return []string{"EDITOR=" + fake, "KUBE_EDITOR=" + fake}
}

// runKubectl types `:k ARGS` on the student's screen, waits for its exit status and returns it
// (-1 when the tour refused to run it) with the screen.
func runKubectl(p tmuxPane, args string) (int, string) {
	p.t.Helper()
	p.keys(":")
	p.run("send-keys", "-t", p.name, "-l", "k "+args)
	p.keys("Enter")
	// The pane's title names this command — its first three words, cut to 20 characters each
	// to fit in a shortened title, tell it from the previous one, whose result stays on the
	// screen while this one is typed (the attempts differ there) — and, once it is done, its
	// exit status; the body says the same once the frame is drawn whole.
	var prefix []string
	for _, w := range strings.Fields(titleWords(args)) {
		prefix = append(prefix, regexp.QuoteMeta(w)+`\S*`) // the title may end a word early
	}
	done := regexp.MustCompile(`kubectl · ` + strings.Join(prefix, " ") + `[^\n]*· (?:exit (\d+)|(refused))`)
	deadline := time.Now().Add(time.Minute)
	for last := ""; ; {
		screen := p.screen()
		if m := done.FindStringSubmatch(screen); m != nil && screen == last {
			body := regexp.MustCompile(`[✓✗] exit ` + m[1] + `\b`)
			if m[2] != "" {
				body = regexp.MustCompile(`✗ not run`)
			}
			if body.MatchString(screen) {
				code, err := strconv.Atoi(m[1])
				if err != nil {
					code = -1
				}
				return code, screen
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: kubectl %s did not finish within a minute; last screen:\n%s", p.name, args, screen)
		}
		last = screen
		time.Sleep(100 * time.Millisecond)
	}
}

// checkSandboxedTourWorks: the sandboxed tour serves its own kubectl, and u shows the upstream
// source from the module cache the class handed it.
func checkSandboxedTourWorks(t *testing.T, p tmuxPane) {
	t.Helper()
	if code, screen := runKubectl(p, "get ns"); code != 0 || !strings.Contains(screen, "kube-system") {
		t.Errorf(":k get ns in the sandboxed tour: exit %d\n%s", code, screen)
	}
	p.keys(":")
	p.run("send-keys", "-t", p.name, "-l", "lesson")
	p.keys("Enter")
	p.waitFor(`checkpoint 29/29`, bound)
	p.keys("Left") // serve/ready names an upstream function in k8s.io/apiserver
	p.waitFor(`REVIEWING`, bound)
	p.keys("u")
	p.waitFor(`Upstream · \S*io/apiserver@v0\.37\.2/pkg/server/`, bound)
	p.keys("u")
	p.waitFor(`Source · `, bound)
	p.keys("Escape") // back to the live stop; alone: an Escape followed at once by a key reads as alt+key
	p.waitFor(`✓ SERVING at `, bound)
	waitScreenLacks(p, `REVIEWING`, bound)
}

// waitScreenLacks waits, within a bound, until the screen no longer matches re.
func waitScreenLacks(p tmuxPane, re string, within time.Duration) {
	p.t.Helper()
	r := regexp.MustCompile(re)
	deadline := time.Now().Add(within)
	for r.MatchString(p.screen()) {
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: screen still matches %q after %s:\n%s", p.name, re, within, p.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// otherStudent makes, as the class would, another student's session directory and progress
// directory — owned by the tours' user, 0700, so that a tour of that user may read them by Unix
// permissions — and returns their paths. The class's state directory is made traversable.
func otherStudent(t *testing.T, c *testClass, runAs *RunAs) (session, state string) {
	t.Helper()
	session = filepath.Join(c.srv.cfg.TempDir, "other-session")
	state = filepath.Join(c.srv.cfg.StateDir, "users", "bob")
	files := map[string]string{
		filepath.Join(session, "kubeconfig"):              "bob's kubeconfig, with bob's token\n",
		filepath.Join(state, "kubewalk", "progress.json"): `{"bob":"progress"}` + "\n",
	}
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if runAs != nil {
		for _, p := range []string{session, filepath.Join(session, "kubeconfig"), state, filepath.Join(state, "kubewalk"), filepath.Join(state, "kubewalk", "progress.json")} {
			if err := os.Chown(p, runAs.UID, runAs.GID); err != nil {
				t.Fatal(err)
			}
		}
	}
	traversable(t, filepath.Dir(state))
	return session, state
}

// victimServer is another student's server, run in this process: its address, CA, admin
// credentials and alice's token.
type victimServer struct {
	server string
	ca     []byte
	admin  *clientcmdapi.AuthInfo
	token  string
}

// victimCM is a config map in the default namespace that only the other student's server has.
const victimCM = "victim-only-cm"

// startVictim starts a real server with a namespace nobody else has.
func startVictim(t *testing.T, ns string) victimServer {
	t.Helper()
	dir := t.TempDir()
	logFile, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	s, err := server.New(server.Options{Kubeconfig: filepath.Join(dir, "kubeconfig"), LogOutput: logFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(s.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	admin, alice := cfg.Contexts["admin"], cfg.Contexts["alice"]
	if admin == nil || alice == nil {
		t.Fatalf("the victim's kubeconfig %s has no admin or alice context", s.Kubeconfig())
	}
	v := victimServer{server: cfg.Clusters[admin.Cluster].Server, ca: cfg.Clusters[admin.Cluster].CertificateAuthorityData,
		admin: cfg.AuthInfos[admin.AuthInfo].DeepCopy(), token: cfg.AuthInfos[alice.AuthInfo].Token}
	if v.token == "" {
		t.Fatalf("the victim's alice has no token in %s", s.Kubeconfig())
	}
	if v.admin.Token == "" && len(v.admin.ClientCertificateData) == 0 {
		t.Fatalf("the victim's admin has no credentials in %s", s.Kubeconfig())
	}
	rc, err := clientcmd.NewNonInteractiveClientConfig(*cfg, "admin", nil, nil).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: victimCM, Namespace: "default"}}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return v
}

// addEscapeContexts adds to the student's kubeconfig what a student could not write there
// through the tour (its kubectl refuses `config set-*` whatever the layers), to try what such a
// kubeconfig would lead to: context "other" (another student's server, with that student's
// admin credentials) and context "cred" (an exec credential plugin: the fake program).
func addEscapeContexts(t *testing.T, path string, v victimServer, plugin string) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	own := cfg.Contexts["admin"]
	cfg.Clusters["other"] = &clientcmdapi.Cluster{Server: v.server, CertificateAuthorityData: v.ca}
	cfg.AuthInfos["other"] = v.admin
	cfg.Contexts["other"] = &clientcmdapi.Context{Cluster: "other", AuthInfo: "other"}
	cfg.AuthInfos["cred"] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: plugin,
		APIVersion: "client.authentication.k8s.io/v1", InteractiveMode: clientcmdapi.NeverExecInteractiveMode}}
	cfg.Contexts["cred"] = &clientcmdapi.Context{Cluster: own.Cluster, AuthInfo: "cred"}
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}

// tourFlags reports which of names the binary's tour command has: `tour --NAME --help`
// succeeds only for a flag it knows.
func tourFlags(t *testing.T, bin string, names ...string) func(string) bool {
	t.Helper()
	has := map[string]bool{}
	for _, n := range names {
		has[n] = exec.Command(bin, "tour", "--"+n, "--help").Run() == nil
	}
	return func(n string) bool { return has[n] }
}

// procUID is the real user ID of process pid.
func procUID(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^Uid:\s+(\d+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no Uid in /proc/%d/status", pid)
	}
	uid, _ := strconv.Atoi(string(m[1]))
	return uid
}

// escapeTable is the suite as docs/classroom.md shows it: every attempt, the layers that stop it
// alone, and the number of attempts each configuration refuses (those TestEscapeSuite logs).
func escapeTable() string {
	env := &escapeEnv{hasAllowList: true}
	var b strings.Builder
	b.WriteString("| # | attempt | `:k …` | allow-list | no-exec | Landlock | note |\n|---|---|---|---|---|---|---|\n")
	cell := func(a escapeAttempt, l Layers) string {
		switch {
		case a.guard != "":
			return "not tested"
		case a.stoppedBy(l, env):
			return "**stops**"
		}
		return "—"
	}
	for i, a := range escapeAttempts() {
		note := a.note
		if a.guard != "" {
			note = strings.TrimPrefix(strings.Join([]string{"refused first by " + a.guard + ", in every configuration", note}, "; "), "; ")
			note = strings.TrimSuffix(note, "; ")
		}
		fmt.Fprintf(&b, "| %d | %s | `%s` | %s | %s | %s | %s |\n", i+1, a.name, a.command,
			cell(a, Layers{AllowList: true}), cell(a, Layers{NoExec: true}), cell(a, Layers{Landlock: true}), note)
	}
	var counts []string
	for _, c := range escapeConfigs(true) {
		n, guarded := 0, 0
		for _, a := range attemptsFor(c, env) {
			if a.guard != "" {
				guarded++
			} else {
				n++
			}
		}
		if c.control() {
			counts = append(counts, fmt.Sprintf("%s: %d get through, %d refused by the guards", c.name, n, guarded))
		} else {
			counts = append(counts, fmt.Sprintf("%s: %d refused", c.name, n))
		}
	}
	fmt.Fprintf(&b, "\n%d attempts. Per configuration: %s.\n", len(escapeAttempts()), strings.Join(counts, " · "))
	return b.String()
}

// TestEscapeTableInDocs checks that docs/classroom.md shows the escape suite as it is.
func TestEscapeTableInDocs(t *testing.T) {
	const begin, end = "<!-- escape-table: generated by TestEscapeTableInDocs -->\n", "<!-- /escape-table -->"
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "classroom.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	want := escapeTable()
	if i < 0 || j < i || doc[i+len(begin):j] != want {
		t.Errorf("docs/classroom.md does not show the escape suite as it is; put this between %q and %q:\n%s", begin, end, want)
	}
}

// TestEscapeSequences checks, without running the suite, that runKubectl can tell every
// attempt's result from the previous command's in every configuration.
func TestEscapeSequences(t *testing.T) {
	env := &escapeEnv{hasAllowList: true}
	checkSequences(t, escapeConfigs(true), env)
	env.hasAllowList = false
	checkSequences(t, escapeConfigs(false), env)
}
