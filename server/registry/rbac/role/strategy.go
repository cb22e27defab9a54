// Package role provides the REST storage of rbac.authorization.k8s.io/v1 roles.
package role

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubewalk/kubewalk/server/registry/internal/store"
	"github.com/kubewalk/kubewalk/server/registry/rbac/internal/policy"
)

// newStrategy returns the strategy of roles: namespaced; every rule has verbs and resources
// with API groups (no non-resource URLs).
func newStrategy(typer runtime.ObjectTyper) policy.RoleStrategy {
	return policy.NewRoleStrategy(typer, true)
}

var attrs = store.AttrFunc[*rbacv1.Role]("roles", true, nil)

// GetAttrs returns the labels of a role and its selectable fields: metadata.name and
// metadata.namespace.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }
