package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/tui/tour"
)

// TestAutoRunsToServe: with Options.Auto the screen continues on its own after each pause,
// stopping at every checkpoint on the way (none skipped), until the server serves; the
// welcome is not shown (no one would dismiss it).
func TestAutoRunsToServe(t *testing.T) {
	hs := newHarnessOpts(t, 120, 40, fakeContent{}, fakeServer{}, Options{GlamourStyle: "notty", ShowWelcome: true, Auto: time.Millisecond})
	hs.until("the server serves", func() bool { return hs.model.m.tour.Served() })
	if hs.model.m.welcome {
		t.Error("the welcome is shown in auto mode")
	}
	if got, want := hs.model.m.tour.History(), len(hs.eng.plan); got != want {
		t.Errorf("%d stops shown, want every checkpoint (%d)", got, want)
	}
	for i, tg := range hs.eng.targets() {
		if tg != engine.NextCheckpoint() {
			t.Errorf("continue %d went to %+v, want the next checkpoint", i, tg)
		}
	}
	if hs.quit {
		t.Error("auto mode quit at serve; it stays on the served screen")
	}
	hs.keys("tab")
	if v := hs.view(); strings.Contains(v, "auto stopped") || strings.Contains(v, "▶▶ AUTO") {
		t.Errorf("after serve, auto mode is over and says nothing more:\n%s", v)
	}
}

// TestAutoKeyTakesOver: the status line says the walkthrough runs on its own; the first key
// stops it (the timer that was running no longer continues) and still does what it does; q
// quits at once.
func TestAutoKeyTakesOver(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		hs := newHarnessOpts(t, size.w, size.h, fakeContent{}, fakeServer{}, Options{GlamourStyle: "notty", Auto: time.Hour})
		if v := hs.view(); !strings.Contains(v, "▶▶ AUTO 1h0m0s") {
			t.Fatalf("%dx%d: no auto marker in the status line:\n%s", size.w, size.h, v)
		}
		// The pause is over: on to the next checkpoint.
		hs.send(tour.AutoMsg{Gen: hs.model.m.tour.AutoGen()})
		hs.settle()
		if n := hs.model.m.tour.History(); n != 2 {
			t.Fatalf("after the auto pause: %d stops, want 2", n)
		}
		stale := hs.model.m.tour.AutoGen()
		hs.keys("tab") // a key that does not move the server
		if hs.model.m.tour.Auto() != 0 {
			t.Fatal("a key did not stop auto mode")
		}
		if v := hs.view(); strings.Contains(v, "▶▶ AUTO") || !strings.Contains(v, "auto stopped") {
			t.Errorf("after a key the status line should say auto stopped:\n%s", v)
		}
		hs.send(tour.AutoMsg{Gen: stale})
		hs.settle()
		if n := hs.model.m.tour.History(); n != 2 {
			t.Errorf("the old timer moved the server after the learner took over: %d stops", n)
		}
		hs.keys(" ")
		if n := hs.model.m.tour.History(); n != 3 {
			t.Errorf("space after taking over: %d stops, want 3", n)
		}
	}

	hs := newHarnessOpts(t, 80, 24, fakeContent{}, fakeServer{}, Options{GlamourStyle: "notty", Auto: time.Hour})
	hs.keys("q")
	if !hs.quit {
		t.Error("q in auto mode did not quit")
	}
}
