package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/server"
)

// trackContent is fakeContent with an after-serve track of three steps in two lessons and a
// kube-apiserver source that is in the module cache or not (kube.present).
type trackContent struct {
	fakeContent
	kube *fakeKubeCache
}

// fakeKubeCache says whether k8s.io/kubernetes is "in the module cache".
type fakeKubeCache struct {
	mu      sync.Mutex
	present bool
}

func (c *fakeKubeCache) set(v bool) { c.mu.Lock(); c.present = v; c.mu.Unlock() }
func (c *fakeKubeCache) get() bool  { c.mu.Lock(); defer c.mu.Unlock(); return c.present }

func newTrackContent(zh, kubePresent bool) trackContent {
	return trackContent{fakeContent: fakeContent{zh: zh}, kube: &fakeKubeCache{present: kubePresent}}
}

const fakeKubeLocation = "pkg/controlplane/apiserver/config.go BuildGenericConfig"

const fakeKubeSource = `package apiserver

import "k8s.io/apiserver/pkg/server"

// BuildGenericConfig takes the generic controlplane apiserver options and produces
// the genericapiserver.Config associated with it.
func BuildGenericConfig(s options.CompletedOptions, schemes []*runtime.Scheme) (
	genericConfig *genericapiserver.Config, storageFactory *serverstorage.DefaultStorageFactory, err error,
) {
	genericConfig = genericapiserver.NewConfig(legacyscheme.Codecs)
	genericConfig.MergedResourceConfig = resourceConfig
	return
}
`

func (c trackContent) TrackSteps() []Step {
	steps := []Step{
		{LessonID: "21-apimachinery", StepID: "typemeta", Lesson: "apimachinery, live",
			Title: "TypeMeta and ObjectMeta on your object", Live: "object-meta",
			Text:   "Create a configmap with `kubectl create configmap demo --from-literal=greeting=hello`, then press **r**: the state pane reads it back.",
			Anchor: "(*Server).Authn", Focus: "union.New", Upstream: upstreamOK, Kube: fakeKubeLocation},
		{LessonID: "21-apimachinery", StepID: "restmapper", Lesson: "apimachinery, live",
			Title: "GVK and GVR through a RESTMapper", Live: "restmapper",
			Text: "kubectl asks discovery which resource a name means.", Anchor: "(*Server).Authn"},
		{LessonID: "22-learn-group", StepID: "register", Lesson: "An API group of our own",
			Title: "register.go", Text: "The group registers its types.", Anchor: "(*authnState).describe"},
	}
	if c.zh {
		steps[0].Lesson, steps[1].Lesson, steps[2].Lesson = "apimachinery 现场", "apimachinery 现场", "我们自己的 API 组"
		steps[0].Title = "你创建的对象上的 TypeMeta 与 ObjectMeta"
		steps[0].Text = "先用 `kubectl create configmap demo --from-literal=greeting=hello` 创建一个 configmap，再按 **r**：状态面板会把它读回来。"
		steps[1].Title = "通过 RESTMapper 在 GVK 与 GVR 之间转换"
		steps[1].Text = "kubectl 通过发现机制确定一个名称对应哪种资源。"
		steps[2].Text = "这个组注册它的类型。"
	}
	for i := range steps {
		steps[i].ID = steps[i].LessonID + "/" + steps[i].StepID
	}
	return steps
}

func (c trackContent) Kube(where string) (Location, error) {
	if !c.kube.get() {
		return Location{}, &MissingModuleError{Module: lessons.KubeModule, Version: lessons.KubeVersion, Err: fs.ErrNotExist}
	}
	if where != fakeKubeLocation {
		return Location{}, fmt.Errorf("kube %q: no such symbol", where)
	}
	return Location{File: "/root/go/pkg/mod/k8s.io/kubernetes@v1.37.2/pkg/controlplane/apiserver/config.go",
		StartLine: 5, EndLine: 13, FocusStart: 7, FocusEnd: 7, Source: []byte(fakeKubeSource)}, nil
}

// fakeProbe answers the live probes: object-meta finds no configmap until created is set;
// restmapper fails while broken is set. It counts the runs of each probe.
type fakeProbe struct {
	mu      sync.Mutex
	runs    map[string]int
	created bool
	broken  bool
}

func newFakeProbe() *fakeProbe { return &fakeProbe{runs: map[string]int{}} }

func (p *fakeProbe) run(_ context.Context, id string) (*server.Node, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs[id]++
	root := &server.Node{Label: "live"}
	n := root.Add(id, "")
	switch id {
	case "object-meta":
		if !p.created {
			n.Add("configmap default/demo", "not created yet — kubectl create configmap demo --from-literal=greeting=hello")
			break
		}
		om := n.Add("ObjectMeta", "")
		om.Add("name", "demo")
		om.Add("resourceVersion", "412")
		n.Add("data", "1 keys")
	case "restmapper":
		if p.broken {
			return nil, errors.New("live probe restmapper: discovery: connection refused")
		}
		n.Add("kubectl get <name> → GVR → GVK → path", "").Add("cm", "core/v1/configmaps")
	}
	return root, nil
}

func (p *fakeProbe) count(id string) int { p.mu.Lock(); defer p.mu.Unlock(); return p.runs[id] }

// fakeFetch is a download that reports progress and then waits to be released (the module is
// then in the fake cache) or for its context to end.
type fakeFetch struct {
	cache    *fakeKubeCache
	release  chan error
	started  chan string
	returned chan error
}

func newFakeFetch(cache *fakeKubeCache) *fakeFetch {
	return &fakeFetch{cache: cache, release: make(chan error, 1), started: make(chan string, 4), returned: make(chan error, 4)}
}

func (f *fakeFetch) fetch(ctx context.Context, module, version string, progress func(int64)) (dir string, err error) {
	defer func() { f.returned <- err }()
	f.started <- module + "@" + version
	progress(12_300_000)
	select {
	case err := <-f.release:
		if err != nil {
			return "", err
		}
		f.cache.set(true)
		return "/root/go/pkg/mod/" + module + "@" + version, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// trackHarness is a served walkthrough on a track content.
func trackHarness(t *testing.T, w, h int, c trackContent, p *fakeProbe, f *fakeFetch, progress func(string, string)) *harness {
	t.Helper()
	opts := Options{GlamourStyle: "notty", Probe: p.run, Progress: progress}
	if f != nil {
		opts.Fetch = f.fetch
	}
	return newHarnessOpts(t, w, h, c, fakeServer{}, opts)
}

// TestTrackGolden: the after-serve track's screens in both languages at both sizes, the
// side-by-side view, the offer to fetch kube-apiserver's source and the fetch under way.
func TestTrackGolden(t *testing.T) {
	tests := []struct {
		name  string
		keys  []string
		kube  bool
		fetch bool
	}{
		{"track", []string{"E", "n"}, true, false},
		{"track_state", []string{"E", "n", "tab", "tab"}, true, false},
		{"track_help", []string{"E", "n", "?"}, true, false},
		{"side", []string{"E", "n", "s"}, true, false},
		{"kube_missing", []string{"E", "n", "s"}, false, false},
		{"fetching", []string{"E", "n", "s", "F"}, false, true},
		{"serve_stop", []string{"E"}, true, false},
	}
	for _, l := range []struct {
		name string
		zh   bool
	}{{"en", false}, {"zh", true}} {
		for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			for _, tt := range tests {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", l.name, tt.name, size.w, size.h), func(t *testing.T) {
					c := newTrackContent(l.zh, tt.kube)
					var f *fakeFetch
					if tt.fetch {
						f = newFakeFetch(c.kube)
					}
					hs := trackHarness(t, size.w, size.h, c, newFakeProbe(), f, nil)
					hs.keys(tt.keys...)
					if tt.fetch {
						// The download reports its progress from its own goroutine: the frame
						// shows it once that message is in, which keys() does not wait for.
						hs.until("the download's progress", func() bool { return strings.Contains(hs.view(), "12.3 MB") })
					}
					golden.RequireEqual(t, []byte(hs.view()))
				})
			}
		}
	}
}

// TestTrackNavigation walks the track: unreachable before serve (and the screen says why), n
// from the serve stop opens it, n and ← move through it, the probe runs on each visit and on
// r, its errors and changes show, progress records each step, :track jumps by lesson.
func TestTrackNavigation(t *testing.T) {
	c := newTrackContent(false, true)
	p := newFakeProbe()
	var reached []string
	hs := trackHarness(t, 120, 40, c, p, nil, func(l, s string) { reached = append(reached, l+"/"+s) })
	m := hs.model.m
	tr := m.tr

	hs.typeLine("track")
	hs.must("so they open once it serves")
	hs.keys("x") // closes the box
	if m.tour.InTrack() {
		t.Fatal(":track before serve opened the track")
	}
	hs.keys("n")
	if m.tour.InTrack() || len(hs.eng.targets()) != 1 {
		t.Fatalf("n before serve: in track %v, %d Continue calls (want 0 and 1)", m.tour.InTrack(), len(hs.eng.targets()))
	}

	hs.keys("E")
	hs.must(tr.StatusAllDone)
	hs.keys("n")
	hs.must("after serve · apimachinery, live", "TypeMeta and ObjectMeta on your object", "step 1 of 3",
		"live · object-meta", "not created yet —", "--from-literal=greeting=hello")
	if got := p.count("object-meta"); got != 1 {
		t.Errorf("object-meta ran %d times on the first visit, want 1", got)
	}

	// The learner creates the configmap and reads again: the new rows are marked.
	p.mu.Lock()
	p.created = true
	p.mu.Unlock()
	hs.keys("r")
	hs.must("ObjectMeta", "resourceVersion: 412")
	if p.count("object-meta") != 2 || m.statePane().Changes() == 0 {
		t.Errorf("after r: %d runs, %d changed rows (want 2 runs and some changes)", p.count("object-meta"), m.statePane().Changes())
	}

	hs.keys("n")
	hs.must("step 2 of 3", "GVK and GVR through a RESTMapper", "core/v1/configmaps")
	p.mu.Lock()
	p.broken = true
	p.mu.Unlock()
	hs.keys("r")
	hs.must("The probe restmapper could not read the server", "connection refused")

	hs.keys("n")
	hs.must("step 3 of 3", "after serve · An API group of our own", "This step reads nothing live")
	hs.keys("n")
	hs.must(tr.NoteTrackEnd)
	hs.keys("left")
	hs.must("step 2 of 3")
	if got := p.count("restmapper"); got != 3 {
		t.Errorf("restmapper ran %d times (visit, r, visit again), want 3", got)
	}
	hs.keys("left", "left")
	if m.tour.InTrack() {
		t.Fatal("← on the first track step stayed in the track")
	}
	hs.must(tr.StatusAllDone)

	hs.typeLine("track 2")
	hs.must("step 3 of 3", "register.go")
	hs.startLine("track 7")
	hs.must(fmt.Sprintf(tr.ErrTrackArg, 2))
	hs.keys("esc")

	// A phase key reviews a startup stop: the track is left.
	hs.keys("2")
	if m.tour.InTrack() || m.tour.Reviewing() < 0 {
		t.Errorf("phase key from the track: in track %v, review %d", m.tour.InTrack(), m.tour.Reviewing())
	}

	want := []string{"21-apimachinery/typemeta", "21-apimachinery/restmapper", "22-learn-group/register",
		"21-apimachinery/restmapper", "21-apimachinery/typemeta", "22-learn-group/register"}
	if strings.Join(reached, " ") != strings.Join(want, " ") {
		t.Errorf("progress recorded %v, want %v", reached, want)
	}
}

// TestTrackFitsEverySize: every track screen fits the window in both languages at sizes
// between the minimum and wide (the harness checks each frame).
func TestTrackFitsEverySize(t *testing.T) {
	for _, zh := range []bool{false, true} {
		for _, size := range []struct{ w, h int }{{80, 24}, {100, 30}, {119, 35}, {120, 40}, {200, 60}} {
			c := newTrackContent(zh, true)
			hs := trackHarness(t, size.w, size.h, c, newFakeProbe(), nil, nil)
			hs.keys("E", "n", "s", "tab", "down", "s", "n", "r", "tab", "tab", "n", "?", "x", "left")
		}
	}
}

// TestLessonNoMarkers: with the notty style (NO_COLOR) the lesson text shows no Markdown
// emphasis markers.
func TestLessonNoMarkers(t *testing.T) {
	for _, l := range langs {
		hs := newHarness(t, 120, 40, l.content, nil)
		hs.keys("2", " ")
		v := hs.view()
		if strings.Contains(v, "**") {
			t.Errorf("%s: the lesson shows ** markers:\n%s", l.name, v)
		}
	}
}

// TestTeatestTrackFetch drives a real bubbletea program: serve, open the track, open the
// side-by-side view, which offers to fetch k8s.io/kubernetes; F starts the (fake) download,
// whose progress shows while the screen stays usable, and when it ends the function shows.
// A second run quits during the download: the program ends at once and the download is
// cancelled (Run's shutdown waits for it).
func TestTeatestTrackFetch(t *testing.T) {
	for _, quit := range []bool{false, true} {
		t.Run(fmt.Sprintf("quit=%v", quit), func(t *testing.T) {
			c := newTrackContent(false, false)
			f := newFakeFetch(c.kube)
			eng := newFakeEngine().start()
			m := NewModel(eng, fakeServer{}, c, Options{GlamourStyle: "notty", Probe: newFakeProbe().run, Fetch: f.fetch})
			done := make(chan struct{})
			defer close(done)
			m.m.done = done
			w, h := 0, 0
			fm := fitModel{Model: m, t: t, mu: &sync.Mutex{}, w: &w, h: &h}
			tm := teatest.NewTestModel(t, fm, teatest.WithInitialTermSize(120, 40))
			wait := func(subs ...string) {
				t.Helper()
				teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
					for _, s := range subs {
						if !bytes.Contains(b, []byte(s)) {
							return false
						}
					}
					return true
				}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
			}
			wait("PAUSED at " + cpID(0))
			tm.Send(keyMsg("E"))
			wait("SERVING")
			tm.Send(keyMsg("n"))
			wait("step 1 of 3")
			tm.Send(keyMsg("s"))
			wait("Press F to fetch it")
			tm.Send(keyMsg("F"))
			select {
			case got := <-f.started:
				if got != "k8s.io/kubernetes@v1.37.2" {
					t.Errorf("fetching %s, want k8s.io/kubernetes@v1.37.2", got)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("F did not start a download")
			}
			wait("12.3 MB so far")
			tm.Send(keyMsg("tab")) // the screen stays usable during the download
			if quit {
				tm.Send(keyMsg("q"))
				final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(fitModel)
				if err := final.Model.m.shutdown(); err != nil {
					t.Fatal(err)
				}
				select {
				case err := <-f.returned:
					if !errors.Is(err, context.Canceled) {
						t.Errorf("the download ended with %v, want context.Canceled", err)
					}
				default:
					t.Error("shutdown returned before the download ended")
				}
				return
			}
			f.release <- nil
			wait("func BuildGenericConfig(s options", "kube-apiserver v1.37.2")
			tm.Send(keyMsg("q"))
			final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(fitModel)
			if fm := final.Model.m; fm.tour.Fetching() || fm.sidePane().Kube().Missing() != nil {
				t.Errorf("after the download: job %v, kube pane still missing %v", fm.tour.Fetching(), fm.sidePane().Kube().Missing())
			}
		})
	}
}

// TestFetchFailureShown: a download that fails (offline) says so plainly, keeps the location
// as text and offers F again.
func TestFetchFailureShown(t *testing.T) {
	c := newTrackContent(false, false)
	f := newFakeFetch(c.kube)
	hs := trackHarness(t, 120, 40, c, newFakeProbe(), f, nil)
	hs.keys("E", "n", "s", "F")
	f.release <- errors.New("fetch k8s.io/kubernetes v1.37.2: dial tcp: lookup proxy.golang.org: no such host (offline? run `go mod download k8s.io/kubernetes@v1.37.2` when you are online)")
	hs.until("the download ends", func() bool { return !hs.model.m.tour.Fetching() })
	hs.settle()
	hs.must("Could not fetch k8s.io/kubernetes v1.37.2", "offline?", "The location: pkg/controlplane/apiserver/config.go", "Press F to try again")
}
