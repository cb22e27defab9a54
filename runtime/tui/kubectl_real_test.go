package tui

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/kubectl"
	kubectlview "github.com/kubewalk/kubewalk/runtime/tui/kubectl"
	"github.com/kubewalk/kubewalk/server"
)

// startRealServer runs a real kubewalk server (embedded etcd in a temp dir) through every
// phase; it is closed when the test ends.
func startRealServer(t *testing.T) *server.Server {
	t.Helper()
	s, err := server.New(server.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("starting the server: %v", err)
	}
	return s
}

// TestKubectlPaneRealServer runs kubectl in the pane against a real server with the real
// runner (runtime/kubectl): a get, kubectl's own Forbidden, a refused command, and get -w
// streaming a configmap created meanwhile until esc stops it.
func TestKubectlPaneRealServer(t *testing.T) {
	srv := startRealServer(t)
	cacheDir := t.TempDir()
	hs := newHarnessOpts(t, 120, 40, fakeContent{}, srv, Options{GlamourStyle: "notty",
		NewKubectl: func(kc string) (Kubectl, error) {
			return kubectl.New(kubectl.Options{Kubeconfig: kc, CacheDir: cacheDir})
		}})
	hs.keys("E")
	t.Cleanup(func() {
		if err := hs.model.m.shutdown(); err != nil {
			t.Error(err)
		}
	})
	finished := func() bool { return hs.model.m.kc().Finished() }

	hs.startLine("k get ns")
	hs.until("get ns to end", finished)
	hs.settle()
	hs.must("$ kubectl get ns", "(as admin)", "NAME", "default", "Active", "✓ exit 0", "kubectl · get ns · exit 0",
		"GET", "/api/v1/namespaces", "→ 200")
	// Each request carries the Audit-Id the server gave it: the name of its trace.
	kc := hs.model.m.kc()
	if len(kc.IDs()) == 0 {
		t.Fatalf("no audit ID recorded: %+v", kc.Result().Requests)
	}
	if id := kc.IDs()[0]; !regexp.MustCompile(`^[0-9a-f-]{36}$`).MatchString(id) || !strings.Contains(hs.view(), id) {
		t.Errorf("audit ID %q not shown:\n%s", id, hs.view())
	}

	hs.startLine("k --context bob get cm")
	hs.until("bob's get to end", finished)
	hs.settle()
	hs.must("Error from server (Forbidden)", `User "bob"`, "cannot list resource", "✗ exit 1", "(as bob)", "→ 403")

	hs.startLine("k edit cm demo")
	hs.until("the refusal", finished)
	hs.settle()
	hs.must("✗ not run: needs a terminal of its own", "Run it in another terminal:", "KUBECONFIG="+srv.Kubeconfig())

	// get -w streams: it lists the configmap there is, then shows one created while it
	// watches; esc stops it.
	cfg, err := srv.RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	create := func(name string) {
		t.Helper()
		_, err := cs.CoreV1().ConfigMaps("default").Create(context.Background(),
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"a": "b"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	create("listed-first")
	hs.startLine("k get cm -w")
	hs.until("the watch to list", func() bool { return strings.Contains(hs.view(), "listed-first") })
	if !hs.model.m.kc().Running() {
		t.Fatalf("get -w ended by itself:\n%s", hs.view())
	}
	name := "streamed-later"
	create(name)
	hs.until("the streamed configmap", func() bool { return strings.Contains(hs.view(), name) })
	hs.must("running · esc stops it")
	hs.send(keyMsg("esc"))
	hs.until("esc to stop the watch", finished)
	hs.settle()
	hs.must("■ stopped with esc", "stopped (esc)")
	if !hs.model.m.kc().Result().Canceled {
		t.Error("the result does not say the command was cancelled")
	}
}

// TestKubectlManifestBox: `:k apply -f -` opens the text box instead of reading a terminal the
// screen owns; a pasted manifest with ctrl+d is applied through the real runner in confined
// mode (as a class ssh student's), esc puts the box away without running anything, and the
// editor path a student once escaped through is refused on screen.
func TestKubectlManifestBox(t *testing.T) {
	srv := startRealServer(t)
	cacheDir := t.TempDir()
	hs := newHarnessOpts(t, 120, 40, fakeContent{}, srv, Options{GlamourStyle: "notty",
		NewKubectl: func(kc string) (Kubectl, error) {
			return kubectl.New(kubectl.Options{Kubeconfig: kc, CacheDir: cacheDir, Confined: true})
		}})
	hs.keys("E")
	t.Cleanup(func() {
		if err := hs.model.m.shutdown(); err != nil {
			t.Error(err)
		}
	})
	finished := func() bool { return hs.model.m.kc().Finished() }

	hs.startLine("k apply -f -")
	hs.until("the text box", func() bool { return hs.model.m.kc().Capturing() })
	hs.settle()
	hs.must("-f - reads the manifest below", "ctrl+d runs the", "manifest · ctrl+d runs", "ctrl+d run it", "esc put it away")
	// A paste arrives as one message with its newlines; q and E in it are text, not keys.
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-the-box\n  namespace: default\ndata:\n  q: E\n")})
	hs.settle()
	hs.must("name: from-the-box")
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlD})
	hs.until("apply to end", finished)
	hs.settle()
	hs.must("configmap/from-the-box created", "✓ exit 0")
	cfg, err := srv.RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cm, err := cs.CoreV1().ConfigMaps("default").Get(context.Background(), "from-the-box", metav1.GetOptions{})
	if err != nil || cm.Data["q"] != "E" {
		t.Fatalf("the configmap from the box: %+v, %v", cm, err)
	}

	hs.startLine("k create -f -")
	hs.until("the text box again", func() bool { return hs.model.m.kc().Capturing() })
	hs.keys("x")
	hs.send(keyMsg("esc"))
	hs.settle()
	if hs.model.m.kc().Capturing() {
		t.Fatal("esc did not put the box away")
	}
	hs.must("put the manifest away: nothing was run")

	hs.startLine("k apply edit-last-applied cm/from-the-box")
	hs.until("the refusal", finished)
	hs.settle()
	hs.must("✗ not run:", "editor")
	if strings.Contains(hs.view(), "Run it in another terminal") {
		t.Errorf("a confined screen is told to run the command elsewhere:\n%s", hs.view())
	}
}

// TestKubectlBesideWatch: a student with one screen (a confined runner, as class ssh gives
// one) watches and changes at once: once `:k get cm -w` has its watch open, the next `:k` runs
// beside it — typed or through the text box — and the watch's newest lines, the change among
// them, show under it. One command goes on beside at most; esc stops the one in front, then
// the one beside.
func TestKubectlBesideWatch(t *testing.T) {
	srv := startRealServer(t)
	cacheDir := t.TempDir()
	hs := newHarnessOpts(t, 120, 40, fakeContent{}, srv, Options{GlamourStyle: "notty",
		NewKubectl: func(kc string) (Kubectl, error) {
			return kubectl.New(kubectl.Options{Kubeconfig: kc, CacheDir: cacheDir, Confined: true, NoExecPlugins: true})
		}})
	hs.keys("E")
	t.Cleanup(func() {
		if err := hs.model.m.shutdown(); err != nil {
			t.Error(err)
		}
	})
	kc := hs.model.m.kc()
	finished := func() bool { return kc.Finished() }
	// While a watch runs in front the model never settles: type without waiting, and wait for
	// the screen instead.
	typeNow := func(line string) {
		t.Helper()
		hs.send(keyMsg(":"))
		hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(line)})
		hs.send(keyMsg("enter"))
	}
	shows := func(what ...string) func() bool {
		return func() bool {
			v := hs.view()
			for _, w := range what {
				if !strings.Contains(v, w) {
					return false
				}
			}
			return true
		}
	}

	hs.startLine("k get cm -w --watch-only")
	hs.until("the watch open", func() bool { return kc.Front() != nil && kc.Front().WatchOpen() })
	watch := kc.Front()

	typeNow("k --context alice create configmap made-beside --from-literal=k=v")
	hs.until("the create to end", finished)
	if kc.Beside() != watch || !kc.Beside().WatchOpen() {
		t.Fatalf("the watch is not beside the create: bg %v", kc.Beside())
	}
	hs.until("the change in the watch beside", func() bool {
		tail, _ := watch.Tail(kubectlview.BesideLines)
		return slices.ContainsFunc(tail, func(l string) bool { return strings.HasPrefix(l, "made-beside ") })
	})
	hs.until("the pane to show both", shows("$ kubectl --context alice create configmap made-beside", "configmap/made-beside created",
		"✓ exit 0", "still running beside: kubectl get cm -w --watch-only", "made-beside   1"))

	// Through the text box too.
	hs.startLine("k apply -f -")
	hs.until("the text box", func() bool { return kc.Capturing() })
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: boxed-beside\n  namespace: default\n")})
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlD})
	hs.until("apply to end", finished)
	hs.until("the applied configmap in the watch beside", func() bool {
		tail, _ := watch.Tail(kubectlview.BesideLines)
		return slices.ContainsFunc(tail, func(l string) bool { return strings.HasPrefix(l, "boxed-beside ") })
	})
	hs.until("the pane to show both", shows("configmap/boxed-beside created", "still running beside"))

	// A second watch in front: nothing more may start until one of them ends.
	hs.startLine("k get ns -w")
	hs.until("the second watch open", func() bool { return kc.Front() != nil && kc.Front().WatchOpen() })
	typeNow("k get cm")
	hs.until("the refusal", shows("kubectl get cm -w --watch-only already runs beside"))
	if kc.Front().Args()[1] != "ns" || !hs.model.m.prompt.IsOpen() {
		t.Fatalf("a third command started (%q), or the prompt closed", kc.Front().Args())
	}
	hs.send(keyMsg("esc")) // closes the prompt, which kept the line
	if hs.model.m.prompt.IsOpen() || !kc.Running() {
		t.Fatalf("esc in the prompt: prompt open %v, watch in front running %v", hs.model.m.prompt.IsOpen(), kc.Running())
	}
	hs.send(keyMsg("esc"))
	hs.until("esc to stop the watch in front", finished)
	if kc.Beside() != watch {
		t.Fatal("esc stopped the watch beside first")
	}
	hs.send(keyMsg("esc"))
	hs.until("esc to stop the watch beside", func() bool { return kc.Beside() == nil })
	hs.settle()
	hs.must("kubectl get cm -w --watch-only has ended")
	if strings.Contains(hs.view(), "still running beside") {
		t.Errorf("the ended watch is still shown beside:\n%s", hs.view())
	}
	select {
	case <-watch.Done():
	default:
		t.Fatal("the watch beside is forgotten but still running")
	}
}
