package rbac

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"
)

// listers holds client-go listers over indexers filled with fixed objects, as the server's
// informers would fill them.
type listers struct {
	roles               rbaclisters.RoleLister
	roleBindings        rbaclisters.RoleBindingLister
	clusterRoles        rbaclisters.ClusterRoleLister
	clusterRoleBindings rbaclisters.ClusterRoleBindingLister
}

func newIndexer() cache.Indexer {
	return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}

// newListers returns listers over the objects of the given policies.
func newListers(t *testing.T, policies ...Policy) listers {
	t.Helper()
	roles, roleBindings, clusterRoles, clusterRoleBindings := newIndexer(), newIndexer(), newIndexer(), newIndexer()
	add := func(idx cache.Indexer, obj any) {
		if err := idx.Add(obj); err != nil {
			t.Fatalf("adding %T to indexer: %v", obj, err)
		}
	}
	for _, p := range policies {
		for i := range p.Roles {
			add(roles, &p.Roles[i])
		}
		for i := range p.RoleBindings {
			add(roleBindings, &p.RoleBindings[i])
		}
		for i := range p.ClusterRoles {
			add(clusterRoles, &p.ClusterRoles[i])
		}
		for i := range p.ClusterRoleBindings {
			add(clusterRoleBindings, &p.ClusterRoleBindings[i])
		}
	}
	return listers{
		roles:               rbaclisters.NewRoleLister(roles),
		roleBindings:        rbaclisters.NewRoleBindingLister(roleBindings),
		clusterRoles:        rbaclisters.NewClusterRoleLister(clusterRoles),
		clusterRoleBindings: rbaclisters.NewClusterRoleBindingLister(clusterRoleBindings),
	}
}

func (l listers) authorizer() *Authorizer {
	return NewAuthorizer(l.roles, l.roleBindings, l.clusterRoles, l.clusterRoleBindings)
}

func (l listers) resolver() *Resolver {
	return NewResolver(l.roles, l.roleBindings, l.clusterRoles, l.clusterRoleBindings)
}

func rule(verbs, groups, resources []string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
}

func clusterRole(name string, rules ...rbacv1.PolicyRule) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}

func role(namespace, name string, rules ...rbacv1.PolicyRule) rbacv1.Role {
	return rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Rules: rules}
}

func clusterRoleBinding(name, clusterRole string, subjects ...rbacv1.Subject) rbacv1.ClusterRoleBinding {
	return rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
		Subjects:   subjects,
	}
}

func roleBinding(namespace, name, kind, roleName string, subjects ...rbacv1.Subject) rbacv1.RoleBinding {
	return rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: roleName},
		Subjects:   subjects,
	}
}

func userSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: name}
}

func groupSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: name}
}

func saSubject(namespace, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}
}

// testPolicy adds to the bootstrap policy bindings of every subject kind, a resource-name
// rule, and bindings to roles that do not exist.
func testPolicy() Policy {
	core := []string{""}
	return Policy{
		ClusterRoles: []rbacv1.ClusterRole{
			clusterRole("pod-reader", rule([]string{"get", "list", "watch"}, core, []string{"pods"})),
			clusterRole("status-reader", rule([]string{"get"}, core, []string{"*/status"})),
			clusterRole("one-secret", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: core, Resources: []string{"secrets"}, ResourceNames: []string{"token"}}),
		},
		ClusterRoleBindings: []rbacv1.ClusterRoleBinding{
			clusterRoleBinding("readers-pods", "pod-reader", groupSubject("readers")),
			clusterRoleBinding("robot-status", "status-reader", saSubject("ci", "robot")),
			clusterRoleBinding("sa-without-namespace", "pod-reader", saSubject("", "nobody")),
			clusterRoleBinding("zz-missing", "no-such-clusterrole", groupSubject("ghosts")),
		},
		Roles: []rbacv1.Role{
			role("dev", "secret-getter", rule([]string{"get"}, core, []string{"secrets"})),
		},
		RoleBindings: []rbacv1.RoleBinding{
			roleBinding("dev", "builder-pods", "ClusterRole", "pod-reader", saSubject("", "builder")),
			roleBinding("dev", "dave-secret", "ClusterRole", "one-secret", userSubject("dave")),
			roleBinding("dev", "dave-secrets", "Role", "secret-getter", userSubject("erin"), userSubject("dave")),
			roleBinding(NamespaceDefault, "carol-ghost", "Role", "ghost", userSubject("carol")),
			roleBinding("other", "alice-elsewhere", "Role", RoleConfigMapEditor, userSubject(UserAlice)),
		},
	}
}
