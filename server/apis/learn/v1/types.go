package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:method=GetStatus,verb=get,subresource=status
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Lesson is a lesson a learner works through. Its spec says what the lesson is: its title, its
// author and its steps. Its status says how far the learner has got; it is written through the
// status subresource (lessons/status), and updates of the lesson itself leave it alone.
// ---
// Its client tags: +genclient asks client-gen for the typed client (Create, Update,
// UpdateStatus — written because the type has a Status field —, Delete, DeleteCollection, Get,
// List, Watch, Patch), and lister-gen and informer-gen for its lister and informer. The method
// tag (method=GetStatus,verb=get,subresource=status) adds one method the defaults lack:
// GetStatus, a GET of lessons/status, which a controller that owns the status reads. v1alpha1's Lesson has no such tag, so its
// generated client has no GetStatus: compare the two LessonInterfaces under
// server/generated/clientset/versioned/typed/learn.
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

	// Author names who wrote the lesson. In v1alpha1 this field is called owner: v1 renamed it
	// because "owner" reads like metadata.ownerReferences, which means something else.
	// +optional
	Author string `json:"author,omitempty"`

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

// +genclient
// +genclient:nonNamespaced
// +genclient:skipVerbs=deleteCollection
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Course is an ordered list of lessons a learner takes one after the other. A course is not
// in a namespace (it is cluster-scoped, like a Namespace or a ClusterRole): one course may
// take lessons from several namespaces, so no one namespace could hold it.
// ---
// Its client tags: +genclient:nonNamespaced makes client-gen write LearnV1().Courses() with
// no namespace argument (and its lister has no Courses(namespace)), and skipVerbs (the tag
// skipVerbs=deleteCollection) leaves DeleteCollection out of the client, as
// k8s.io/api does for namespaces: the server does not serve deletecollection on courses
// either, so deleting every course takes one request per course.
type Course struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is what the course is.
	// +optional
	Spec CourseSpec `json:"spec,omitempty"`
}

// CourseSpec is what a course is.
type CourseSpec struct {
	// Title is the course's title as a learner sees it.
	// +required
	Title string `json:"title"`

	// Lessons are the course's lessons, in the order a learner takes them: at least one, each
	// named once. A lesson named here need not exist yet.
	// +listType=atomic
	Lessons []CourseLesson `json:"lessons"`
}

// CourseLesson names one lesson of a course.
type CourseLesson struct {
	// Namespace is the lesson's namespace.
	Namespace string `json:"namespace"`

	// Name is the lesson's name.
	Name string `json:"name"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CourseList is a list of courses.
type CourseList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the courses.
	Items []Course `json:"items"`
}

// +genclient
// +genclient:onlyVerbs=create,get,list,watch,delete
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Attempt records one try by a learner at one step of a lesson in the attempt's namespace.
// It is a record, like an Event: once written it is read, watched and deleted, never changed,
// so the server serves no update or patch of attempts (their storage has no Update method)
// and a changed answer is a new attempt.
// ---
// Its client tag: +genclient:onlyVerbs=create,get,list,watch,delete makes client-gen write
// exactly those five methods, the verbs the server serves, and nothing else: no Update, no
// Patch, no DeleteCollection. list and watch are among them, so lister-gen and informer-gen
// still write its lister and informer.
type Attempt struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is what was tried.
	// +optional
	Spec AttemptSpec `json:"spec,omitempty"`
}

// AttemptSpec is what was tried.
type AttemptSpec struct {
	// Lesson is the name of the lesson tried, in the attempt's namespace.
	// +required
	Lesson string `json:"lesson"`

	// Step is the name of the step tried, within the lesson.
	// +required
	Step string `json:"step"`

	// Answer is what the learner answered, at most 1024 characters.
	// +optional
	Answer string `json:"answer,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AttemptList is a list of attempts.
type AttemptList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the attempts.
	Items []Attempt `json:"items"`
}
