// Package policy holds what the four RBAC resources share: the role strategy (roles and
// clusterroles), the binding strategy (rolebindings and clusterrolebindings), their tables,
// and the validation of rules, role references and subjects.
package policy

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// role is the view of a Role or ClusterRole the shared code works on.
type role struct {
	meta        *metav1.ObjectMeta
	rules       []rbacv1.PolicyRule
	aggregation *rbacv1.AggregationRule
}

func asRole(obj runtime.Object) role {
	switch r := obj.(type) {
	case *rbacv1.Role:
		return role{&r.ObjectMeta, r.Rules, nil}
	case *rbacv1.ClusterRole:
		return role{&r.ObjectMeta, r.Rules, r.AggregationRule}
	}
	panic(fmt.Sprintf("policy: %T is not a Role or ClusterRole", obj))
}

// binding is the view of a RoleBinding or ClusterRoleBinding the shared code works on.
type binding struct {
	meta     *metav1.ObjectMeta
	roleRef  *rbacv1.RoleRef
	subjects []rbacv1.Subject
}

func asBinding(obj runtime.Object) binding {
	switch b := obj.(type) {
	case *rbacv1.RoleBinding:
		return binding{&b.ObjectMeta, &b.RoleRef, b.Subjects}
	case *rbacv1.ClusterRoleBinding:
		return binding{&b.ObjectMeta, &b.RoleRef, b.Subjects}
	}
	panic(fmt.Sprintf("policy: %T is not a RoleBinding or ClusterRoleBinding", obj))
}

// RoleStrategy implements create, update and delete behaviour for roles (namespaced) and
// clusterroles: names are path segments, every rule has verbs and either resources or, for
// clusterroles only, non-resource URLs.
type RoleStrategy struct {
	store.BaseStrategy
	namespaced bool
}

var _ store.Strategy = RoleStrategy{}

// NewRoleStrategy returns the strategy of roles (namespaced) or clusterroles.
func NewRoleStrategy(typer runtime.ObjectTyper, namespaced bool) RoleStrategy {
	return RoleStrategy{BaseStrategy: store.NewBaseStrategy(typer), namespaced: namespaced}
}

// NamespaceScoped reports whether the strategy is for roles rather than clusterroles.
func (s RoleStrategy) NamespaceScoped() bool { return s.namespaced }

// PrepareForCreate does nothing: roles have no status or server-owned fields.
func (RoleStrategy) PrepareForCreate(context.Context, runtime.Object) {}

// PrepareForUpdate does nothing: every field of a role is user-owned.
func (RoleStrategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

// Validate validates a new role.
func (s RoleStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return s.validate(asRole(obj))
}

// ValidateUpdate validates an updated role.
func (s RoleStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	r := asRole(obj)
	errs := apivalidation.ValidateObjectMetaUpdate(r.meta, asRole(old).meta, field.NewPath("metadata"))
	return append(errs, s.validate(r)...)
}

func (s RoleStrategy) validate(r role) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(r.meta, s.namespaced, RBACName, field.NewPath("metadata"))
	errs = append(errs, PolicyRules(r.rules, s.namespaced, field.NewPath("rules"))...)
	return append(errs, AggregationRule(r.aggregation, field.NewPath("aggregationRule"))...)
}

// BindingStrategy implements create, update and delete behaviour for rolebindings
// (namespaced) and clusterrolebindings: a valid role reference to one of the allowed role
// kinds, which never changes, and valid subjects.
type BindingStrategy struct {
	store.BaseStrategy
	namespaced bool
	roleKinds  []string
}

var _ store.Strategy = BindingStrategy{}

// NewBindingStrategy returns the strategy of rolebindings (namespaced) or
// clusterrolebindings, whose roleRef may name the given kinds.
func NewBindingStrategy(typer runtime.ObjectTyper, namespaced bool, roleKinds ...string) BindingStrategy {
	return BindingStrategy{BaseStrategy: store.NewBaseStrategy(typer), namespaced: namespaced, roleKinds: roleKinds}
}

// NamespaceScoped reports whether the strategy is for rolebindings rather than
// clusterrolebindings.
func (s BindingStrategy) NamespaceScoped() bool { return s.namespaced }

// PrepareForCreate applies the rbac/v1 defaults (the API groups of the role reference and of
// User and Group subjects). The scheme has applied them when it decoded the request; this
// covers objects handed to the store without decoding.
func (BindingStrategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	defaultBinding(obj)
}

// PrepareForUpdate applies the rbac/v1 defaults like PrepareForCreate.
func (BindingStrategy) PrepareForUpdate(_ context.Context, obj, _ runtime.Object) {
	defaultBinding(obj)
}

func defaultBinding(obj runtime.Object) {
	switch b := obj.(type) {
	case *rbacv1.RoleBinding:
		apis.DefaultRoleBinding(b)
	case *rbacv1.ClusterRoleBinding:
		apis.DefaultClusterRoleBinding(b)
	}
}

// Validate validates a new binding.
func (s BindingStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return s.validate(asBinding(obj))
}

// ValidateUpdate validates an updated binding: its roleRef is immutable.
func (s BindingStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	b, oldB := asBinding(obj), asBinding(old)
	errs := apivalidation.ValidateObjectMetaUpdate(b.meta, oldB.meta, field.NewPath("metadata"))
	errs = append(errs, RoleRefUpdate(*b.roleRef, *oldB.roleRef, field.NewPath("roleRef"))...)
	return append(errs, s.validate(b)...)
}

func (s BindingStrategy) validate(b binding) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(b.meta, s.namespaced, RBACName, field.NewPath("metadata"))
	errs = append(errs, RoleRef(*b.roleRef, s.roleKinds, field.NewPath("roleRef"))...)
	return append(errs, Subjects(b.subjects, s.namespaced, field.NewPath("subjects"))...)
}
