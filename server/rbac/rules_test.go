package rbac

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func resourceAttrs(verb, group, resource, subresource, name string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{
		Verb: verb, APIGroup: group, Resource: resource, Subresource: subresource, Name: name,
		Namespace: "ns", ResourceRequest: true,
	}
}

func pathAttrs(verb, path string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{Verb: verb, Path: path}
}

func TestRuleAllows(t *testing.T) {
	podsGet := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	tests := []struct {
		name  string
		rule  rbacv1.PolicyRule
		attrs authorizer.AttributesRecord
		want  bool
	}{
		// verbs
		{"exact verb", podsGet, resourceAttrs("get", "", "pods", "", ""), true},
		{"other verb", podsGet, resourceAttrs("list", "", "pods", "", ""), false},
		{"one of several verbs", rbacv1.PolicyRule{Verbs: []string{"list", "watch"}, APIGroups: []string{""}, Resources: []string{"pods"}}, resourceAttrs("watch", "", "pods", "", ""), true},
		{"verb star", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"pods"}}, resourceAttrs("deletecollection", "", "pods", "", ""), true},
		{"verb star covers escalate", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"roles"}}, resourceAttrs("escalate", "rbac.authorization.k8s.io", "roles", "", ""), true},
		{"no verbs", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}}, resourceAttrs("get", "", "pods", "", ""), false},
		{"verb is case sensitive", podsGet, resourceAttrs("GET", "", "pods", "", ""), false},

		// API groups
		{"core group", podsGet, resourceAttrs("get", "", "pods", "", ""), true},
		{"core rule, other group", podsGet, resourceAttrs("get", "apps", "pods", "", ""), false},
		{"named group", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}}, resourceAttrs("get", "apps", "deployments", "", ""), true},
		{"named group rule, core request", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"apps"}, Resources: []string{"pods"}}, resourceAttrs("get", "", "pods", "", ""), false},
		{"group star", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"pods"}}, resourceAttrs("get", "example.com", "pods", "", ""), true},
		{"no groups", rbacv1.PolicyRule{Verbs: []string{"get"}, Resources: []string{"pods"}}, resourceAttrs("get", "", "pods", "", ""), false},

		// resources and subresources
		{"other resource", podsGet, resourceAttrs("get", "", "secrets", "", ""), false},
		{"resource star", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*"}}, resourceAttrs("get", "", "secrets", "", ""), true},
		{"resource star covers subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*"}}, resourceAttrs("get", "", "pods", "log", ""), true},
		{"resource does not cover its subresource", podsGet, resourceAttrs("get", "", "pods", "status", ""), false},
		{"exact subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/status"}}, resourceAttrs("get", "", "pods", "status", ""), true},
		{"subresource rule, other subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/status"}}, resourceAttrs("get", "", "pods", "log", ""), false},
		{"subresource rule, parent resource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/status"}}, resourceAttrs("get", "", "pods", "", ""), false},
		{"subresource rule, other resource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/status"}}, resourceAttrs("get", "", "nodes", "status", ""), false},
		{"star subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*/status"}}, resourceAttrs("get", "", "nodes", "status", ""), true},
		{"star subresource, other subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*/status"}}, resourceAttrs("get", "", "pods", "log", ""), false},
		{"star subresource, no subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*/status"}}, resourceAttrs("get", "", "pods", "", ""), false},
		{"star subresource, suffix of subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*/status"}}, resourceAttrs("get", "", "pods", "xstatus", ""), false},
		{"resource named like a path", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/status"}}, resourceAttrs("get", "", "pods/status", "", ""), true},
		{"no resources", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}}, resourceAttrs("get", "", "pods", "", ""), false},

		// resource names
		{"no names covers any name", podsGet, resourceAttrs("get", "", "pods", "", "p1"), true},
		{"no names covers no name", podsGet, resourceAttrs("get", "", "pods", "", ""), true},
		{"listed name", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"p1", "p2"}}, resourceAttrs("get", "", "pods", "", "p2"), true},
		{"unlisted name", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"p1"}}, resourceAttrs("get", "", "pods", "", "p3"), false},
		{"names do not cover list", rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"p1"}}, resourceAttrs("list", "", "pods", "", ""), false},
		{"name with subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}, ResourceNames: []string{"p1"}}, resourceAttrs("get", "", "pods", "log", "p1"), true},

		// a resource rule never matches a path and the reverse
		{"resource rule, non-resource request", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}, pathAttrs("get", "/healthz"), false},
		{"non-resource rule, resource request", rbacv1.PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}, resourceAttrs("get", "", "pods", "", ""), false},

		// non-resource URLs
		{"exact url", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, pathAttrs("get", "/healthz"), true},
		{"exact url, other verb", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, pathAttrs("post", "/healthz"), false},
		{"exact url, longer path", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, pathAttrs("get", "/healthz/ping"), false},
		{"exact url, trailing slash differs", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/version"}}, pathAttrs("get", "/version/"), false},
		{"prefix url", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*"}}, pathAttrs("get", "/apis/apps/v1"), true},
		{"prefix url matches its bare prefix", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*"}}, pathAttrs("get", "/apis/"), true},
		{"prefix url, path without slash", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*"}}, pathAttrs("get", "/apis"), false},
		{"prefix url without slash", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/api*"}}, pathAttrs("get", "/apis"), true},
		{"prefix url, other path", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*"}}, pathAttrs("get", "/api/v1"), false},
		{"url star", rbacv1.PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}, pathAttrs("delete", "/anything/at/all"), true},
		{"url star in the middle is literal", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/a/*/b"}}, pathAttrs("get", "/a/x/b"), false},
		{"no urls", rbacv1.PolicyRule{Verbs: []string{"get"}}, pathAttrs("get", "/healthz"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RuleAllows(tt.attrs, tt.rule); got != tt.want {
				t.Errorf("RuleAllows(%+v, %+v) = %v, want %v", tt.attrs, tt.rule, got, tt.want)
			}
		})
	}
}

func TestRulesAllow(t *testing.T) {
	rules := []rbacv1.PolicyRule{
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}},
	}
	tests := []struct {
		name  string
		attrs authorizer.AttributesRecord
		want  bool
	}{
		{"first rule", resourceAttrs("get", "", "pods", "", ""), true},
		{"second rule", pathAttrs("get", "/healthz"), true},
		{"neither", resourceAttrs("list", "", "pods", "", ""), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RulesAllow(tt.attrs, rules...); got != tt.want {
				t.Errorf("RulesAllow = %v, want %v", got, tt.want)
			}
		})
		if RulesAllow(tt.attrs) {
			t.Errorf("RulesAllow without rules allowed %+v", tt.attrs)
		}
	}
}
