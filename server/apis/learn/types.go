package learn

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Lesson is the internal form of a lesson: what every version (v1alpha1, v1) is converted to
// when a request arrives and from when a response or the stored object is written. Its spec is
// what the lesson is, written by whoever writes the lesson; its status is how far a learner has
// got, written through the lessons/status subresource.
type Lesson struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec   LessonSpec
	Status LessonStatus
}

// LessonSpec is what a lesson is.
type LessonSpec struct {
	// Title is the lesson's title as a learner sees it.
	Title string
	// Author names who wrote the lesson: v1's spec.author, v1alpha1's spec.owner.
	Author string
	// Level is how much the lesson expects of a learner.
	Level LessonLevel
	// Steps are the lesson's steps, in order.
	Steps []LessonStep
}

// LessonLevel is how much a lesson expects of a learner.
type LessonLevel string

// The levels a lesson may have.
const (
	LevelBeginner     LessonLevel = "Beginner"
	LevelIntermediate LessonLevel = "Intermediate"
	LevelAdvanced     LessonLevel = "Advanced"
)

// LessonStep is one step of a lesson.
type LessonStep struct {
	// Name identifies the step within its lesson.
	Name string
	// Title says what the step is about.
	Title string
}

// LessonStatus is how far a learner has got with a lesson.
type LessonStatus struct {
	// CompletedSteps is how many of the steps, from the first, are done.
	CompletedSteps int32
	// ObservedGeneration is the metadata.generation of the spec this status was written for.
	ObservedGeneration int64
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// LessonList is a list of lessons.
type LessonList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []Lesson
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Course is the internal form of a course: a cluster-scoped, ordered list of lessons, which
// may live in different namespaces. It has a spec and no status.
type Course struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec CourseSpec
}

// CourseSpec is what a course is.
type CourseSpec struct {
	// Title is the course's title as a learner sees it.
	Title string
	// Lessons are the course's lessons, in the order a learner takes them.
	Lessons []CourseLesson
}

// CourseLesson names one lesson of a course.
type CourseLesson struct {
	// Namespace is the lesson's namespace.
	Namespace string
	// Name is the lesson's name.
	Name string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CourseList is a list of courses.
type CourseList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []Course
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Attempt is the internal form of an attempt: one learner's try at one step of a lesson in the
// attempt's namespace. It is a record: written once, read, and deleted, never changed.
type Attempt struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec AttemptSpec
}

// AttemptSpec is what was tried.
type AttemptSpec struct {
	// Lesson is the name of the lesson, in the attempt's namespace.
	Lesson string
	// Step is the name of the step within the lesson.
	Step string
	// Answer is what the learner answered.
	Answer string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AttemptList is a list of attempts.
type AttemptList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []Attempt
}
