package validation

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubewalk/kubewalk/server/apis/learn"
)

func lesson() *learn.Lesson {
	return &learn.Lesson{
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "default", ResourceVersion: "1", Generation: 1},
		Spec: learn.LessonSpec{Title: "Hello", Author: "alice", Level: learn.LevelBeginner,
			Steps: []learn.LessonStep{{Name: "one", Title: "First"}, {Name: "two"}}},
	}
}

// errorFields renders errs as "path: type" for comparison.
func errorFields(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Field+": "+e.Type.String())
	}
	return out
}

func TestValidateLesson(t *testing.T) {
	tests := []struct {
		name   string
		change func(*learn.Lesson)
		want   []string
	}{
		{"valid", func(*learn.Lesson) {}, []string{}},
		{"no author is fine", func(l *learn.Lesson) { l.Spec.Author = "" }, []string{}},
		{"name not a DNS label", func(l *learn.Lesson) { l.Name = "a.b" }, []string{"metadata.name: Invalid value"}},
		{"name upper case", func(l *learn.Lesson) { l.Name = "Hello" }, []string{"metadata.name: Invalid value"}},
		{"no title", func(l *learn.Lesson) { l.Spec.Title = "" }, []string{"spec.title: Required value"}},
		{"long title", func(l *learn.Lesson) { l.Spec.Title = strings.Repeat("长", MaxTitleLength+1) }, []string{"spec.title: Too long"}},
		{"title at the limit in CJK", func(l *learn.Lesson) { l.Spec.Title = strings.Repeat("长", MaxTitleLength) }, []string{}},
		{"unknown level", func(l *learn.Lesson) { l.Spec.Level = "Expert" }, []string{"spec.level: Unsupported value"}},
		{"no level", func(l *learn.Lesson) { l.Spec.Level = "" }, []string{"spec.level: Required value"}},
		{"no steps", func(l *learn.Lesson) { l.Spec.Steps = nil }, []string{"spec.steps: Required value"}},
		{"step without a name", func(l *learn.Lesson) { l.Spec.Steps[1].Name = "" }, []string{"spec.steps[1].name: Required value"}},
		{"duplicate step", func(l *learn.Lesson) { l.Spec.Steps[1].Name = "one" }, []string{"spec.steps[1].name: Duplicate value"}},
		{"step name not a DNS label", func(l *learn.Lesson) { l.Spec.Steps[0].Name = "Step_1" }, []string{"spec.steps[0].name: Invalid value"}},
		{"long step title", func(l *learn.Lesson) { l.Spec.Steps[0].Title = strings.Repeat("x", MaxTitleLength+1) }, []string{"spec.steps[0].title: Too long"}},
		{"every error at once", func(l *learn.Lesson) {
			l.Name, l.Spec.Title, l.Spec.Level, l.Spec.Steps = "Bad_Name", "", "Expert", nil
		}, []string{"metadata.name: Invalid value", "spec.title: Required value", "spec.level: Unsupported value", "spec.steps: Required value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := lesson()
			tt.change(l)
			if got := errorFields(ValidateLesson(l)); !slices.Equal(got, tt.want) {
				t.Errorf("errors = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidateLessonUpdate(t *testing.T) {
	old := lesson()
	l := lesson()
	l.Spec.Steps = append(l.Spec.Steps, learn.LessonStep{Name: "three"})
	if errs := ValidateLessonUpdate(l, old); len(errs) != 0 {
		t.Errorf("adding a step: %v", errs)
	}
	l.Spec.Steps = nil
	l.Name = "renamed"
	if got, want := errorFields(ValidateLessonUpdate(l, old)), []string{"metadata.name: Invalid value", "spec.steps: Required value"}; !slices.Equal(got, want) {
		t.Errorf("errors = %q, want %q", got, want)
	}
}

func TestValidateLessonStatusUpdate(t *testing.T) {
	tests := []struct {
		name   string
		status learn.LessonStatus
		want   []string
	}{
		{"none done", learn.LessonStatus{}, []string{}},
		{"all done", learn.LessonStatus{CompletedSteps: 2, ObservedGeneration: 1}, []string{}},
		{"more than the steps", learn.LessonStatus{CompletedSteps: 3}, []string{"status.completedSteps: Invalid value"}},
		{"negative", learn.LessonStatus{CompletedSteps: -1}, []string{"status.completedSteps: Invalid value"}},
		{"negative generation", learn.LessonStatus{ObservedGeneration: -1}, []string{"status.observedGeneration: Invalid value"}},
		{"generation from the future", learn.LessonStatus{ObservedGeneration: 2}, []string{"status.observedGeneration: Invalid value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := lesson()
			l.Status = tt.status
			if got := errorFields(ValidateLessonStatusUpdate(l, lesson())); !slices.Equal(got, tt.want) {
				t.Errorf("errors = %q, want %q", got, tt.want)
			}
		})
	}
	l := lesson()
	l.Status.CompletedSteps = 3
	errs := ValidateLessonStatusUpdate(l, lesson())
	if len(errs) != 1 || !strings.Contains(errs[0].Detail, "number of steps in spec.steps (2)") {
		t.Errorf("detail = %v, want it to name the number of steps", errs)
	}
}

func course() *learn.Course {
	return &learn.Course{
		ObjectMeta: metav1.ObjectMeta{Name: "api.basics", ResourceVersion: "1", Generation: 1},
		Spec: learn.CourseSpec{Title: "API basics",
			Lessons: []learn.CourseLesson{{Namespace: "default", Name: "hello"}, {Namespace: "kube-public", Name: "hello"}}},
	}
}

func TestValidateCourse(t *testing.T) {
	tests := []struct {
		name   string
		change func(*learn.Course)
		want   []string
	}{
		{"valid (one lesson name in two namespaces)", func(*learn.Course) {}, []string{}},
		{"namespaced", func(c *learn.Course) { c.Namespace = "default" }, []string{"metadata.namespace: Forbidden"}},
		{"no title", func(c *learn.Course) { c.Spec.Title = "" }, []string{"spec.title: Required value"}},
		{"no lessons", func(c *learn.Course) { c.Spec.Lessons = nil }, []string{"spec.lessons: Required value"}},
		{"lesson without a namespace", func(c *learn.Course) { c.Spec.Lessons[0].Namespace = "" }, []string{"spec.lessons[0].namespace: Required value"}},
		{"lesson without a name", func(c *learn.Course) { c.Spec.Lessons[1].Name = "" }, []string{"spec.lessons[1].name: Required value"}},
		{"bad namespace", func(c *learn.Course) { c.Spec.Lessons[0].Namespace = "Default" }, []string{"spec.lessons[0].namespace: Invalid value"}},
		{"bad lesson name", func(c *learn.Course) { c.Spec.Lessons[0].Name = "a.b" }, []string{"spec.lessons[0].name: Invalid value"}},
		{"a lesson twice", func(c *learn.Course) { c.Spec.Lessons[1].Namespace = "default" }, []string{"spec.lessons[1]: Duplicate value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := course()
			tt.change(c)
			if got := errorFields(ValidateCourse(c)); !slices.Equal(got, tt.want) {
				t.Errorf("errors = %q, want %q", got, tt.want)
			}
			old := course()
			c.ResourceVersion = old.ResourceVersion
			if tt.name == "namespaced" {
				return // ValidateObjectMetaUpdate reports a namespace change instead
			}
			if got := errorFields(ValidateCourseUpdate(c, old)); !slices.Equal(got, tt.want) {
				t.Errorf("update errors = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidateAttempt(t *testing.T) {
	attempt := func() *learn.Attempt {
		return &learn.Attempt{ObjectMeta: metav1.ObjectMeta{Name: "try-1", Namespace: "default"},
			Spec: learn.AttemptSpec{Lesson: "hello", Step: "one", Answer: "42"}}
	}
	tests := []struct {
		name   string
		change func(*learn.Attempt)
		want   []string
	}{
		{"valid", func(*learn.Attempt) {}, []string{}},
		{"no answer is fine", func(a *learn.Attempt) { a.Spec.Answer = "" }, []string{}},
		{"no namespace", func(a *learn.Attempt) { a.Namespace = "" }, []string{"metadata.namespace: Required value"}},
		{"no lesson", func(a *learn.Attempt) { a.Spec.Lesson = "" }, []string{"spec.lesson: Required value"}},
		{"no step", func(a *learn.Attempt) { a.Spec.Step = "" }, []string{"spec.step: Required value"}},
		{"bad step", func(a *learn.Attempt) { a.Spec.Step = "Step 1" }, []string{"spec.step: Invalid value"}},
		{"answer at the limit in CJK", func(a *learn.Attempt) { a.Spec.Answer = strings.Repeat("答", MaxAnswerLength) }, []string{}},
		{"long answer", func(a *learn.Attempt) { a.Spec.Answer = strings.Repeat("x", MaxAnswerLength+1) }, []string{"spec.answer: Too long"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := attempt()
			tt.change(a)
			if got := errorFields(ValidateAttempt(a)); !slices.Equal(got, tt.want) {
				t.Errorf("errors = %q, want %q", got, tt.want)
			}
		})
	}
}
