package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the name of kubewalk's own API group.
const GroupName = "learn.kubewalk.io"

// SchemeGroupVersion is learn.kubewalk.io/v1.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}

// Resource takes an unqualified resource and returns it qualified with the group.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

var (
	// SchemeBuilder collects the functions that add this version to a scheme: its types
	// here, its defaulters (defaults.go) and, from the generated zz_generated.conversion.go,
	// its conversions.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes, addDefaultingFuncs)
	// localSchemeBuilder is the name the generated conversion file registers with.
	localSchemeBuilder = &SchemeBuilder
	// AddToScheme adds learn.kubewalk.io/v1 to a scheme.
	AddToScheme = localSchemeBuilder.AddToScheme
)

// addKnownTypes registers v1's kinds, and the meta types (ListOptions, WatchEvent, ...) every
// served version carries.
func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&Lesson{},
		&LessonList{},
		&Course{},
		&CourseList{},
		&Attempt{},
		&AttemptList{},
	)
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
