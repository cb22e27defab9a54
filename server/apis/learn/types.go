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
