package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/server"
)

// lastID is the last startup checkpoint's ID.
func lastID() string {
	all := server.Checkpoints()
	return all[len(all)-1].ID()
}

// servedAt is the place of the serving server, on track step step ("" none).
func servedAt(step string) ClassPlace {
	return ClassPlace{Checkpoint: lastID(), Served: true, Step: step}
}

// TestFollowReachesServing: when the instructor's server serves (E ran through serve without a
// pause), a following student's server runs to the end too — not to the last checkpoint, where
// it would wait for a step that never comes — and the student reports serving.
func TestFollowReachesServing(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		f := newFakeFollower(FollowState{Title: "walk", Name: "ana", Connected: true, Following: true, Instructor: ClassPlace{Checkpoint: "authz/rbac"}})
		hs := newHarnessOpts(t, size.w, size.h, fakeContent{}, fakeServer{}, Options{GlamourStyle: "notty", Follow: f})
		hs.until("at authz/rbac", func() bool { return liveID(hs) == "authz/rbac" })
		f.set(func(s *FollowState) { s.Instructor = servedAt("") })
		hs.until("the student's server serves", func() bool { return hs.model.m.tour.Served() })
		hs.settle()
		if tg := hs.eng.targets(); tg[len(tg)-1] != engine.ToEnd() {
			t.Errorf("targets %v: the last is not ToEnd", tg)
		}
		hs.must("SERVING", "following the instructor (at serving)")
		if got := f.lastReport(); got != servedAt("") {
			t.Errorf("reported %+v, want serving", got)
		}
	}
}

// TestKubectlReadinessFromServer: the in-TUI kubectl decides from the server's own state, not
// from how far the walkthrough has gone: nothing listens before serve/serving (it says so), the
// server listens but has no kubeconfig yet at serve/serving, and at serve/kubeconfig — still
// paused — kubectl runs.
func TestKubectlReadinessFromServer(t *testing.T) {
	k := &fakeKubectl{}
	hs := newHarnessOpts(t, 120, 40, fakeContent{}, fakeServer{}, Options{GlamourStyle: "notty",
		NewKubectl: func(string) (Kubectl, error) { return k, nil }})
	hs.keys("7") // serve/prepare-run
	hs.must("PAUSED at serve/prepare-run")
	hs.typeLine("k get ns")
	hs.must("the server is not serving yet")
	hs.typeLine("lesson")
	hs.keys(" ")
	hs.must("PAUSED at serve/serving")
	hs.typeLine("k get ns")
	hs.must("The server listens, but the kubeconfig kubectl reads is written at")
	hs.mustNot("not serving yet")
	hs.typeLine("lesson")
	for liveID(hs) != lastID() {
		hs.keys(" ")
	}
	if hs.model.m.tour.Served() {
		t.Fatal("the walkthrough is served already; the test wants it paused at serve/kubeconfig")
	}
	hs.typeLine("k get ns")
	hs.until("kubectl ran", func() bool { k.mu.Lock(); defer k.mu.Unlock(); return len(k.runs) == 1 })
	hs.settle()
	hs.must("$ kubectl get ns")
	hs.mustNot("not serving yet", "The server listens")
}

// TestFollowTrack: once both serve, a following student's screen goes along the track with the
// instructor, never back; a student who went back to an earlier step on their own stays on it;
// detached, the student stays; the student reports the step on screen.
func TestFollowTrack(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		steps := newTrackContent(false, true).TrackSteps()
		f := newFakeFollower(FollowState{Title: "walk", Name: "ana", Connected: true, Following: true, Instructor: servedAt(steps[1].ID)})
		hs := newHarnessOpts(t, size.w, size.h, newTrackContent(false, true), fakeServer{}, Options{GlamourStyle: "notty", Follow: f, Probe: newFakeProbe().run})
		hs.until("the student follows into the track", func() bool { return hs.model.m.tour.InTrack() && hs.model.m.tour.TrackAt() == 1 })
		hs.settle()
		hs.must(steps[1].Title, "following the instructor (at ▸ "+steps[1].ID+")")
		if got := f.lastReport(); got != servedAt(steps[1].ID) {
			t.Errorf("reported %+v, want %s", got, steps[1].ID)
		}
		// The instructor goes back: the student stays.
		f.set(func(s *FollowState) { s.Instructor = servedAt(steps[0].ID) })
		hs.settle()
		if at := hs.model.m.tour.TrackAt(); at != 1 {
			t.Errorf("went back to step %d", at)
		}
		// The student goes back on their own; the instructor moves on: the student stays.
		hs.keys("left")
		f.set(func(s *FollowState) { s.Instructor = servedAt(steps[2].ID) })
		hs.settle()
		if at := hs.model.m.tour.TrackAt(); at != 0 {
			t.Errorf("a student reviewing step 0 was moved to %d", at)
		}
		if got := f.lastReport(); got != servedAt(steps[0].ID) {
			t.Errorf("reported %+v, want the step on screen", got)
		}
		// Caught up by hand to step 1, then the instructor's next step moves them again.
		hs.keys("n")
		f.set(func(s *FollowState) { s.Message, s.MessageSeq = "on to register.go", 1 })
		hs.settle()
		if at := hs.model.m.tour.TrackAt(); at != 2 {
			t.Errorf("back on the followed step, the student is at %d, want the instructor's 2", at)
		}
	}
	// Detached: the instructor's steps do not move the student.
	steps := newTrackContent(false, true).TrackSteps()
	f := newFakeFollower(FollowState{Title: "walk", Name: "ana", Connected: true, Following: true, Instructor: servedAt("")})
	hs := newHarnessOpts(t, 120, 40, newTrackContent(false, true), fakeServer{}, Options{GlamourStyle: "notty", Follow: f, Probe: newFakeProbe().run})
	hs.until("served", func() bool { return hs.model.m.tour.Served() })
	hs.keys("D")
	f.set(func(s *FollowState) { s.Instructor = servedAt(steps[2].ID) })
	hs.settle()
	if hs.model.m.tour.InTrack() {
		t.Errorf("a detached student was moved into the track (step %d)", hs.model.m.tour.TrackAt())
	}
	hs.keys("D")
	hs.until("re-synced: on the instructor's step", func() bool { return hs.model.m.tour.TrackAt() == 2 })
}

// TestHostPublishesCourse: the instructor's screen publishes the serving server (E runs
// through serve without a pause) and then every track step it shows, in order.
func TestHostPublishesCourse(t *testing.T) {
	h := newFakeClassHost(ClassBoard{Title: "walk"})
	steps := newTrackContent(false, true).TrackSteps()
	hs := newHarnessOpts(t, 120, 40, newTrackContent(false, true), fakeServer{}, Options{GlamourStyle: "notty", Class: h, Probe: newFakeProbe().run})
	hs.keys("E")
	hs.until("served", func() bool { return hs.model.m.tour.Served() })
	hs.keys("n", "n", "left", "n", "n")
	hs.settle()
	h.mu.Lock()
	places := slices.Clone(h.places)
	h.mu.Unlock()
	var after []ClassPlace
	for _, p := range places {
		if p.Served {
			after = append(after, p)
		}
	}
	want := []ClassPlace{servedAt(""), servedAt(steps[0].ID), servedAt(steps[1].ID), servedAt(steps[0].ID), servedAt(steps[1].ID), servedAt(steps[2].ID)}
	if !slices.Equal(after, want) {
		t.Errorf("published after serve:\n got %+v\nwant %+v", after, want)
	}
	if slices.Contains(places, ClassPlace{Checkpoint: lastID()}) {
		t.Errorf("published the last checkpoint as a pause, though E did not stop there: %+v", places)
	}
}

// TestAssignCommand: :assign completes the exercise IDs, refuses an unknown one with the line
// kept, assigns a known one and takes it back with "-"; it is the instructor's only.
func TestAssignCommand(t *testing.T) {
	for _, lang := range []string{i18n.English, i18n.SimplifiedChinese} {
		tr := i18n.For(lang)
		h := newFakeClassHost(ClassBoard{Title: "walk"})
		x := newFakeExercises(lang)
		hs := newHarnessOpts(t, 120, 40, fakeContent{zh: lang != i18n.English}, fakeServer{}, Options{GlamourStyle: "notty", Class: h, Exercises: x})
		hs.startLine("assign authz-b")
		hs.keys("tab")
		if got := hs.model.m.prompt.Line(); got != "assign authz-bob-cm " {
			t.Errorf("completion: %q", got)
		}
		hs.keys("esc")
		hs.typeLine("assign nope")
		hs.must(strings.ReplaceAll(tr.CmdAssignUnknown, "%q", `"nope"`))
		if hs.model.m.prompt.Line() != "assign nope" {
			t.Errorf("the refused line is not kept: %q", hs.model.m.prompt.Line())
		}
		hs.keys("esc")
		hs.typeLine("assign authz-bob-cm")
		hs.until("assigned", func() bool {
			h.mu.Lock()
			defer h.mu.Unlock()
			return slices.Equal(h.assigned, []string{"authz-bob-cm"})
		})
		hs.typeLine("assign -")
		hs.until("taken back", func() bool { h.mu.Lock(); defer h.mu.Unlock(); return len(h.assigned) == 2 && h.assigned[1] == "" })
	}
	// Not on a student's screen.
	hs := newHarnessOpts(t, 120, 40, fakeContent{}, fakeServer{}, Options{GlamourStyle: "notty", Exercises: newFakeExercises("en")})
	hs.typeLine("assign authz-bob-cm")
	hs.must("are for the instructor of a class")
}

// TestAssignedOnStudent: an assignment shows on a student's screen in their language, in a line
// of its own; A opens it in the exercises view; the student's state on it is reported as it
// changes (open, trying once opened, with the hints used).
func TestAssignedOnStudent(t *testing.T) {
	for _, lang := range []string{i18n.English, i18n.SimplifiedChinese} {
		for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			tr := i18n.For(lang)
			x := newFakeExercises(lang)
			f := newFakeFollower(FollowState{Title: "walk", Name: "ana", Connected: true, Following: true})
			hs := newHarnessOpts(t, size.w, size.h, fakeContent{zh: lang != i18n.English}, fakeServer{}, Options{GlamourStyle: "notty", Follow: f, Exercises: x})
			title := x.List()[2].Title // authz-bob-cm
			f.set(func(s *FollowState) { s.Assigned, s.AssignedSeq = "authz-bob-cm", 1 })
			hs.settle()
			hs.must(tr.ClassAssigned+" "+title, tr.ClassExOpen)
			if got := f.lastExercise(); got != (ClassExercise{ID: "authz-bob-cm", State: ClassExOpen}) {
				t.Errorf("reported %+v", got)
			}
			hs.keys("A")
			if hs.model.m.at != viewExercises {
				t.Fatalf("A opened view %v", hs.model.m.at)
			}
			if e, ok := hs.model.m.exView().Selected(); !ok || e.ID != "authz-bob-cm" {
				t.Errorf("selected %+v", e)
			}
			hs.keys("h")
			hs.until("a hint reported", func() bool { return f.lastExercise().Hints == 1 })
			if got := f.lastExercise(); got.State != ClassExTrying {
				t.Errorf("reported %+v, want trying", got)
			}
			x.pass("authz-bob-cm")
			hs.until("done reported", func() bool { return f.lastExercise().State == ClassExDone })
			// Taken back: the line goes.
			f.set(func(s *FollowState) { s.Assigned, s.AssignedSeq = "", 2 })
			hs.settle()
			hs.mustNot(tr.ClassAssigned)
		}
	}
}

// TestClassEndedLine: when the instructor ends the class the student's class line says so, not
// that it reconnects.
func TestClassEndedLine(t *testing.T) {
	for _, lang := range []string{i18n.English, i18n.SimplifiedChinese} {
		tr := i18n.For(lang)
		f := newFakeFollower(FollowState{Title: "walk", Name: "ana", Connected: true, Following: true})
		hs := newHarnessOpts(t, 80, 24, fakeContent{zh: lang != i18n.English}, fakeServer{}, Options{GlamourStyle: "notty", Follow: f})
		f.set(func(s *FollowState) { s.Connected, s.Ended, s.Problem = false, true, "connection refused" })
		hs.settle()
		hs.must(tr.ClassEnded)
		hs.mustNot(strings.SplitN(tr.ClassReconnecting, "%", 2)[0])
	}
}

// assignBoard is a class with an exercise assigned: students in the track, stuck in the track,
// done with hints, trying, not there yet, and one who has not reported.
func assignBoard() *fakeClassHost {
	return newFakeClassHost(ClassBoard{Title: "walk", Place: servedAt("apimachinery/scheme"), Message: "try the exercise", Assigned: "authz-bob-cm",
		Students: []ClassStudent{
			{Name: "ana", Place: servedAt("apimachinery/scheme"), Done: 5, Exercise: ClassExercise{ID: "authz-bob-cm", State: ClassExDone, Hints: 1}, Idle: 20 * time.Second, Following: true, Connected: true},
			{Name: "bob", Place: servedAt(""), Done: 3, Exercise: ClassExercise{ID: "authz-bob-cm", State: ClassExTrying, Hints: 2}, Idle: 3 * time.Minute, Stuck: true, Following: true, Connected: true},
			{Name: "chen", Place: ClassPlace{Checkpoint: "authz/rbac"}, Done: 1, Exercise: ClassExercise{ID: "authz-bob-cm", State: ClassExLocked}, Following: false, Connected: true},
			{Name: "dee", Place: servedAt("apimachinery/typemeta"), Done: 4, Exercise: ClassExercise{ID: "authz-bob-cm", State: ClassExOpen}, Following: true, Connected: true},
			{Name: "eve", Place: ClassPlace{Checkpoint: "config/scheme"}, Following: true, Connected: false},
		}})
}

// TestAssignBoardGolden: the board with an exercise assigned, at 80×24 and 120×40, in English and
// Chinese: the summary line, the assigned column (done / trying / not started / not reached,
// hints used), where each student is (checkpoint, serving, ▸ track step), stuck students first.
func TestAssignBoardGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		w, h int
		zh   bool
	}{
		{"en_80x24", 80, 24, false},
		{"en_120x40", 120, 40, false},
		{"zh_80x24", 80, 24, true},
		{"zh_120x40", 120, 40, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lang := i18n.English
			if tt.zh {
				lang = i18n.SimplifiedChinese
			}
			tr := i18n.For(lang)
			opts := Options{GlamourStyle: "notty", Class: assignBoard(), Exercises: newFakeExercises(lang)}
			hs := newHarnessOpts(t, tt.w, tt.h, fakeContent{zh: tt.zh}, fakeServer{}, opts)
			hs.keys("B")
			hs.must("bob", "ana", "▸ apimachinery/scheme", tr.ClassExDone, tr.ClassExTrying, tr.ClassExLocked)
			view := hs.view()
			if strings.Index(view, "bob ") > strings.Index(view, "ana ") {
				t.Errorf("the stuck student is not first:\n%s", view)
			}
			golden.RequireEqual(t, []byte(hs.model.View()))
		})
	}
}
