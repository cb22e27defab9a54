package lessons

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/server"
)

// sent is one request kubectl sent: method, path, headers and body.
type sent struct {
	method, path, accept, contentType, body string
}

// bodyRecorder is a RoundTripper that remembers every request with its body.
type bodyRecorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	reqs []sent
}

func (r *bodyRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	s := sent{method: req.Method, path: req.URL.Path, accept: req.Header.Get("Accept"), contentType: req.Header.Get("Content-Type")}
	if req.Body != nil && req.GetBody != nil {
		if b, err := req.GetBody(); err == nil {
			data, _ := io.ReadAll(b)
			s.body = string(data)
		}
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, s)
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

// runKubectl runs kubectl v0.37.2's command tree in-process, as the TUI's :k does, against the
// server's kubeconfig (context admin), and returns the requests it sent.
func runKubectl(t *testing.T, kubeconfig string, args ...string) []sent {
	t.Helper()
	rec := &bodyRecorder{}
	var out bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out}
	cf := genericclioptions.NewConfigFlags(true).WithWrapConfigFn(func(c *rest.Config) *rest.Config {
		c.Wrap(func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec })
		return c
	})
	*cf.KubeConfig = kubeconfig
	*cf.CacheDir = t.TempDir()
	root := kubectlcmd.NewKubectlCommand(kubectlcmd.KubectlOptions{ConfigFlags: cf, IOStreams: streams})
	root.SetArgs(args)
	root.SilenceErrors = true
	failed := ""
	cmdutil.BehaviorOnFatal(func(msg string, code int) { failed = fmt.Sprintf("exit %d: %s", code, msg) })
	defer cmdutil.DefaultBehaviorOnFatal()
	if err := root.Execute(); err != nil || failed != "" {
		t.Fatalf("kubectl %s: %v %s\n%s", strings.Join(args, " "), err, failed, out.String())
	}
	return rec.reqs
}

// TestKubectlClaims holds what the lessons say kubectl sends to what kubectl v0.37.2 (the one
// the TUI runs in-process) sends to a real server: `kubectl scale` one merge PATCH of the body
// the deployments lesson quotes to deployments/<name>/scale, and a GET and a PUT only with
// --current-replicas; `kubectl get lessons` first asks for the Table the own-group lesson
// quotes in its Accept header.
func TestKubectlClaims(t *testing.T) {
	quietKlog()
	s, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("starting the server: %v", err)
	}
	cfg, err := s.RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	container := map[string]any{"name": "c", "image": "nginx:1.27"}
	dep := obj("apps/v1", "Deployment", map[string]any{"spec": map[string]any{
		"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
		"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
			"spec": map[string]any{"containers": []any{container}}}}})
	dep.SetName("web")
	if _, err := dyn.Resource(appsDeployments).Namespace("default").Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const scalePath = "/apis/apps/v1/namespaces/default/deployments/web/scale"
	onScale := func(reqs []sent) (out []sent) {
		for _, r := range reqs {
			if r.path == scalePath {
				out = append(out, r)
			}
		}
		return out
	}

	lesson := func(file string) string {
		data, err := content.FS.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	// The body the deployments lesson says kubectl scale sends.
	m := regexp.MustCompile("sends one merge PATCH, `([^`]+)`, to `deployments/web/scale`").FindStringSubmatch(lesson("en/24-deployments.md"))
	if m == nil {
		t.Fatal("content/en/24-deployments.md no longer says which merge PATCH kubectl scale sends")
	}
	got := onScale(runKubectl(t, s.Kubeconfig(), "scale", "deployment", "web", "--replicas=3"))
	if len(got) != 1 || got[0].method != http.MethodPatch || got[0].contentType != "application/merge-patch+json" || got[0].body != m[1] {
		t.Errorf("kubectl scale sent %+v to %s; the lesson says one merge PATCH %s", got, scalePath, m[1])
	}
	got = onScale(runKubectl(t, s.Kubeconfig(), "scale", "deployment", "web", "--current-replicas=3", "--replicas=2"))
	if len(got) != 2 || got[0].method != http.MethodGet || got[1].method != http.MethodPut {
		t.Errorf("kubectl scale --current-replicas sent %+v to %s; the lesson says a GET and a PUT", got, scalePath)
	}

	// The Accept header the own-group lesson quotes.
	m = regexp.MustCompile("`Accept: ([^`]+)`").FindStringSubmatch(lesson("en/22-own-group.md"))
	if m == nil {
		t.Fatal("content/en/22-own-group.md no longer quotes kubectl get's Accept header")
	}
	var list *sent
	for _, r := range runKubectl(t, s.Kubeconfig(), "get", "lessons") {
		if r.path == "/apis/learn.kubewalk.io/v1/namespaces/default/lessons" {
			list = &r
			break
		}
	}
	if list == nil || strings.Split(list.accept, ",")[0] != m[1] {
		t.Errorf("kubectl get lessons sent %+v; the lesson says it asks first for %s", list, m[1])
	}
}

var appsDeployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
