package cli

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/exercises"
	"github.com/kubewalk/kubewalk/runtime/tui"
)

// saveProgress writes a progress file with the first step of config reached, exercise
// authz-bob-reads-cm done and two hints shown for authn-bad-token.
func saveProgress(t *testing.T) string {
	t.Helper()
	setLocale(t, "C.UTF-8")
	path, err := lessons.ProgressPath(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := lessons.Load(content.FS, "en")
	if err != nil {
		t.Fatal(err)
	}
	p := &lessons.Progress{}
	p.Record(ls[0], ls[0].Steps[0].ID, time.Now())
	p.ExerciseDone("authz-bob-reads-cm", "allowed", time.Now())
	p.ExerciseHints("authn-bad-token", 2, time.Now())
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestProgressRecorderExerciseFlags: --restart starts the steps over and keeps the
// exercises; --reset-exercises forgets them (and saves that).
func TestProgressRecorderExerciseFlags(t *testing.T) {
	ls, err := lessons.Load(content.FS, "en")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name                string
		restart, resetEx    bool
		wantReached, wantEx int
	}{
		{"neither", false, false, 1, 2},
		{"restart", true, false, 0, 2},
		{"reset-exercises", false, true, 1, 0},
		{"both", true, true, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := saveProgress(t)
			r := newProgressRecorder(ls, tc.restart, tc.resetEx, io.Discard)
			if got := r.p.Reached(ls[0]); got != tc.wantReached {
				t.Errorf("reached %d steps, want %d", got, tc.wantReached)
			}
			if got := len(r.exerciseRecords()); got != tc.wantEx {
				t.Errorf("%d exercise records, want %d", got, tc.wantEx)
			}
			r.save()
			p, err := lessons.LoadProgress(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(p.Exercises); got != tc.wantEx {
				t.Errorf("saved %d exercise records, want %d", got, tc.wantEx)
			}
		})
	}
}

// TestLessonsListsExercises: `kubewalk lessons` shows each lesson's exercises done.
func TestLessonsListsExercises(t *testing.T) {
	saveProgress(t)
	code, out, stderr := run(t, "lessons", "--lang", "en")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var authz string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "authz ") {
			authz = line
		}
	}
	if f := strings.Fields(authz); len(f) < 4 || f[3] != "1/3" {
		t.Errorf("authz line %q: want 1/3 exercises done", authz)
	}
}

// TestExerciseViewAdapter: the adapter shows only the hints revealed, maps the states and the
// input kinds, and records hints and answers in the progress.
func TestExerciseViewAdapter(t *testing.T) {
	setLocale(t, "C.UTF-8")
	ls, _ := lessons.Load(content.FS, "en")
	exs, err := lessons.LoadExercises(content.FS, "en", ls)
	if err != nil {
		t.Fatal(err)
	}
	r := newProgressRecorder(ls, false, false, io.Discard)
	tr := exercises.NewTracker(exercises.Options{Exercises: exs, Progress: map[string]lessons.ExerciseProgress{"authz-bob-reads-cm": {Done: true, Why: "earlier"}},
		OnDone: r.exerciseDone, OnHint: r.exerciseHints})
	v := exerciseView{tr}
	list := v.List()
	if len(list) != len(exs) {
		t.Fatalf("%d exercises, want %d", len(list), len(exs))
	}
	byID := map[string]tui.Exercise{}
	for _, e := range list {
		byID[e.ID] = e
	}
	if e := byID["authz-bob-reads-cm"]; e.State != tui.ExerciseDone || e.Why != "earlier" || e.Input != tui.InputLive {
		t.Errorf("done exercise: %+v", e)
	}
	if e := byID["config-connection-refused"]; e.State != tui.ExerciseLocked || e.Input != tui.InputChoice || len(e.Choices) != 4 || e.HintLevels != 3 || len(e.Hints) != 0 {
		t.Errorf("choice exercise before its phase: %+v", e)
	}
	if e := byID["storage-revision"]; e.Input != tui.InputText {
		t.Errorf("etcd-revision exercise: input %v, want text", e.Input)
	}
	for want := 1; want <= 4; want++ {
		e, err := v.RevealHint("config-connection-refused")
		if err != nil {
			t.Fatal(err)
		}
		if len(e.Hints) != min(want, 3) {
			t.Errorf("after %d reveals: %d hints shown", want, len(e.Hints))
		}
	}
	if got := r.exerciseRecords()["config-connection-refused"].Hints; got != 3 {
		t.Errorf("progress records %d hints, want 3", got)
	}
	if _, err := v.Answer("config-connection-refused", "1"); err == nil {
		t.Error("answering a locked exercise: no error")
	}
	if _, err := v.RevealHint("no-such-exercise"); err == nil {
		t.Error("unknown exercise: no error")
	}
}
