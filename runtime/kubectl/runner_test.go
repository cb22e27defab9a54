package kubectl_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/runtime/kubectl"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func TestRunGet(t *testing.T) {
	r := newRunner(t)
	res, out := run(t, r, "get ns")
	if res.ExitCode != 0 || res.Context != "admin" {
		t.Fatalf("get ns: code %d, context %q\n%s", res.ExitCode, res.Context, out)
	}
	if !strings.HasPrefix(out, "NAME") || !strings.Contains(out, "\ndefault ") || !strings.Contains(out, "\nkube-system ") {
		t.Errorf("get ns output:\n%s", out)
	}
	// A cold cache: discovery first, then the list, each answered with an audit ID.
	var paths []string
	for _, q := range res.Requests {
		path, _, _ := strings.Cut(q.Path, "?timeout=") // discovery asks with ?timeout=32s
		paths = append(paths, q.Method+" "+path)
		if q.Code != 200 || !uuidRE.MatchString(q.AuditID) {
			t.Errorf("request %s %s: code %d, audit ID %q", q.Method, q.Path, q.Code, q.AuditID)
		}
	}
	if !slices.Contains(paths, "GET /api") || !slices.Contains(paths, "GET /apis") || paths[len(paths)-1] != "GET /api/v1/namespaces?limit=500" {
		t.Errorf("requests = %q; want discovery (/api, /apis) then the list", paths)
	}
}

func TestRunCreateThenGet(t *testing.T) {
	r := newRunner(t)
	name := uniqueName("created")
	res, out := run(t, r, "create configmap "+name+" --from-literal=greeting='hello world'")
	if res.ExitCode != 0 || out != "configmap/"+name+" created\n" {
		t.Fatalf("create: code %d, output %q", res.ExitCode, out)
	}
	cm, err := client(t, "admin").CoreV1().ConfigMaps("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil || cm.Data["greeting"] != "hello world" {
		t.Fatalf("the configmap kubectl created: %v, %v", cm, err)
	}
	res, out = run(t, r, "get cm "+name+" -o jsonpath={.data.greeting}")
	if res.ExitCode != 0 || out != "hello world" {
		t.Errorf("get -o jsonpath: code %d, output %q", res.ExitCode, out)
	}
	res, out = run(t, r, "delete cm "+name)
	if res.ExitCode != 0 || out != `configmap "`+name+`" deleted from default namespace`+"\n" {
		t.Errorf("delete: code %d, output %q", res.ExitCode, out)
	}
}

func TestRunApplyFile(t *testing.T) {
	r := newRunner(t)
	name := uniqueName("applied")
	path := writeFile(t, "cm.yaml", fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: %s
data:
  colour: blue
`, name))
	for _, want := range []string{"created", "unchanged"} {
		res, out := run(t, r, "apply -f "+path)
		if res.ExitCode != 0 || out != "configmap/"+name+" "+want+"\n" {
			t.Fatalf("apply (want %s): code %d, output %q", want, res.ExitCode, out)
		}
	}
	cm, err := client(t, "admin").CoreV1().ConfigMaps("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil || cm.Data["colour"] != "blue" || cm.Annotations["kubectl.kubernetes.io/last-applied-configuration"] == "" {
		t.Fatalf("the applied configmap: %v, %v", cm, err)
	}
}

func TestRunAuthCanI(t *testing.T) {
	r := newRunner(t)
	tests := []struct {
		line string
		out  string
		code int
	}{
		{"auth can-i create configmaps", "yes\n", 0},
		{"--context alice auth can-i create configmaps", "yes\n", 0},
		{"--context alice auth can-i create configmaps -n kube-system", "no\n", 1},
		{"--context bob auth can-i create configmaps", "no\n", 1}, // upstream os.Exit(1)s here
		{"--context bob auth can-i create configmaps --quiet", "", 1},
		{"auth can-i", "error: you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'kubectl auth can-i -h' for help and examples.\n", 1},
	}
	for _, tc := range tests {
		res, out := run(t, r, tc.line)
		if res.ExitCode != tc.code || out != tc.out {
			t.Errorf("%s: code %d, output %q; want %d, %q", tc.line, res.ExitCode, out, tc.code, tc.out)
		}
	}
	res, out := run(t, r, "--context bob auth can-i --list")
	if res.ExitCode != 0 || !strings.Contains(out, "selfsubjectaccessreviews.authorization.k8s.io") {
		t.Errorf("can-i --list: code %d\n%s", res.ExitCode, out)
	}
}

func TestRunForbidden(t *testing.T) {
	r := newRunner(t)
	res, out := run(t, r, "--context bob get cm")
	want := `Error from server (Forbidden): configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"` + "\n"
	if res.ExitCode != 1 || out != want || res.Stderr != want || res.Context != "bob" {
		t.Fatalf("bob get cm: code %d, context %q, output %q, stderr %q", res.ExitCode, res.Context, out, res.Stderr)
	}
	last := res.Requests[len(res.Requests)-1]
	if last.Code != 403 || !uuidRE.MatchString(last.AuditID) || !strings.HasPrefix(last.Path, "/api/v1/namespaces/default/configmaps") {
		t.Errorf("the refused request: %+v", last)
	}
}

// TestRunFailuresReturn runs commands kubectl ends with os.Exit(1): each returns here with
// kubectl's message and code, and the next command still runs.
func TestRunFailuresReturn(t *testing.T) {
	r := newRunner(t)
	tests := []struct {
		line string
		want string
	}{
		{"get nosuchkind", `error: the server doesn't have a resource type "nosuchkind"`},
		{"get cm --no-such-flag", "error: unknown flag: --no-such-flag\nSee 'kubectl get --help' for usage."},
		{"nosuchcommand", `error: unknown command "nosuchcommand" for "kubectl"`},
		{"get cm does-not-exist", `Error from server (NotFound): configmaps "does-not-exist" not found`},
		{"create cm Bad_Name", `error: failed to create configmap: ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"`},
		{"--context nobody get cm", "Error in configuration: context was not found for specified context: nobody"},
		{"exec some-pod -- ls", `Error from server (NotFound): pods "some-pod" not found`},
	}
	for _, tc := range tests {
		res, out := run(t, r, tc.line)
		if res.ExitCode != 1 || !strings.Contains(out, tc.want) || res.Stderr != out {
			t.Errorf("%s: code %d, output %q, stderr %q; want code 1 and %q", tc.line, res.ExitCode, out, res.Stderr, tc.want)
		}
	}
	if res, _ := run(t, r, "get ns default"); res.ExitCode != 0 {
		t.Errorf("a command after the failures: code %d", res.ExitCode)
	}
}

func TestRunHelp(t *testing.T) {
	r := newRunner(t)
	for _, line := range []string{"", "help", "kubectl"} {
		res, out := run(t, r, line)
		if res.ExitCode != 0 || !strings.HasPrefix(out, "kubectl controls the Kubernetes cluster manager.") ||
			!strings.Contains(out, "Basic Commands (Beginner):") || len(res.Requests) != 0 {
			t.Errorf("%q: code %d, %d requests, output:\n%s", line, res.ExitCode, len(res.Requests), out)
		}
	}
	res, out := run(t, r, "edit --help")
	if res.ExitCode != 0 || !strings.Contains(out, "Edit a resource from the default editor.") {
		t.Errorf("edit --help (help is not refused): code %d\n%s", res.ExitCode, out)
	}
}

func TestRunAuditIDs(t *testing.T) {
	r := newRunner(t)
	name := uniqueName("audited")
	run(t, r, "create cm "+name) // warms the discovery cache
	for _, line := range []string{"get cm " + name, "label cm " + name + " x=y"} {
		res, _ := run(t, r, line)
		ids := res.AuditIDs()
		if len(ids) == 0 || len(ids) != len(res.Requests) {
			t.Fatalf("%s: %d audit IDs for %d requests: %+v", line, len(ids), len(res.Requests), res.Requests)
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if !uuidRE.MatchString(id) || seen[id] {
				t.Errorf("%s: audit IDs %q: not distinct UUIDs", line, ids)
			}
			seen[id] = true
		}
	}
	// With discovery cached, `get cm NAME` is exactly one request.
	res, _ := run(t, r, "get cm "+name)
	if len(res.Requests) != 1 || res.Requests[0].Method != "GET" || res.Requests[0].Path != "/api/v1/namespaces/default/configmaps/"+name {
		t.Errorf("get cm %s made %+v; want the one GET", name, res.Requests)
	}
	// label: a GET of the object, then the PATCH.
	res, _ = run(t, r, "label cm "+name+" z=w")
	var methods []string
	for _, q := range res.Requests {
		methods = append(methods, q.Method)
	}
	if !slices.Equal(methods, []string{"GET", "PATCH"}) {
		t.Errorf("label made %q; want GET, PATCH", methods)
	}
}

func TestRunRefused(t *testing.T) {
	r := newRunner(t)
	tests := []struct {
		line      string
		reason    string
		elsewhere bool // the error carries a command line for another terminal
	}{
		{"edit cm x", "opens an editor", true},
		{"attach some-pod", "needs a terminal of its own", true},
		{"port-forward some-pod 8080:80", "keeps a local port open", true},
		{"proxy", "local HTTP proxy", true},
		{"cp ./a some-pod:/b", "end the whole process", true},
		{"exec -it some-pod -- sh", "exec -i/-t", true},
		{"exec some-pod -i -- sh", "exec -i/-t", true},
		{"run x --image=busybox:1.36 -it", "run -i/-t/--attach", true},
		{"debug some-pod -it --image=busybox:1.36", "debug -i/-t/--attach", true},
		{"kuberc view", "kuberc", true},
		{"config use-context bob", "would change the kubeconfig", false},
		{"config set-context --current --namespace x", "would change the kubeconfig", false},
		{"apply -f -", "reads standard input", true},
		{"create secret generic s --from-file=/dev/stdin", "/dev/stdin", true},
		{"--server https://example.com get cm", "--server is pinned", false},
		{"-s https://example.com get cm", "--server is pinned", false},
		{"--kubeconfig /etc/passwd get cm", "--kubeconfig is pinned", false},
		{"--token abc get cm", "--token is pinned", false},
		{"--insecure-skip-tls-verify get cm", "--insecure-skip-tls-verify is pinned", false},
		{"-v=8 get cm", "klog", true},
		{"get cm --v 8", "klog", true},
		{"--profile cpu get cm", "profile", true},
		{"--proxy-url http://127.0.0.1:9 get cm", "--proxy-url is pinned", false},
		{"config view --kubeconfig /etc/passwd", "--kubeconfig is pinned", false},
	}
	for _, tc := range tests {
		var out bytes.Buffer
		res, err := r.RunLine(context.Background(), tc.line, &out)
		var ref *kubectl.RefusedError
		if !errors.As(err, &ref) {
			t.Errorf("%s: error %v, want *RefusedError (code %d, output %q)", tc.line, err, res.ExitCode, out.String())
			continue
		}
		if !strings.Contains(ref.Reason, tc.reason) || out.Len() != 0 || len(res.Requests) != 0 || res.ExitCode != 1 {
			t.Errorf("%s: reason %q, output %q, %d requests, code %d", tc.line, ref.Reason, out.String(), len(res.Requests), res.ExitCode)
		}
		wantCmd := ""
		if tc.elsewhere {
			args, _ := kubectl.Split(tc.line)
			wantCmd = "KUBECONFIG=" + r.Kubeconfig() + " kubectl " + kubectl.Quote(args)
		}
		if ref.Command != wantCmd {
			t.Errorf("%s: command %q, want %q", tc.line, ref.Command, wantCmd)
		}
		if tc.elsewhere && !strings.Contains(err.Error(), "Run it in another terminal:\n  "+wantCmd) {
			t.Errorf("%s: error text does not give the command:\n%s", tc.line, err)
		}
	}
	// Read-only config commands run, against the run's kubeconfig.
	res, out := run(t, r, "config get-contexts -o name")
	if res.ExitCode != 0 || out != "admin\nalice\nanonymous\nbadtoken\nbob\n" {
		t.Errorf("config get-contexts: code %d, output %q", res.ExitCode, out)
	}
	if res, out := run(t, r, "config current-context"); res.ExitCode != 0 || out != "admin\n" {
		t.Errorf("config current-context: code %d, output %q", res.ExitCode, out)
	}
}

func TestRunLineParseError(t *testing.T) {
	r := newRunner(t)
	for _, line := range []string{`get cm | grep x`, `get cm "x`, `get cm > out`} {
		var out bytes.Buffer
		_, err := r.RunLine(context.Background(), line, &out)
		var pe *kubectl.ParseError
		if !errors.As(err, &pe) || out.Len() != 0 {
			t.Errorf("%s: error %v, output %q; want a *ParseError and no output", line, err, out.String())
		}
	}
}

// TestRunWatchStreamsAndStops streams `get cm -w`, sees a configmap created meanwhile, and
// cancels: Run returns with Canceled set and leaves no goroutine behind.
func TestRunWatchStreamsAndStops(t *testing.T) {
	r := newRunner(t)
	c := client(t, "admin")
	name := uniqueName("watched")
	// Warm up: discovery cached, the client connections open (they are pooled process-wide
	// and outlive a run by design), so the goroutine snapshot below holds them.
	// The seed makes the watch's first listing non-empty whatever ran before.
	run(t, r, "create cm "+uniqueName("seed"))
	if _, err := c.CoreV1().ConfigMaps("default").List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	ignore := goleak.IgnoreCurrent()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	type ran struct {
		res kubectl.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := r.RunLine(ctx, "get cm -w", &out)
		done <- ran{res, err}
	}()
	waitFor(t, time.Minute, "the watch's first listing", func() bool { return strings.HasPrefix(out.String(), "NAME") })
	if _, err := c.CoreV1().ConfigMaps("default").Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, name+" in the watch output", func() bool { return strings.Contains(out.String(), "\n"+name+" ") })

	cancel()
	var got ran
	select {
	case got = <-done:
	case <-time.After(time.Minute): // a hang guard, far above Options.StopGrace
		t.Fatal("Run did not return after cancel")
	}
	if got.err != nil || !got.res.Canceled {
		t.Fatalf("cancelled watch: err %v, canceled %v", got.err, got.res.Canceled)
	}
	last := got.res.Requests[len(got.res.Requests)-1]
	if !strings.Contains(last.Path, "watch=true") || !uuidRE.MatchString(last.AuditID) {
		t.Errorf("the watch request: %+v", last)
	}
	noLeak(t, ignore)
}

// noLeak waits (bounded) until no goroutine but those in the snapshot is left: the server's
// side of a closed watch winds down asynchronously.
func noLeak(t *testing.T, ignore goleak.Option) {
	t.Helper()
	var err error
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if err = goleak.Find(ignore); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("goroutines left behind: %v", err)
}

// TestRunCancelBeforeStart: a command whose context is already done does not run.
func TestRunCancelBeforeStart(t *testing.T) {
	r := newRunner(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	res, err := r.Run(ctx, []string{"get", "cm"}, &out)
	if !errors.Is(err, context.Canceled) || len(res.Requests) != 0 || out.Len() != 0 {
		t.Fatalf("pre-cancelled run: err %v, %d requests, output %q", err, len(res.Requests), out.String())
	}
}

// TestRunConcurrentCallsSerialise: commands from several goroutines each get their own output
// and requests (kubectl's globals are shared, so Run serialises them).
func TestRunConcurrentCallsSerialise(t *testing.T) {
	r := newRunner(t)
	lines := []string{"get ns default", "--context bob get cm", "auth can-i get cm", "get ns kube-system"}
	type ran struct {
		res kubectl.Result
		out string
		err error
	}
	results := make([]chan ran, len(lines))
	for i, line := range lines {
		results[i] = make(chan ran, 1)
		go func() {
			var out bytes.Buffer
			res, err := r.RunLine(context.Background(), line, &out)
			results[i] <- ran{res, out.String(), err}
		}()
	}
	for i, want := range []struct {
		code int
		has  string
	}{{0, "default"}, {1, "Forbidden"}, {0, "yes"}, {0, "kube-system"}} {
		got := <-results[i]
		if got.err != nil || got.res.ExitCode != want.code || !strings.Contains(got.out, want.has) {
			t.Errorf("%s: err %v, code %d, output %q", lines[i], got.err, got.res.ExitCode, got.out)
		}
	}
}

// TestRunPluginRefused: a kubectl-NAME program on PATH is a plugin; it is not run.
func TestRunPluginRefused(t *testing.T) {
	r := newRunner(t)
	dir := t.TempDir()
	marker := dir + "/ran"
	if err := os.WriteFile(dir+"/kubectl-hello", []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out bytes.Buffer
	_, err := r.RunLine(context.Background(), "hello world", &out)
	var ref *kubectl.RefusedError
	if !errors.As(err, &ref) || !strings.Contains(ref.Reason, "plugin") || ref.Command == "" {
		t.Fatalf("plugin: err %v, output %q", err, out.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the plugin ran")
	}
}

// recordingWarnings is a rest.WarningHandler that keeps what it is given.
type recordingWarnings struct{ got syncBuffer }

func (w *recordingWarnings) HandleWarningHeader(_ int, _ string, text string) {
	fmt.Fprintln(&w.got, text)
}

// TestRunServerWarning: a warning the server sends lands in the command's output as kubectl
// prints it, and the process-wide default handler is put back afterwards.
func TestRunServerWarning(t *testing.T) {
	handler := &recordingWarnings{}
	r := newRunner(t, func(o *kubectl.Options) { o.WarningHandler = handler })
	name := uniqueName("warned")
	path := writeFile(t, "pod.yaml", fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
spec:
  containers:
  - name: main
    image: busybox:1.36
    env:
    - {name: A, value: "1"}
    - {name: A, value: "2"}
`, name))
	res, out := run(t, r, "apply -f "+path)
	warning := `Warning: spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply` + "\n"
	if res.ExitCode != 0 || out != warning+"pod/"+name+" created\n" || res.Stderr != warning {
		t.Fatalf("apply: code %d, output %q, stderr %q", res.ExitCode, out, res.Stderr)
	}
	if handler.got.String() != "" {
		t.Errorf("the default handler saw kubectl's warning: %q", handler.got.String())
	}
	// After the run, a client without a handler of its own uses the default again.
	cfg, err := liveServer(t).RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	cfg.WarningHandler = nil
	pods := clientFor(t, cfg).CoreV1().Pods("default")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name + "-b"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "main", Image: "busybox:1.36", Env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "A", Value: "2"}},
	}}}}
	if _, err := pods.Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(handler.got.String(), "hides previous definition") {
		t.Errorf("default warning handler not restored; it got %q", handler.got.String())
	}
}

// TestNothingReachesProcessStdio runs commands while the process's stdout and stderr are
// pipes: nothing may arrive there. `logs` of a pod with two containers is the case kubectl
// writes to os.Stderr itself ("Defaulted container ...").
func TestNothingReachesProcessStdio(t *testing.T) {
	r := newRunner(t)
	name := uniqueName("twocontainers")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "first", Image: "busybox:1.36"}, {Name: "second", Image: "busybox:1.36"},
	}}}
	if _, err := client(t, "admin").CoreV1().Pods("default").Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	run(t, r, "get ns") // warm-up outside the capture

	stdout, stderr := capture(t, &os.Stdout), capture(t, &os.Stderr)
	res, out := run(t, r, "logs "+name)
	_, _ = run(t, r, "--context bob get cm")
	_, _ = run(t, r, "get nosuchkind")
	_, _ = run(t, r, "help")
	gotOut, gotErr := stdout(), stderr()
	if gotOut != "" || gotErr != "" {
		t.Errorf("written to the process: stdout %q, stderr %q", gotOut, gotErr)
	}
	if !strings.HasPrefix(out, `Defaulted container "first" out of: first, second`+"\n") || res.ExitCode != 1 {
		t.Errorf("logs of a two-container pod: code %d, output %q", res.ExitCode, out)
	}
}

// capture points *f at a pipe until the returned function is called, which restores it and
// returns what arrived.
func capture(t *testing.T, f **os.File) func() string {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	orig := *f
	*f = pw
	got := make(chan string, 1)
	go func() {
		var b bytes.Buffer
		_, _ = b.ReadFrom(pr)
		pr.Close()
		got <- b.String()
	}()
	restored := false
	restore := func() string {
		if restored {
			return ""
		}
		restored = true
		*f = orig
		pw.Close()
		return <-got
	}
	t.Cleanup(func() { restore() })
	return restore
}

func clientFor(t testing.TB, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// observingBuffer is an output that also hears of each request as its response arrives.
type observingBuffer struct {
	syncBuffer
	mu   sync.Mutex
	seen []kubectl.Request
}

func (o *observingBuffer) ObserveRequest(q kubectl.Request) {
	o.mu.Lock()
	o.seen = append(o.seen, q)
	o.mu.Unlock()
}

func (o *observingBuffer) requests() []kubectl.Request {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.seen)
}

// TestRunObservesRequestsLive: an output that is a RequestObserver hears of a `get -w`'s
// watch request, with its audit ID, while the command still streams; once it ends, the
// observed requests are the Result's (in the order their responses came).
func TestRunObservesRequestsLive(t *testing.T) {
	r := newRunner(t)
	run(t, r, "create cm "+uniqueName("seed"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &observingBuffer{}
	type ran struct {
		res kubectl.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := r.RunLine(ctx, "get cm -w", out)
		done <- ran{res, err}
	}()
	waitFor(t, time.Minute, "the watch request observed", func() bool {
		for _, q := range out.requests() {
			if strings.Contains(q.Path, "watch=true") && uuidRE.MatchString(q.AuditID) && q.Code == 200 {
				return true
			}
		}
		return false
	})
	select {
	case got := <-done:
		t.Fatalf("the watch ended before it was cancelled: %+v, %v", got.res, got.err)
	default:
	}
	cancel()
	var got ran
	select {
	case got = <-done:
	case <-time.After(time.Minute):
		t.Fatal("Run did not return after cancel")
	}
	seen := out.requests()
	if len(seen) != len(got.res.Requests) {
		t.Fatalf("observed %d requests, the result has %d:\n%+v\n%+v", len(seen), len(got.res.Requests), seen, got.res.Requests)
	}
	// Observed as the responses arrived, which for concurrent requests is not the order sent.
	byID := map[string]kubectl.Request{}
	for _, q := range seen {
		byID[q.AuditID] = q
	}
	for _, q := range got.res.Requests {
		if o, ok := byID[q.AuditID]; !ok || o.Path != q.Path || o.Code != q.Code {
			t.Errorf("result's %+v: observed %+v", q, o)
		}
	}
}
