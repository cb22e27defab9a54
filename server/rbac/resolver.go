package rbac

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
)

// RuleSource describes where a rule visited by Resolver.VisitRulesFor comes from: the binding,
// the role it references and the subject of the binding that matched the user. Its String form
// reads like `RoleBinding "alice-configmaps/default" of Role "configmap-editor" to User "alice"`.
type RuleSource struct {
	// BindingKind is "ClusterRoleBinding" or "RoleBinding".
	BindingKind string
	// BindingNamespace is empty for a ClusterRoleBinding.
	BindingNamespace string
	BindingName      string
	// RoleRef is the role the binding grants.
	RoleRef rbacv1.RoleRef
	// Subject is the first subject of the binding that matched the user.
	Subject rbacv1.Subject
}

// String describes the source for authorization reasons and error messages.
func (s RuleSource) String() string {
	binding := s.BindingName
	if s.BindingNamespace != "" {
		binding = s.BindingName + "/" + s.BindingNamespace
	}
	subject := s.Subject.Name
	if s.Subject.Kind == rbacv1.ServiceAccountKind {
		ns := s.Subject.Namespace
		if ns == "" {
			ns = s.BindingNamespace
		}
		subject = s.Subject.Name + "/" + ns
	}
	return fmt.Sprintf("%s %q of %s %q to %s %q", s.BindingKind, binding, s.RoleRef.Kind, s.RoleRef.Name, s.Subject.Kind, subject)
}

// RuleVisitor is called by Resolver.VisitRulesFor for each rule granted to a user, with the
// rule's source, and for each error met while resolving rules, with a nil source and rule.
// Returning false stops the walk.
type RuleVisitor func(source *RuleSource, rule *rbacv1.PolicyRule, err error) bool

// Resolver finds the PolicyRules that RoleBindings and ClusterRoleBindings grant a user. It
// reads everything through client-go listers, which the server fills from informers.
//
// ClusterRole aggregationRule is not supported: the resolver uses the rules stored in a
// ClusterRole as they are, and kubewalk runs no controller that would fill in the rules of an
// aggregated ClusterRole from the ClusterRoles its selectors match.
type Resolver struct {
	roles               rbaclisters.RoleLister
	roleBindings        rbaclisters.RoleBindingLister
	clusterRoles        rbaclisters.ClusterRoleLister
	clusterRoleBindings rbaclisters.ClusterRoleBindingLister
}

// NewResolver returns a Resolver reading from the given listers.
func NewResolver(roles rbaclisters.RoleLister, roleBindings rbaclisters.RoleBindingLister, clusterRoles rbaclisters.ClusterRoleLister, clusterRoleBindings rbaclisters.ClusterRoleBindingLister) *Resolver {
	return &Resolver{
		roles:               roles,
		roleBindings:        roleBindings,
		clusterRoles:        clusterRoles,
		clusterRoleBindings: clusterRoleBindings,
	}
}

// RulesFor returns the rules granted to u in namespace: first those of the ClusterRoleBindings
// that name u, then those of the RoleBindings in namespace that name u (none when namespace is
// empty). Rules are purely additive, so when some could not be resolved (for example a binding
// references a missing role) RulesFor returns every rule it did resolve together with an
// aggregate of the errors. The rules share memory with the listers' cache and must not be
// modified.
func (r *Resolver) RulesFor(ctx context.Context, u user.Info, namespace string) ([]rbacv1.PolicyRule, error) {
	var rules []rbacv1.PolicyRule
	var errs []error
	r.VisitRulesFor(ctx, u, namespace, func(_ *RuleSource, rule *rbacv1.PolicyRule, err error) bool {
		if rule != nil {
			rules = append(rules, *rule)
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	return rules, utilerrors.NewAggregate(errs)
}

// VisitRulesFor calls visit with each rule granted to u in namespace, in the order RulesFor
// returns them, and with each error met on the way; it stops as soon as visit returns false.
// Bindings are visited sorted by name so results do not depend on the order of the cache.
func (r *Resolver) VisitRulesFor(ctx context.Context, u user.Info, namespace string, visit RuleVisitor) {
	if u == nil {
		return
	}
	crbs, err := r.clusterRoleBindings.List(labels.Everything())
	if err != nil {
		if !visit(nil, nil, fmt.Errorf("listing ClusterRoleBindings: %w", err)) {
			return
		}
	} else {
		slices.SortFunc(crbs, func(a, b *rbacv1.ClusterRoleBinding) int { return cmp.Compare(a.Name, b.Name) })
		for _, b := range crbs {
			subject, ok := matchingSubject(u, b.Subjects, "")
			if !ok {
				continue
			}
			source := &RuleSource{BindingKind: "ClusterRoleBinding", BindingName: b.Name, RoleRef: b.RoleRef, Subject: subject}
			if !r.visitRoleRules(ctx, source, visit) {
				return
			}
		}
	}

	if namespace == "" {
		return
	}
	rbs, err := r.roleBindings.RoleBindings(namespace).List(labels.Everything())
	if err != nil {
		visit(nil, nil, fmt.Errorf("listing RoleBindings in namespace %q: %w", namespace, err))
		return
	}
	slices.SortFunc(rbs, func(a, b *rbacv1.RoleBinding) int { return cmp.Compare(a.Name, b.Name) })
	for _, b := range rbs {
		subject, ok := matchingSubject(u, b.Subjects, namespace)
		if !ok {
			continue
		}
		source := &RuleSource{BindingKind: "RoleBinding", BindingNamespace: namespace, BindingName: b.Name, RoleRef: b.RoleRef, Subject: subject}
		if !r.visitRoleRules(ctx, source, visit) {
			return
		}
	}
}

// visitRoleRules visits the rules of the role that source's binding references and reports
// whether the walk goes on.
func (r *Resolver) visitRoleRules(ctx context.Context, source *RuleSource, visit RuleVisitor) bool {
	rules, err := r.RoleRefRules(ctx, source.RoleRef, source.BindingNamespace)
	if err != nil {
		binding := source.BindingName
		if source.BindingNamespace != "" {
			binding = source.BindingName + "/" + source.BindingNamespace
		}
		return visit(nil, nil, fmt.Errorf("%s %q: %w", source.BindingKind, binding, err))
	}
	for i := range rules {
		if !visit(source, &rules[i], nil) {
			return false
		}
	}
	return true
}

// RoleRefRules returns the rules of the role a binding references. bindingNamespace is the
// namespace of a RoleBinding, where a referenced Role lives, and empty for a
// ClusterRoleBinding. A missing role yields the lister's NotFound error.
func (r *Resolver) RoleRefRules(_ context.Context, ref rbacv1.RoleRef, bindingNamespace string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		if bindingNamespace == "" {
			return nil, fmt.Errorf("role reference to Role %q needs a namespace", ref.Name)
		}
		role, err := r.roles.Roles(bindingNamespace).Get(ref.Name)
		if err != nil {
			return nil, err
		}
		return role.Rules, nil
	case "ClusterRole":
		role, err := r.clusterRoles.Get(ref.Name)
		if err != nil {
			return nil, err
		}
		return role.Rules, nil
	default:
		return nil, fmt.Errorf("unsupported role reference kind %q", ref.Kind)
	}
}

// matchingSubject returns the first of subjects that names u. namespace is the namespace of
// the binding; it is the default namespace of ServiceAccount subjects that give none.
func matchingSubject(u user.Info, subjects []rbacv1.Subject, namespace string) (rbacv1.Subject, bool) {
	for _, s := range subjects {
		if subjectMatches(u, s, namespace) {
			return s, true
		}
	}
	return rbacv1.Subject{}, false
}

func subjectMatches(u user.Info, s rbacv1.Subject, namespace string) bool {
	switch s.Kind {
	case rbacv1.UserKind:
		return u.GetName() == s.Name
	case rbacv1.GroupKind:
		return slices.Contains(u.GetGroups(), s.Name)
	case rbacv1.ServiceAccountKind:
		ns := s.Namespace
		if ns == "" {
			ns = namespace
		}
		return ns != "" && serviceaccount.MatchesUsername(ns, s.Name, u.GetName())
	default:
		return false
	}
}
