// Package rbac implements kubewalk's role based access control: matching PolicyRules against
// request attributes, resolving the rules that bindings grant a user, an authorizer and rule
// resolver on top of client-go listers, the bootstrap policy, and escalation prevention for
// writes to RBAC objects.
//
// The semantics follow the rbac.authorization.k8s.io/v1 API as kube-apiserver enforces it, so
// roles and bindings written for Kubernetes mean the same thing here.
package rbac

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// RuleAllows reports whether rule grants the request described by attrs.
//
// A resource request matches when the rule names its verb, its API group, its resource and its
// resource name. A request for a subresource ("pods" + "status") matches only the rule
// resources "pods/status", "*/status" and "*"; a rule on "pods" alone does not grant
// subresources. A rule without resourceNames applies to every name; one with resourceNames
// applies only to requests naming one of them (so never to list, watch or create without a
// name). A non-resource request matches when the rule names its verb and its path, either
// exactly, through "*", or through an entry ending in "*" that is a prefix of the path.
// "*" in verbs, apiGroups or resources matches anything.
func RuleAllows(attrs authorizer.Attributes, rule rbacv1.PolicyRule) bool {
	if !verbMatches(rule.Verbs, attrs.GetVerb()) {
		return false
	}
	if !attrs.IsResourceRequest() {
		return nonResourceURLMatches(rule.NonResourceURLs, attrs.GetPath())
	}
	return apiGroupMatches(rule.APIGroups, attrs.GetAPIGroup()) &&
		resourceMatches(rule.Resources, attrs.GetResource(), attrs.GetSubresource()) &&
		resourceNameMatches(rule.ResourceNames, attrs.GetName())
}

// RulesAllow reports whether any of rules grants the request described by attrs.
func RulesAllow(attrs authorizer.Attributes, rules ...rbacv1.PolicyRule) bool {
	for _, rule := range rules {
		if RuleAllows(attrs, rule) {
			return true
		}
	}
	return false
}

func verbMatches(ruleVerbs []string, verb string) bool {
	return slices.Contains(ruleVerbs, rbacv1.VerbAll) || slices.Contains(ruleVerbs, verb)
}

func apiGroupMatches(ruleGroups []string, group string) bool {
	return slices.Contains(ruleGroups, rbacv1.APIGroupAll) || slices.Contains(ruleGroups, group)
}

// resourceMatches matches the requested resource and subresource against the resources of a
// rule. "resource/subresource" and "*/subresource" name a subresource; "*" names everything.
func resourceMatches(ruleResources []string, resource, subresource string) bool {
	requested := resource
	if subresource != "" {
		requested = resource + "/" + subresource
	}
	for _, r := range ruleResources {
		switch {
		case r == rbacv1.ResourceAll, r == requested:
			return true
		case subresource != "" && r == "*/"+subresource:
			return true
		}
	}
	return false
}

func resourceNameMatches(ruleNames []string, name string) bool {
	return len(ruleNames) == 0 || slices.Contains(ruleNames, name)
}

// nonResourceURLMatches matches a request path against the nonResourceURLs of a rule. An entry
// ending in "*" grants every path that starts with the entry without its trailing stars.
func nonResourceURLMatches(ruleURLs []string, path string) bool {
	for _, u := range ruleURLs {
		if u == rbacv1.NonResourceAll || u == path {
			return true
		}
		if prefix, ok := strings.CutSuffix(u, "*"); ok && strings.HasPrefix(path, strings.TrimRight(prefix, "*")) {
			return true
		}
	}
	return false
}
