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
