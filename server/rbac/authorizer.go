package rbac

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
)

// Authorizer is the RBAC authorizer. It allows a request when a rule granted to the user
// allows it and otherwise has no opinion, so later authorizers in a union may still allow the
// request; it never denies. It is also an authorizer.RuleResolver, which serves
// SelfSubjectRulesReview (`kubectl auth can-i --list`).
type Authorizer struct {
	resolver *Resolver
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// NewAuthorizer returns an Authorizer reading roles and bindings from the given listers.
func NewAuthorizer(roles rbaclisters.RoleLister, roleBindings rbaclisters.RoleBindingLister, clusterRoles rbaclisters.ClusterRoleLister, clusterRoleBindings rbaclisters.ClusterRoleBindingLister) *Authorizer {
	return &Authorizer{resolver: NewResolver(roles, roleBindings, clusterRoles, clusterRoleBindings)}
}

// Resolver returns the rule resolver the Authorizer uses, for escalation checks.
func (a *Authorizer) Resolver() *Resolver {
	return a.resolver
}

// Authorize allows the request when a rule granted to its user allows it; the reason then
// names the binding, role and subject that granted it. Otherwise the decision is
// DecisionNoOpinion, and the reason lists the errors met while resolving rules, if any.
// Resolution errors are reported in the reason rather than as an error, because the rules
// that were found have all been checked and an error would turn a 403 into a 500.
func (a *Authorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	var (
		allowedBy string
		errs      []error
	)
	a.resolver.VisitRulesFor(ctx, attrs.GetUser(), attrs.GetNamespace(), func(source *RuleSource, rule *rbacv1.PolicyRule, err error) bool {
		if rule != nil && RuleAllows(attrs, *rule) {
			allowedBy = source.String()
			return false
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	if allowedBy != "" {
		return authorizer.DecisionAllow, "RBAC: allowed by " + allowedBy, nil
	}
	if len(errs) > 0 {
		return authorizer.DecisionNoOpinion, fmt.Sprintf("RBAC: %v", utilerrors.NewAggregate(errs)), nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// ConditionsAwareAuthorize returns the decision of Authorize: RBAC has no conditions.
func (a *Authorizer) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(a.Authorize(ctx, attrs))
}

// EvaluateConditions fails closed: RBAC never returns conditional decisions.
func (a *Authorizer) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// RulesFor lists the rules granted to u in namespace (cluster-wide rules included), split into
// resource and non-resource rules. A rule that has both resources and nonResourceURLs appears
// in both lists. incomplete is true when some rules could not be resolved; err then aggregates
// why.
func (a *Authorizer) RulesFor(ctx context.Context, u user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	rules, err := a.resolver.RulesFor(ctx, u, namespace)
	var (
		resourceRules    []authorizer.ResourceRuleInfo
		nonResourceRules []authorizer.NonResourceRuleInfo
	)
	for _, rule := range rules {
		if len(rule.Resources) > 0 {
			resourceRules = append(resourceRules, &authorizer.DefaultResourceRuleInfo{
				Verbs:         rule.Verbs,
				APIGroups:     rule.APIGroups,
				Resources:     rule.Resources,
				ResourceNames: rule.ResourceNames,
			})
		}
		if len(rule.NonResourceURLs) > 0 {
			nonResourceRules = append(nonResourceRules, &authorizer.DefaultNonResourceRuleInfo{
				Verbs:           rule.Verbs,
				NonResourceURLs: rule.NonResourceURLs,
			})
		}
	}
	return resourceRules, nonResourceRules, err != nil, err
}
