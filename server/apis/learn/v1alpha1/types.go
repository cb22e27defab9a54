package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Lesson is a lesson a learner works through. Its spec says what the lesson is: its title, its
// author and its steps. Its status says how far the learner has got; it is written through the
// status subresource (lessons/status), and updates of the lesson itself leave it alone.
// ---
// Its only client tag is +genclient, so client-gen writes the default methods and no more; v1's
// Lesson adds a GetStatus method with a method tag. The version is kept for old clients: the
// kinds added later (Course, Attempt) exist only in v1.
type Lesson struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is what the lesson is.
	// +optional
	Spec LessonSpec `json:"spec,omitempty"`

	// Status is how far the learner has got. It is written through the status subresource.
	// +optional
	Status LessonStatus `json:"status,omitempty"`
}

// LessonSpec is what a lesson is.
type LessonSpec struct {
	// Title is the lesson's title as a learner sees it.
	// +required
	Title string `json:"title"`

	// Owner names who wrote the lesson. v1 renamed this field to author, because "owner" reads
	// like metadata.ownerReferences, which means something else; the server converts one to
	// the other.
	// +optional
	Owner string `json:"owner,omitempty"`

	// Level is how much the lesson expects of a learner: Beginner, Intermediate or Advanced.
	// Defaults to Beginner.
	// +optional
	Level LessonLevel `json:"level,omitempty"`

	// Steps are the lesson's steps, in order. A lesson has at least one step, and each step's
	// name is unique within the lesson.
	// +listType=map
	// +listMapKey=name
	Steps []LessonStep `json:"steps"`
}

// LessonLevel is how much a lesson expects of a learner.
// +enum
type LessonLevel string

// The levels a lesson may have.
const (
	// LevelBeginner expects nothing.
	LevelBeginner LessonLevel = "Beginner"
	// LevelIntermediate expects the beginner lessons.
	LevelIntermediate LessonLevel = "Intermediate"
	// LevelAdvanced expects the intermediate lessons.
	LevelAdvanced LessonLevel = "Advanced"
)

// LessonStep is one step of a lesson.
type LessonStep struct {
	// Name identifies the step within its lesson: lowercase letters, digits and '-', at most
	// 63 characters (a DNS label).
	Name string `json:"name"`

	// Title says what the step is about.
	// +optional
	Title string `json:"title,omitempty"`
}

// LessonStatus is how far a learner has got with a lesson.
type LessonStatus struct {
	// CompletedSteps is how many of the lesson's steps, from the first, are done: between 0
	// and the number of steps.
	// +optional
	CompletedSteps int32 `json:"completedSteps,omitempty"`

	// ObservedGeneration is the metadata.generation of the spec this status was written for.
	// The server bumps metadata.generation on every change of the spec; a status whose
	// observedGeneration is lower describes an older spec.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// LessonList is a list of lessons.
type LessonList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the lessons.
	Items []Lesson `json:"items"`
}
