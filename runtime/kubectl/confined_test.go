package kubectl_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubewalk/kubewalk/runtime/kubectl"
)

// input is a writer that gives kubectl a manifest on its standard input, as the kubectl pane's
// text box does.
type input struct {
	bytes.Buffer
	data string
}

func (i *input) KubectlInput() (string, bool) { return i.data, true }

// TestConfinedRefusals: in confined mode (a student's screen in `kubewalk class ssh`) every way
// out that a student tried, or that reading kubectl's tree suggests, is refused before any
// request — and nothing of the host's file reaches the output.
func TestConfinedRefusals(t *testing.T) {
	r := newRunner(t, func(o *kubectl.Options) { o.Confined = true })
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("host-only-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ line, reason string }{
		{"edit cm x", "editor"},
		{"apply edit-last-applied cm/x", "editor"},
		{"create -f - --edit", "--edit does not run here"},
		{"create configmap leak --from-file=" + secret, "--from-file does not run here"},
		{"create configmap leak --from-env-file=" + secret, "--from-env-file does not run here"},
		{"create secret generic leak --from-file=k=" + secret, "--from-file does not run here"},
		{"create secret tls leak --cert=" + secret + " --key=" + secret, "reads a certificate and key from files"},
		{"create secret docker-registry r --from-file=" + secret, "--from-file does not run here"},
		{"apply -f " + secret, "-f " + secret + " reads a file"},
		{"create -f https://example.com/x.yaml", "reads a file"},
		{"delete -f " + secret, "reads a file"},
		{"get -f " + secret, "reads a file"},
		{"apply -k " + dir, "--kustomize does not run here"},
		{"kustomize " + dir, "`kubectl kustomize` does not run here"},
		{"patch cm x --patch-file=" + secret, "--patch-file does not run here"},
		{"get cm -o go-template-file=" + secret, "-o go-template-file reads a file"},
		{"get cm -o jsonpath-file=" + secret, "-o jsonpath-file reads a file"},
		{"get cm -o custom-columns-file=" + secret, "-o custom-columns-file reads a file"},
		{"get cm -o templatefile --template=" + secret, "-o templatefile reads a file"},
		{"debug pod/x --custom=" + secret, "--custom does not run here"},
		{"cluster-info dump --output-directory=" + dir, "`kubectl cluster-info dump` does not run here"},
		{"--cache-dir=" + dir + " get cm", "--cache-dir"},
		{"diff -f " + secret, "`kubectl diff` does not run here"},
		{"cp x:/a /tmp/b", "cp streams files"},
		{"plugin list", "plugins are programs"},
		{"proxy", "local HTTP proxy"},
		{"port-forward pod/x 8080:80", "keeps a local port open"},
		{"attach x", "terminal"},
		{"exec -it x -- sh", "exec -i/-t"},
		{"run x --image=busybox:1.36 -it", "run -i/-t/--attach"},
		{"debug x -it --image=busybox:1.36", "debug -i/-t/--attach"},
		{"--kubeconfig=" + secret + " get cm", "--kubeconfig is pinned"},
		{"--server https://127.0.0.1:1 get cm", "--server is pinned"},
		{"--token abc get cm", "--token is pinned"},
		{"--user admin get cm", "--user is pinned"},
		{"--cluster kubewalk get cm", "--cluster is pinned"},
		{"--certificate-authority " + secret + " get cm", "--certificate-authority is pinned"},
		{"--insecure-skip-tls-verify get cm", "--insecure-skip-tls-verify is pinned"},
		{"--client-key " + secret + " get cm", "--client-key is pinned"},
		{"--proxy-url http://127.0.0.1:9 get cm", "--proxy-url is pinned"},
		{"--context nosuch get cm", "--context nosuch is not a context"},
		{"config set-credentials x --exec-command=/bin/sh", "would change the kubeconfig"},
		{"config set-context --current --user x", "would change the kubeconfig"},
		{"config use-context bob", "would change the kubeconfig"},
		{"config view --kubeconfig " + secret, "--kubeconfig is pinned"},
		{"completion bash", "your own shell"},
		{"kuberc view", "kuberc"},
		{"auth reconcile -f -", "`kubectl auth reconcile` does not run here"},
		{"--profile=cpu get cm", "profile"},
		{"delete cm x --interactive", "--interactive does not run here"},
		{"apply -f - --prune", "--prune does not run here"},
		{"label -f " + secret + " --local x=y -o yaml", "reads a file"},
		{"top pod", "metrics"},
	}
	for _, tc := range tests {
		out := &input{data: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-box}\n"}
		res, err := r.RunLine(context.Background(), tc.line, out)
		var ref *kubectl.RefusedError
		if !errors.As(err, &ref) || len(res.Requests) != 0 || strings.Contains(out.String(), "host-only-secret") {
			t.Errorf("%s: error %v, %d requests, output %q; want refused before any request", tc.line, err, len(res.Requests), out.String())
			continue
		}
		if !strings.Contains(ref.Reason, tc.reason) {
			t.Errorf("%s: reason %q, want it to say %q", tc.line, ref.Reason, tc.reason)
		}
		if ref.Command != "" {
			t.Errorf("%s: a student is told to run %q elsewhere: they have nowhere else", tc.line, ref.Command)
		}
	}
	if len(tests) < 30 {
		t.Errorf("only %d attack lines", len(tests))
	}
	for _, name := range []string{"leak", "ea", "r", "from-box"} {
		if _, err := client(t, "admin").CoreV1().ConfigMaps("default").Get(context.Background(), name, metav1.GetOptions{}); err == nil {
			t.Errorf("configmap %s exists: a refused command ran", name)
		}
	}
}

// TestConfinedAllowed: what a student needs runs in confined mode, including literal templates,
// a debugging profile, and `-f -` with the text box's manifest.
func TestConfinedAllowed(t *testing.T) {
	r := newRunner(t, func(o *kubectl.Options) { o.Confined = true })
	box := func(data string) *input { return &input{data: data} }
	tests := []struct {
		line string
		in   *input
		want string // in the output
		fail bool   // kubectl itself fails (the server says no): not refused
	}{
		{"get ns", nil, "default", false},
		{"create configmap confined-a --from-literal=a=b", nil, "configmap/confined-a created", false},
		{"get cm confined-a -o template --template={{.kind}}", nil, "ConfigMap", false},
		{"get cm confined-a -o go-template={{.metadata.name}}", nil, "confined-a", false},
		{"get cm confined-a -o jsonpath={.data.a}", nil, "b", false},
		{"get cm confined-a -o custom-columns=NAME:.metadata.name", nil, "confined-a", false},
		{"get --raw /version", nil, "gitVersion", false},
		{"label cm confined-a team=x", nil, "labeled", false},
		{"annotate cm confined-a note=y", nil, "annotated", false},
		{`patch cm confined-a --type=merge -p '{"data":{"c":"d"}}'`, nil, "patched", false},
		{"--context alice get cm confined-a", nil, "confined-a", false},
		{"--context bob get cm", nil, "Forbidden", true},
		{"--as alice auth can-i create configmaps", nil, "yes", false},
		{"auth whoami", nil, "system:masters", false},
		// A command's own --user (not the pinned global one); carol, so that bob stays denied
		// for the other tests on the shared server.
		{"create rolebinding confined-rb --role=configmap-editor --user=carol", nil, "created", false},
		{"apply -f -", box("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: confined-box, namespace: default}\ndata: {k: v}\n"), "configmap/confined-box created", false},
		{"create -f -", box("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: confined-box2, namespace: default}\n"), "created", false},
		{"delete -f -", box("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: confined-box2, namespace: default}\n"), "deleted", false},
		{"explain configmap.immutable", nil, "immutable", false},
		{"api-resources --api-group=apps", nil, "deployments", false},
		{"debug pod/nosuch --profile=general --image=busybox:1.36", nil, "not found", true},
		{"config get-contexts -o name", nil, "alice", false},
		// Exit 1 until the in-process kubectl has a version of its own (it parses v0.0.0-master).
		{"version -o json", nil, "serverVersion", true},
		{"delete cm confined-a confined-box", nil, "deleted", false},
		{"delete rolebinding confined-rb", nil, "deleted", false},
	}
	for _, tc := range tests {
		var out interface {
			String() string
			Write([]byte) (int, error)
		} = &bytes.Buffer{}
		if tc.in != nil {
			out = tc.in
		}
		res, err := r.RunLine(context.Background(), tc.line, out)
		var ref *kubectl.RefusedError
		if errors.As(err, &ref) {
			t.Errorf("%s: refused: %s", tc.line, ref.Reason)
			continue
		}
		if err != nil || (res.ExitCode != 0) != tc.fail || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%s: code %d, error %v, output %q; want %q (failing %v)", tc.line, res.ExitCode, err, out.String(), tc.want, tc.fail)
		}
	}
}

// TestStdinNeedsTheBox: `-f -` without a manifest from the text box says where to write one.
func TestStdinNeedsTheBox(t *testing.T) {
	for _, confined := range []bool{false, true} {
		r := newRunner(t, func(o *kubectl.Options) { o.Confined = confined })
		var out bytes.Buffer
		_, err := r.RunLine(context.Background(), "apply -f -", &out)
		var ref *kubectl.RefusedError
		if !errors.As(err, &ref) || !strings.Contains(ref.Reason, "text box") {
			t.Errorf("confined %v: %v", confined, err)
		}
	}
}

// TestNoExecPlugins: a kubeconfig user with a credential plugin is refused, however the command
// picks it; without the option the plugin would run (the marker proves the test can tell).
func TestNoExecPlugins(t *testing.T) {
	s := liveServer(t)
	cfg, err := clientcmd.LoadFromFile(s.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "plugin-ran")
	cfg.AuthInfos["plugged"] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
		APIVersion: "client.authentication.k8s.io/v1", Command: "/bin/sh",
		Args:            []string{"-c", "touch " + marker + "; echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"x\"}}'"},
		InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}}
	admin := cfg.Contexts["admin"]
	cfg.Contexts["plugged"] = &clientcmdapi.Context{Cluster: admin.Cluster, AuthInfo: "plugged"}
	kc := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kc); err != nil {
		t.Fatal(err)
	}
	for _, unguarded := range []bool{false, true} {
		r, err := kubectl.New(kubectl.Options{Kubeconfig: kc, CacheDir: t.TempDir(), NoExecPlugins: true, Unguarded: unguarded})
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range []string{"--context plugged get ns", "--user plugged get ns"} {
			var out bytes.Buffer
			res, err := r.RunLine(context.Background(), line, &out)
			var ref *kubectl.RefusedError
			if !errors.As(err, &ref) || !strings.Contains(ref.Reason, "credential plugin") || len(res.Requests) != 0 {
				t.Errorf("unguarded %v, %s: %v (%d requests)", unguarded, line, err, len(res.Requests))
			}
		}
		r.Close()
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a credential plugin ran under NoExecPlugins")
	}
	// The control: without the option the same line runs the plugin.
	r, err := kubectl.New(kubectl.Options{Kubeconfig: kc, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out bytes.Buffer
	r.RunLine(context.Background(), "--context plugged get ns", &out)
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the control did not run the plugin (so the test could not tell): %v; output %q", err, out.String())
	}
}

// TestUnguarded: the pins and the allow-list are off (for the sandbox's escape tests); what
// protects the screen itself stays.
func TestUnguarded(t *testing.T) {
	r := newRunner(t, func(o *kubectl.Options) { o.Unguarded = true })
	var out bytes.Buffer
	res, err := r.RunLine(context.Background(), "--server https://127.0.0.1:1 get ns", &out)
	var ref *kubectl.RefusedError
	if errors.As(err, &ref) || res.ExitCode == 0 || !strings.Contains(out.String(), "127.0.0.1:1") {
		t.Errorf("--server unguarded: %v, code %d, output %q; want it to try 127.0.0.1:1", err, res.ExitCode, out.String())
	}
	for _, line := range []string{"edit cm x", "exec -it x -- sh", "-v=8 get ns", "apply -f -"} {
		if _, err := r.RunLine(context.Background(), line, &bytes.Buffer{}); !errors.As(err, &ref) {
			t.Errorf("%s unguarded: %v; want refused (it would take the screen's terminal)", line, err)
		}
	}
}
