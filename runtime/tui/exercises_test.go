package tui

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/exercises"
)

// newExFixture is a model on the fake backends with exercises, in lang at w×h, left paused
// at the first checkpoint (serve runs with hs.keys("E")).
func newExFixture(t *testing.T, lang string, w, h int) (*harness, *fakeExercises) {
	t.Helper()
	x := newFakeExercises(lang)
	hs := newHarnessOpts(t, w, h, fakeContent{zh: lang == i18n.SimplifiedChinese}, fakeServer{}, Options{GlamourStyle: "notty", Lang: lang,
		Requests: newFakeStore(100), Exercises: x})
	hs.until("the exercises", func() bool { return hs.model.m.exView().Loaded() })
	hs.settle()
	return hs, x
}

// exTitles lists the exercise rows of the list in order, by ID.
func exOrder(v *exercises.Model) []string { return v.Order() }

// selectEx moves the list's cursor to an exercise.
func selectEx(hs *harness, id string) {
	hs.t.Helper()
	v := hs.model.m.exView()
	hs.keys("g")
	for range len(v.All()) {
		if e, ok := v.Selected(); ok && e.ID == id {
			return
		}
		hs.keys("down")
	}
	hs.t.Fatalf("no exercise %s in the list", id)
}

// TestExercisesView: the list orders the current lesson first and follows the walkthrough;
// hints come one level at a time and are recorded; a typed answer and a multiple choice are
// wrong, then right; locked and live exercises say why they take no answer.
func TestExercisesView(t *testing.T) {
	for _, sz := range viewSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			hs, x := newExFixture(t, i18n.English, sz.w, sz.h)
			m := hs.model.m
			hs.must("exercises 1/7 · ")
			hs.typeLine("exercises")
			if m.at != viewExercises {
				t.Fatalf(":exercises went to %v", m.at)
			}
			// Paused in config: no exercise there, so lesson order.
			want := []string{"authn-401", "authn-which", "authz-bob-cm", "authz-who", "adm-pinned", "serve-readyz", "serve-watch"}
			if got := exOrder(m.exView()); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("order at config: %v, want %v", got, want)
			}
			hs.mustNot("· now")
			// In authz, the authz lesson comes first, marked as the current one.
			hs.keys("K", "3")
			hs.typeLine("ex")
			want = []string{"authz-bob-cm", "authz-who", "authn-401", "authn-which", "adm-pinned", "serve-readyz", "serve-watch"}
			if got := exOrder(m.exView()); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("order at authz: %v, want %v", got, want)
			}
			hs.must("Authorization · now", "› ○ Let bob list configmaps in default", "○ Who lets alice create configmaps?",
				"✓ A request that fails with 401", "Exercises · 1 of 7 done")
			if sz.h >= 40 { // the whole list shows
				hs.must("⏸ Get a pod past PinnedImages", "needs serve", "· The readyz check", "at serve")
			}

			// Hints, one level at a time; the backend records each.
			hs.keys("tab")
			hs.must("Hints: 0 of 3 shown · h shows the next", "Do it with kubectl")
			hs.keys("h")
			hs.must("1 nudge: A Role and a RoleBinding in default.")
			hs.mustNot("2 pointer:")
			hs.keys("h")
			hs.must("2 pointer: The authorization stage")
			hs.mustNot("3 solution:")
			hs.keys("h")
			hs.must("3 solution: kubectl --context admin create role", "Hints: all 3 shown")
			hs.keys("h")
			if m.note != "every hint is shown" {
				t.Errorf("a fourth h: note %q", m.note)
			}
			if x.shown["authz-bob-cm"] != 3 {
				t.Errorf("hints recorded: %d, want 3", x.shown["authz-bob-cm"])
			}
			hs.keys("tab")
			hs.must("hints 3/3")
			// A live exercise has nothing to type.
			hs.keys("a")
			if m.exView().Capturing() || m.note != "this exercise is checked on the live server: there is nothing to type" {
				t.Errorf("a on a live exercise: typing %v, note %q", m.exView().Capturing(), m.note)
			}

			// A typed answer: wrong, then right (case and spaces do not matter).
			hs.keys("down", "a")
			if !m.exView().Capturing() {
				t.Fatal("a did not open the answer line")
			}
			hs.must("answer› █", "enter checks · esc cancels")
			hs.send(keyMsg("alice-cm"))
			hs.keys("enter")
			hs.must(`✗ not yet: "alice-cm" is not it`)
			hs.keys("a")
			hs.send(keyMsg("x"))
			hs.keys("esc")
			if m.exView().Capturing() {
				t.Error("esc left the answer line open")
			}
			hs.keys("enter", "enter") // focus the detail; enter opens the answer line there
			hs.send(keyMsg("  Developers "))
			hs.keys("enter")
			hs.must("✓ done", "why: RoleBinding developers binds Role configmap-writer", "exercises 2/7")
			if len(m.toasts) != 0 {
				t.Errorf("an answer typed here toasted: %v", m.toasts)
			}
			hs.keys("a")
			if m.note != "this exercise is done already" {
				t.Errorf("a on a done exercise: note %q", m.note)
			}

			// Multiple choice: a wrong option, one that does not exist, then the right one.
			hs.keys("tab")
			selectEx(hs, "authn-which")
			hs.must("1. the bearer token file", "2. the client certificate (x509)", "Press the number of your choice (1–3).")
			hs.keys("1")
			hs.must("✗ not yet: option 1 is not it")
			hs.keys("7")
			if m.note != "there is no option 7" {
				t.Errorf("7: note %q", m.note)
			}
			hs.keys("2")
			hs.must("✓ done", "why: admin is authenticated by its client certificate", "exercises 3/7")

			// A locked exercise gives no hint yet.
			selectEx(hs, "serve-readyz")
			hs.keys("h")
			if m.note != "this exercise opens when the walkthrough reaches serve" {
				t.Errorf("h on a locked exercise: note %q", m.note)
			}
			if x.shown["serve-readyz"] != 0 {
				t.Error("a hint of a locked exercise was recorded")
			}
		})
	}
}

// TestExercisesTick: an exercise checked on the live server ticks while the learner is in
// another view; the toast says why, the status line counts it, and the next key closes it.
func TestExercisesTick(t *testing.T) {
	for _, lang := range i18n.Languages() {
		for _, sz := range viewSizes {
			t.Run(fmt.Sprintf("%s/%dx%d", lang, sz.w, sz.h), func(t *testing.T) {
				hs, x := newExFixture(t, lang, sz.w, sz.h)
				m := hs.model.m
				tr := m.tr
				hs.keys("E")
				x.pass("authz-bob-cm")
				hs.until("the toast", func() bool { return len(m.toasts) == 1 })
				hs.settle()
				if m.at != viewTour {
					t.Errorf("the tick moved the screen to %v", m.at)
				}
				why := x.whys["authz-bob-cm"]
				hs.must(strings.Split(tr.ToastTitle, " ")[0], fmt.Sprintf(tr.ToastDone, x.list[2].Title), why, fmt.Sprintf(tr.StatusExercises, 2, 7))
				hs.keys("tab")
				if len(m.toasts) != 0 {
					t.Error("a key left the toast up")
				}
				hs.mustNot(why)
				// Two at once: both are listed; a state that does not change again does not toast again.
				x.pass("adm-pinned")
				x.pass("authn-which")
				hs.until("two toasts", func() bool {
					d, _ := m.exView().Done()
					return d == 4
				})
				hs.settle()
				if len(m.toasts) != 2 {
					t.Errorf("%d toasts, want 2", len(m.toasts))
				}
				x.openAll()
				hs.until("the open exercises", func() bool { return x.list[5].State == ExerciseOpen && m.exView().All()[5].State == ExerciseOpen })
				hs.settle()
				if len(m.toasts) != 2 {
					t.Errorf("opening exercises toasted: %d toasts", len(m.toasts))
				}
				hs.typeLine("ex")
				hs.must(fmt.Sprintf(tr.ViewExercisesDone, 4, 7))
				// A tick while the command line is open waits for it to close.
				hs.keys(":", "k")
				x.pass("authz-who")
				hs.until("the tick", func() bool { return len(m.toasts) == 1 })
				hs.settle()
				hs.mustNot("RoleBinding developers")
				hs.keys(" ", "g", "backspace", "backspace", "backspace", "esc")
				hs.must("RoleBinding developers")
			})
		}
	}
}

// TestExercisesDoneHint: h on a solved exercise shows no new level and records none.
func TestExercisesDoneHint(t *testing.T) {
	for _, lang := range i18n.Languages() {
		t.Run(lang, func(t *testing.T) {
			hs, x := newExFixture(t, lang, 120, 40)
			hs.typeLine("exercises")
			selectEx(hs, "authn-401")
			hs.keys("tab", "h", "h")
			if want := i18n.For(lang).NoteExDoneHints; hs.model.m.note != want {
				t.Errorf("h on a done exercise: note %q, want %q", hs.model.m.note, want)
			}
			if x.shown["authn-401"] != 0 {
				t.Errorf("hints recorded for a done exercise: %d, want 0", x.shown["authn-401"])
			}
		})
	}
}

// TestExercisesNotWired: without a backend the view says so and the status line counts
// nothing; the keys do nothing but say why.
func TestExercisesNotWired(t *testing.T) {
	hs := newHarness(t, 80, 24, fakeContent{}, fakeServer{})
	hs.keys("E")
	hs.typeLine("ex")
	hs.must("Exercises are not wired into this run.")
	hs.mustNot("exercises 0/")
	hs.keys("h")
	if hs.model.m.note != "Exercises are not wired into this run." {
		t.Errorf("h: note %q", hs.model.m.note)
	}
}

// TestExercisesFit: the view, its answer line and the toast never draw outside the window,
// in every language, at every size and through resizes (the harness checks each frame).
func TestExercisesFit(t *testing.T) {
	for _, lang := range i18n.Languages() {
		for _, s := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", lang, s.w, s.h), func(t *testing.T) {
				hs, x := newExFixture(t, lang, s.w, s.h)
				hs.typeLine("ex")
				hs.keys("down", "down", "h", "h", "h", "tab", "pgdown", "G", "tab", "down", "a")
				hs.send(keyMsg(strings.Repeat("答案 long answer ", 20)))
				x.pass("authz-bob-cm")
				x.pass("authn-which")
				x.pass("adm-pinned")
				hs.until("toasts", func() bool { return len(hs.model.m.toasts) == 3 })
				hs.settle()
				for _, r := range []tea.WindowSizeMsg{{Width: 79, Height: 24}, {Width: 121, Height: 30}, {Width: 80, Height: 24}, {Width: 200, Height: 60}, {Width: s.w, Height: s.h}} {
					hs.send(r)
					hs.settle()
				}
				hs.keys("enter", "?", "down", "x", "q")
			})
		}
	}
}

// TestExercisesGolden pins the exercises view, a wrong answer and the toast (ANSI stripped)
// at 80×24 and 120×40 in English and Chinese; -update rewrites the files.
func TestExercisesGolden(t *testing.T) {
	tests := []struct {
		name string
		run  func(hs *harness, x *fakeExercises)
	}{
		{"exercises", func(hs *harness, x *fakeExercises) {
			hs.keys("K", "3")
			hs.typeLine("ex")
			hs.keys("tab", "h", "h", "g")
		}},
		{"exanswer", func(hs *harness, x *fakeExercises) {
			hs.keys("E")
			hs.typeLine("ex")
			selectEx(hs, "authz-who")
			hs.keys("a")
			hs.send(keyMsg("alice-cm"))
			hs.keys("enter", "a")
			hs.send(keyMsg("develop"))
			hs.settle()
		}},
		{"extoast", func(hs *harness, x *fakeExercises) {
			hs.keys("E")
			x.pass("authz-bob-cm")
			hs.until("the toast", func() bool { return len(hs.model.m.toasts) == 1 })
			hs.settle()
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
					hs, x := newExFixture(t, lang, sz.w, sz.h)
					tt.run(hs, x)
					golden.RequireEqual(t, []byte(hs.view()))
				})
			}
		}
	}
}

// TestTeatestExercises drives the exercises through a real bubbletea program: open the
// view, reveal the hint levels, answer wrong then right, and see a live check tick.
func TestTeatestExercises(t *testing.T) {
	for _, lang := range i18n.Languages() {
		for _, size := range viewSizes {
			t.Run(fmt.Sprintf("%s/%dx%d", lang, size.w, size.h), func(t *testing.T) {
				x := newFakeExercises(lang)
				eng := newFakeEngine().start()
				m := NewModel(eng, fakeServer{}, fakeContent{zh: lang == i18n.SimplifiedChinese}, Options{GlamourStyle: "notty", Lang: lang, Exercises: x})
				tr := m.m.tr
				done := make(chan struct{})
				defer close(done)
				m.m.done = done
				w, h := 0, 0
				fm := probeModel{fitModel{Model: m, t: t, mu: &sync.Mutex{}, w: &w, h: &h}}
				tm := teatest.NewTestModel(t, fm, teatest.WithInitialTermSize(size.w, size.h))
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
				// probe asks the running program's model a question, on its update loop.
				probe := func(cond func(*model) bool) bool {
					ch := make(chan bool, 1)
					tm.Send(probeMsg{f: func(mm *model) { ch <- cond(mm) }})
					select {
					case ok := <-ch:
						return ok
					case <-time.After(5 * time.Second):
						t.Fatal("the program did not answer a probe")
						return false
					}
				}
				waitModel := func(what string, cond func(*model) bool) {
					t.Helper()
					deadline := time.Now().Add(5 * time.Second)
					for !probe(cond) {
						if time.Now().After(deadline) {
							t.Fatalf("timed out waiting for %s", what)
						}
						time.Sleep(10 * time.Millisecond)
					}
				}
				wait(fmt.Sprintf(tr.StatusExercises, 1, 7))
				tm.Send(keyMsg("E"))
				tm.Send(keyMsg(":"))
				tm.Type("ex")
				tm.Send(keyMsg("enter"))
				wait(fmt.Sprintf(tr.ViewExercisesDone, 1, 7))
				waitModel("the view", func(mm *model) bool { return mm.at == viewExercises })
				// Select the typed-answer exercise of authz and reveal its three hints.
				for i := 0; !probe(func(mm *model) bool { e, ok := mm.exView().Selected(); return ok && e.ID == "authz-who" }); i++ {
					if i > 10 {
						t.Fatal("authz-who is not in the list")
					}
					tm.Send(keyMsg("down"))
				}
				tm.Send(keyMsg("tab"))
				for i := 1; i <= 3; i++ {
					tm.Send(keyMsg("h"))
					waitModel(fmt.Sprintf("hint %d", i), func(mm *model) bool {
						e, _ := mm.exView().Selected()
						return len(e.Hints) == i
					})
				}
				wait(fmt.Sprintf(tr.ExHintsAll, 3))
				// Wrong, then right.
				tm.Send(keyMsg("a"))
				tm.Type("alice")
				tm.Send(keyMsg("enter"))
				wait(fmt.Sprintf(tr.ExLastTry, fakeWrong(lang, `"alice"`)))
				tm.Send(keyMsg("a"))
				tm.Type("developers")
				tm.Send(keyMsg("enter"))
				wait(tr.ExStateDone, fmt.Sprintf(tr.StatusExercises, 2, 7))
				// A live check ticks while the walkthrough is on screen.
				tm.Send(keyMsg("K"))
				waitModel("the walkthrough", func(mm *model) bool { return mm.at == viewTour })
				x.pass("authz-bob-cm")
				wait(x.whys["authz-bob-cm"], fmt.Sprintf(tr.StatusExercises, 3, 7))
				tm.Send(keyMsg("q"))
				final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(probeModel)
				if d, _ := final.Model.m.exView().Done(); d != 3 {
					t.Errorf("%d exercises done at the end, want 3", d)
				}
				if x.shown["authz-who"] != 3 {
					t.Errorf("hints recorded: %d, want 3", x.shown["authz-who"])
				}
			})
		}
	}
}

// probeMsg runs f on the program's update loop, with the model.
type probeMsg struct{ f func(*model) }

// probeModel is a fitModel that answers probeMsgs, so a teatest flow can wait on the model's
// state rather than on the bytes it drew.
type probeModel struct{ fitModel }

func (p probeModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if pm, ok := msg.(probeMsg); ok {
		pm.f(p.Model.m)
		return p, nil
	}
	next, cmd := p.fitModel.Update(msg)
	return probeModel{next.(fitModel)}, cmd
}
