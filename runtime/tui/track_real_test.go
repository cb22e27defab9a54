package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/live"
	"github.com/kubewalk/kubewalk/server"
)

// TestTrackRealServer walks the real after-serve track against a real server with the real
// probes (runtime/live) and reads kube-apiserver's source from the real module cache: the
// first step says the configmap is not created yet, kubectl's equivalent creates it, r reads it
// back; s shows the kube-apiserver function of a step beside ours, its declaration marked.
func TestTrackRealServer(t *testing.T) {
	c, err := LoadLessonContent("zh-CN")
	if c == nil {
		t.Fatalf("no lessons: %v", err)
	}
	if len(c.TrackSteps()) == 0 {
		t.Fatal("the lessons have no after-serve track")
	}
	srv := startRealServer(t)
	tr := i18n.For(i18n.SimplifiedChinese)
	probe := func(ctx context.Context, id string) (*server.Node, error) { return live.Run(ctx, srv, id, tr) }
	hs := newHarnessOpts(t, 120, 40, c, srv, Options{GlamourStyle: "notty", Probe: probe})
	t.Cleanup(func() {
		if err := hs.model.m.shutdown(); err != nil {
			t.Error(err)
		}
	})
	hs.keys("E", "n")
	m := hs.model.m
	if !m.tour.InTrack() || m.tour.TrackStep().Live != "object-meta" {
		t.Fatalf("n after serve: in track %v", m.tour.InTrack())
	}
	hs.must("object-meta", "尚未创建 ——")

	cfg, err := srv.RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: live.ConfigMapName, Namespace: live.Namespace},
		Data: map[string]string{"greeting": "hello"}}
	if _, err := cs.CoreV1().ConfigMaps(live.Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	hs.keys("r")
	hs.must("ObjectMeta", "resourceVersion")
	if m.statePane().Changes() == 0 {
		t.Error("reading again after creating the configmap marked no change")
	}

	// The side-by-side view on the first track step with a kube: location.
	if _, err := lessons.KubeModuleDir(); err != nil {
		t.Logf("k8s.io/kubernetes is not in the module cache (%v): checking the offer instead", err)
	}
	for m.tour.TrackStep().Kube == "" {
		hs.keys("n")
	}
	kube := m.tour.TrackStep().Kube
	hs.keys("s")
	hs.until("the kube pane to resolve", func() bool { _, _, ok := m.sidePane().Kube().Result(); return ok })
	hs.settle()
	if mm := m.sidePane().Kube().Missing(); mm != nil {
		hs.must("按 F 下载")
		return
	}
	loc, _, ok := m.sidePane().Kube().Shown()
	if !ok {
		_, err, _ := m.sidePane().Kube().Result()
		t.Fatalf("kube pane for %q: %v", kube, err)
	}
	sym := strings.Fields(kube)[1]
	lines := strings.Split(string(loc.Source), "\n")
	if loc.FocusStart == 0 || loc.FocusStart > len(lines) {
		t.Fatalf("kube pane marks line %d of %d, want the declaration of %s", loc.FocusStart, len(lines), sym)
	}
	if decl := lines[loc.FocusStart-1]; !strings.Contains(decl, lastName(sym)) {
		t.Errorf("kube pane marks line %d %q, want the declaration of %s", loc.FocusStart, decl, sym)
	}
	hs.must(fmt.Sprintf(tr.PaneKube, lessons.KubeVersion), "▶")
}

// lastName is a symbol's own name: "Scheme" of "Scheme", "New" of "(*Config).New".
func lastName(sym string) string {
	return sym[strings.LastIndexAny(sym, ".")+1:]
}

// TestRealKubeAndUpstreamLocations: every kube: location and upstream symbol of the real
// lessons (startup and track) resolves through LessonContent, with the declaration line marked
// (k8s.io/kubernetes is downloaded into the module cache if it is missing, as lessons' own test
// does; the test skips, saying why, only when that download fails).
func TestRealKubeAndUpstreamLocations(t *testing.T) {
	c, err := LoadLessonContent("en")
	if c == nil {
		t.Fatalf("no lessons: %v", err)
	}
	if _, err := lessons.KubeModuleDir(); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if _, err := lessons.FetchModule(ctx, lessons.KubeModule, lessons.KubeVersion, nil); err != nil {
			t.Skipf("cannot check kube: locations: %v", err)
		}
	}
	steps := c.TrackSteps()
	for _, s := range c.steps {
		steps = append(steps, s)
	}
	marked := func(what string, loc Location) {
		t.Helper()
		lines := strings.Split(string(loc.Source), "\n")
		if loc.FocusStart < loc.StartLine || loc.FocusStart > loc.EndLine || loc.FocusStart != loc.FocusEnd {
			t.Errorf("%s: focus %d-%d outside %d-%d", what, loc.FocusStart, loc.FocusEnd, loc.StartLine, loc.EndLine)
			return
		}
		if l := strings.TrimSpace(lines[loc.FocusStart-1]); strings.HasPrefix(l, "//") || l == "" {
			t.Errorf("%s: the marked line is not the declaration: %q", what, l)
		}
	}
	for _, s := range steps {
		if s.Kube != "" {
			loc, err := c.Kube(s.Kube)
			if err != nil {
				t.Errorf("%s: kube %v", s.ID, err)
			} else {
				marked(s.ID+" kube", loc)
			}
		}
		if s.Upstream != "" {
			loc, err := c.Upstream(s.Upstream)
			if err != nil {
				t.Errorf("%s: upstream %v", s.ID, err)
			} else {
				marked(s.ID+" upstream", loc)
			}
		}
	}
}

// TestRealTrackFits walks the real after-serve track in English and Chinese at the smallest
// and the wide size: every frame fits (the harness checks each), every lesson line fits its
// pane without splitting a word or a code span, and no emphasis marker is left.
func TestRealTrackFits(t *testing.T) {
	for _, lang := range []string{"en", "zh-CN"} {
		c, err := LoadLessonContent(lang)
		if c == nil {
			t.Fatalf("no %s lessons: %v", lang, err)
		}
		for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s/%dx%d", lang, size.w, size.h), func(t *testing.T) {
				hs := newHarnessOpts(t, size.w, size.h, c, fakeServer{}, Options{GlamourStyle: "notty", Probe: newFakeProbe().run})
				hs.keys("E", "n")
				m := hs.model.m
				for i := range c.TrackSteps() {
					if m.tour.TrackAt() != i {
						t.Fatalf("track step %d on screen, want %d", m.tour.TrackAt(), i)
					}
					id := m.tour.TrackStep().ID
					step, _ := m.lessonPane().Step()
					lw, _ := m.lessonPane().Size()
					for _, p := range wrapProblems(proseOnly(step.Text), m.lessonPane().Lines(), lw-2) {
						t.Errorf("%s: %s", id, p)
					}
					for _, p := range emphasisProblems(step.Text, m.lessonPane().Lines()) {
						t.Errorf("%s: %s", id, p)
					}
					hs.keys("s", "s", "n")
				}
				if m.note != i18n.For(lang).NoteTrackEnd {
					t.Errorf("n on the last step: note %q", m.note)
				}
			})
		}
	}
}

// proseOnly drops fenced code blocks and table rows from Markdown, which wrapProblems (a checker
// of prose and inline code) would misread: a fence's backticks as inline code, a table's
// delimiter row as a word.
func proseOnly(md string) string {
	var out []string
	fenced := false
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```"):
			fenced = !fenced
		case fenced, strings.HasPrefix(t, "|"):
		default:
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
