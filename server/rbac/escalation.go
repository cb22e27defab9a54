package rbac

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/component-helpers/auth/rbac/validation"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubewalk/kubewalk/server/apis"
)

// PolicyRuleResolver resolves the rules that escalation checks compare: those a user holds and
// those a role grants. *Resolver implements it.
type PolicyRuleResolver interface {
	// RulesFor returns the rules u holds in namespace (cluster-wide ones only when namespace is
	// empty). It may return an error with the rules it could resolve.
	RulesFor(ctx context.Context, u user.Info, namespace string) ([]rbacv1.PolicyRule, error)
	// RoleRefRules returns the rules of the role ref points to, bindingNamespace being the
	// namespace of the RoleBinding or empty for a ClusterRoleBinding.
	RoleRefRules(ctx context.Context, ref rbacv1.RoleRef, bindingNamespace string) ([]rbacv1.PolicyRule, error)
}

var _ PolicyRuleResolver = (*Resolver)(nil)

// fullAuthority is what cluster-admin holds. Setting a ClusterRole's aggregationRule requires
// it, since an aggregated role may gather any rule.
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{rbacv1.VerbAll}, APIGroups: []string{rbacv1.APIGroupAll}, Resources: []string{rbacv1.ResourceAll}},
	{Verbs: []string{rbacv1.VerbAll}, NonResourceURLs: []string{rbacv1.NonResourceAll}},
}

// EscalationStorage decorates the storage of roles, clusterroles, rolebindings or
// clusterrolebindings so that nobody can grant through RBAC permissions that they do not hold
// themselves, as kube-apiserver does. Create and Update are checked; every other verb goes
// straight to the decorated storage.
//
// EscalationStorage keeps the interfaces of the decorated storage that the genericapiserver
// installer looks for. rest.TableConvertor is part of rest.StandardStorage and comes with the
// embedding. The optional ones (rest.Scoper, rest.SingularNameProvider,
// rest.ResetFieldsStrategy, rest.StorageVersionProvider, rest.StorageWithReadiness,
// rest.MayReturnFullObjectDeleter, rest.CorruptObjectDeleterProvider) are forwarded to the
// decorated storage when it implements them; otherwise EscalationStorage answers as if the
// interface were missing, except for scope and singular name, which it derives from the
// resource.
type EscalationStorage struct {
	rest.StandardStorage

	resource   schema.GroupResource
	namespaced bool
	authz      authorizer.UnconditionalAuthorizer
	rules      PolicyRuleResolver
}

var (
	_ rest.StandardStorage              = (*EscalationStorage)(nil)
	_ rest.Scoper                       = (*EscalationStorage)(nil)
	_ rest.TableConvertor               = (*EscalationStorage)(nil)
	_ rest.SingularNameProvider         = (*EscalationStorage)(nil)
	_ rest.ResetFieldsStrategy          = (*EscalationStorage)(nil)
	_ rest.StorageVersionProvider       = (*EscalationStorage)(nil)
	_ rest.StorageWithReadiness         = (*EscalationStorage)(nil)
	_ rest.MayReturnFullObjectDeleter   = (*EscalationStorage)(nil)
	_ rest.CorruptObjectDeleterProvider = (*EscalationStorage)(nil)
	_ rest.Patcher                      = (*EscalationStorage)(nil)
)

// NewRoleEscalationStorage decorates s, the storage of gr, which must be
// rbac.authorization.k8s.io roles or clusterroles (it panics otherwise). A Role or ClusterRole
// may be created or updated by a member of system:masters, by a user that authz allows the
// verb "escalate" on that resource in that namespace (and, for an update, on that name: a
// create request carries none), or by a user who already holds, according to rules, every
// rule the role grants: in the role's namespace for a Role, cluster-wide for a ClusterRole.
// Setting, changing or removing a ClusterRole's aggregationRule requires holding
// cluster-admin's rules. Anyone else gets a Forbidden error listing the missing permissions.
func NewRoleEscalationStorage(s rest.StandardStorage, authz authorizer.UnconditionalAuthorizer, rules PolicyRuleResolver, gr schema.GroupResource) *EscalationStorage {
	return newEscalationStorage(s, authz, rules, gr, false)
}

// NewBindingEscalationStorage decorates s, the storage of gr, which must be
// rbac.authorization.k8s.io rolebindings or clusterrolebindings (it panics otherwise). A
// RoleBinding or ClusterRoleBinding may be created or updated by a member of system:masters,
// by a user that authz allows the verb "bind" on the referenced role (resource roles or
// clusterroles, named like roleRef, in the binding's namespace or cluster-wide), or by a user
// who already holds, according to rules, every rule of the referenced role where the binding
// applies. Anyone else gets a Forbidden error listing the missing permissions; a binding to a
// role that does not exist gets the NotFound error of the role lookup.
func NewBindingEscalationStorage(s rest.StandardStorage, authz authorizer.UnconditionalAuthorizer, rules PolicyRuleResolver, gr schema.GroupResource) *EscalationStorage {
	return newEscalationStorage(s, authz, rules, gr, true)
}

func newEscalationStorage(s rest.StandardStorage, authz authorizer.UnconditionalAuthorizer, rules PolicyRuleResolver, gr schema.GroupResource, binding bool) *EscalationStorage {
	want := map[bool][2]string{false: {"roles", "clusterroles"}, true: {"rolebindings", "clusterrolebindings"}}[binding]
	if gr.Group != rbacv1.GroupName || (gr.Resource != want[0] && gr.Resource != want[1]) {
		panic(fmt.Sprintf("rbac: escalation storage for %s: want %s or %s in group %s", gr, want[0], want[1], rbacv1.GroupName))
	}
	return &EscalationStorage{
		StandardStorage: s,
		resource:        gr,
		namespaced:      gr.Resource == want[0],
		authz:           authz,
		rules:           rules,
	}
}

// Create checks that the requesting user may grant what obj grants, then creates it.
//
// A create request names no object (the name is in the body, not the URL), so the "escalate"
// check is made without a name, as upstream's RoleEscalationAuthorized does with
// requestInfo.Name, empty on POST: "escalate" limited by resourceNames never allows a create.
func (s *EscalationStorage) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	if !isPrivileged(ctx) {
		if err := s.checkGrant(ctx, "", obj, nil); err != nil {
			return nil, err
		}
	}
	return s.StandardStorage.Create(ctx, obj, createValidation, options)
}

// Update checks that the requesting user may grant what the updated object grants, then
// updates it. The "escalate" check is made on name, the object the request names. Updates
// that only change finalizers, owner references or managed fields (as the garbage collector
// does) are not checked. Adding, changing or removing a ClusterRole's aggregationRule needs
// cluster-admin's rules, as upstream requires: the old object is looked at too.
func (s *EscalationStorage) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	if isPrivileged(ctx) {
		return s.StandardStorage.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, options)
	}
	checked := rest.WrapUpdatedObjectInfo(objInfo, func(ctx context.Context, obj, old runtime.Object) (runtime.Object, error) {
		if onlyGCFieldsChanged(obj, old) {
			return obj, nil
		}
		if err := s.checkGrant(ctx, name, obj, old); err != nil {
			return nil, err
		}
		return obj, nil
	})
	return s.StandardStorage.Update(ctx, name, checked, createValidation, updateValidation, forceAllowCreate, options)
}

// checkGrant returns nil when the requesting user may write obj, replacing old (nil on
// create). requestName is the name the request's URL gives: empty on create.
func (s *EscalationStorage) checkGrant(ctx context.Context, requestName string, obj, old runtime.Object) error {
	name := requestName
	if m, err := meta.Accessor(obj); err == nil && m.GetName() != "" {
		name = m.GetName()
	}
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return apierrors.NewForbidden(s.resource, name, errors.New("no user on the request"))
	}
	namespace := ""
	if s.namespaced {
		namespace, _ = genericapirequest.NamespaceFrom(ctx)
		if namespace == "" {
			if m, err := meta.Accessor(obj); err == nil {
				namespace = m.GetNamespace()
			}
		}
		if namespace == "" {
			return apierrors.NewBadRequest("namespace is required")
		}
	}

	var granted []rbacv1.PolicyRule
	switch o := obj.(type) {
	case *rbacv1.Role:
		if s.allowed(ctx, u, "escalate", s.resource, namespace, requestName) {
			return nil
		}
		granted = o.Rules
	case *rbacv1.ClusterRole:
		if s.allowed(ctx, u, "escalate", s.resource, namespace, requestName) {
			return nil
		}
		oldRole, _ := old.(*rbacv1.ClusterRole)
		if hasAggregationRule(o) || hasAggregationRule(oldRole) {
			if err := s.confirmHeld(ctx, u, namespace, fullAuthority); err != nil {
				return apierrors.NewForbidden(s.resource, name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
			}
		}
		granted = o.Rules
	// The scheme defaults bindings when it decodes them, so roleRef.apiGroup is set by now.
	// Check a defaulted copy all the same: an empty group must never reach the bind check,
	// where it would ask for "bind" on clusterroles of the core group, which a user holding
	// every verb on the core group's resources has.
	case *rbacv1.RoleBinding:
		b := o.DeepCopy()
		apis.DefaultRoleBinding(b)
		return s.checkBinding(ctx, u, name, namespace, b.RoleRef)
	case *rbacv1.ClusterRoleBinding:
		b := o.DeepCopy()
		apis.DefaultClusterRoleBinding(b)
		return s.checkBinding(ctx, u, name, namespace, b.RoleRef)
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("not a %s object: %T", s.resource, obj))
	}
	if err := s.confirmHeld(ctx, u, namespace, granted); err != nil {
		return apierrors.NewForbidden(s.resource, name, err)
	}
	return nil
}

// hasAggregationRule reports whether r aggregates other ClusterRoles, as upstream's
// clusterrole policybased storage tests it.
func hasAggregationRule(r *rbacv1.ClusterRole) bool {
	return r != nil && r.AggregationRule != nil && len(r.AggregationRule.ClusterRoleSelectors) > 0
}

// checkBinding returns nil when u may write the binding name in namespace (empty for a
// ClusterRoleBinding), which grants the role ref points to.
func (s *EscalationStorage) checkBinding(ctx context.Context, u user.Info, name, namespace string, ref rbacv1.RoleRef) error {
	if roleResource, ok := boundResource(ref); ok && s.allowed(ctx, u, "bind", roleResource, namespace, ref.Name) {
		return nil
	}
	granted, err := s.rules.RoleRefRules(ctx, ref, namespace)
	if err != nil {
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			return err
		}
		return apierrors.NewForbidden(s.resource, name, fmt.Errorf("cannot resolve roleRef: %w", err))
	}
	if err := s.confirmHeld(ctx, u, namespace, granted); err != nil {
		return apierrors.NewForbidden(s.resource, name, err)
	}
	return nil
}

// boundResource returns the resource a binding's roleRef points to, for the "bind" check.
// Only roles and clusterroles of rbac.authorization.k8s.io can be bound: a roleRef in any
// other group gets no "bind" shortcut (and fails validation later).
func boundResource(ref rbacv1.RoleRef) (schema.GroupResource, bool) {
	if ref.APIGroup != rbacv1.GroupName {
		return schema.GroupResource{}, false
	}
	switch ref.Kind {
	case "Role":
		return schema.GroupResource{Group: rbacv1.GroupName, Resource: "roles"}, true
	case "ClusterRole":
		return schema.GroupResource{Group: rbacv1.GroupName, Resource: "clusterroles"}, true
	default:
		return schema.GroupResource{}, false
	}
}

// allowed asks the authorizer whether u may perform verb on the named object of gr.
func (s *EscalationStorage) allowed(ctx context.Context, u user.Info, verb string, gr schema.GroupResource, namespace, name string) bool {
	if s.authz == nil {
		return false
	}
	decision, _, _ := s.authz.Authorize(ctx, authorizer.AttributesRecord{
		User:            u,
		Verb:            verb,
		Namespace:       namespace,
		APIGroup:        gr.Group,
		APIVersion:      "*",
		Resource:        gr.Resource,
		Name:            name,
		ResourceRequest: true,
	})
	return decision == authorizer.DecisionAllow
}

// confirmHeld returns an error naming the permissions among granted that u does not hold in
// namespace.
func (s *EscalationStorage) confirmHeld(ctx context.Context, u user.Info, namespace string, granted []rbacv1.PolicyRule) error {
	held, resolveErr := s.rules.RulesFor(ctx, u, namespace)
	covered, missing := validation.Covers(held, granted)
	if covered {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "user %q (groups=%q) is attempting to grant RBAC permissions not currently held:", u.GetName(), u.GetGroups())
	for _, d := range describeRules(missing) {
		b.WriteString("\n")
		b.WriteString(d)
	}
	if resolveErr != nil {
		fmt.Fprintf(&b, "\n; resolution errors: %v", resolveErr)
	}
	return errors.New(b.String())
}

// describeRules describes rules compactly, one line per rule, sorted. Rules that differ only
// in their verbs (as the single-verb rules of a Covers report do) share a line.
func describeRules(rules []rbacv1.PolicyRule) []string {
	var order []string
	merged := map[string]*rbacv1.PolicyRule{}
	for _, r := range rules {
		target := r
		target.Verbs = nil
		key := describeRule(target)
		if m, ok := merged[key]; ok {
			m.Verbs = append(m.Verbs, r.Verbs...)
			continue
		}
		target.Verbs = slices.Clone(r.Verbs)
		merged[key] = &target
		order = append(order, key)
	}
	lines := make([]string, 0, len(order))
	for _, key := range order {
		lines = append(lines, describeRule(*merged[key]))
	}
	slices.Sort(lines)
	return lines
}

// describeRule describes a rule on one line, leaving out its empty fields.
func describeRule(r rbacv1.PolicyRule) string {
	var parts []string
	for _, f := range []struct {
		label  string
		values []string
	}{
		{"APIGroups", r.APIGroups}, {"Resources", r.Resources}, {"NonResourceURLs", r.NonResourceURLs},
		{"ResourceNames", r.ResourceNames}, {"Verbs", r.Verbs},
	} {
		if len(f.values) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", f.label, f.values))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// isPrivileged reports whether the requesting user is in system:masters, whose members may
// grant anything (the server's loopback client is one).
func isPrivileged(ctx context.Context) bool {
	u, ok := genericapirequest.UserFrom(ctx)
	return ok && slices.Contains(u.GetGroups(), user.SystemPrivilegedGroup)
}

// onlyGCFieldsChanged reports whether obj differs from old at most in the fields the garbage
// collector and server-side apply bookkeeping write: finalizers, owner references, managed
// fields and self link.
func onlyGCFieldsChanged(obj, old runtime.Object) bool {
	if old == nil || reflect.ValueOf(old).IsNil() {
		return false
	}
	oldMeta, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	cp := obj.DeepCopyObject()
	cpMeta, err := meta.Accessor(cp)
	if err != nil {
		return false
	}
	cpMeta.SetFinalizers(oldMeta.GetFinalizers())
	cpMeta.SetOwnerReferences(oldMeta.GetOwnerReferences())
	cpMeta.SetManagedFields(oldMeta.GetManagedFields())
	cpMeta.SetSelfLink(oldMeta.GetSelfLink())
	return apiequality.Semantic.DeepEqual(cp, old)
}

// NamespaceScoped forwards to the decorated storage, or tells whether the resource is
// namespaced.
func (s *EscalationStorage) NamespaceScoped() bool {
	if sc, ok := s.StandardStorage.(rest.Scoper); ok {
		return sc.NamespaceScoped()
	}
	return s.namespaced
}

// GetSingularName forwards to the decorated storage, or derives the singular name from the
// resource ("roles" gives "role").
func (s *EscalationStorage) GetSingularName() string {
	if p, ok := s.StandardStorage.(rest.SingularNameProvider); ok {
		return p.GetSingularName()
	}
	return strings.TrimSuffix(s.resource.Resource, "s")
}

// GetResetFields forwards to the decorated storage.
func (s *EscalationStorage) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	if p, ok := s.StandardStorage.(rest.ResetFieldsStrategy); ok {
		return p.GetResetFields()
	}
	return nil
}

// StorageVersion forwards to the decorated storage.
func (s *EscalationStorage) StorageVersion() runtime.GroupVersioner {
	if p, ok := s.StandardStorage.(rest.StorageVersionProvider); ok {
		return p.StorageVersion()
	}
	return nil
}

// ReadinessCheck forwards to the decorated storage.
func (s *EscalationStorage) ReadinessCheck() error {
	if p, ok := s.StandardStorage.(rest.StorageWithReadiness); ok {
		return p.ReadinessCheck()
	}
	return nil
}

// DeleteReturnsDeletedObject forwards to the decorated storage.
func (s *EscalationStorage) DeleteReturnsDeletedObject() bool {
	if p, ok := s.StandardStorage.(rest.MayReturnFullObjectDeleter); ok {
		return p.DeleteReturnsDeletedObject()
	}
	return false
}

// GetCorruptObjDeleter forwards to the decorated storage.
func (s *EscalationStorage) GetCorruptObjDeleter() rest.GracefulDeleter {
	if p, ok := s.StandardStorage.(rest.CorruptObjectDeleterProvider); ok {
		return p.GetCorruptObjDeleter()
	}
	return nil
}
