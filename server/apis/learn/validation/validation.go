// Package validation checks lessons, kubewalk's own kind, as kube-apiserver's
// pkg/apis/<group>/validation packages check theirs: on the internal type, after defaulting and
// conversion, returning field errors whose paths name the field in the request (spec.steps,
// metadata.name). The lessons strategy calls it; a non-empty list becomes a 422 Invalid
// response listing every error.
package validation

import (
	"fmt"
	"unicode/utf8"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubewalk/kubewalk/server/apis/learn"
)

// MaxTitleLength is the longest title, in characters, a lesson or a step may have.
const MaxTitleLength = 120

// ValidateLessonName checks a lesson's name: a DNS label (lowercase letters, digits and '-', at
// most 63 characters), stricter than the DNS subdomain most kinds accept (names are checked per
// kind, by the function each kind's validation passes to ValidateObjectMeta).
func ValidateLessonName(name string, prefix bool) []string {
	return apivalidation.NameIsDNSLabel(name, prefix)
}

// ValidateLesson validates a new lesson: its metadata and its spec.
func ValidateLesson(l *learn.Lesson) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&l.ObjectMeta, true, ValidateLessonName, field.NewPath("metadata"))
	return append(errs, ValidateLessonSpec(&l.Spec, field.NewPath("spec"))...)
}

// ValidateLessonUpdate validates an update of a lesson through the lessons resource.
func ValidateLessonUpdate(l, old *learn.Lesson) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&l.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, ValidateLessonSpec(&l.Spec, field.NewPath("spec"))...)
}

// ValidateLessonSpec checks that a spec has a title, a known level and at least one step, each
// with a unique DNS-label name.
func ValidateLessonSpec(spec *learn.LessonSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateTitle(spec.Title, path.Child("title"), true)...)
	switch spec.Level {
	case learn.LevelBeginner, learn.LevelIntermediate, learn.LevelAdvanced:
	case "":
		// Defaulting sets Beginner; only a client that bypasses it (none can) sends "".
		errs = append(errs, field.Required(path.Child("level"), ""))
	default:
		errs = append(errs, field.NotSupported(path.Child("level"), spec.Level,
			[]learn.LessonLevel{learn.LevelBeginner, learn.LevelIntermediate, learn.LevelAdvanced}))
	}
	steps := path.Child("steps")
	if len(spec.Steps) == 0 {
		errs = append(errs, field.Required(steps, "a lesson has at least one step"))
	}
	seen := map[string]bool{}
	for i, st := range spec.Steps {
		p := steps.Index(i)
		switch {
		case st.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case seen[st.Name]:
			errs = append(errs, field.Duplicate(p.Child("name"), st.Name))
		default:
			for _, msg := range validation.IsDNS1123Label(st.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), st.Name, msg))
			}
		}
		seen[st.Name] = true
		errs = append(errs, validateTitle(st.Title, p.Child("title"), false)...)
	}
	return errs
}

func validateTitle(title string, path *field.Path, required bool) field.ErrorList {
	switch n := utf8.RuneCountInString(title); {
	case n == 0 && required:
		return field.ErrorList{field.Required(path, "")}
	case n > MaxTitleLength:
		return field.ErrorList{field.TooLongCharacters(path, title, MaxTitleLength)}
	}
	return nil
}

// ValidateLessonStatusUpdate validates an update through lessons/status: the status may count
// no more steps than the spec has, and neither count may be negative.
func ValidateLessonStatusUpdate(l, old *learn.Lesson) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&l.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	status := field.NewPath("status")
	done := l.Status.CompletedSteps
	switch {
	case done < 0:
		errs = append(errs, field.Invalid(status.Child("completedSteps"), done, "must be greater than or equal to 0"))
	case int(done) > len(l.Spec.Steps):
		errs = append(errs, field.Invalid(status.Child("completedSteps"), done,
			fmt.Sprintf("must not be greater than the number of steps in spec.steps (%d)", len(l.Spec.Steps))))
	}
	errs = append(errs, apivalidation.ValidateNonnegativeField(l.Status.ObservedGeneration, status.Child("observedGeneration"))...)
	if g := l.Status.ObservedGeneration; g > l.Generation {
		errs = append(errs, field.Invalid(status.Child("observedGeneration"), g,
			fmt.Sprintf("must not be greater than metadata.generation (%d)", l.Generation)))
	}
	return errs
}

// MaxAnswerLength is the longest answer, in characters, an attempt may record.
const MaxAnswerLength = 1024

// ValidateCourse validates a new course: its metadata (a cluster-scoped name, so no
// namespace) and its spec.
func ValidateCourse(c *learn.Course) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&c.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, ValidateCourseSpec(&c.Spec, field.NewPath("spec"))...)
}

// ValidateCourseUpdate validates an update of a course.
func ValidateCourseUpdate(c, old *learn.Course) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, ValidateCourseSpec(&c.Spec, field.NewPath("spec"))...)
}

// ValidateCourseSpec checks that a course has a title and at least one lesson, each named by
// a valid namespace and lesson name, and none named twice.
func ValidateCourseSpec(spec *learn.CourseSpec, path *field.Path) field.ErrorList {
	errs := validateTitle(spec.Title, path.Child("title"), true)
	lessons := path.Child("lessons")
	if len(spec.Lessons) == 0 {
		errs = append(errs, field.Required(lessons, "a course has at least one lesson"))
	}
	seen := map[learn.CourseLesson]bool{}
	for i, l := range spec.Lessons {
		p := lessons.Index(i)
		if l.Namespace == "" {
			errs = append(errs, field.Required(p.Child("namespace"), ""))
		}
		for _, msg := range apivalidation.ValidateNamespaceName(l.Namespace, false) {
			if l.Namespace != "" {
				errs = append(errs, field.Invalid(p.Child("namespace"), l.Namespace, msg))
			}
		}
		if l.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		for _, msg := range ValidateLessonName(l.Name, false) {
			if l.Name != "" {
				errs = append(errs, field.Invalid(p.Child("name"), l.Name, msg))
			}
		}
		if seen[l] {
			errs = append(errs, field.Duplicate(p, l.Namespace+"/"+l.Name))
		}
		seen[l] = true
	}
	return errs
}

// ValidateAttempt validates a new attempt: its metadata, the lesson and step it names (a
// lesson name and a step name, both DNS labels) and the length of its answer. Attempts are
// never updated, so there is no ValidateAttemptUpdate.
func ValidateAttempt(a *learn.Attempt) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&a.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	for _, f := range []struct {
		name, value string
	}{{"lesson", a.Spec.Lesson}, {"step", a.Spec.Step}} {
		if f.value == "" {
			errs = append(errs, field.Required(spec.Child(f.name), ""))
			continue
		}
		for _, msg := range validation.IsDNS1123Label(f.value) {
			errs = append(errs, field.Invalid(spec.Child(f.name), f.value, msg))
		}
	}
	if utf8.RuneCountInString(a.Spec.Answer) > MaxAnswerLength {
		errs = append(errs, field.TooLongCharacters(spec.Child("answer"), a.Spec.Answer, MaxAnswerLength))
	}
	return errs
}
