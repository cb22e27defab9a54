package rbac

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authentication/user"
)

func TestResolverRulesForOrder(t *testing.T) {
	core := []string{""}
	p := Policy{
		ClusterRoles: []rbacv1.ClusterRole{
			clusterRole("c1", rule([]string{"get"}, core, []string{"c1"})),
			clusterRole("c2", rule([]string{"get"}, core, []string{"c2a"}), rule([]string{"get"}, core, []string{"c2b"})),
		},
		ClusterRoleBindings: []rbacv1.ClusterRoleBinding{
			clusterRoleBinding("b-second", "c2", userSubject("u")),
			clusterRoleBinding("a-first", "c1", groupSubject("g")),
			clusterRoleBinding("not-me", "c1", userSubject("someone-else")),
		},
		Roles: []rbacv1.Role{
			role("ns", "r1", rule([]string{"get"}, core, []string{"r1"})),
			role("other", "r1", rule([]string{"get"}, core, []string{"other-r1"})),
		},
		RoleBindings: []rbacv1.RoleBinding{
			roleBinding("ns", "rb-role", "Role", "r1", userSubject("u")),
			roleBinding("ns", "rb-cluster-role", "ClusterRole", "c1", groupSubject("g")),
			roleBinding("other", "rb-other", "Role", "r1", userSubject("u")),
		},
	}
	r := newListers(t, p).resolver()
	u := &user.DefaultInfo{Name: "u", Groups: []string{"g"}}

	tests := []struct {
		namespace string
		want      []string
	}{
		{"ns", []string{"c1", "c2a", "c2b", "c1", "r1"}},
		{"other", []string{"c1", "c2a", "c2b", "other-r1"}},
		{"", []string{"c1", "c2a", "c2b"}},
		{"empty", []string{"c1", "c2a", "c2b"}},
	}
	for _, tt := range tests {
		t.Run("namespace "+tt.namespace, func(t *testing.T) {
			rules, err := r.RulesFor(context.Background(), u, tt.namespace)
			if err != nil {
				t.Fatalf("RulesFor: %v", err)
			}
			var got []string
			for _, rl := range rules {
				got = append(got, rl.Resources...)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("rules for resources %q, want %q", got, tt.want)
			}
		})
	}
}

func TestResolverVisitRulesForStops(t *testing.T) {
	r := newListers(t, BootstrapPolicy(), testPolicy()).resolver()
	u := &user.DefaultInfo{Name: "carol", Groups: []string{user.AllAuthenticated, "ghosts"}}

	var all, errs int
	r.VisitRulesFor(context.Background(), u, NamespaceDefault, func(source *RuleSource, rule *rbacv1.PolicyRule, err error) bool {
		if err != nil {
			errs++
			if source != nil || rule != nil {
				t.Errorf("error %v came with source %v and rule %v", err, source, rule)
			}
			return true
		}
		if source == nil || rule == nil {
			t.Errorf("rule %v came without source", rule)
		}
		all++
		return true
	})
	if all != 4 || errs != 2 {
		t.Errorf("visited %d rules and %d errors, want 4 and 2", all, errs)
	}

	var visited int
	r.VisitRulesFor(context.Background(), u, NamespaceDefault, func(*RuleSource, *rbacv1.PolicyRule, error) bool {
		visited++
		return visited < 2
	})
	if visited != 2 {
		t.Errorf("visited %d times after asking to stop at 2", visited)
	}
}

func TestResolverRoleRefRules(t *testing.T) {
	r := newListers(t, BootstrapPolicy()).resolver()
	tests := []struct {
		name      string
		ref       rbacv1.RoleRef
		namespace string
		wantRules int
		wantErr   string
	}{
		{"cluster role", rbacv1.RoleRef{Kind: "ClusterRole", Name: ClusterRoleBasicUser}, "", 2, ""},
		{"cluster role from a role binding", rbacv1.RoleRef{Kind: "ClusterRole", Name: ClusterRoleClusterAdmin}, NamespaceDefault, 2, ""},
		{"role", rbacv1.RoleRef{Kind: "Role", Name: RoleConfigMapEditor}, NamespaceDefault, 1, ""},
		{"role in another namespace", rbacv1.RoleRef{Kind: "Role", Name: RoleConfigMapEditor}, "kube-system", 0, "not found"},
		{"role without namespace", rbacv1.RoleRef{Kind: "Role", Name: RoleConfigMapEditor}, "", 0, "needs a namespace"},
		{"missing cluster role", rbacv1.RoleRef{Kind: "ClusterRole", Name: "nope"}, "", 0, "not found"},
		{"unknown kind", rbacv1.RoleRef{Kind: "Policy", Name: "x"}, "", 0, `unsupported role reference kind "Policy"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, err := r.RoleRefRules(context.Background(), tt.ref, tt.namespace)
			if len(rules) != tt.wantRules {
				t.Errorf("got %d rules, want %d", len(rules), tt.wantRules)
			}
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestSubjectMatches(t *testing.T) {
	sa := &user.DefaultInfo{Name: "system:serviceaccount:ns:sa", Groups: []string{"system:serviceaccounts"}}
	tests := []struct {
		name      string
		user      user.Info
		subject   rbacv1.Subject
		namespace string
		want      bool
	}{
		{"user", &user.DefaultInfo{Name: "alice"}, userSubject("alice"), "", true},
		{"other user", &user.DefaultInfo{Name: "alice"}, userSubject("bob"), "", false},
		{"user subject does not match a group", &user.DefaultInfo{Name: "x", Groups: []string{"alice"}}, userSubject("alice"), "", false},
		{"group", &user.DefaultInfo{Name: "x", Groups: []string{"a", "b"}}, groupSubject("b"), "", true},
		{"group subject does not match a user", &user.DefaultInfo{Name: "b"}, groupSubject("b"), "", false},
		{"service account", sa, saSubject("ns", "sa"), "", true},
		{"service account, binding namespace", sa, saSubject("", "sa"), "ns", true},
		{"service account, other binding namespace", sa, saSubject("", "sa"), "other", false},
		{"service account, no namespace at all", sa, saSubject("", "sa"), "", false},
		{"service account, other name", sa, saSubject("ns", "other"), "", false},
		{"service account by its user name", sa, userSubject("system:serviceaccount:ns:sa"), "", true},
		{"service account group", sa, groupSubject("system:serviceaccounts"), "", true},
		{"unknown kind", &user.DefaultInfo{Name: "alice"}, rbacv1.Subject{Kind: "Robot", Name: "alice"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := subjectMatches(tt.user, tt.subject, tt.namespace); got != tt.want {
				t.Errorf("subjectMatches = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRuleSourceString(t *testing.T) {
	tests := []struct {
		source RuleSource
		want   string
	}{
		{
			RuleSource{BindingKind: "RoleBinding", BindingNamespace: "default", BindingName: "alice-configmaps", RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "configmap-editor"}, Subject: userSubject("alice")},
			`RoleBinding "alice-configmaps/default" of Role "configmap-editor" to User "alice"`,
		},
		{
			RuleSource{BindingKind: "ClusterRoleBinding", BindingName: "cluster-admin", RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "cluster-admin"}, Subject: groupSubject("system:masters")},
			`ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`,
		},
		{
			RuleSource{BindingKind: "RoleBinding", BindingNamespace: "dev", BindingName: "b", RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}, Subject: saSubject("", "builder")},
			`RoleBinding "b/dev" of ClusterRole "view" to ServiceAccount "builder/dev"`,
		},
		{
			RuleSource{BindingKind: "ClusterRoleBinding", BindingName: "b", RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}, Subject: saSubject("ci", "robot")},
			`ClusterRoleBinding "b" of ClusterRole "view" to ServiceAccount "robot/ci"`,
		},
	}
	for _, tt := range tests {
		if got := tt.source.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
	}
}
