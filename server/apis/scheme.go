// Package apis builds the runtime.Scheme and codecs for the API groups kubewalk serves.
//
// kubewalk serves the published k8s.io/api types directly. kube-apiserver keeps separate
// internal Go types (k8s.io/kubernetes/pkg/apis/core) and converts every request between the
// wire version and the internal version; we have no second set of types, so each external type
// is also registered under the group's internal version. The scheme then finds the object is
// already in the target version and only sets its kind, so no conversion functions are needed.
//
// One group is the exception: kubewalk's own learn.kubewalk.io (package learn and its version
// packages) has internal types, two versions and generated conversions, as kube-apiserver's
// groups do; learninstall.Install adds it.
package apis

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	learninstall "github.com/kubewalk/kubewalk/server/apis/learn/install"
)

// Group versions served by kubewalk, in install order.
var (
	CoreV1           = corev1.SchemeGroupVersion
	RBACV1           = rbacv1.SchemeGroupVersion
	AuthorizationV1  = authorizationv1.SchemeGroupVersion
	AuthenticationV1 = authenticationv1.SchemeGroupVersion
	AppsV1           = appsv1.SchemeGroupVersion
	// AutoscalingV1 is not served as a group: its Scale kind is what deployments/scale
	// reads and writes, as in kube-apiserver.
	AutoscalingV1 = autoscalingv1.SchemeGroupVersion
)

// Scheme bundles a scheme with the codec factory and parameter codec built from it.
type Scheme struct {
	*runtime.Scheme
	Codecs         serializer.CodecFactory
	ParameterCodec runtime.ParameterCodec
}

// NewScheme returns a fresh scheme holding core/v1, rbac/v1, authorization/v1,
// authentication/v1, apps/v1 and autoscaling/v1, each also registered as its group's internal
// version, kubewalk's own learn.kubewalk.io group (internal, v1 and v1alpha1), the meta types
// the generic API server needs and the field label conversions that field selectors use.
func NewScheme() (*Scheme, error) {
	s := runtime.NewScheme()
	builders := []struct {
		gv  schema.GroupVersion
		add func(*runtime.Scheme) error
	}{
		{CoreV1, corev1.AddToScheme},
		{RBACV1, rbacv1.AddToScheme},
		{AuthorizationV1, authorizationv1.AddToScheme},
		{AuthenticationV1, authenticationv1.AddToScheme},
		{AppsV1, appsv1.AddToScheme},
		{AutoscalingV1, autoscalingv1.AddToScheme},
	}
	for _, b := range builders {
		if err := b.add(s); err != nil {
			return nil, fmt.Errorf("scheme: add %s: %w", b.gv, err)
		}
		internal := schema.GroupVersion{Group: b.gv.Group, Version: runtime.APIVersionInternal}
		for kind, typ := range s.KnownTypes(b.gv) {
			if isMetaKind(kind) {
				continue
			}
			obj, ok := newObject(typ)
			if !ok {
				continue
			}
			s.AddKnownTypeWithName(internal.WithKind(kind), obj)
		}
	}
	// The generic server decodes list/get/watch options as meta/v1 in the "" group, and
	// discovery writes these unversioned types.
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	s.AddUnversionedTypes(schema.GroupVersion{Version: "v1"},
		&metav1.Status{},
		&metav1.APIVersions{},
		&metav1.APIGroupList{},
		&metav1.APIGroup{},
		&metav1.APIResourceList{},
	)
	if err := addFieldLabelConversions(s); err != nil {
		return nil, fmt.Errorf("scheme: field labels: %w", err)
	}
	if err := learninstall.Install(s); err != nil {
		return nil, fmt.Errorf("scheme: %w", err)
	}
	addDefaulters(s)
	for _, gv := range []schema.GroupVersion{CoreV1, RBACV1, AuthorizationV1, AuthenticationV1, AppsV1, AutoscalingV1} {
		if err := s.SetVersionPriority(gv); err != nil {
			return nil, fmt.Errorf("scheme: version priority %s: %w", gv, err)
		}
	}
	return &Scheme{
		Scheme:         s,
		Codecs:         serializer.NewCodecFactory(s),
		ParameterCodec: runtime.NewParameterCodec(s),
	}, nil
}

// isMetaKind reports kinds every group version carries (options, status, watch events): they
// stay versioned only, as upstream registers them.
func isMetaKind(kind string) bool {
	switch kind {
	case "Status", "WatchEvent", "ListOptions", "GetOptions", "DeleteOptions", "CreateOptions",
		"UpdateOptions", "PatchOptions":
		return true
	}
	return false
}
