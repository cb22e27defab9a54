// Package clusterrolebinding provides the REST storage of rbac.authorization.k8s.io/v1 clusterrolebindings.
package clusterrolebinding

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubewalk/kubewalk/server/registry/internal/store"
	"github.com/kubewalk/kubewalk/server/registry/rbac/internal/policy"
)

// newStrategy returns the strategy of clusterrolebindings: cluster-scoped; roleRef names a
// ClusterRole and never changes; subjects are Users, Groups or ServiceAccounts (with a namespace).
func newStrategy(typer runtime.ObjectTyper) policy.BindingStrategy {
	return policy.NewBindingStrategy(typer, false, "ClusterRole")
}

var attrs = store.AttrFunc[*rbacv1.ClusterRoleBinding]("clusterrolebindings", false, nil)

// GetAttrs returns the labels of a clusterrolebinding and its selectable fields: metadata.name.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }
