// Package rolebinding provides the REST storage of rbac.authorization.k8s.io/v1 rolebindings.
package rolebinding

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubewalk/kubewalk/server/registry/internal/store"
	"github.com/kubewalk/kubewalk/server/registry/rbac/internal/policy"
)

// newStrategy returns the strategy of rolebindings: namespaced; roleRef names a Role or a
// ClusterRole and never changes; subjects are Users, Groups or ServiceAccounts.
func newStrategy(typer runtime.ObjectTyper) policy.BindingStrategy {
	return policy.NewBindingStrategy(typer, true, "Role", "ClusterRole")
}

var attrs = store.AttrFunc[*rbacv1.RoleBinding]("rolebindings", true, nil)

// GetAttrs returns the labels of a rolebinding and its selectable fields: metadata.name and
// metadata.namespace.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }
