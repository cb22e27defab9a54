// Package clusterrole provides the REST storage of rbac.authorization.k8s.io/v1 clusterroles.
package clusterrole

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubewalk/kubewalk/server/registry/internal/store"
	"github.com/kubewalk/kubewalk/server/registry/rbac/internal/policy"
)

// newStrategy returns the strategy of clusterroles: cluster-scoped; every rule has verbs and
// either resources with API groups or non-resource URLs; an aggregation rule needs selectors.
// kubewalk runs no aggregation controller: an aggregated clusterrole keeps the rules it is
// written with.
func newStrategy(typer runtime.ObjectTyper) policy.RoleStrategy {
	return policy.NewRoleStrategy(typer, false)
}

var attrs = store.AttrFunc[*rbacv1.ClusterRole]("clusterroles", false, nil)

// GetAttrs returns the labels of a clusterrole and its selectable fields: metadata.name.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }
