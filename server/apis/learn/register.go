package learn

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the name of kubewalk's own API group.
const GroupName = "learn.kubewalk.io"

// SchemeGroupVersion is the group's internal version, "__internal": the version of the types
// in this package, which never leave the server.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: runtime.APIVersionInternal}

// Kind takes an unqualified kind and returns it qualified with the group.
func Kind(kind string) schema.GroupKind {
	return SchemeGroupVersion.WithKind(kind).GroupKind()
}

// Resource takes an unqualified resource and returns it qualified with the group.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

var (
	// SchemeBuilder collects the functions that add this package's types to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds the internal types of the group to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers the internal kinds. Unlike the versioned packages it adds no meta
// types (ListOptions, WatchEvent, ...): those exist only in versions.
func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&Lesson{},
		&LessonList{},
		&Course{},
		&CourseList{},
		&Attempt{},
		&AttemptList{},
	)
	return nil
}
