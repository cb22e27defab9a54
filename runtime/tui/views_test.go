package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/runtime/tui/cmdline"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/etcd"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
	"github.com/kubewalk/kubewalk/runtime/tui/tour"
)

// viewSizes are the sizes the after-serve views are tested at.
var viewSizes = []struct{ w, h int }{{80, 24}, {120, 40}}

// fixture is a served model on the fake backends.
type fixture struct {
	hs    *harness
	store *fakeStore
	bps   *fakeBreakpoints
	etcd  *fakeEtcd
	kube  *fakeKubectl
}

// newFixture builds the model with every backend wired, the store holding traces, and runs
// the startup to serve.
func newFixture(t *testing.T, w, h int, traces ...tracing.Trace) *fixture {
	t.Helper()
	return newFixtureIn(t, i18n.English, w, h, traces...)
}

// newFixtureIn is newFixture with the screen in lang (and, in zh-CN, the lessons too).
func newFixtureIn(t *testing.T, lang string, w, h int, traces ...tracing.Trace) *fixture {
	t.Helper()
	f := &fixture{store: newFakeStore(1000), kube: &fakeKubectl{watch: make(chan string, 4)}}
	f.bps = &fakeBreakpoints{store: f.store}
	f.etcd = newFakeEtcd("/registry/configmaps/default/demo", "/registry/configmaps/default/kube-root-ca.crt",
		"/registry/configmaps/kube-system/extension-apiserver-authentication", "/registry/namespaces/default",
		"/registry/namespaces/kube-system", "/registry/clusterroles/admin")
	for _, tr := range traces {
		f.store.add(tr)
	}
	f.hs = newHarnessOpts(t, w, h, fakeContent{zh: lang == i18n.SimplifiedChinese}, fakeServer{}, Options{GlamourStyle: "notty", Lang: lang,
		Requests: f.store, Breakpoints: f.bps, Etcd: f.etcd,
		NewKubectl: func(string) (Kubectl, error) { return f.kube, nil }})
	f.hs.keys("E")
	return f
}

// setEtcd puts an etcd view over e in place of the fixture's, before it is opened.
func (f *fixture) setEtcd(e *fakeEtcd) {
	f.etcd = e
	m := f.hs.model.m
	k := m.keys
	c := common.Common{Styles: m.st, Tr: m.tr, Scroll: common.ScrollKeys{
		Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Top: k.Top, Bottom: k.Bottom}}
	ctx, cancel := context.WithCancel(context.Background())
	f.hs.t.Cleanup(cancel)
	m.views[viewEtcd] = etcd.New(c, e, ctx)
	m.prompt = cmdline.NewPrompt(cmdline.New(m.tr, m.commands(fakeServer{eng: f.hs.eng}, f.bps)...)) // :etcd is the new view's
}

// sampleTraces are one request of every ending, oldest first.
func sampleTraces() []tracing.Trace {
	return []tracing.Trace{okGet("ok-get", 1), loopbackList("loop", 2), unauthorized("t401", 3), forbidden("t403", 4),
		invalid("t422", 5), refusedByAdmission("t-adm", 6), okCreate("ok-create", 7)}
}

// details is the request pane's text, all of it.
func (f *fixture) details() string {
	return strings.Join(stripLines(f.hs.model.m.rqv().DetailsPane().Lines()), "\n")
}

// lane is the lane pane's text.
func (f *fixture) lane() string {
	return strings.Join(stripLines(f.hs.model.m.rqv().LanePane().View()), "\n")
}

func stripLines(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = stripANSI(l)
	}
	return out
}

func TestCommandLine(t *testing.T) {
	for _, sz := range viewSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			f := newFixture(t, sz.w, sz.h, sampleTraces()...)
			hs := f.hs
			hs.keys(":")
			hs.must("tab complete", "commands · tab completes", "requests", "kubectl", "etcd", "break", "unbreak", "clear", "lesson", "help", "quit")
			// ? on an empty line lists the commands; it is not typed.
			hs.keys("?")
			if got := hs.model.m.prompt.Line(); got != "" {
				t.Errorf("? was typed into the line: %q", got)
			}
			hs.keys("r", "e")
			hs.must("requests")
			hs.mustNot("kubectl  ")
			// The cursor shows without colour: a block at the end, a bar inside the line.
			hs.must(":re█")
			hs.keys("left")
			hs.must(":r|e")
			hs.keys("right")
			hs.keys("tab")
			if got := hs.model.m.prompt.Line(); got != "requests " {
				t.Errorf("tab completed to %q, want %q", got, "requests ")
			}
			hs.keys("enter")
			if hs.model.m.at != viewRequests || hs.model.m.prompt.IsOpen() {
				t.Fatalf("enter did not run :requests (view %v, prompt open %v)", hs.model.m.at, hs.model.m.prompt.IsOpen())
			}
			hs.must("Requests · ")

			// esc backs out without running anything; backspace on an empty line too.
			hs.keys(":", "e", "t", "esc")
			if hs.model.m.prompt.IsOpen() || hs.model.m.at != viewRequests {
				t.Error("esc did not back out of the prompt")
			}
			hs.keys(":", "backspace")
			if hs.model.m.prompt.IsOpen() {
				t.Error("backspace on an empty line did not close the prompt")
			}

			// An unknown command stays in the prompt with the reason.
			hs.typeLine("frobnicate now")
			hs.must(`unknown command "frobnicate"`, ":frobnicate now")
			if !hs.model.m.prompt.IsOpen() {
				t.Fatal("an unknown command closed the prompt")
			}
			hs.keys("esc")

			// Several suggestions: tab cycles, shift+tab goes back.
			hs.keys(":")
			hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("k get c")})
			hs.keys("tab")
			first := hs.model.m.prompt.Line()
			hs.keys("tab")
			second := hs.model.m.prompt.Line()
			hs.keys("shift+tab")
			if first == second || hs.model.m.prompt.Line() != first || !strings.HasPrefix(first, "k get c") {
				t.Errorf("tab cycling: %q, %q, back to %q", first, second, hs.model.m.prompt.Line())
			}
			hs.keys("esc")

			// --context completes the run's contexts.
			hs.keys(":")
			hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("k --context bo")})
			hs.keys("tab")
			if got := hs.model.m.prompt.Line(); got != "k --context bob " {
				t.Errorf("--context completion: %q", got)
			}
			hs.keys("esc")

			// History: ↑ brings back the lines run, newest first; ↓ returns to the draft.
			hs.typeLine("etcd")
			hs.keys(":", "x", "up")
			if got := hs.model.m.prompt.Line(); got != "etcd" {
				t.Errorf("↑ gave %q, want etcd", got)
			}
			hs.keys("up")
			if got := hs.model.m.prompt.Line(); got != "requests" {
				t.Errorf("↑↑ gave %q, want requests", got)
			}
			hs.keys("down", "down")
			if got := hs.model.m.prompt.Line(); got != "x" {
				t.Errorf("↓↓ gave %q, want the draft x", got)
			}
			hs.keys("esc")

			// :help lists the commands; any key closes it. :lesson goes back; :q quits.
			hs.typeLine("help")
			hs.must("Commands · any key closes", ":kubectl (:k) ARGS", ":break [SPEC]", ":clear")
			hs.keys("j")
			hs.mustNot("Commands · any key closes")
			hs.typeLine("lesson")
			if hs.model.m.at != viewTour {
				t.Error(":lesson did not go back to the walkthrough")
			}
			hs.must("[kubectl] · the server is serving")
			hs.typeLine("q")
			if !hs.quit {
				t.Error(":q did not quit")
			}
		})
	}
}

// TestCommandLineKeepsKeys: the walkthrough's single keys keep their meaning with the command
// line there; : is the only new key of the walkthrough view.
func TestCommandLineKeepsKeys(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys(" ")
	hs.must("PAUSED at " + cpID(1))
	hs.keys(":", "esc", "left")
	hs.must("REVIEWING step 1/2")
	hs.keys("esc", "x", "s", "L", "S")
	hs.must("PAUSED at " + cpID(1))
	if hs.model.m.at != viewTour {
		t.Errorf("a key of the new views acted in the walkthrough: view %v", hs.model.m.at)
	}
}

func TestRequestsView(t *testing.T) {
	for _, sz := range viewSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			f := newFixture(t, sz.w, sz.h, sampleTraces()...)
			hs := f.hs
			hs.typeLine("req")
			hs.must("6 shown", "loopback hidden (L)", "0 dropped", "create", "configmaps")
			hs.mustNot("system:apiserver")
			rq := hs.model.m.rqv()
			if rq.Shown()[0].ID != "ok-create" || rq.Shown()[len(rq.Shown())-1].ID != "ok-get" {
				t.Errorf("not newest first: %s … %s", rq.Shown()[0].ID, rq.Shown()[len(rq.Shown())-1].ID)
			}
			// L shows the loopback traffic, and hides it again.
			hs.keys("L")
			hs.must("7 shown", "loopback shown (L)")
			if rq.Shown()[5].ID != "loop" {
				t.Errorf("the loopback request is not listed after L")
			}
			hs.keys("L")
			hs.must("6 shown")

			// The / filter asks the store; esc clears it.
			hs.keys("/", "b", "o", "b", "enter")
			hs.must("1 shown", "bob")
			if rq.Shown()[0].ID != "t403" {
				t.Errorf("filter bob shows %s", rq.Shown()[0].ID)
			}
			hs.keys("esc")
			hs.must("6 shown")

			// Each ending is drawn: the stage that stopped it marked by symbol and word.
			for _, c := range []struct {
				id   string
				want []string
			}{
				{"t401", []string{"authentication", "✗ failed", "STOPPED", "token: invalid bearer token", "the request stopped here"}},
				{"t403", []string{"authorization", "✗ denied", "STOPPED", "bob cannot list", "the request stopped here"}},
				{"t422", []string{"validation", "✗ refused", "STOPPED", `metadata.name: Invalid value: "Bad_Name"`}},
				{"t-adm", []string{"PinnedImages", "✗ refused", "STOPPED", `image "nginx:latest" is not pinned`}},
				{"ok-create", []string{"authentication", "CreatedBy", "changed", "storage", "etcd", "response"}},
			} {
				hs.model.m.rqv().Select(c.id, "")
				hs.settle()
				lane := f.lane()
				for _, w := range c.want {
					if !strings.Contains(strings.Join(strings.Fields(lane), " "), w) {
						t.Errorf("lane of %s lacks %q:\n%s", c.id, w, lane)
					}
				}
				if c.id == "ok-create" && strings.Contains(lane, "STOPPED") {
					t.Errorf("a request that went through is marked STOPPED:\n%s", lane)
				}
			}
			// The chain bar follows the selected request: ✗ where it stopped.
			hs.model.m.rqv().Select("t422", "")
			hs.settle()
			if top := strings.SplitN(hs.view(), "\n", 2)[0]; !strings.Contains(top, "✗ valid") || !strings.Contains(top, "✓ authz") {
				t.Errorf("chain bar for a 422: %q", top)
			}

			// The mutating plugin's patch is in its details.
			hs.model.m.rqv().Select("ok-create", tracing.StageMutatingPrefix+"CreatedBy")
			hs.settle()
			hs.keys("tab") // the lane pane
			hs.must("JSON patch", `{"op":"add"`, "annotations")

			// s opens our code of the stage, with its first line emphasised.
			hs.model.m.rqv().Select("ok-create", tracing.StageAuthentication)
			hs.keys("s")
			if hs.model.m.rqv().Focus() != requests.PaneSource {
				t.Fatal("s did not focus the source")
			}
			hs.must("server/authn.go:19-37", "▶ 19", "func (s *Server) Authn", "stage authentication")
			// ... and upstream code, for a stage whose code is upstream.
			hs.model.m.rqv().Select("ok-create", tracing.StageAuthorization)
			hs.keys("s")
			hs.must("pkg/server/genericapiserver.go", "PrepareRun")
			// A stage without code says so.
			hs.model.m.rqv().Select("ok-create", tracing.StageResponse)
			hs.keys("s")
			if !strings.Contains(hs.model.m.note, "this stage names no code") {
				t.Errorf("s on the response stage: note %q", hs.model.m.note)
			}

			// :clear hides the requests so far; new ones show; :requests all brings back the rest.
			hs.typeLine("clear")
			hs.must("0 shown since :clear")
			f.store.add(okGet("after-clear", 20))
			hs.until("the new request", func() bool { return len(hs.model.m.rqv().Shown()) == 1 })
			hs.typeLine("requests all")
			hs.must("7 shown")
		})
	}
}

// TestRequestsLive: the list follows the store as requests arrive, keeps the selection, and
// shows what the ring dropped.
func TestRequestsLive(t *testing.T) {
	f := newFixture(t, 120, 40)
	f.store.limit = 5
	hs := f.hs
	hs.typeLine("req")
	hs.must("No request yet.")
	for i := range 8 {
		f.store.add(okGet(fmt.Sprintf("r%d", i), i))
	}
	hs.until("8 requests seen", func() bool { return len(hs.model.m.rqv().Shown()) == 5 && hs.model.m.rqv().Dropped() == 3 })
	hs.settle()
	hs.must("5 shown", "3 dropped")
	hs.keys("down", "down")
	sel := hs.model.m.rqv().SelectedID()
	f.store.add(okGet("r8", 8))
	hs.until("r8", func() bool { return hs.model.m.rqv().Shown()[0].ID == "r8" })
	if hs.model.m.rqv().SelectedID() != sel {
		t.Errorf("a new request moved the selection from %s to %s", sel, hs.model.m.rqv().SelectedID())
	}
}

func TestBreakpointsFlow(t *testing.T) {
	for _, sz := range viewSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			f := newFixture(t, sz.w, sz.h, okGet("ok-get", 1))
			hs := f.hs
			// A bad spec stays in the prompt with the reason.
			hs.typeLine("break sideways")
			hs.until("the reason", func() bool { return hs.model.m.prompt.Err() != "" })
			hs.must(`unknown stage "sideways"`, ":break sideways")
			hs.keys("esc")
			hs.typeLine("break authorization:user=bob")
			hs.until("the breakpoint", func() bool { return len(hs.model.m.rqv().Breakpoints()) == 1 })
			hs.typeLine("break")
			hs.must("Breakpoints · any key closes", "⏸ authorization:user=bob")
			hs.keys("j")

			// A held request brings the screen to it.
			held := okCreate("bob-1", 9)
			held.User = "bob"
			f.bps.hold(held, tracing.StageAuthorization, "authorization:user=bob", "")
			hs.until("the jump", func() bool { return hs.model.m.at == viewRequests && hs.model.m.rqv().SelectedID() == "bob-1" })
			hs.settle()
			hs.must("⏸ 1 HELD", "⏸ authz", "HELD")
			// The chain bar reads as the lane: impersonation was skipped, not passed.
			if bar := strings.SplitN(hs.view(), "\n", 2)[0]; !strings.Contains(bar, "– imp") || strings.Contains(bar, "✓ imp") || !strings.Contains(bar, "✓ authn") {
				t.Errorf("chain bar %q: want ✓ authn and – imp (skipped, as the lane says)", bar)
			}
			if d := f.details(); !strings.Contains(d, "⏸ HELD at authorization since 10:30:09") || !strings.Contains(d, "user       bob") {
				t.Errorf("the held request's details:\n%s", d)
			}
			if hs.model.m.rqv().Focus() != requests.PaneLane {
				t.Error("the jump did not focus the lane")
			}
			if _, s, _ := hs.model.m.rqv().Stage(); s.Outcome != tracing.OutcomeHeld {
				t.Errorf("the selected stage is %s (%s), want the held one", s.Name, s.Outcome)
			}
			if code, _ := hs.model.m.rqv().SourcePane().Step(); code.Anchor == "" {
				t.Error("the source pane does not show the held stage's code")
			}
			// space steps it on: it is held at the next stage, and the lane follows it.
			hs.keys(" ")
			hs.until("the step", func() bool { return hs.model.m.rqv().HeldAt("bob-1") == tracing.StageMutatingAdmission })
			hs.settle()
			if _, s, _ := hs.model.m.rqv().Stage(); s.Name != tracing.StageMutatingPrefix+"CreatedBy" || s.Outcome != tracing.OutcomeHeld {
				t.Errorf("after a step the lane shows %s (%s)", s.Name, s.Outcome)
			}
			hs.must("⏸ mutate")
			// E lets it run to the end.
			hs.keys("E")
			hs.until("the release", func() bool { return hs.model.m.rqv().HeldCount() == 0 })
			hs.settle()
			hs.mustNot("HELD")
			if tr, _ := hs.model.m.rqv().Selected(); tr.Code != 201 || !tr.Done {
				t.Errorf("after E the request has code %d, done %v", tr.Code, tr.Done)
			}
			// Another is failed with x at the stage it is held at.
			again := okCreate("bob-2", 10)
			again.User = "bob"
			f.bps.hold(again, tracing.StageStorage, "storage", "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n")
			hs.until("the second jump", func() bool { return hs.model.m.rqv().SelectedID() == "bob-2" })
			hs.settle()
			hs.keys("tab") // the request details
			if d := f.details(); !strings.Contains(d, "body (decoded):") || !strings.Contains(d, "kind: ConfigMap") {
				t.Errorf("the held write's body is not shown:\n%s", d)
			}
			if sz.w >= 120 {
				hs.must("body (decoded):", "kind: ConfigMap") // in view, not only in the pane
			}
			hs.keys("x")
			hs.until("the abort", func() bool { tr, _ := hs.model.m.rqv().Selected(); return tr.Code == 500 })
			hs.settle()
			hs.keys("shift+tab")
			hs.must("aborted STOPPED")
			// Nothing held: the keys say how to hold one.
			hs.keys("n")
			if !strings.Contains(hs.model.m.note, "no request is held") {
				t.Errorf("n with nothing held: note %q", hs.model.m.note)
			}
			if got := strings.Join(f.bps.calls, ","); got != "step bob-1,continue bob-1,abort bob-2" {
				t.Errorf("breakpoint calls %s", got)
			}
			hs.typeLine("unbreak authorization:user=bob")
			hs.until("removal", func() bool { return len(hs.model.m.rqv().Breakpoints()) == 0 })
		})
	}
}

// TestHeldWhileTyping: a request held while the command line is open does not take the
// screen away from what is being typed; it is said instead.
func TestHeldWhileTyping(t *testing.T) {
	f := newFixture(t, 120, 40)
	hs := f.hs
	hs.keys(":", "k")
	f.bps.hold(okCreate("h", 3), tracing.StageAuthentication, "authentication", "")
	hs.until("the held request", func() bool { return hs.model.m.rqv().HeldCount() == 1 })
	// The view says so in a note it sends the root (view.NoteMsg), one message later.
	hs.until("the note", func() bool { return strings.Contains(hs.model.m.note, "a request is held at authentication") })
	if !hs.model.m.prompt.IsOpen() || hs.model.m.prompt.Line() != "k" || hs.model.m.at != viewTour {
		t.Errorf("the prompt lost its line or the view changed: open %v, %q, view %v", hs.model.m.prompt.IsOpen(), hs.model.m.prompt.Line(), hs.model.m.at)
	}
	if !strings.Contains(hs.model.m.note, "a request is held at authentication") {
		t.Errorf("note %q", hs.model.m.note)
	}
}

func TestEtcdView(t *testing.T) {
	for _, sz := range viewSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			f := newFixture(t, sz.w, sz.h, okCreate("ok-create", 7))
			hs := f.hs
			hs.typeLine("etcd")
			hs.must("etcd /registry/ · 6 keys", "▸ clusterroles (1)", "▸ configmaps (3)", "▸ namespaces (2)", "live (watch)")
			hs.keys("down", "enter")
			hs.must("▾ configmaps (3)", "▸ default (2)", "▸ kube-system (1)")
			hs.keys("down", "right")
			hs.must("▾ default (2)")
			hs.keys("down")
			hs.must("/registry/configmaps/default/demo", "stored", "bytes, protobuf", "kind: configmap", "namespace: default")
			// The watch brings changes: a new key is marked +, the shown one is decoded again.
			f.etcd.put("/registry/configmaps/default/new-one")
			hs.until("the new key", func() bool { return strings.Contains(hs.view(), "new-one") })
			hs.must("+    new-one")
			f.etcd.put("/registry/configmaps/default/demo")
			hs.until("the new revision", func() bool {
				v, ok := hs.etcdView().Decoded()
				return ok && v.Version == 2
			})
			hs.settle()
			hs.must("version 2")
			// From a trace's storage stage, S opens its key.
			hs.typeLine("req")
			hs.model.m.rqv().Select("ok-create", tracing.StageStorage)
			hs.keys("S")
			if hs.model.m.at != viewEtcd || hs.etcdView().Selected() != "/registry/configmaps/default/demo" {
				t.Fatalf("S went to view %v, key %q", hs.model.m.at, hs.etcdView().Selected())
			}
			hs.must("Value · demo")
			// S from another stage of the lane opens the lane's storage key too.
			hs.typeLine("etcd")
			hs.keys("down") // to kube-root-ca.crt: the value pane shows another key
			if got := hs.etcdView().Selected(); got == "/registry/configmaps/default/demo" {
				t.Fatalf("down from demo left the value pane on %q", got)
			}
			hs.typeLine("req")
			hs.model.m.rqv().Select("ok-create", tracing.StageAuthentication)
			hs.keys("S")
			if hs.model.m.at != viewEtcd || hs.etcdView().Selected() != "/registry/configmaps/default/demo" {
				t.Fatalf("S from authentication went to view %v, key %q", hs.model.m.at, hs.etcdView().Selected())
			}
			// On a lane without a storage stage it says what it is for.
			f.store.add(forbidden("no-storage", 8))
			hs.typeLine("req")
			hs.model.m.rqv().Select("no-storage", "")
			hs.keys("S")
			if !strings.Contains(hs.model.m.note, "S opens the etcd key") {
				t.Errorf("S on a lane without storage: note %q", hs.model.m.note)
			}
		})
	}
}

// TestEtcdCursorStaysOnKey: keys that arrive (or go) before the selected one in key order
// leave the cursor on the selected key, and the value pane shows that key's value under its
// name. The tree's rows pointed at keys by index, and the cursor was put back by the index the
// row had before the new keys shifted the list: it landed on another key while the value pane
// still showed the first one.
func TestEtcdCursorStaysOnKey(t *testing.T) {
	const demo = "/registry/configmaps/default/demo"
	for _, sz := range viewSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			f := newFixture(t, sz.w, sz.h)
			hs := f.hs
			hs.typeLine("etcd")
			hs.must("▸ configmaps (3)")
			hs.keys("down", "enter", "down", "right", "down")
			hs.until("demo decoded", func() bool { v, ok := hs.etcdView().Decoded(); return ok && v.Key == demo })
			check := func(what string) {
				t.Helper()
				hs.settle()
				ev := hs.etcdView()
				if got := ev.CursorKey(); got != demo {
					t.Errorf("%s: the cursor is on %q, want %q", what, got, demo)
				}
				if val, ok := ev.Decoded(); ev.Selected() != demo || !ok || val.Key != demo {
					t.Errorf("%s: the value pane shows %q (value of %v), want %q", what, ev.Selected(), val, demo)
				}
				cursorRow := ""
				for _, l := range strings.Split(hs.view(), "\n") {
					if i := strings.Index(l, "›"); i >= 0 && strings.Contains(l, "rev ") {
						cursorRow = l
					}
				}
				if !strings.Contains(cursorRow, "demo") {
					t.Errorf("%s: the highlighted row is %q, want demo's", what, cursorRow)
				}
			}
			// Two keys before demo (same namespace, and an earlier resource), one after.
			f.etcd.put("/registry/configmaps/default/a-first")
			f.etcd.put("/registry/clusterrolebindings/admin")
			f.etcd.put("/registry/configmaps/default/zz-last")
			hs.until("the new keys", func() bool { return hs.etcdView().Listed() == 9 })
			check("after new keys")
			f.etcd.del("/registry/configmaps/default/a-first")
			f.etcd.del("/registry/clusterroles/admin")
			hs.until("the deletions", func() bool { return hs.etcdView().Listed() == 7 })
			check("after deletions")
			// Moving away and back decodes what the cursor is on.
			hs.keys("down", "up")
			check("after moving")
		})
	}
}

// TestEtcdPaging: the keys are listed a page at a time, the next page read as the cursor
// nears the end, never on the update loop.
func TestEtcdPaging(t *testing.T) {
	var keys []string
	for i := range 1234 {
		keys = append(keys, fmt.Sprintf("/registry/configmaps/ns-%02d/cm-%04d", i%7, i))
	}
	f := newFixture(t, 120, 40)
	f.etcd = newFakeEtcd(keys...)
	f.setEtcd(f.etcd)
	hs := f.hs
	hs.typeLine("etcd")
	hs.must("more keys")
	if n := hs.etcdView().Listed(); n != etcd.PageSize {
		t.Errorf("%d keys listed at first, want a page of %d", n, etcd.PageSize)
	}
	if n := f.etcd.lists; n != 1 {
		t.Errorf("%d List calls before scrolling, want 1", n)
	}
	for range 5 {
		hs.keys("G")
	}
	hs.must("1234 keys")
	hs.mustNot("so far", "more keys")
	if n := f.etcd.lists; n != 3 {
		t.Errorf("%d List calls for 1234 keys in pages of %d, want 3", n, etcd.PageSize)
	}
}

func TestKubectlPaneFake(t *testing.T) {
	for _, sz := range viewSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			// Before serve there is nothing to talk to.
			hs := newHarnessOpts(t, sz.w, sz.h, fakeContent{}, fakeServer{}, Options{GlamourStyle: "notty",
				NewKubectl: func(string) (Kubectl, error) { return &fakeKubectl{}, nil }})
			hs.typeLine("k get cm")
			hs.must("the server is not serving yet — a client would get", "not run")

			// Not wired: the command to run elsewhere.
			hs = newHarnessOpts(t, sz.w, sz.h, fakeContent{}, fakeServer{}, Options{GlamourStyle: "notty"})
			hs.keys("E")
			hs.typeLine("k get cm")
			hs.must("not wired", "KUBECONFIG=/tmp/kubewalk-1234/kubeconfig kubectl get cm")

			f := newFixture(t, sz.w, sz.h)
			g := okGet("g-1", 30)
			f.store.add(g)
			hs = f.hs
			hs.typeLine("k get cm")
			hs.must("$ kubectl get cm", "(as admin)", "kube-root-ca.crt", "✓ exit 0", "kubectl · get cm · exit 0",
				"GET", "configmaps?limit=500", "→ 200")
			hs.until("the lane", func() bool { return strings.Contains(hs.view(), "✓authz") })
			hs.must("✓authn", "✓storage(watch", "→ 200 2.1ms")
			// enter on a request opens its lane in the Requests view.
			hs.keys("tab", "enter")
			if hs.model.m.at != viewRequests || hs.model.m.rqv().SelectedID() != "g-1" {
				t.Fatalf("enter went to view %v, trace %q", hs.model.m.at, hs.model.m.rqv().SelectedID())
			}
			// kubectl's own error, as the binary prints it, and its exit code.
			hs.typeLine("k --context bob get cm")
			hs.must("Error from server (Forbidden)", "✗ exit 1", "(as bob)")
			// A command that needs a terminal of its own is refused with the line to run.
			hs.typeLine("k edit cm demo")
			hs.must("✗ not run: needs a terminal of its own", "Run it in another terminal:", "KUBECONFIG=", "refused")
			// A line that needs a shell stays in the prompt with the reason.
			hs.typeLine("k get cm | grep demo")
			hs.must(`"|" needs a shell`)
			hs.keys("esc")
			// -w streams until esc.
			hs.startLine("k get cm -w")
			hs.until("the header", func() bool { return strings.Contains(hs.view(), "NAME   DATA   AGE") })
			hs.must("running · esc stops it")
			f.kube.watch <- "demo   1      0s"
			hs.until("the streamed line", func() bool { return strings.Contains(hs.view(), "demo   1      0s") })
			// Another command waits for it.
			hs.send(keyMsg(":"))
			hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("k get ns")})
			hs.send(keyMsg("enter"))
			hs.must("is still running: esc in the kubectl view")
			hs.send(keyMsg("esc"))
			hs.send(keyMsg("esc"))
			hs.until("the stop", func() bool { return !hs.model.m.kc().Running() })
			hs.settle()
			hs.must("■ stopped with esc", "stopped (esc)")
			// History has the commands.
			hs.keys(":", "up")
			if got := hs.model.m.prompt.Line(); got != "k get cm -w" {
				t.Errorf("↑ gave %q", got)
			}
			hs.keys("esc")
			if err := hs.model.m.shutdown(); err != nil {
				t.Fatal(err)
			}
			if !f.kube.closed {
				t.Error("shutdown did not close the runner")
			}
		})
	}
}

// TestViewsWithoutBackends: each view says plainly what is not wired.
func TestViewsWithoutBackends(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys("E")
	hs.typeLine("req")
	hs.must("Request tracing is not wired into this run")
	hs.typeLine("etcd")
	hs.must("The etcd explorer is not wired into this run")
	hs.typeLine("break storage")
	hs.must("breakpoints are not wired into this run")
	hs.keys("space")
	hs.typeLine("req")
	hs.keys(" ")
	hs.must("breakpoints are not wired into this run")
	// K still means the kubectl panel: from a view it goes back to the walkthrough's panel.
	hs.keys("K")
	if hs.model.m.at != viewTour || hs.model.m.tour.Tab() != tour.PaneServed {
		t.Errorf("K from the Requests view: view %v, tab %v", hs.model.m.at, hs.model.m.tour.Tab())
	}
}

// TestViewsFit: every view, at every size, through resizes, never draws outside the window
// (the harness checks every frame).
func TestViewsFit(t *testing.T) {
	for _, lang := range i18n.Languages() {
		for _, s := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", lang, s.w, s.h), func(t *testing.T) { viewsFit(t, lang, s.w, s.h) })
		}
	}
}

// viewsFit goes through every view in lang at w×h, resizing as it goes.
func viewsFit(t *testing.T, lang string, w, h int) {
	f := newFixtureIn(t, lang, w, h, sampleTraces()...)
	hs := f.hs
	hs.typeLine("req")
	hs.keys("down", "tab", "right", "right", "s", "tab", "pgdown", "tab", "/", "x", "enter", "esc", "L")
	hs.typeLine("k get cm")
	hs.keys("tab", "down", "pgdown")
	hs.typeLine("etcd")
	hs.keys("down", "enter", "down", "enter", "down", "down", "tab", "pgdown")
	hs.keys(":", "k", " ", "g", "e", "t", " ", "tab")
	for _, r := range []tea.WindowSizeMsg{{Width: 79, Height: 24}, {Width: 121, Height: 30}, {Width: 80, Height: 24}, {Width: w, Height: h}} {
		hs.send(r)
		hs.settle()
	}
	hs.keys("esc")
	hs.typeLine("help")
	hs.keys("x")
	hs.typeLine("break")
	hs.keys("x")
	hs.typeLine("glossary")
	hs.keys("down", "pgdown", "G", "g")
	for _, v := range []string{"req", "k", "etcd", "glossary", "ex"} {
		hs.typeLine(v)
		for _, r := range []tea.WindowSizeMsg{{Width: 200, Height: 60}, {Width: 80, Height: 24}, {Width: w, Height: h}} {
			hs.send(r)
			hs.settle()
		}
	}
}

// TestViewsGolden pins what each after-serve view looks like (ANSI stripped) at 80×24 and
// 120×40; -update rewrites the files.
func TestViewsGolden(t *testing.T) {
	tests := []struct {
		name string
		run  func(f *fixture)
	}{
		{"prompt", func(f *fixture) {
			f.hs.keys(":")
			f.hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("k get c")})
			f.hs.settle()
		}},
		{"requests", func(f *fixture) {
			f.hs.typeLine("req")
			f.hs.keys("down", "down", "down", "tab")
		}},
		{"held", func(f *fixture) {
			f.hs.typeLine("break admission:user=bob")
			h := okCreate("bob-1", 9)
			h.User = "bob"
			f.bps.hold(h, tracing.StageMutatingAdmission, "admission:user=bob", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  a: b\n")
			f.hs.until("the jump", func() bool { return f.hs.model.m.rqv().SelectedID() == "bob-1" })
			f.hs.settle()
		}},
		{"kubectl", func(f *fixture) {
			f.store.add(okGet("g-1", 30))
			f.hs.typeLine("k get cm")
			f.hs.until("the lane", func() bool { return f.hs.model.m.kc().Lanes() == 1 })
			f.hs.settle()
		}},
		{"etcd", func(f *fixture) {
			f.hs.typeLine("etcd")
			f.hs.keys("down", "enter", "down", "right", "down")
		}},
		{"glossary", func(f *fixture) {
			f.hs.typeLine("glossary")
		}},
		{"commands", func(f *fixture) {
			f.hs.typeLine("help")
		}},
		{"breakpoints", func(f *fixture) {
			f.hs.typeLine("break")
		}},
		{"badline", func(f *fixture) {
			f.hs.typeLine("frobnicate now")
		}},
	}
	for _, lang := range i18n.Languages() {
		prefix := ""
		if lang != i18n.English {
			prefix = "zh_"
		}
		for _, tt := range tests {
			for _, sz := range viewSizes {
				t.Run(fmt.Sprintf("%s%s_%dx%d", prefix, tt.name, sz.w, sz.h), func(t *testing.T) {
					f := newFixtureIn(t, lang, sz.w, sz.h, sampleTraces()...)
					tt.run(f)
					golden.RequireEqual(t, []byte(f.hs.view()))
				})
			}
		}
	}
}

// TestRequestsFollowNewest: until the learner picks a request, the list's selection is the
// newest one, so :requests opens on the request just made; a pick holds it while more
// arrive; g follows the newest again. The panel's own health polls stay hidden.
func TestRequestsFollowNewest(t *testing.T) {
	f := newFixture(t, 120, 40, okGet("first", 1))
	hs := f.hs
	poll := okGet("poll", 2)
	poll.UserAgent = healthAgent
	f.store.add(poll)
	f.store.add(okCreate("second", 3))
	hs.typeLine("requests")
	hs.until("the newest selected", func() bool { return hs.model.m.rqv().SelectedID() == "second" })
	for _, tr := range hs.model.m.rqv().Shown() {
		if tr.ID == "poll" {
			t.Errorf("the health poll is listed with loopback hidden")
		}
	}
	hs.keys("down") // picks "first"
	if hs.model.m.rqv().SelectedID() != "first" {
		t.Fatalf("down selected %q, want first", hs.model.m.rqv().SelectedID())
	}
	f.store.add(okGet("third", 4))
	hs.until("third listed", func() bool { return len(hs.model.m.rqv().Shown()) == 3 })
	if hs.model.m.rqv().SelectedID() != "first" {
		t.Errorf("a new request moved the learner's pick to %q", hs.model.m.rqv().SelectedID())
	}
	hs.keys("g")
	f.store.add(okGet("fourth", 5))
	hs.until("the newest followed again", func() bool { return hs.model.m.rqv().SelectedID() == "fourth" })
	hs.keys("L")
	hs.until("the poll shown with loopback", func() bool {
		for _, tr := range hs.model.m.rqv().Shown() {
			if tr.ID == "poll" {
				return true
			}
		}
		return false
	})
}

// TestEtcdKeyFromLaneBeforeListing: S from a lane before the explorer has listed anything
// puts the cursor on the key once the listing brings it, even pages further on.
func TestEtcdKeyFromLaneBeforeListing(t *testing.T) {
	f := newFixture(t, 120, 40, okCreate("ok-create", 7))
	keys := []string{"/registry/configmaps/default/demo"}
	for i := range 1200 {
		keys = append(keys, fmt.Sprintf("/registry/configmaps/aaa/cm-%04d", i))
	}
	f.etcd = newFakeEtcd(keys...)
	f.setEtcd(f.etcd)
	hs := f.hs
	hs.typeLine("requests")
	hs.model.m.rqv().Select("ok-create", tracing.StageAuthentication)
	hs.keys("S")
	hs.until("the cursor on the key", func() bool { return hs.etcdView().CursorKey() == "/registry/configmaps/default/demo" })
	if w := hs.etcdView().Wanted(); w != "" {
		t.Errorf("still waiting for %q", w)
	}
}

// TestEtcdOpenKeyMsg: etcd.OpenKeyMsg, as another view's command returns it, brings the etcd
// view up from wherever the learner is, with the key selected; an empty key shows the view.
func TestEtcdOpenKeyMsg(t *testing.T) {
	const demo = "/registry/configmaps/default/demo"
	for _, tt := range []struct {
		name, from, key string
	}{
		{"from the walkthrough", "lesson", demo},
		{"from the glossary", "glossary", demo},
		{"no key", "req", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, 120, 40)
			hs := f.hs
			hs.typeLine(tt.from)
			hs.send(etcd.OpenKeyMsg{Key: tt.key})
			hs.settle()
			if hs.model.m.at != viewEtcd {
				t.Fatalf("view %v, want etcd", hs.model.m.at)
			}
			if got := hs.etcdView().Selected(); got != tt.key {
				t.Errorf("selected %q, want %q", got, tt.key)
			}
			hs.must("etcd /registry/ · 6 keys")
		})
	}
}
