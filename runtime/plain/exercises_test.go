package plain

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// TestPrintExercises: a lesson's exercises are listed with title and goal, done ones ticked,
// never with their hints or solution; a lesson without exercises prints nothing.
func TestPrintExercises(t *testing.T) {
	w := Walkthrough{
		Exercises: []lessons.Exercise{
			{ID: "a", Lesson: "authz", Title: "Let bob read", Goal: "Give bob list.", Hints: []string{"n", "p", "SECRET-SOLUTION"},
				Solution: []lessons.SolutionStep{{Kubectl: "create rolebinding SECRET"}}},
			{ID: "b", Lesson: "authz", Title: "Find the binding", Goal: "Type its name."},
			{ID: "c", Lesson: "authn", Title: "Other lesson", Goal: "x"},
		},
		ExerciseDone: func(id string) bool { return id == "b" },
	}
	var out bytes.Buffer
	o := Options{Out: &out, Width: 100}
	w.printExercises(o, i18n.For("en"), lessons.Lesson{ID: "authz"})
	got := out.String()
	for _, want := range []string{"Exercises of this lesson", "○ Let bob read: Give bob list.", "✓ Find the binding: Type its name."} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"SECRET", "Other lesson"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("output has %q:\n%s", unwanted, got)
		}
	}
	out.Reset()
	w.printExercises(o, i18n.For("en"), lessons.Lesson{ID: "serve"})
	if out.Len() != 0 {
		t.Errorf("a lesson without exercises printed %q", out.String())
	}
}

// TestPrintTrackExercises: the after-serve track lists each lesson's exercises after that
// lesson's last step, as the startup lessons do.
func TestPrintTrackExercises(t *testing.T) {
	w := Walkthrough{
		Lessons: []lessons.Lesson{
			{ID: "own-group", Track: lessons.TrackAfterServe, Title: "Own group",
				Steps: []lessons.Step{{ID: "register", Title: "Register"}, {ID: "conversion", Title: "Conversion"}}},
			{ID: "deployments", Track: lessons.TrackAfterServe, Title: "Deployments", Steps: []lessons.Step{{ID: "storage", Title: "Storage"}}},
		},
		Exercises: []lessons.Exercise{
			{ID: "a", Lesson: "own-group", Title: "Write owner", Goal: "Read author."},
			{ID: "b", Lesson: "deployments", Title: "Scale web", Goal: "To 3."},
		},
	}
	var out bytes.Buffer
	if err := printTrack(t.Context(), nil, w, Options{Out: &out, Width: 100}, i18n.For("en"), false, nil); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	order := []string{"Register", "Conversion", "○ Write owner: Read author.", "Deployments — Storage", "○ Scale web: To 3."}
	at := 0
	for _, want := range order {
		i := strings.Index(got[at:], want)
		if i < 0 {
			t.Fatalf("output lacks %q after byte %d:\n%s", want, at, got)
		}
		at += i + len(want)
	}
	if strings.Count(got, "Exercises of this lesson") != 2 {
		t.Errorf("want the exercises heading once per lesson:\n%s", got)
	}
}
