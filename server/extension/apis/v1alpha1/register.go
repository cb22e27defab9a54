package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the extension server's API group.
const GroupName = "extension.learn.kubewalk.io"

// SchemeGroupVersion is the one version the extension server serves.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

// Resource is the group resource of callers.
var Resource = SchemeGroupVersion.WithResource("callers").GroupResource()

// AddToScheme registers the types at v1alpha1 and, the same Go types, as the internal version,
// with the meta types a server needs for its options and status.
func AddToScheme(scheme *runtime.Scheme) error {
	for _, gv := range []schema.GroupVersion{SchemeGroupVersion, {Group: GroupName, Version: runtime.APIVersionInternal}} {
		scheme.AddKnownTypes(gv, &Caller{}, &CallerList{})
	}
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
