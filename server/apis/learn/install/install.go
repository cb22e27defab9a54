// Package install puts kubewalk's own API group, learn.kubewalk.io, in a scheme, as
// k8s.io/kubernetes pkg/apis/<group>/install does for each of kube-apiserver's groups.
package install

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubewalk/kubewalk/server/apis/learn"
	v1 "github.com/kubewalk/kubewalk/server/apis/learn/v1"
	"github.com/kubewalk/kubewalk/server/apis/learn/v1alpha1"
)

// Install adds the internal types, v1 and v1alpha1 (each with its defaulters and conversions)
// to scheme, and makes v1 the preferred version: the one discovery advertises first, kubectl
// uses when no version is named, and the storage factory picks as storage version.
func Install(scheme *runtime.Scheme) error {
	for _, add := range []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"internal", learn.AddToScheme},
		{v1.SchemeGroupVersion.String(), v1.AddToScheme},
		{v1alpha1.SchemeGroupVersion.String(), v1alpha1.AddToScheme},
	} {
		if err := add.fn(scheme); err != nil {
			return fmt.Errorf("install %s %s: %w", learn.GroupName, add.name, err)
		}
	}
	if err := scheme.SetVersionPriority(v1.SchemeGroupVersion, v1alpha1.SchemeGroupVersion); err != nil {
		return fmt.Errorf("install %s: version priority: %w", learn.GroupName, err)
	}
	return nil
}
