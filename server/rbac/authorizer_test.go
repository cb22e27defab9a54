package rbac

import (
	"context"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func TestAuthorize(t *testing.T) {
	a := newListers(t, BootstrapPolicy(), testPolicy()).authorizer()
	authenticated := []string{user.AllAuthenticated}

	tests := []struct {
		name      string
		user      string
		groups    []string
		verb      string
		group     string
		resource  string
		sub       string
		namespace string
		objName   string
		path      string // set for non-resource requests
		allowed   bool
		reason    []string // substrings of the reason
	}{
		{
			name: "admin deletes secrets anywhere", user: UserAdmin, groups: []string{GroupAdmin, user.AllAuthenticated},
			verb: "delete", resource: "secrets", namespace: "kube-system", objName: "s",
			allowed: true, reason: []string{`RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`},
		},
		{
			name: "admin lists nodes cluster-wide", user: UserAdmin, groups: []string{GroupAdmin},
			verb: "list", resource: "nodes", allowed: true, reason: []string{"cluster-admin"},
		},
		{
			name: "admin gets any path", user: UserAdmin, groups: []string{GroupAdmin},
			verb: "get", path: "/metrics", allowed: true, reason: []string{"cluster-admin"},
		},
		{
			name: "alice edits configmaps in default", user: UserAlice, groups: authenticated,
			verb: "update", resource: "configmaps", namespace: NamespaceDefault, objName: "cm",
			allowed: true, reason: []string{`RBAC: allowed by RoleBinding "alice-configmaps/default" of Role "configmap-editor" to User "alice"`},
		},
		{
			name: "alice lists configmaps in default", user: UserAlice, groups: authenticated,
			verb: "list", resource: "configmaps", namespace: NamespaceDefault, allowed: true, reason: []string{"alice-configmaps"},
		},
		{
			name: "alice may not list configmaps cluster-wide", user: UserAlice, groups: authenticated,
			verb: "list", resource: "configmaps",
		},
		{
			name: "alice may not read configmaps in kube-system", user: UserAlice, groups: authenticated,
			verb: "get", resource: "configmaps", namespace: "kube-system", objName: "cm",
		},
		{
			name: "alice may not read secrets in default", user: UserAlice, groups: authenticated,
			verb: "get", resource: "secrets", namespace: NamespaceDefault, objName: "s",
		},
		{
			name: "alice may not read configmaps of another group", user: UserAlice, groups: authenticated,
			verb: "get", group: "example.com", resource: "configmaps", namespace: NamespaceDefault,
		},
		{
			name: "a binding to a missing role is reported", user: UserAlice, groups: authenticated,
			verb: "get", resource: "configmaps", namespace: "other",
			reason: []string{`RoleBinding "alice-elsewhere/other"`, `"configmap-editor" not found`},
		},
		{
			name: "bob may not read configmaps", user: UserBob, groups: authenticated,
			verb: "get", resource: "configmaps", namespace: NamespaceDefault, objName: "cm",
		},
		{
			name: "bob may review his own access", user: UserBob, groups: authenticated,
			verb: "create", group: "authorization.k8s.io", resource: "selfsubjectaccessreviews",
			allowed: true, reason: []string{`ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"`},
		},
		{
			name: "bob may review his own rules", user: UserBob, groups: authenticated,
			verb: "create", group: "authorization.k8s.io", resource: "selfsubjectrulesreviews", allowed: true,
		},
		{
			name: "bob may not review others", user: UserBob, groups: authenticated,
			verb: "create", group: "authorization.k8s.io", resource: "subjectaccessreviews",
		},
		{
			name: "bob discovers groups", user: UserBob, groups: authenticated,
			verb: "get", path: "/apis/apps/v1", allowed: true, reason: []string{`ClusterRole "system:discovery"`},
		},
		{
			name: "bob reads the version", user: UserBob, groups: authenticated,
			verb: "get", path: "/version", allowed: true,
		},
		{
			name: "bob may not post to discovery", user: UserBob, groups: authenticated,
			verb: "post", path: "/api",
		},
		{
			name: "bob may not read metrics", user: UserBob, groups: authenticated,
			verb: "get", path: "/metrics",
		},
		{
			name: "anonymous reads health", user: user.Anonymous, groups: []string{user.AllUnauthenticated},
			verb: "get", path: "/readyz", allowed: true, reason: []string{`ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"`},
		},
		{
			name: "anonymous may not discover", user: user.Anonymous, groups: []string{user.AllUnauthenticated},
			verb: "get", path: "/api",
		},
		{
			name: "group member reads pods anywhere", user: "rita", groups: []string{"readers"},
			verb: "watch", resource: "pods", allowed: true, reason: []string{`ClusterRoleBinding "readers-pods" of ClusterRole "pod-reader" to Group "readers"`},
		},
		{
			name: "pod reader may not read pod logs", user: "rita", groups: []string{"readers"},
			verb: "get", resource: "pods", sub: "log", namespace: "dev", objName: "p",
		},
		{
			name: "service account in the binding's namespace", user: "system:serviceaccount:dev:builder",
			verb: "get", resource: "pods", namespace: "dev", objName: "p",
			allowed: true, reason: []string{`RoleBinding "builder-pods/dev" of ClusterRole "pod-reader" to ServiceAccount "builder/dev"`},
		},
		{
			name: "service account of the same name elsewhere", user: "system:serviceaccount:other:builder",
			verb: "get", resource: "pods", namespace: "dev", objName: "p",
		},
		{
			name: "service account with explicit namespace", user: "system:serviceaccount:ci:robot",
			verb: "get", resource: "nodes", sub: "status", objName: "n1",
			allowed: true, reason: []string{`ServiceAccount "robot/ci"`},
		},
		{
			name: "service account subject without namespace in a cluster binding", user: "system:serviceaccount::nobody",
			verb: "get", resource: "pods", namespace: "dev",
		},
		{
			name: "resource name granted", user: "dave", verb: "get", resource: "secrets", namespace: "dev", objName: "token",
			allowed: true, reason: []string{`RoleBinding "dave-secret/dev"`},
		},
		{
			name: "second subject of a binding", user: "dave", verb: "get", resource: "secrets", namespace: "dev", objName: "other",
			allowed: true, reason: []string{`RoleBinding "dave-secrets/dev" of Role "secret-getter" to User "dave"`},
		},
		{
			name: "missing role in a binding", user: "carol", groups: authenticated,
			verb: "get", resource: "configmaps", namespace: NamespaceDefault,
			reason: []string{`RoleBinding "carol-ghost/default"`, `"ghost" not found`},
		},
		{
			name: "missing cluster role in a binding", user: "gus", groups: []string{"ghosts"},
			verb: "get", resource: "pods",
			reason: []string{`ClusterRoleBinding "zz-missing"`, `"no-such-clusterrole" not found`},
		},
		{
			name: "a grant wins over a broken binding", user: "gus", groups: []string{"ghosts", user.AllAuthenticated},
			verb: "get", path: "/healthz", allowed: true, reason: []string{"system:discovery"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			attrs := authorizer.AttributesRecord{
				User:            &user.DefaultInfo{Name: tt.user, Groups: tt.groups},
				Verb:            tt.verb,
				Namespace:       tt.namespace,
				APIGroup:        tt.group,
				APIVersion:      "v1",
				Resource:        tt.resource,
				Subresource:     tt.sub,
				Name:            tt.objName,
				ResourceRequest: tt.path == "",
				Path:            tt.path,
			}
			decision, reason, err := a.Authorize(context.Background(), attrs)
			if err != nil {
				t.Fatalf("Authorize returned error %v", err)
			}
			want := authorizer.DecisionNoOpinion
			if tt.allowed {
				want = authorizer.DecisionAllow
			}
			if decision != want {
				t.Errorf("decision = %v (reason %q), want %v", decision, reason, want)
			}
			for _, s := range tt.reason {
				if !strings.Contains(reason, s) {
					t.Errorf("reason %q does not contain %q", reason, s)
				}
			}
			if len(tt.reason) == 0 && !tt.allowed && reason != "" {
				t.Errorf("reason = %q, want none", reason)
			}
			if got := a.ConditionsAwareAuthorize(context.Background(), attrs); got.IsAllow() != tt.allowed || got.IsDeny() {
				t.Errorf("ConditionsAwareAuthorize = %v, want allow=%v", got, tt.allowed)
			}
		})
	}
}

func TestAuthorizeWithoutUser(t *testing.T) {
	a := newListers(t, BootstrapPolicy()).authorizer()
	decision, _, err := a.Authorize(context.Background(), authorizer.AttributesRecord{Verb: "get", Path: "/healthz"})
	if decision != authorizer.DecisionNoOpinion || err != nil {
		t.Errorf("Authorize without user = %v, %v; want NoOpinion, nil", decision, err)
	}
}

func TestEvaluateConditionsNotSupported(t *testing.T) {
	a := newListers(t).authorizer()
	decision, _, err := a.EvaluateConditions(context.Background(), authorizer.ConditionsAwareDecisionAllow("", nil), nil)
	if decision != authorizer.DecisionDeny || err != authorizer.ErrorConditionEvaluationNotSupported {
		t.Errorf("EvaluateConditions = %v, %v", decision, err)
	}
}

func TestAuthorizerRulesFor(t *testing.T) {
	a := newListers(t, BootstrapPolicy(), testPolicy()).authorizer()
	tests := []struct {
		name             string
		user             user.Info
		namespace        string
		resources        []string // "group/resource:verbs" of each resource rule, in order
		nonResourceURLs  []string // first URL of each non-resource rule, in order
		incomplete       bool
		errSubstring     string
		resourceNamesFor map[int][]string
	}{
		{
			name: "alice in default", user: &user.DefaultInfo{Name: UserAlice, Groups: []string{user.AllAuthenticated}}, namespace: NamespaceDefault,
			resources: []string{
				"authorization.k8s.io/selfsubjectaccessreviews,selfsubjectrulesreviews:create",
				"authentication.k8s.io/selfsubjectreviews:create",
				"/configmaps:*",
			},
			nonResourceURLs: []string{"/api", "/healthz"},
		},
		{
			name: "bob in default", user: &user.DefaultInfo{Name: UserBob, Groups: []string{user.AllAuthenticated}}, namespace: NamespaceDefault,
			resources: []string{
				"authorization.k8s.io/selfsubjectaccessreviews,selfsubjectrulesreviews:create",
				"authentication.k8s.io/selfsubjectreviews:create",
			},
			nonResourceURLs: []string{"/api", "/healthz"},
		},
		{
			name: "admin", user: &user.DefaultInfo{Name: UserAdmin, Groups: []string{GroupAdmin}}, namespace: "kube-system",
			resources: []string{"*/*:*"}, nonResourceURLs: []string{"*"},
		},
		{
			name: "dave with a resource name", user: &user.DefaultInfo{Name: "dave"}, namespace: "dev",
			resources:        []string{"/secrets:get", "/secrets:get"},
			resourceNamesFor: map[int][]string{0: {"token"}},
		},
		{
			name: "carol with a dangling binding", user: &user.DefaultInfo{Name: "carol"}, namespace: NamespaceDefault,
			incomplete: true, errSubstring: `"ghost" not found`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resourceRules, nonResourceRules, incomplete, err := a.RulesFor(context.Background(), tt.user, tt.namespace)
			if incomplete != tt.incomplete {
				t.Errorf("incomplete = %v, want %v", incomplete, tt.incomplete)
			}
			if tt.errSubstring == "" && err != nil {
				t.Errorf("err = %v", err)
			}
			if tt.errSubstring != "" && (err == nil || !strings.Contains(err.Error(), tt.errSubstring)) {
				t.Errorf("err = %v, want it to contain %q", err, tt.errSubstring)
			}
			var got []string
			for i, r := range resourceRules {
				got = append(got, strings.Join(r.GetAPIGroups(), ",")+"/"+strings.Join(r.GetResources(), ",")+":"+strings.Join(r.GetVerbs(), ","))
				if want := tt.resourceNamesFor[i]; !slices.Equal(r.GetResourceNames(), want) {
					t.Errorf("resource rule %d names = %q, want %q", i, r.GetResourceNames(), want)
				}
			}
			if !slices.Equal(got, tt.resources) {
				t.Errorf("resource rules = %q, want %q", got, tt.resources)
			}
			var urls []string
			for _, r := range nonResourceRules {
				urls = append(urls, r.GetNonResourceURLs()[0])
				if len(r.GetVerbs()) == 0 {
					t.Errorf("non-resource rule %v has no verbs", r)
				}
			}
			if !slices.Equal(urls, tt.nonResourceURLs) {
				t.Errorf("non-resource rules start with %q, want %q", urls, tt.nonResourceURLs)
			}
		})
	}
}

func TestAuthorizerRulesForMixedRule(t *testing.T) {
	mixed := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, NonResourceURLs: []string{"/logs"}}
	p := Policy{
		ClusterRoles:        []rbacv1.ClusterRole{clusterRole("mixed", mixed)},
		ClusterRoleBindings: []rbacv1.ClusterRoleBinding{clusterRoleBinding("mixed", "mixed", userSubject("m"))},
	}
	a := newListers(t, p).authorizer()
	res, nonRes, _, err := a.RulesFor(context.Background(), &user.DefaultInfo{Name: "m"}, "ns")
	if err != nil || len(res) != 1 || len(nonRes) != 1 {
		t.Errorf("RulesFor = %d resource rules, %d non-resource rules, %v; want 1, 1, nil", len(res), len(nonRes), err)
	}
}
