package tui

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/tour"
	"github.com/kubewalk/kubewalk/runtime/tui/walk"
	"github.com/kubewalk/kubewalk/server"
)

// sizes are the window sizes every flow runs at.
var sizes = []struct{ w, h int }{{80, 24}, {120, 40}, {200, 60}, {100, 30}}

// langs are the content variants every flow runs with.
var langs = []struct {
	name    string
	content Content
}{{"en", fakeContent{}}, {"zh", fakeContent{zh: true}}}

// forEach runs f at every size in every language.
func forEach(t *testing.T, f func(t *testing.T, w, h int, c Content)) {
	for _, l := range langs {
		for _, s := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", l.name, s.w, s.h), func(t *testing.T) { f(t, s.w, s.h, l.content) })
		}
	}
}

func cpID(i int) string { return server.Checkpoints()[i].ID() }

// tourFlow is a walk through every feature; frames are checked after every message.
var tourFlow = []string{
	" ", " ", "n", "right", // step
	"left", "left", "h", "right", "l", "esc", // review
	"p",      // next phase
	"u", "u", // upstream and back
	"tab", "enter", "down", "down", "enter", "e", "c", "r", "enter", "down", "enter", "e", "pgdown", "G", "g", "r", // state
	"tab", "down", "pgdown", "pgup", "end", "home", // lesson
	"tab", "/", "r", "e", "a", "c", "h", "enter", "n", "N", "esc", // search
	"?", "x", // help overlay
	"3", "1", "esc", "7", // phases
	"shift+tab", "shift+tab", "down",
	" ", "E", // to the end
	"tab", "tab", "tab", "down", "pgdown", // the kubectl pane
}

func TestFramesFitEverywhere(t *testing.T) {
	forEach(t, func(t *testing.T, w, h int, c Content) {
		hs := newHarness(t, w, h, c, fakeServer{})
		hs.keys(tourFlow...)
		hs.must(i18n.For(uiLang("", c)).StatusServing, "kubectl")
		// Resizing, including below the minimum and back, keeps every frame inside.
		for _, s := range []tea.WindowSizeMsg{{Width: 79, Height: 24}, {Width: 40, Height: 10}, {Width: 119, Height: 30}, {Width: 121, Height: 25}, {Width: w, Height: h}} {
			hs.send(s)
			hs.settle()
		}
		hs.keys("left", "u", "r", "tab", "enter")
	})
}

func TestMouse(t *testing.T) {
	forEach(t, func(t *testing.T, w, h int, c Content) {
		hs := newHarness(t, w, h, c, fakeServer{})
		wheel := func(b tea.MouseButton) {
			hs.send(tea.MouseMsg{X: 2, Y: 5, Action: tea.MouseActionPress, Button: b})
		}
		// The source must have loaded: the wheel scrolls it.
		if _, rows, ok := hs.model.m.srcPane().Shown(); !ok || rows == 0 {
			t.Fatal("the source did not load before the harness settled")
		}
		before := hs.view()
		wheel(tea.MouseButtonWheelDown)
		if hs.view() == before {
			_, rows, _ := hs.model.m.srcPane().Shown()
			t.Errorf("wheel down did not scroll the source (%d rows, %d h)", rows, h)
		}
		wheel(tea.MouseButtonWheelUp)
		if hs.view() != before {
			t.Error("wheel up did not scroll back")
		}
		// A click on the lower part of the screen focuses the pane there.
		hs.send(tea.MouseMsg{X: w - 3, Y: h - 3, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
		if hs.model.m.tour.Focus() == tour.PaneSource {
			t.Error("click did not move the focus")
		}
		wheel(tea.MouseButtonWheelDown)
	})
}

func TestStep(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.must("PAUSED at "+cpID(0), "checkpoint 1/")
	hs.keys(" ")
	hs.must("PAUSED at "+cpID(1), "checkpoint 2/", "Step "+cpID(1))
	hs.keys("n", "right")
	hs.must("PAUSED at " + cpID(3))
	if got := hs.eng.targets(); len(got) != 3 || got[0] != engine.NextCheckpoint() {
		t.Errorf("targets %v, want three NextCheckpoint", got)
	}
	hs.keys("p")
	authn := server.PhaseCheckpoints(server.PhaseAuthn)[0].ID()
	hs.must("PAUSED at "+authn, "✓ config 41ms", "▶ authn")
	// The state pane marks what the new checkpoint added.
	if !strings.Contains(hs.view(), "+") {
		t.Error("no change marks in the state tree")
	}
}

func TestReview(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys(" ", " ", " ")
	live := cpID(3)
	hs.keys("left")
	hs.must("REVIEWING step 3/4 ("+cpID(2)+")", "the server is paused at "+live, "Step "+cpID(2))
	hs.keys("left", "left", "left") // clamps at the first stop
	hs.must("REVIEWING step 1/4 (" + cpID(0) + ")")
	hs.keys("right") // forward while reviewing: no Continue
	hs.must("REVIEWING step 2/4")
	if n := len(hs.eng.targets()); n != 3 {
		t.Fatalf("reviewing resumed the server: %d Continue calls", n)
	}
	hs.keys(" ", "l") // forward to the live stop ends the review
	hs.mustNot("REVIEWING")
	hs.must("PAUSED at " + live)
	hs.keys("h", "esc")
	hs.mustNot("REVIEWING")
	// Stepping while reviewing resumes from the live stop.
	hs.keys("h", "p")
	hs.mustNot("REVIEWING")
	if got := hs.eng.targets(); got[len(got)-1] != engine.NextPhase() {
		t.Errorf("last target %v", got[len(got)-1])
	}
}

func TestUpstream(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys("2") // authn: its upstream symbol is not in the (fake) module cache
	hs.must("Source · server/authn.go:", "▶")
	hs.keys("u")
	hs.must("Upstream source unavailable", "import path: k8s.io/apiserver/pkg/authentication/request/union", "symbol:      New")
	hs.keys("u")
	hs.must("Source · server/authn.go:")
	hs.keys("7", "u") // serve: upstream available
	hs.must("Upstream · …", "pkg/server/genericapiserver.go:3-18 ", "▶", "s.installHealthz()", "└─ upstream: (*GenericAPIServer).PrepareRun in k8s.io/")
}

func TestRawState(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys("2", "r")
	hs.must("raw live objects", "▸ config.server", "authn.authenticator")
	hs.keys("tab", "enter")
	hs.must("▾ config.server *tui.liveServer = &{…}", "port int = 6443", "timeout time.Duration = 1m0s")
	hs.keys("down", "enter") // authn (a *liveAuthn through the server)
	hs.must(`name string = "union"`, "tokens map[string]tui.liveUser = map len 2", "verify func(string) bool", "missing *tui.liveUser = nil")
	// owner points back at the server two levels up: a cycle, not an endless tree.
	for range 4 {
		hs.keys("down")
	}
	hs.must("owner *tui.liveServer = ↺ cycle")
	hs.keys("r")
	hs.must("State · tree")
}

func TestStateTreeKeys(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys("2", "tab")
	hs.must("▸ config", "▾ authn")
	hs.keys("e", "g") // the pane is on the first change (in authn): back to the top
	hs.must("▾ config", "▾ scheme")
	hs.keys("c")
	hs.mustNot("▾ ")
	hs.keys("g", "enter")
	hs.must("▾ config")
}

func TestSearch(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys("/", "r", "e", "a", "c", "h")
	hs.must("/reach█")
	hs.keys("q") // typed, not quit
	if hs.quit {
		t.Fatal("q quit while typing a search")
	}
	hs.keys("backspace", "enter")
	// The first match at or below the top of the view is current.
	_, first := hs.model.m.srcPane().Matches()
	hs.must("/reach", fmt.Sprintf("%d of 4", first+1))
	hs.keys("n", "n")
	hs.must(fmt.Sprintf("%d of 4", (first+2)%4+1))
	hs.keys("N")
	hs.must(fmt.Sprintf("%d of 4", (first+1)%4+1))
	if n := len(hs.eng.targets()); n != 0 {
		t.Fatalf("n stepped the server during a search (%d Continue calls)", n)
	}
	hs.keys("esc", "n")
	hs.mustNot("/reach")
	hs.must("PAUSED at " + cpID(1))
}

func TestHelpOverlay(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys("?")
	hs.must("Keys · ", "any other key closes", "next checkpoint", "review earlier step", "upstream source")
	hs.keys("x")
	hs.mustNot("Keys · ")
	hs.keys("?", "q")
	if !hs.quit {
		t.Error("q did not quit from the help overlay")
	}
}

func TestQuit(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		for _, size := range []tea.WindowSizeMsg{{Width: 120, Height: 40}, {Width: 50, Height: 12}} {
			t.Run(fmt.Sprintf("%s/%dx%d", k, size.Width, size.Height), func(t *testing.T) {
				hs := newHarness(t, size.Width, size.Height, fakeContent{}, fakeServer{})
				hs.keys(k)
				if !hs.quit {
					t.Errorf("%s did not quit", k)
				}
			})
		}
	}
}

func TestSmallWindow(t *testing.T) {
	hs := newHarness(t, 60, 20, fakeContent{}, fakeServer{})
	hs.must("kubewalk needs at least 80×24; this window is 60×20")
	hs.keys(" ") // ignored
	if n := len(hs.eng.targets()); n != 0 {
		t.Errorf("a key stepped the server in a too-small window")
	}
	hs.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	hs.must("PAUSED at " + cpID(0))
}

func TestPhaseKeys(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys("3")
	authz := server.PhaseCheckpoints(server.PhaseAuthz)[0].ID()
	hs.must("PAUSED at "+authz, "✓ config", "✓ authn", "▶ authz")
	hs.keys("1") // behind: review config's first stop
	cfg := server.PhaseCheckpoints(server.PhaseConfig)
	hs.must("REVIEWING", "("+cfg[0].ID()+")")
	hs.keys("3") // the live phase, whose first stop is live
	hs.mustNot("REVIEWING")
	hs.keys(" ", "3") // a later stop in authz: 3 reviews authz's first stop
	hs.must("REVIEWING", "("+authz+")")

	// One rule, forward and backward, before and after serve: a phase key lands on the
	// phase's first step.
	for _, p := range []server.Phase{server.PhaseAdmission, server.PhaseStorage} {
		hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
		n := strconv.Itoa(phaseIndex(p) + 1)
		first := server.PhaseCheckpoints(p)[0].ID()
		hs.keys(n) // forward: run to it
		hs.must("PAUSED at " + first)
		for range server.PhaseCheckpoints(p) {
			hs.keys(" ") // step through the phase, and one past it
		}
		hs.keys("E", n) // from serve: review its first step, not its last
		hs.must("REVIEWING", "("+first+")")
	}
	hs.keys("?")
	hs.must("first step of a phase")
}

func TestServedPanel(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer ts.Close()
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{cfg: &rest.Config{Host: ts.URL}})
	hs.keys("E")
	hs.must("✓ SERVING at https://127.0.0.1:6443", "[kubectl] · the server is serving",
		"export KUBECONFIG=/tmp/kubewalk-1234/kubeconfig", `eval "$(kubewalk env)"`,
		"readyz: ✓ ok (200 OK) · checked 10:30:00")
	// The rest of the panel is below, a scroll (or z, the zoom) away.
	panel := ansi.Strip(strings.Join(hs.model.m.servedPane().Lines(), "\n"))
	for _, want := range []string{"kubectl get ns", "kubectl --context alice create configmap demo \\", "--from-literal=greeting=hello",
		"kubectl get cm demo -o yaml", "kubectl --context bob get cm", "kubectl auth can-i --list --context alice"} {
		if !strings.Contains(panel, want) {
			t.Errorf("the panel lacks %q:\n%s", want, panel)
		}
	}
	for _, p := range server.Phases() {
		hs.must("✓ " + string(p))
	}
	hs.keys(" ")
	hs.must("startup is finished")
	// Review still works after serve.
	hs.keys("left")
	hs.must("REVIEWING", "the server is serving")
}

func TestServedPanelReadyzFailing(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys("E")
	hs.must("readyz: ✗ failing (RESTConfig: the config and authn")
}

func TestFailure(t *testing.T) {
	eng := newFakeEngine()
	eng.failAt = server.PhaseCheckpoints(server.PhaseStorage)[0].ID()
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.eng.failAt = eng.failAt
	hs.keys("E")
	hs.must("✗ FAILED:", "etcd did not become ready")
	hs.keys(" ")
	hs.must("the startup failed; q quits")
	if hs.model.m.tour.Failed() == nil {
		t.Error("model did not record the failure")
	}
}

func TestNoLessonForCheckpoint(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys("5") // storage/etcd has no step in the fake content
	hs.must("No lesson step for checkpoint storage/etcd yet.", "No lesson text for storage/etcd yet.")
}

func TestNilContent(t *testing.T) {
	eng := newFakeEngine().start()
	m := NewModel(eng, nil, nil, Options{})
	next, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	next, _ = next.Update(tour.EventMsg{Ev: <-eng.Events()})
	if err := frameFits(next.View(), 100, 30); err != "" {
		t.Fatal(err)
	}
	if !strings.Contains(ansi.Strip(next.View()), "No lesson step") {
		t.Errorf("no placeholder:\n%s", ansi.Strip(next.View()))
	}
}

// TestLessonLinesFit renders the lesson text at every width and checks no line is wider
// than the pane, in English and Chinese.
func TestLessonLinesFit(t *testing.T) {
	st := DefaultStyles()
	for _, l := range langs {
		step, _ := l.content.Step(cpID(5))
		for w := 20; w <= 120; w++ {
			p := walk.NewLesson(common.Common{Styles: st, Tr: i18n.For(uiLang("", l.content))}, "notty")
			p.SetSize(w, 50)
			p.SetStep(step, true, server.Checkpoints()[5])
			for i, line := range p.Lines() {
				if got := ansi.StringWidth(line); got > w-2 {
					t.Fatalf("%s width %d: line %d is %d cells: %q", l.name, w, i, got, ansi.Strip(line))
				}
			}
		}
	}
}

func TestWrapLines(t *testing.T) {
	tests := []struct {
		name string
		in   string
		w    int
		want []string
	}{
		{"fits", "hello", 10, []string{"hello"}},
		{"words", "hello big world", 9, []string{"hello big", "world"}},
		{"cjk breaks anywhere", "身份认证与鉴权", 6, []string{"身份认", "证与鉴", "权"}},
		{"mixed keeps latin words", "在 pkg/kubeapiserver 中组合认证器", 22, []string{"在 pkg/kubeapiserver", "中组合认证器"}},
		{"odd width with cjk", "身份认证", 5, []string{"身份", "认证"}},
		{"long word is cut", "abcdefghij kl", 4, []string{"abcd", "efgh", "ij", "kl"}},
		{"long path is cut after a slash", "see /apis/rbac/v1/namespaces/default", 16, []string{"see", "/apis/rbac/v1/", "namespaces/", "default"}},
		{"bullet hangs", "  • 客户端证书的通用名称", 12, []string{"  • 客户端证", "    书的通用", "    名称"}},
		{"numbered hangs", "1. one two three four", 10, []string{"1. one two", "   three", "   four"}},
		{"trailing spaces", "abc      ", 4, []string{"abc"}},
		{"no break at hyphens", "see kubectl run web --image=nginx", 22, []string{"see kubectl run web", "--image=nginx"}},
		{"code stays whole", "run kubectl\uE000run\uE000web now", 16, []string{"run", "kubectl\uE000run\uE000web", "now"}},
		{"wide code breaks at its spaces", "run kubectl\uE000run\uE000web\uE000--image=nginx now", 20, []string{"run kubectl\uE000run\uE000web", "--image=nginx now"}},
		{"code padding never breaks", "a \uE001Node,RBAC\uE001.", 12, []string{"a", "\uE001Node,RBAC\uE001."}},
		{"cjk punctuation stays put", "认证成功，然后鉴权。", 8, []string{"认证成", "功，然后", "鉴权。"}},
		{"cjk opening punctuation", "甲乙丙（丁）", 8, []string{"甲乙丙", "（丁）"}},
		{"latin word in cjk brackets stays whole", "基于角色的访问控制（RBAC）", 20, []string{"基于角色的访问控制", "（RBAC）"}},
		{"latin word after cjk", "鉴权器RBAC拒绝", 6, []string{"鉴权器", "RBAC拒", "绝"}},
		{"ascii brackets around cjk", "✓storage(监视缓存) → 200", 16, []string{"✓storage(监视缓", "存) → 200"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wrapLines(tt.in, tt.w)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name    string
		w, h    int
		content Content
		keys    []string
		srv     ServerInfo
	}{
		{"en_80x24", 80, 24, fakeContent{}, []string{"2", " "}, nil},
		{"en_120x40", 120, 40, fakeContent{}, []string{"2", " "}, nil},
		{"en_200x60", 200, 60, fakeContent{}, []string{"2", " "}, nil},
		{"zh_80x24", 80, 24, fakeContent{zh: true}, []string{"2", " ", "tab", "tab"}, nil},
		{"zh_120x40", 120, 40, fakeContent{zh: true}, []string{"2", " "}, nil},
		{"review_100x30", 100, 30, fakeContent{}, []string{"2", " ", "left"}, nil},
		{"upstream_120x40", 120, 40, fakeContent{}, []string{"7", "u"}, nil},
		{"raw_120x40", 120, 40, fakeContent{}, []string{"2", "r", "tab", "enter", "down", "enter"}, nil},
		{"help_120x40", 120, 40, fakeContent{}, []string{"?"}, nil},
		{"served_120x40", 120, 40, fakeContent{}, []string{"E"}, fakeServer{}},
		{"small_60x20", 60, 20, fakeContent{}, nil, nil},
		{"lesson_wrap_80x24", 80, 24, fakeContent{wrap: true}, []string{"tab", "tab"}, nil},
		{"lesson_wrap_120x40", 120, 40, fakeContent{wrap: true}, []string{"tab", "tab"}, nil},
		{"welcome_80x24", 80, 24, fakeContent{}, nil, nil},
		{"welcome_120x40", 120, 40, fakeContent{}, nil, nil},
		// The screen in Chinese (fakeContent{zh: true} says its language is zh-CN): the
		// walkthrough's panes above, and every other screen at both sizes.
		{"zh_state_80x24", 80, 24, fakeContent{zh: true}, []string{"2", " ", "tab"}, nil},
		{"zh_review_80x24", 80, 24, fakeContent{zh: true}, []string{"2", " ", "left"}, nil},
		{"zh_review_120x40", 120, 40, fakeContent{zh: true}, []string{"2", " ", "left"}, nil},
		{"zh_upstream_80x24", 80, 24, fakeContent{zh: true}, []string{"2", "u"}, nil},
		{"zh_upstream_120x40", 120, 40, fakeContent{zh: true}, []string{"7", "u"}, nil},
		{"zh_search_120x40", 120, 40, fakeContent{zh: true}, []string{"/", "r", "e", "t", "enter"}, nil},
		{"zh_welcome_80x24", 80, 24, fakeContent{zh: true}, nil, nil},
		{"zh_welcome_120x40", 120, 40, fakeContent{zh: true}, nil, nil},
		{"zh_help_80x24", 80, 24, fakeContent{zh: true}, []string{"?"}, nil},
		{"zh_help_120x40", 120, 40, fakeContent{zh: true}, []string{"?"}, nil},
		{"zh_served_80x24", 80, 24, fakeContent{zh: true}, []string{"E"}, fakeServer{}},
		{"zh_served_120x40", 120, 40, fakeContent{zh: true}, []string{"E"}, fakeServer{}},
		{"zh_small_60x20", 60, 20, fakeContent{zh: true}, nil, nil},
		{"zh_small_79x24", 79, 24, fakeContent{zh: true}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{GlamourStyle: "notty", ShowWelcome: strings.Contains(tt.name, "welcome")}
			hs := newHarnessOpts(t, tt.w, tt.h, tt.content, tt.srv, opts)
			hs.keys(tt.keys...)
			golden.RequireEqual(t, []byte(hs.view()))
		})
	}
}

// TestStateShowsChanges: at every step the state pane opens on the first row the step added or
// changed, even when it is below the fold, and ] / [ jump between the changes.
func TestStateShowsChanges(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			hs := newHarness(t, size.w, size.h, fakeContent{}, fakeServer{})
			for range len(hs.eng.plan) - 1 {
				hs.keys(" ")
				st := hs.model.m.statePane()
				if st.Changes() == 0 {
					continue
				}
				label, mark, _ := st.Row(st.Cursor())
				if mark == 0 {
					t.Fatalf("%s: cursor on %q, not on a change", hs.model.m.tour.Displayed().Checkpoint.ID(), label)
				}
				for i := 0; i < st.Cursor(); i++ {
					if l, mk, _ := st.Row(i); mk != 0 {
						t.Fatalf("%s: cursor on %q, but %q changed first", hs.model.m.tour.Displayed().Checkpoint.ID(), label, l)
					}
				}
				if !st.CursorInView() {
					t.Fatalf("%s: first change (row %d) is out of view", hs.model.m.tour.Displayed().Checkpoint.ID(), st.Cursor())
				}
			}
		})
	}

	// config/loopback adds three rows at the end of a config subtree taller than the pane.
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys(" ", " ", " ")
	hs.must("›+  ▾ loopback", "+      host: https://127.0.0.1:6443", "tree (r: raw objects) · 3 changes: ]/[")
	cursor := func() string { st := hs.model.m.statePane(); l, _, _ := st.Row(st.Cursor()); return l }
	for _, k := range []struct{ key, want string }{{"]", "host"}, {"]", "bearerToken"}, {"]", "loopback"}, {"[", "bearerToken"}} {
		hs.keys(k.key)
		if got := cursor(); got != k.want {
			t.Fatalf("after %s the cursor is on %q, want %q", k.key, got, k.want)
		}
	}
	if hs.model.m.tour.Focus() != tour.PaneState {
		t.Error("] did not focus the state pane")
	}
	hs.keys("r", "]")
	hs.must("nothing new or changed")
}

// TestCutRowsShownWhole: enter on a state row cut at the pane's edge shows it whole, wrapped
// under its label; enter again cuts it again.
func TestCutRowsShownWhole(t *testing.T) {
	for _, raw := range []bool{false, true} {
		t.Run(fmt.Sprintf("raw=%v", raw), func(t *testing.T) {
			hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
			hs.keys("2", "tab")
			target, whole := "alice", "(64 hex chars)"
			if raw {
				// Raw: a long string field of the authenticator.
				hs.keys("r", "down", "enter")
				target, whole = "kubeconfig", `kubeconfig.yaml"`
			}
			st := hs.model.m.statePane()
			for i := 0; ; i++ {
				if l, _, _ := st.Row(st.Cursor()); l == target {
					break
				}
				if _, _, ok := st.Row(i); !ok {
					t.Fatalf("no row %q", target)
				}
				hs.keys("down")
			}
			hs.mustNot(whole)
			if !st.CursorCut() {
				t.Fatalf("row %q fits; the test needs a row cut at the edge", target)
			}
			hs.keys("enter")
			hs.must(whole)
			if !st.CursorInView() {
				t.Error("the row shown whole is not in view")
			}
			hs.keys("enter")
			hs.mustNot(whole)
		})
	}
	// A row that fits: enter says so.
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys("tab", "g", "down", "down")
	if st := hs.model.m.statePane(); func() string { l, _, _ := st.Row(st.Cursor()); return l }() != "core/v1" {
		l, _, _ := st.Row(st.Cursor())
		t.Fatalf("cursor on %q", l)
	}
	hs.keys("enter")
	hs.must("shown whole already")
}

// TestTitleFigureKept: a pane title too long for its pane is cut, but not its figure.
func TestTitleFigureKept(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		hs := newHarness(t, size.w, size.h, longLesson{}, fakeServer{})
		hs.keys("tab", "tab") // focus the lesson
		var title string
		for _, l := range strings.Split(hs.view(), "\n") {
			if strings.Contains(l, "[Lesson]") || strings.Contains(l, "Lesson ·") {
				title = l
			}
		}
		if !strings.Contains(title, "… · ") || !strings.Contains(title, "% ") {
			t.Errorf("%dx%d: title %q lost its scroll figure", size.w, size.h, title)
		}
	}
}

// longLesson is fakeContent with a lesson title wider than any pane.
type longLesson struct{ fakeContent }

func (c longLesson) Step(id string) (Step, bool) {
	s, ok := c.fakeContent.Step(id)
	s.Lesson = strings.Repeat("A lesson title that goes on and on ", 5)
	return s, ok
}

// TestSourceWrap: w wraps the long source lines instead of cutting them, and back.
func TestSourceWrap(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		hs := newHarness(t, size.w, size.h, fakeContent{}, fakeServer{})
		// The view shows the long comment above the config/scheme anchor.
		hs.must("// describe adds the authn subtree")
		hs.mustNot("narrow pane at all.")
		hs.keys("w")
		hs.must("narrow pane at all.", "· wrapped")
		hs.keys("w")
		hs.mustNot("narrow pane at all.", "· wrapped")
	}
}

// TestReviewAfterServe: after serve, reviewing a step shows its lesson where the kubectl panel
// was; K switches between the two, tab marks the one shown, and going back to live brings the
// panel back.
func TestReviewAfterServe(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			hs := newHarness(t, size.w, size.h, fakeContent{}, fakeServer{})
			hs.keys("E")
			panel := "Try it from another terminal"
			hs.must("[kubectl]", panel, "SERVING", "etcd")
			hs.keys("left")
			prev := server.Checkpoints()[len(server.Checkpoints())-2].ID()
			hs.must("REVIEWING", "[Lesson]", "Step "+prev)
			hs.mustNot(panel)
			hs.keys("esc")
			hs.mustNot("REVIEWING")
			hs.must("[kubectl]", panel)
			hs.keys("left", "K")
			hs.must("REVIEWING", "[kubectl]", panel)
			hs.keys("K")
			hs.must("[Lesson]", "Step "+prev)
			hs.keys("esc")
			hs.mustNot("REVIEWING")
			hs.must("[kubectl]", panel)
			// Going round with tab, the marked label is always the pane shown.
			for range 8 {
				hs.keys("tab")
				v := hs.view()
				switch {
				case strings.Contains(v, "[kubectl]") != strings.Contains(v, panel):
					t.Fatalf("focus %v: the label and the panel shown disagree:\n%s", hs.model.m.tour.Focus(), v)
				case strings.Contains(v, "[Lesson]") != strings.Contains(v, "every request"):
					t.Fatalf("focus %v: the label and the lesson shown disagree:\n%s", hs.model.m.tour.Focus(), v)
				}
			}
		})
	}
	// Before serve, K says what it is for.
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys("K")
	if n := hs.model.m.note; !strings.Contains(n, "the kubectl panel opens once the startup has run to its end") {
		t.Errorf("K before serve: note %q", n)
	}
}

// TestSearchAcrossFiles: / searches all of the server/ source, the search line names each
// match's file, n/N move across files (showing each), enter keeps the file open and esc goes
// back to the step's code.
func TestSearchAcrossFiles(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			hs := newHarness(t, size.w, size.h, browsingContent{}, fakeServer{})
			hs.must("Source · server/authn.go:40-42")
			search := func(q string) {
				hs.keys("/")
				hs.keys(strings.Split(q, "")...)
				hs.keys("enter")
			}
			search("Strategy") // not in the step's file: the first match opens its file
			hs.must("1 of 3 · server/rbac/escalation.go:3", "Source · server/rbac/escalation.go")
			hs.keys("n")
			hs.must("2 of 3 · server/storage.go:5", "Source · server/storage.go", "Each store gets a Strategy")
			hs.keys("n")
			hs.must("3 of 3 · server/storage.go:6")
			hs.keys("n") // wraps round
			hs.must("1 of 3 · server/rbac/escalation.go:3")
			hs.keys("N")
			hs.must("3 of 3 · server/storage.go:6")
			hs.keys("esc") // clears the search and goes back to the step's code
			hs.mustNot("/Strategy", "escalation.go")
			hs.must("Source · server/authn.go:40-42")

			search("strategy")    // case does not matter
			hs.keys("n", "enter") // keep storage.go open
			hs.mustNot("/strategy")
			hs.must("Source · server/storage.go · esc: back to the step", "configMapStrategy")
			hs.keys("esc")
			hs.must("Source · server/authn.go:40-42")
			hs.mustNot("REVIEWING")

			search("union.New") // in the step's file and nowhere else: it stays
			hs.must("1 of 1 · server/authn.go:31", "Source · server/authn.go:40-42")
			if n := len(hs.eng.targets()); n != 0 {
				t.Errorf("searching stepped the server (%d Continue calls)", n)
			}
			// A new step clears the search and shows its own code.
			hs.keys("esc", "/", "S", "t", "r", "a", "t", "enter", " ")
			hs.must("PAUSED at "+cpID(1), "Source · server/authn.go:19-37")
			hs.mustNot("/Strat")
		})
	}
}

// TestLessonContentSearchesServerSource: the real content hands the embedded server source
// to the search, which finds Strategy in files other than the one on screen.
func TestLessonContentSearchesServerSource(t *testing.T) {
	c, err := LoadLessonContent("en")
	if c == nil {
		t.Fatalf("no lessons: %v", err)
	}
	hs := newHarness(t, 120, 40, c, fakeServer{})
	hs.keys("/", "S", "t", "r", "a", "t", "e", "g", "y", "enter")
	m, _ := hs.model.m.srcPane().Matches()
	files := map[string]bool{}
	for _, x := range m {
		files[x.File] = true
		if strings.HasSuffix(x.File, "_test.go") {
			t.Errorf("searched a test file: %s", x.File)
		}
	}
	if len(files) < 2 {
		t.Fatalf("Strategy found in %d files (%v), want the server source searched", len(files), files)
	}
	strategies := 0
	for f := range files {
		if strings.HasSuffix(f, "/strategy.go") {
			strategies++
		}
	}
	if strategies == 0 {
		t.Errorf("Strategy not found in any registry strategy.go (is server/registry embedded?): %v", files)
	}
	hs.must(fmt.Sprintf("1 of %d · server/", len(m)))
	// The first step's code (server/apis/scheme.go) has no match: the first match's file is
	// shown, its path cut from the left if need be, but not the way back.
	if m[0].File == "server/apis/scheme.go" {
		t.Fatalf("the first step's file has a match now; the test needs one without")
	}
	hs.must("· esc: back to the step")
}

// TestWelcome: with ShowWelcome the screen opens on the welcome; any key dismisses it (without
// stepping the server) and reports it once; q quits from it; without ShowWelcome it never shows.
func TestWelcome(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			dismissed := 0
			hs := newHarnessOpts(t, size.w, size.h, fakeContent{}, fakeServer{},
				Options{GlamourStyle: "notty", ShowWelcome: true, OnWelcomeDismissed: func() { dismissed++ }})
			hs.must("Welcome to kubewalk", "config → authn → authz → admission → storage → install → serve",
				"paused right now", "space", "review an earlier stop", "every key", "any key to begin")
			hs.keys(" ")
			hs.mustNot("Welcome to kubewalk")
			hs.must("PAUSED at " + cpID(0))
			if n := len(hs.eng.targets()); n != 0 {
				t.Errorf("the key that dismissed the welcome also stepped the server")
			}
			hs.keys(" ", "?", "x")
			hs.mustNot("Welcome to kubewalk")
			if dismissed != 1 {
				t.Errorf("OnWelcomeDismissed called %d times, want 1", dismissed)
			}
		})
	}
	hs := newHarnessOpts(t, 120, 40, fakeContent{}, fakeServer{}, Options{GlamourStyle: "notty", ShowWelcome: true})
	hs.keys("q")
	if !hs.quit {
		t.Error("q did not quit from the welcome")
	}
	hs = newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.mustNot("Welcome to kubewalk")
}

// TestHelpListsEveryKey: the ? overlay lists every binding of the key map and the rules of the
// main keys, at the smallest size too (scrolling with ↓, which does not close it).
func TestHelpListsEveryKey(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			hs := newHarness(t, size.w, size.h, fakeContent{}, fakeServer{})
			hs.keys("?")
			seen := hs.view()
			for range 80 {
				hs.keys("down")
				seen += hs.view()
			}
			if !hs.model.m.showHelp {
				t.Fatal("↓ closed the help")
			}
			km := reflect.ValueOf(DefaultKeyMap())
			for i := range km.NumField() {
				b := km.Field(i).Interface().(key.Binding)
				if name := km.Type().Field(i).Name; name == "MatchPrev" || name == "PrevChange" {
					continue // shown with MatchNext and NextChange ("n/N", "]/[")
				}
				joined := map[string]bool{"Up": true, "Down": true, "PageUp": true, "PageDown": true, "Top": true, "Bottom": true}
				if !strings.Contains(seen, b.Help().Key+" ") || (!joined[km.Type().Field(i).Name] && !strings.Contains(seen, b.Help().Desc)) {
					t.Errorf("help lacks %s (%q %q)", km.Type().Field(i).Name, b.Help().Key, b.Help().Desc)
				}
			}
			for _, s := range []string{"1-7 go to the first step of a phase", "n/N move between matches across files",
				"] / [ jump between them", "shows a row cut at the edge (…) whole", "K switches between the lesson and the kubectl panel"} {
				if text := strings.NewReplacer("┃", " ", "│", " ").Replace(seen); !strings.Contains(strings.Join(strings.Fields(text), " "), s) {
					t.Errorf("help does not say %q", s)
				}
			}
			hs.keys("x")
			hs.mustNot("Keys ·")
		})
	}
}

// TestHelpScrollKeys: in the ? overlay at 80×24 the page keys move half the body, ↑ at the top
// stays there, and a key that is not a line or page key (home too) closes it.
func TestHelpScrollKeys(t *testing.T) {
	cases := []struct {
		keys  []string
		moved bool // the overlay shows other lines than when opened
		open  bool
	}{
		{[]string{"pgdown"}, true, true},
		{[]string{"pgdown", "pgup"}, false, true},
		{[]string{"up", "up"}, false, true},
		{[]string{"down"}, true, true},
		{[]string{"home"}, false, false},
		{[]string{"end"}, false, false},
	}
	for _, tt := range cases {
		t.Run(strings.Join(tt.keys, ","), func(t *testing.T) {
			hs := newHarness(t, 80, 24, fakeContent{}, fakeServer{})
			hs.keys("?")
			opened := hs.view()
			hs.keys(tt.keys...)
			if hs.model.m.showHelp != tt.open {
				t.Fatalf("help shown %v, want %v", hs.model.m.showHelp, tt.open)
			}
			if moved := hs.view() != opened; tt.open && moved != tt.moved {
				t.Errorf("moved %v, want %v:\n%s", moved, tt.moved, hs.view())
			}
		})
	}
}
