package rbac

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// fakeStorage is a rest.StandardStorage keeping objects by name, for one namespace at most.
type fakeStorage struct {
	objects map[string]runtime.Object
	creates int
	updates int
}

func newFakeStorage(objs ...runtime.Object) *fakeStorage {
	f := &fakeStorage{objects: map[string]runtime.Object{}}
	for _, o := range objs {
		f.objects[mustName(o)] = o
	}
	return f
}

func mustName(o runtime.Object) string {
	switch o := o.(type) {
	case metav1.Object:
		return o.GetName()
	default:
		panic("no name")
	}
}

func (f *fakeStorage) New() runtime.Object     { return &rbacv1.Role{} }
func (f *fakeStorage) NewList() runtime.Object { return &rbacv1.RoleList{} }
func (f *fakeStorage) Destroy()                {}

func (f *fakeStorage) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	if o, ok := f.objects[name]; ok {
		return o, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{}, name)
}

func (f *fakeStorage) List(context.Context, *metainternalversion.ListOptions) (runtime.Object, error) {
	return &rbacv1.RoleList{}, nil
}

func (f *fakeStorage) ConvertToTable(ctx context.Context, obj, opts runtime.Object) (*metav1.Table, error) {
	return rest.NewDefaultTableConvertor(rolesResource).ConvertToTable(ctx, obj, opts)
}

func (f *fakeStorage) Create(_ context.Context, obj runtime.Object, _ rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	f.creates++
	f.objects[mustName(obj)] = obj
	return obj, nil
}

func (f *fakeStorage) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ rest.ValidateObjectFunc, _ rest.ValidateObjectUpdateFunc, _ bool, _ *metav1.UpdateOptions) (runtime.Object, bool, error) {
	old, exists := f.objects[name]
	obj, err := objInfo.UpdatedObject(ctx, old)
	if err != nil {
		return nil, false, err
	}
	f.updates++
	f.objects[name] = obj
	return obj, !exists, nil
}

func (f *fakeStorage) Delete(context.Context, string, rest.ValidateObjectFunc, *metav1.DeleteOptions) (runtime.Object, bool, error) {
	return nil, true, nil
}

func (f *fakeStorage) DeleteCollection(context.Context, rest.ValidateObjectFunc, *metav1.DeleteOptions, *metainternalversion.ListOptions) (runtime.Object, error) {
	return nil, nil
}

func (f *fakeStorage) Watch(context.Context, *metainternalversion.ListOptions) (watch.Interface, error) {
	return watch.NewEmptyWatch(), nil
}

// richStorage adds the optional interfaces of a genericregistry.Store to fakeStorage.
type richStorage struct{ *fakeStorage }

func (richStorage) NamespaceScoped() bool { return false }
func (richStorage) GetSingularName() string {
	return "rich"
}
func (richStorage) ConvertToTable(context.Context, runtime.Object, runtime.Object) (*metav1.Table, error) {
	return &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{{Name: "Rich"}}}, nil
}
func (richStorage) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{"rbac.authorization.k8s.io/v1": fieldpath.NewSet()}
}
func (richStorage) StorageVersion() runtime.GroupVersioner { return rbacv1.SchemeGroupVersion }
func (richStorage) ReadinessCheck() error                  { return apierrors.NewServiceUnavailable("not ready") }
func (richStorage) DeleteReturnsDeletedObject() bool       { return true }
func (r richStorage) GetCorruptObjDeleter() rest.GracefulDeleter {
	return r.fakeStorage
}

var (
	rolesResource               = rbacv1.Resource("roles")
	clusterRolesResource        = rbacv1.Resource("clusterroles")
	roleBindingsResource        = rbacv1.Resource("rolebindings")
	clusterRoleBindingsResource = rbacv1.Resource("clusterrolebindings")
)

// escalationPolicy adds to the bootstrap policy a user "esc" allowed to escalate roles and
// cluster roles, a user "binder" allowed to bind ClusterRole pod-reader and any Role, and
// a user "escfoo" allowed to escalate roles and cluster roles named foo only, and
// users "core" and "clustercore" holding every verb on every resource of the core group, in
// namespace dev and cluster-wide (which includes "bind" on core-group "clusterroles", a
// resource that does not exist).
func escalationPolicy() Policy {
	rbacGroup := []string{rbacv1.GroupName}
	return Policy{
		ClusterRoles: []rbacv1.ClusterRole{
			clusterRole("pod-reader", rule([]string{"get", "list", "watch"}, []string{""}, []string{"pods"})),
			clusterRole("core-all", rule([]string{"*"}, []string{""}, []string{"*"})),
			clusterRole("escalate-foo", rbacv1.PolicyRule{Verbs: []string{"escalate"}, APIGroups: rbacGroup, Resources: []string{"roles", "clusterroles"}, ResourceNames: []string{"foo"}}),
			clusterRole("role-escalator", rule([]string{"escalate"}, rbacGroup, []string{"roles", "clusterroles"})),
			clusterRole("binder",
				rbacv1.PolicyRule{Verbs: []string{"bind"}, APIGroups: rbacGroup, Resources: []string{"clusterroles"}, ResourceNames: []string{"pod-reader"}},
				rule([]string{"bind"}, rbacGroup, []string{"roles"}),
			),
		},
		ClusterRoleBindings: []rbacv1.ClusterRoleBinding{
			clusterRoleBinding("esc", "role-escalator", userSubject("esc")),
			clusterRoleBinding("binder", "binder", userSubject("binder")),
			clusterRoleBinding("clustercore", "core-all", userSubject("clustercore")),
			clusterRoleBinding("escfoo", "escalate-foo", userSubject("escfoo")),
		},
		RoleBindings: []rbacv1.RoleBinding{
			roleBinding("dev", "core", "ClusterRole", "core-all", userSubject("core")),
		},
	}
}

func requestContext(u user.Info, namespace string) context.Context {
	ctx := genericapirequest.WithNamespace(context.Background(), namespace)
	if u != nil {
		ctx = genericapirequest.WithUser(ctx, u)
	}
	return ctx
}

var (
	admin  = &user.DefaultInfo{Name: UserAdmin, Groups: []string{GroupAdmin, user.AllAuthenticated}}
	alice  = &user.DefaultInfo{Name: UserAlice, Groups: []string{user.AllAuthenticated}}
	bob    = &user.DefaultInfo{Name: UserBob, Groups: []string{user.AllAuthenticated}}
	esc    = &user.DefaultInfo{Name: "esc", Groups: []string{user.AllAuthenticated}}
	binder = &user.DefaultInfo{Name: "binder", Groups: []string{user.AllAuthenticated}}
	core   = &user.DefaultInfo{Name: "core", Groups: []string{user.AllAuthenticated}}
	escFoo = &user.DefaultInfo{Name: "escfoo", Groups: []string{user.AllAuthenticated}}
	// clusterCore holds core-all cluster-wide.
	clusterCore = &user.DefaultInfo{Name: "clustercore", Groups: []string{user.AllAuthenticated}}
)

func configMapRule(verbs ...string) rbacv1.PolicyRule {
	return rule(verbs, []string{""}, []string{"configmaps"})
}

func secretRule(verbs ...string) rbacv1.PolicyRule {
	return rule(verbs, []string{""}, []string{"secrets"})
}

// wantOutcome checks err against the expected outcome: "" for success, "forbidden",
// "notfound" or "badrequest", and that a failure's message holds every string of msg.
func wantOutcome(t *testing.T, err error, want string, msg []string) {
	t.Helper()
	switch want {
	case "":
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	case "forbidden":
		if !apierrors.IsForbidden(err) {
			t.Fatalf("error = %v, want Forbidden", err)
		}
	case "notfound":
		if !apierrors.IsNotFound(err) {
			t.Fatalf("error = %v, want NotFound", err)
		}
	case "badrequest":
		if !apierrors.IsBadRequest(err) {
			t.Fatalf("error = %v, want BadRequest", err)
		}
	}
	for _, m := range msg {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q does not contain %q", err, m)
		}
	}
}

func TestRoleEscalationCreate(t *testing.T) {
	l := newListers(t, BootstrapPolicy(), escalationPolicy())
	authz, resolver := l.authorizer(), l.resolver()

	tests := []struct {
		name      string
		resource  schema.GroupResource
		user      user.Info
		namespace string
		obj       runtime.Object
		want      string
		msg       []string
	}{
		{
			name: "admin grants anything", resource: rolesResource, user: admin, namespace: "dev",
			obj: &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Rules: []rbacv1.PolicyRule{secretRule("*")}},
		},
		{
			name: "alice grants what she holds", resource: rolesResource, user: alice, namespace: NamespaceDefault,
			obj: &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Rules: []rbacv1.PolicyRule{configMapRule("get", "list")}},
		},
		{
			name: "alice grants a cluster-wide permission in her namespace", resource: rolesResource, user: alice, namespace: NamespaceDefault,
			obj: &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Rules: []rbacv1.PolicyRule{
				configMapRule("*"), rule([]string{"create"}, []string{"authorization.k8s.io"}, []string{"selfsubjectaccessreviews"}),
			}},
		},
		{
			name: "alice may not grant secrets", resource: rolesResource, user: alice, namespace: NamespaceDefault,
			obj:  &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Rules: []rbacv1.PolicyRule{configMapRule("get"), secretRule("get", "list")}},
			want: "forbidden",
			msg: []string{
				`roles.rbac.authorization.k8s.io "r" is forbidden`,
				`user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held`,
				`{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`,
			},
		},
		{
			name: "alice may not grant in another namespace", resource: rolesResource, user: alice, namespace: "kube-system",
			obj: &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Rules: []rbacv1.PolicyRule{configMapRule("get")}}, want: "forbidden",
			msg: []string{`Resources:["configmaps"]`},
		},
		{
			name: "namespace taken from the object", resource: rolesResource, user: alice,
			obj: &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: NamespaceDefault}, Rules: []rbacv1.PolicyRule{configMapRule("get")}},
		},
		{
			name: "no namespace at all", resource: rolesResource, user: alice,
			obj: &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}}, want: "badrequest",
		},
		{
			name: "no user", resource: rolesResource, namespace: NamespaceDefault,
			obj: &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}}, want: "forbidden", msg: []string{"no user"},
		},
		{
			name: "escalate verb allows anything", resource: rolesResource, user: esc, namespace: "dev",
			obj: &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Rules: []rbacv1.PolicyRule{secretRule("*")}},
		},
		{
			name: "bob grants what every user holds", resource: clusterRolesResource, user: bob,
			obj: &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Rules: []rbacv1.PolicyRule{
				{Verbs: []string{"get"}, NonResourceURLs: []string{"/version", "/apis/apps"}},
			}},
		},
		{
			name: "bob may not grant other paths", resource: clusterRolesResource, user: bob,
			obj: &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Rules: []rbacv1.PolicyRule{
				{Verbs: []string{"get", "post"}, NonResourceURLs: []string{"/version", "/metrics"}},
			}},
			want: "forbidden",
			msg: []string{
				`clusterroles.rbac.authorization.k8s.io "c" is forbidden`,
				`{NonResourceURLs:["/metrics"], Verbs:["get" "post"]}`,
				`{NonResourceURLs:["/version"], Verbs:["post"]}`,
			},
		},
		{
			name: "alice holds configmaps only in a namespace, not cluster-wide", resource: clusterRolesResource, user: alice, namespace: NamespaceDefault,
			obj: &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Rules: []rbacv1.PolicyRule{configMapRule("get")}}, want: "forbidden",
		},
		{
			name: "aggregation rule needs cluster-admin", resource: clusterRolesResource, user: bob,
			obj: &rbacv1.ClusterRole{
				ObjectMeta:      metav1.ObjectMeta{Name: "c"},
				AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"a": "b"}}}},
			},
			want: "forbidden", msg: []string{"aggregationRule"},
		},
		{
			name: "escalate on clusterroles", resource: clusterRolesResource, user: esc,
			obj: &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Rules: []rbacv1.PolicyRule{secretRule("*")}},
		},
		{
			// A create names no object in its URL: escalate on [foo] is no pass to create foo.
			name: "escalate limited to a name does not allow create", resource: rolesResource, user: escFoo, namespace: "dev",
			obj:  &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "foo"}, Rules: []rbacv1.PolicyRule{secretRule("*")}},
			want: "forbidden", msg: []string{`roles.rbac.authorization.k8s.io "foo" is forbidden`, `Resources:["secrets"]`},
		},
		{
			name: "escalate limited to a name does not allow creating a cluster role", resource: clusterRolesResource, user: escFoo,
			obj:  &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "foo"}, Rules: []rbacv1.PolicyRule{secretRule("*")}},
			want: "forbidden", msg: []string{`clusterroles.rbac.authorization.k8s.io "foo" is forbidden`},
		},
		{
			name: "escalate limited to a name: creating what one holds", resource: rolesResource, user: escFoo, namespace: "dev",
			obj: &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "foo"}, Rules: []rbacv1.PolicyRule{
				rule([]string{"create"}, []string{"authorization.k8s.io"}, []string{"selfsubjectaccessreviews"}),
			}},
		},
		{
			name: "wrong object type", resource: rolesResource, user: bob, namespace: "dev",
			obj: &rbacv1.RoleList{}, want: "badrequest",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newFakeStorage()
			s := NewRoleEscalationStorage(store, authz, resolver, tt.resource)
			_, err := s.Create(requestContext(tt.user, tt.namespace), tt.obj, nil, &metav1.CreateOptions{})
			wantOutcome(t, err, tt.want, tt.msg)
			if created := store.creates == 1; created != (tt.want == "") {
				t.Errorf("stored %d objects", store.creates)
			}
		})
	}
}

func TestRoleEscalationUpdate(t *testing.T) {
	l := newListers(t, BootstrapPolicy(), escalationPolicy())
	existing := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "secrets", Namespace: NamespaceDefault},
		Rules:      []rbacv1.PolicyRule{secretRule("get")},
	}
	withFinalizer := existing.DeepCopy()
	withFinalizer.Finalizers = []string{"example.com/keep"}
	withLabel := existing.DeepCopy()
	withLabel.Labels = map[string]string{"a": "b"}
	configMaps := existing.DeepCopy()
	configMaps.Rules = []rbacv1.PolicyRule{configMapRule("get")}

	tests := []struct {
		name string
		user user.Info
		obj  *rbacv1.Role
		want string
	}{
		{"admin updates", admin, withLabel, ""},
		{"only finalizers change", alice, withFinalizer, ""},
		{"other metadata changes", alice, withLabel, "forbidden"},
		{"rules narrowed to what alice holds", alice, configMaps, ""},
		{"bob may not narrow either", bob, configMaps, "forbidden"},
		{"escalate allowed", esc, withLabel, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newFakeStorage(existing)
			s := NewRoleEscalationStorage(store, l.authorizer(), l.resolver(), rolesResource)
			_, _, err := s.Update(requestContext(tt.user, NamespaceDefault), "secrets", rest.DefaultUpdatedObjectInfo(tt.obj), nil, nil, false, &metav1.UpdateOptions{})
			wantOutcome(t, err, tt.want, nil)
			if updated := store.updates == 1; updated != (tt.want == "") {
				t.Errorf("stored %d updates", store.updates)
			}
		})
	}

	// An update that creates the object is checked like a create.
	store := newFakeStorage()
	s := NewRoleEscalationStorage(store, l.authorizer(), l.resolver(), rolesResource)
	_, _, err := s.Update(requestContext(alice, NamespaceDefault), "secrets", rest.DefaultUpdatedObjectInfo(withFinalizer), nil, nil, true, &metav1.UpdateOptions{})
	wantOutcome(t, err, "forbidden", []string{"secrets"})
}

// TestRoleEscalationByName: "escalate" limited by resourceNames applies to updates of the
// named role, never to creates and never to other names.
func TestRoleEscalationByName(t *testing.T) {
	l := newListers(t, BootstrapPolicy(), escalationPolicy())
	grantSecrets := func(name string) *rbacv1.Role {
		return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "dev"}, Rules: []rbacv1.PolicyRule{secretRule("*")}}
	}
	tests := []struct {
		name   string
		update string // name of the role to update; "" to create
		want   string
	}{
		{"create foo", "", "forbidden"},
		{"update foo", "foo", ""},
		{"update bar", "bar", "forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newFakeStorage(&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: "dev"}},
				&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "bar", Namespace: "dev"}})
			s := NewRoleEscalationStorage(store, l.authorizer(), l.resolver(), rolesResource)
			ctx := requestContext(escFoo, "dev")
			var err error
			if tt.update == "" {
				_, err = s.Create(ctx, grantSecrets("foo"), nil, &metav1.CreateOptions{})
			} else {
				_, _, err = s.Update(ctx, tt.update, rest.DefaultUpdatedObjectInfo(grantSecrets(tt.update)), nil, nil, false, &metav1.UpdateOptions{})
			}
			wantOutcome(t, err, tt.want, nil)
			if written := store.creates+store.updates == 1; written != (tt.want == "") {
				t.Errorf("stored %d creates and %d updates", store.creates, store.updates)
			}
		})
	}
}

// TestClusterRoleAggregationUpdate: setting, changing or removing an aggregationRule needs
// cluster-admin's rules (or escalate); the old object counts as well as the new one.
func TestClusterRoleAggregationUpdate(t *testing.T) {
	l := newListers(t, BootstrapPolicy(), escalationPolicy())
	selector := func(v string) *rbacv1.AggregationRule {
		return &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"aggregate": v}}}}
	}
	aggregated := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "agg"}, AggregationRule: selector("a")}
	plain := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "agg"}}
	withLabel := func(r *rbacv1.ClusterRole) *rbacv1.ClusterRole {
		r = r.DeepCopy()
		r.Labels = map[string]string{"x": "y"}
		return r
	}
	withRule := func(r *rbacv1.ClusterRole, a *rbacv1.AggregationRule) *rbacv1.ClusterRole {
		r = r.DeepCopy()
		r.AggregationRule = a
		return r
	}
	tests := []struct {
		name     string
		user     user.Info
		old, obj *rbacv1.ClusterRole
		want     string
	}{
		{"removing it", bob, aggregated, withRule(aggregated, nil), "forbidden"},
		{"emptying its selectors", bob, aggregated, withRule(aggregated, &rbacv1.AggregationRule{}), "forbidden"},
		{"changing it", bob, aggregated, withRule(aggregated, selector("b")), "forbidden"},
		{"keeping it", bob, aggregated, withLabel(aggregated), "forbidden"},
		{"setting it", bob, plain, withRule(plain, selector("a")), "forbidden"},
		{"a plain role", bob, plain, withLabel(plain), ""},
		{"only finalizers", bob, aggregated, func() *rbacv1.ClusterRole {
			r := aggregated.DeepCopy()
			r.Finalizers = []string{"example.com/f"}
			return r
		}(), ""},
		{"admin removes it", admin, aggregated, withRule(aggregated, nil), ""},
		{"escalate allowed", esc, aggregated, withRule(aggregated, nil), ""},
		{"escalate on another name", escFoo, aggregated, withRule(aggregated, nil), "forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newFakeStorage(tt.old)
			s := NewRoleEscalationStorage(store, l.authorizer(), l.resolver(), clusterRolesResource)
			_, _, err := s.Update(requestContext(tt.user, ""), "agg", rest.DefaultUpdatedObjectInfo(tt.obj), nil, nil, false, &metav1.UpdateOptions{})
			wantOutcome(t, err, tt.want, []string{"must have cluster-admin privileges to use the aggregationRule"})
			if updated := store.updates == 1; updated != (tt.want == "") {
				t.Errorf("stored %d updates", store.updates)
			}
		})
	}
}

func TestBindingEscalation(t *testing.T) {
	l := newListers(t, BootstrapPolicy(), escalationPolicy())
	authz, resolver := l.authorizer(), l.resolver()
	rb := func(kind, roleName string) *rbacv1.RoleBinding {
		b := roleBinding("", "b", kind, roleName, userSubject(UserBob))
		return &b
	}
	crb := func(kind, roleName string) *rbacv1.ClusterRoleBinding {
		b := clusterRoleBinding("b", roleName, userSubject(UserBob))
		b.RoleRef.Kind = kind
		return &b
	}
	// inGroup sets the roleRef.apiGroup of a binding made by rb or crb.
	inGroup := func(group string, obj runtime.Object) runtime.Object {
		switch b := obj.(type) {
		case *rbacv1.RoleBinding:
			b.RoleRef.APIGroup = group
		case *rbacv1.ClusterRoleBinding:
			b.RoleRef.APIGroup = group
		}
		return obj
	}

	tests := []struct {
		name      string
		resource  schema.GroupResource
		user      user.Info
		namespace string
		obj       runtime.Object
		want      string
		msg       []string
	}{
		{name: "admin binds cluster-admin", resource: clusterRoleBindingsResource, user: admin, obj: crb("ClusterRole", ClusterRoleClusterAdmin)},
		{name: "alice binds her role", resource: roleBindingsResource, user: alice, namespace: NamespaceDefault, obj: rb("Role", RoleConfigMapEditor)},
		{
			name: "bob may not bind alice's role", resource: roleBindingsResource, user: bob, namespace: NamespaceDefault, obj: rb("Role", RoleConfigMapEditor),
			want: "forbidden",
			msg:  []string{`rolebindings.rbac.authorization.k8s.io "b" is forbidden`, `user "bob"`, `{APIGroups:[""], Resources:["configmaps"], Verbs:["*"]}`},
		},
		{
			name: "alice may not bind cluster-admin in her namespace", resource: roleBindingsResource, user: alice, namespace: NamespaceDefault,
			obj: rb("ClusterRole", ClusterRoleClusterAdmin), want: "forbidden", msg: []string{`Resources:["*"]`},
		},
		{name: "bob binds a cluster role he holds", resource: clusterRoleBindingsResource, user: bob, obj: crb("ClusterRole", ClusterRoleBasicUser)},
		{
			name: "alice may not bind her namespaced rights cluster-wide", resource: clusterRoleBindingsResource, user: alice,
			obj: crb("ClusterRole", "pod-reader"), want: "forbidden", msg: []string{"pods"},
		},
		{name: "bind verb on the named cluster role", resource: roleBindingsResource, user: binder, namespace: "dev", obj: rb("ClusterRole", "pod-reader")},
		{name: "bind verb on the named cluster role, cluster-wide", resource: clusterRoleBindingsResource, user: binder, obj: crb("ClusterRole", "pod-reader")},
		{
			name: "bind verb on another cluster role", resource: clusterRoleBindingsResource, user: binder,
			obj: crb("ClusterRole", ClusterRoleClusterAdmin), want: "forbidden",
		},
		{name: "bind verb on roles covers missing roles", resource: roleBindingsResource, user: binder, namespace: "dev", obj: rb("Role", "ghost")},
		{
			name: "binding a missing role", resource: roleBindingsResource, user: bob, namespace: NamespaceDefault,
			obj: rb("Role", "ghost"), want: "notfound", msg: []string{`"ghost" not found`},
		},
		{
			name: "cluster binding of a Role", resource: clusterRoleBindingsResource, user: bob,
			obj: crb("Role", RoleConfigMapEditor), want: "forbidden", msg: []string{"needs a namespace"},
		},
		{name: "no namespace", resource: roleBindingsResource, user: bob, obj: rb("Role", RoleConfigMapEditor), want: "badrequest"},

		// roleRef.apiGroup left empty means rbac.authorization.k8s.io, as the scheme's
		// defaulting makes it: "bind" on core-group clusterroles is no pass.
		{
			name: "empty apiGroup: core-group rights do not bind cluster-admin", resource: roleBindingsResource, user: core, namespace: "dev",
			obj: inGroup("", rb("ClusterRole", ClusterRoleClusterAdmin)), want: "forbidden",
			msg: []string{`rolebindings.rbac.authorization.k8s.io "b" is forbidden`, `user "core"`, `Resources:["*"]`},
		},
		{
			name: "empty apiGroup: core-group rights do not bind cluster-admin cluster-wide", resource: clusterRoleBindingsResource, user: clusterCore,
			obj: inGroup("", crb("ClusterRole", ClusterRoleClusterAdmin)), want: "forbidden",
			msg: []string{`clusterrolebindings.rbac.authorization.k8s.io "b" is forbidden`, `user "clustercore"`, `Resources:["*"]`},
		},
		{
			name: "rbac apiGroup: core-group rights do not bind cluster-admin", resource: roleBindingsResource, user: core, namespace: "dev",
			obj: rb("ClusterRole", ClusterRoleClusterAdmin), want: "forbidden",
		},
		{
			name: "other apiGroup: no bind shortcut", resource: clusterRoleBindingsResource, user: clusterCore,
			obj: inGroup("example.com", crb("ClusterRole", ClusterRoleClusterAdmin)), want: "forbidden",
		},
		{name: "empty apiGroup: binding a held role", resource: roleBindingsResource, user: core, namespace: "dev", obj: inGroup("", rb("ClusterRole", "core-all"))},
		{name: "empty apiGroup: binding a held cluster role", resource: clusterRoleBindingsResource, user: clusterCore, obj: inGroup("", crb("ClusterRole", "core-all"))},
		{name: "empty apiGroup: bind verb on the named cluster role", resource: roleBindingsResource, user: binder, namespace: "dev", obj: inGroup("", rb("ClusterRole", "pod-reader"))},
		{name: "empty apiGroup: admin", resource: clusterRoleBindingsResource, user: admin, obj: inGroup("", crb("ClusterRole", ClusterRoleClusterAdmin))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newFakeStorage()
			s := NewBindingEscalationStorage(store, authz, resolver, tt.resource)
			_, err := s.Create(requestContext(tt.user, tt.namespace), tt.obj, nil, &metav1.CreateOptions{})
			wantOutcome(t, err, tt.want, tt.msg)

			// The same check applies when an update writes the object.
			store = newFakeStorage(tt.obj.DeepCopyObject())
			s = NewBindingEscalationStorage(store, authz, resolver, tt.resource)
			changed := tt.obj.DeepCopyObject()
			changed.(metav1.Object).SetLabels(map[string]string{"changed": "true"})
			_, _, err = s.Update(requestContext(tt.user, tt.namespace), "b", rest.DefaultUpdatedObjectInfo(changed), nil, nil, false, &metav1.UpdateOptions{})
			wantOutcome(t, err, tt.want, tt.msg)
		})
	}
}

func TestEscalationStorageForwarding(t *testing.T) {
	l := newListers(t)
	ctx := context.Background()

	bare := NewRoleEscalationStorage(newFakeStorage(), nil, l.resolver(), rolesResource)
	if !bare.NamespaceScoped() || bare.GetSingularName() != "role" || bare.GetResetFields() != nil ||
		bare.StorageVersion() != nil || bare.ReadinessCheck() != nil || bare.DeleteReturnsDeletedObject() || bare.GetCorruptObjDeleter() != nil {
		t.Errorf("bare storage: unexpected forwarded values")
	}
	if _, err := bare.ConvertToTable(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}}, nil); err != nil {
		t.Errorf("default ConvertToTable: %v", err)
	}
	if NewBindingEscalationStorage(newFakeStorage(), nil, l.resolver(), clusterRoleBindingsResource).NamespaceScoped() {
		t.Errorf("clusterrolebindings reported as namespaced")
	}
	if got := NewBindingEscalationStorage(newFakeStorage(), nil, l.resolver(), clusterRoleBindingsResource).GetSingularName(); got != "clusterrolebinding" {
		t.Errorf("singular name %q", got)
	}

	rich := NewRoleEscalationStorage(richStorage{newFakeStorage()}, nil, l.resolver(), rolesResource)
	if rich.NamespaceScoped() || rich.GetSingularName() != "rich" || len(rich.GetResetFields()) != 1 ||
		rich.StorageVersion() != rbacv1.SchemeGroupVersion || rich.ReadinessCheck() == nil ||
		!rich.DeleteReturnsDeletedObject() || rich.GetCorruptObjDeleter() == nil {
		t.Errorf("rich storage: values not forwarded")
	}
	table, err := rich.ConvertToTable(ctx, &rbacv1.Role{}, nil)
	if err != nil || table.ColumnDefinitions[0].Name != "Rich" {
		t.Errorf("ConvertToTable not forwarded: %v, %v", table, err)
	}

	// Other verbs go straight through.
	if _, err := rich.Get(ctx, "missing", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get = %v", err)
	}
}

func TestEscalationStorageRejectsOtherResources(t *testing.T) {
	tests := []struct {
		name    string
		binding bool
		gr      schema.GroupResource
	}{
		{"binding resource for roles", false, roleBindingsResource},
		{"role resource for bindings", true, clusterRolesResource},
		{"other group", false, schema.GroupResource{Group: "example.com", Resource: "roles"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			if tt.binding {
				NewBindingEscalationStorage(newFakeStorage(), nil, nil, tt.gr)
			} else {
				NewRoleEscalationStorage(newFakeStorage(), nil, nil, tt.gr)
			}
		})
	}
}
