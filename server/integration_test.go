package server_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubewalk/kubewalk/server"
	"github.com/kubewalk/kubewalk/server/admit"
)

// shared is one server for the read-mostly tests; tests that change RBAC or stop the server
// start their own.
func TestServer(t *testing.T) {
	s := startServer(t)
	admin := clientFor(t, s, "admin")
	ctx := context.Background()

	t.Run("CRUD", func(t *testing.T) {
		cms := admin.CoreV1().ConfigMaps("default")
		cm, err := cms.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "crud"},
			Data:       map[string]string{"k": "v"},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		got, err := cms.Get(ctx, "crud", metav1.GetOptions{})
		if err != nil || got.Data["k"] != "v" {
			t.Fatalf("get: %v %v", got, err)
		}
		got.Data["k"] = "v2"
		if _, err := cms.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("update: %v", err)
		}
		list, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) == 0 {
			t.Fatalf("list: %v %v", list, err)
		}
		if err := cms.Delete(ctx, "crud", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if _, err := cms.Get(ctx, "crud", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("get after delete: want NotFound, got %v", err)
		}
		if cm.ResourceVersion == "" || cm.UID == "" || cm.CreationTimestamp.IsZero() {
			t.Fatalf("server did not fill metadata: %+v", cm.ObjectMeta)
		}
	})

	t.Run("Version", func(t *testing.T) {
		// GET /version names kubewalk and reports only what the binary knows: never the
		// library's -ldflags placeholders.
		v, err := admin.Discovery().ServerVersion()
		if err != nil {
			t.Fatal(err)
		}
		if v.GitVersion != "v"+server.KubernetesVersion+"+kubewalk" {
			t.Errorf("gitVersion = %q", v.GitVersion)
		}
		for name, f := range map[string]string{"gitCommit": v.GitCommit, "gitTreeState": v.GitTreeState, "buildDate": v.BuildDate} {
			if f == "" || strings.Contains(f, "$Format") || strings.HasPrefix(f, "1970") {
				t.Errorf("%s = %q: a placeholder", name, f)
			}
		}
		if b := server.ReadBuild(); b.Revision == "" && (v.GitCommit != "unknown" || v.BuildDate != "unknown") {
			t.Errorf("a test binary records no revision, so gitCommit and buildDate must be unknown: %+v", v)
		}
	})

	t.Run("Watch", func(t *testing.T) {
		cms := admin.CoreV1().ConfigMaps("default")
		w, err := cms.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=watched"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-w.ResultChan():
			if ev.Type != watch.Added || ev.Object.(*corev1.ConfigMap).Name != "watched" {
				t.Fatalf("event = %v %v", ev.Type, ev.Object)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no watch event")
		}
	})

	t.Run("DefaultNamespacesAndDiscovery", func(t *testing.T) {
		for _, ns := range []string{"default", "kube-system", "kube-public"} {
			if _, err := admin.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
				t.Errorf("namespace %s: %v", ns, err)
			}
		}
		// The extension server's group comes up after ready, in the background (aggregated.go):
		// until the aggregator has its discovery document, that group version is stale, as
		// an aggregated API is in kube-apiserver. Wait for it, bounded.
		var groups []*metav1.APIGroup
		var resources []*metav1.APIResourceList
		deadline := time.Now().Add(30 * time.Second)
		for {
			var err error
			groups, resources, err = admin.Discovery().ServerGroupsAndResources()
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		var names []string
		for _, g := range groups {
			names = append(names, g.Name)
		}
		for _, want := range []string{"", "rbac.authorization.k8s.io", "authorization.k8s.io", "authentication.k8s.io"} {
			if !contains(names, want) {
				t.Errorf("group %q not discovered in %v", want, names)
			}
		}
		found := map[string]metav1.APIResource{}
		for _, rl := range resources {
			for _, r := range rl.APIResources {
				found[rl.GroupVersion+"/"+r.Name] = r
			}
		}
		for _, want := range []string{"v1/pods", "v1/pods/status", "v1/configmaps", "v1/events", "v1/secrets", "v1/serviceaccounts", "v1/namespaces",
			"rbac.authorization.k8s.io/v1/roles", "rbac.authorization.k8s.io/v1/clusterrolebindings",
			"authorization.k8s.io/v1/selfsubjectaccessreviews", "authentication.k8s.io/v1/selfsubjectreviews"} {
			if _, ok := found[want]; !ok {
				t.Errorf("resource %s not discovered", want)
			}
		}
		if sn := found["v1/configmaps"].ShortNames; !contains(sn, "cm") {
			t.Errorf("configmaps short names = %v, want cm", sn)
		}
	})

	t.Run("PodStatusSubresource", func(t *testing.T) {
		pods := admin.CoreV1().Pods("default")
		pod, err := pods.Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "status-demo"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
			Status:     corev1.PodStatus{Phase: corev1.PodRunning, Message: "set on create"},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pod.Status.Message != "" || pod.Status.Phase != corev1.PodPending {
			t.Fatalf("create kept client status: %+v", pod.Status)
		}
		// The status subresource changes status and ignores spec.
		pod.Status.Phase = corev1.PodRunning
		pod.Spec.Containers[0].Image = "nginx:1.28"
		pod, err = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pod.Status.Phase != corev1.PodRunning || pod.Spec.Containers[0].Image != "nginx:1.27" {
			t.Fatalf("status update: phase %s image %s", pod.Status.Phase, pod.Spec.Containers[0].Image)
		}
		// The main resource changes spec and ignores status.
		pod.Status.Phase = corev1.PodFailed
		pod.Spec.Containers[0].Image = "nginx:1.28"
		pod, err = pods.Update(ctx, pod, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pod.Status.Phase != corev1.PodRunning || pod.Spec.Containers[0].Image != "nginx:1.28" {
			t.Fatalf("main update: phase %s image %s", pod.Status.Phase, pod.Spec.Containers[0].Image)
		}
	})

	t.Run("Validation422", func(t *testing.T) {
		tests := []struct {
			name  string
			do    func() error
			field string
		}{
			{"configmap key", func() error {
				_, err := admin.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Data: map[string]string{"bad key": "x"},
				}, metav1.CreateOptions{})
				return err
			}, "data[bad key]"},
			{"pod image", func() error {
				_, err := admin.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: "noimage"},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}},
				}, metav1.CreateOptions{})
				return err
			}, "spec.containers[0].image"},
			{"name", func() error {
				_, err := admin.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: "Not_A_Name"},
				}, metav1.CreateOptions{})
				return err
			}, "metadata.name"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.do()
				if !apierrors.IsInvalid(err) {
					t.Fatalf("want 422 Invalid, got %v", err)
				}
				var status apierrors.APIStatus
				if !errors.As(err, &status) || status.Status().Code != http.StatusUnprocessableEntity {
					t.Fatalf("want code 422, got %v", err)
				}
				var fieldsSeen []string
				for _, c := range status.Status().Details.Causes {
					fieldsSeen = append(fieldsSeen, c.Field)
				}
				if !contains(fieldsSeen, tt.field) {
					t.Fatalf("causes %v do not name %s", fieldsSeen, tt.field)
				}
			})
		}
	})

	t.Run("Admission", func(t *testing.T) {
		cm, err := admin.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "stamped"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := cm.Annotations[admit.CreatedByAnnotation]; got != server.AdminUser {
			t.Errorf("created-by = %q, want %q", got, server.AdminUser)
		}
		_, err = admin.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "floating"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:latest"}}},
		}, metav1.CreateOptions{})
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), admit.PinnedImagesName) {
			t.Errorf("latest image: want Forbidden by %s, got %v", admit.PinnedImagesName, err)
		}
		_, err = admin.CoreV1().ConfigMaps("no-such-ns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
		if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "no-such-ns") {
			t.Errorf("missing namespace: want NotFound from NamespaceLifecycle, got %v", err)
		}
	})

	t.Run("EventsFieldSelector", func(t *testing.T) {
		ev := admin.CoreV1().Events("default")
		for _, name := range []string{"a", "b"} {
			_, err := ev.Create(ctx, &corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{Name: "ev-" + name},
				InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "default", Name: name},
				Reason:         "Test", Message: "hello", Type: corev1.EventTypeNormal,
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
		}
		list, err := ev.List(ctx, metav1.ListOptions{FieldSelector: fields.Set{"involvedObject.name": "a", "involvedObject.kind": "ConfigMap"}.String()})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 || list.Items[0].Name != "ev-a" {
			t.Fatalf("field selector returned %d events", len(list.Items))
		}
	})

	t.Run("ServerSideApply", func(t *testing.T) {
		cms := admin.CoreV1().ConfigMaps("default")
		cfg := corev1apply.ConfigMap("applied", "default").WithData(map[string]string{"a": "1"})
		cm, err := cms.Apply(ctx, cfg, metav1.ApplyOptions{FieldManager: "first"})
		if err != nil {
			t.Fatal(err)
		}
		if cm.Data["a"] != "1" || len(cm.ManagedFields) == 0 {
			t.Fatalf("apply: %v managed %v", cm.Data, cm.ManagedFields)
		}
		_, err = cms.Apply(ctx, corev1apply.ConfigMap("applied", "default").WithData(map[string]string{"a": "2"}), metav1.ApplyOptions{FieldManager: "second"})
		if !apierrors.IsConflict(err) {
			t.Fatalf("second manager: want conflict, got %v", err)
		}
		cm, err = cms.Apply(ctx, corev1apply.ConfigMap("applied", "default").WithData(map[string]string{"a": "2"}), metav1.ApplyOptions{FieldManager: "second", Force: true})
		if err != nil || cm.Data["a"] != "2" {
			t.Fatalf("forced apply: %v %v", cm, err)
		}
	})

	t.Run("AuthMatrix", func(t *testing.T) {
		anon := restConfig(t, s, "")
		badToken := restConfig(t, s, "")
		badToken.BearerToken = "not-a-token"
		tests := []struct {
			who  string
			cfg  *rest.Config
			path string
			want int
		}{
			{"admin", restConfig(t, s, "admin"), "/api/v1/namespaces/kube-system/secrets", 200},
			{"alice", restConfig(t, s, "alice"), "/api/v1/namespaces/default/configmaps", 200},
			{"alice", restConfig(t, s, "alice"), "/api/v1/namespaces/kube-system/configmaps", 403},
			{"alice", restConfig(t, s, "alice"), "/api/v1/namespaces/default/secrets", 403},
			{"bob", restConfig(t, s, "bob"), "/api/v1/namespaces/default/configmaps", 403},
			{"bob", restConfig(t, s, "bob"), "/api", 200},
			{"bob", restConfig(t, s, "bob"), "/version", 200},
			{"bad token", badToken, "/api/v1/namespaces", 401},
			{"bad token", badToken, "/healthz", 401},
			{"anonymous", anon, "/healthz", 200},
			{"anonymous", anon, "/readyz", 200},
			{"anonymous", anon, "/version", 200},
			{"anonymous", anon, "/api", 401},
			{"anonymous", anon, "/api/v1/namespaces", 401},
			{"anonymous", anon, "/metrics", 401},
		}
		for _, tt := range tests {
			t.Run(tt.who+tt.path, func(t *testing.T) {
				if got := statusOf(t, tt.cfg, tt.path); got != tt.want {
					t.Fatalf("%s GET %s = %d, want %d", tt.who, tt.path, got, tt.want)
				}
			})
		}
	})

	t.Run("WhoAmIAndCanI", func(t *testing.T) {
		alice := clientFor(t, s, "alice")
		ssr, err := alice.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ssr.Status.UserInfo.Username != server.AliceUser || !contains(ssr.Status.UserInfo.Groups, "system:authenticated") {
			t.Fatalf("whoami = %+v", ssr.Status.UserInfo)
		}
		review := func(ns, verb, resource string) bool {
			r, err := alice.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Resource: resource}},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status.Allowed
		}
		if !review("default", "create", "configmaps") || review("kube-system", "create", "configmaps") || review("default", "get", "secrets") {
			t.Fatal("SelfSubjectAccessReview answers do not match alice's role")
		}
		rules, err := alice.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
			Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "default"},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var sawConfigMaps bool
		for _, r := range rules.Status.ResourceRules {
			sawConfigMaps = sawConfigMaps || contains(r.Resources, "configmaps")
		}
		if !sawConfigMaps {
			t.Fatalf("rules review lacks configmaps: %+v", rules.Status)
		}
	})

	t.Run("State", func(t *testing.T) {
		st := s.State()
		for _, label := range []string{"secureServing", "authenticator", "authorizer", "chain", "etcd", "members", "restStores", "groups", "routes", "postStartHooks", "kubeconfig"} {
			if st.Find(label) == nil {
				t.Errorf("state has no %q node:\n%s", label, st)
			}
		}
		if n := st.Find("endpoints"); n == nil || !strings.HasPrefix(n.Value, "http://127.0.0.1:") {
			t.Errorf("etcd endpoints = %v", n)
		}
		for _, tt := range []struct{ store, want string }{
			{"configmaps", "key /registry/configmaps/…, stored as v1 ConfigMap in application/vnd.kubernetes.protobuf"},
			{"clusterrolebindings", "key /registry/clusterrolebindings/…, stored as rbac.authorization.k8s.io/v1 ClusterRoleBinding in application/vnd.kubernetes.protobuf"},
			{"pods/status", "subresource of pods, same etcd key"},
		} {
			if n := st.Find("restStores").Find(tt.store); n == nil || n.Value != tt.want {
				t.Errorf("%s store = %v, want %q", tt.store, n, tt.want)
			}
		}
	})

	t.Run("Kubeconfig", func(t *testing.T) {
		fi, err := os.Stat(s.Kubeconfig())
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("kubeconfig mode %v, want 0600", fi.Mode().Perm())
		}
	})
}

// TestRBACChangeTakesEffect grants bob a role binding through the API and sees it honoured.
func TestRBACChangeTakesEffect(t *testing.T) {
	s := startServer(t)
	ctx := context.Background()
	admin, bob, alice := clientFor(t, s, "admin"), clientFor(t, s, "bob"), clientFor(t, s, "alice")
	if _, err := bob.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("bob before binding: want Forbidden, got %v", err)
	}
	_, err := admin.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "bob-configmaps"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "configmap-editor"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: server.BobUser}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The authorizer reads through an informer: the binding arrives by watch, within moments.
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := bob.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("bob never got access: %v", err)
	}

	// Escalation: alice may manage configmaps but may not grant herself secrets.
	_, err = alice.RbacV1().Roles("default").Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "grab-secrets"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}},
	}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("alice creating a secrets role: want Forbidden, got %v", err)
	}
}

// TestShutdownFromEveryCheckpoint stops the server at every checkpoint and once it serves,
// and checks that nothing is left behind: no goroutine the run started (compared by stack,
// waited for with a bound), no listening socket, no work dir, no kubeconfig. At each
// checkpoint it closes the server twice over: once from three goroutines at once while the
// hook pauses it, once from inside the hook itself.
func TestShutdownFromEveryCheckpoint(t *testing.T) {
	// Process-wide goroutines (klog's flush daemon, client-go's and etcd's package-level
	// workers) start with the first server and stay: start them before any snapshot.
	warm := startServer(t)
	if err := warm.Close(); err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, cp := range server.Checkpoints() {
		targets = append(targets, cp.ID())
	}
	targets = append(targets, "served")
	for _, at := range targets {
		for _, from := range []string{"goroutines", "hook"} {
			if at == "served" && from == "hook" {
				continue
			}
			t.Run(at+"/from-"+from, func(t *testing.T) {
				before := goroutines()
				hook := newPauseHook(at)
				hook.closeInside = from == "hook"
				s := newServer(t, func(o *server.Options) { o.Hook = hook })
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				errc := make(chan error, 1)
				go func() { errc <- s.Start(ctx) }()
				wait := func(what string) error {
					select {
					case err := <-errc:
						return err
					case <-time.After(2 * time.Minute):
						t.Fatalf("Start did not return %s", what)
						return nil
					}
				}
				switch {
				case at == "served":
					if err := wait("through serve"); err != nil {
						t.Fatal(err)
					}
				case from == "hook":
					// The hook closes the server and returns; Start must end, not deadlock.
					if err := wait("after Close inside the hook"); !errors.Is(err, server.ErrClosed) {
						t.Fatalf("Start after Close inside the hook: want server.ErrClosed, got %v", err)
					}
				default:
					select {
					case <-hook.arrived:
					case err := <-errc:
						t.Fatalf("Start ended before %s: %v", at, err)
					case <-time.After(2 * time.Minute):
						t.Fatalf("never reached %s", at)
					}
				}
				addr := strings.TrimPrefix(s.Address(), "https://")
				dir, kubeconfig := s.WorkDir(), s.Kubeconfig()
				if from == "goroutines" {
					closeErrs := make(chan error, 3)
					for range 3 {
						go func() { closeErrs <- s.Close() }()
					}
					for range 3 {
						if err := <-closeErrs; err != nil {
							t.Fatalf("close: %v", err)
						}
					}
					if at != "served" {
						if err := wait("after Close"); !errors.Is(err, server.ErrClosed) {
							t.Fatalf("Start after Close: want server.ErrClosed, got %v", err)
						}
					}
				}
				if hook.closeErr != nil {
					t.Fatalf("close inside the hook: %v", hook.closeErr)
				}
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("work dir %s still exists (%v)", dir, err)
				}
				if kubeconfig != "" {
					if _, err := os.Stat(kubeconfig); !os.IsNotExist(err) {
						t.Errorf("kubeconfig %s still exists (%v)", kubeconfig, err)
					}
				}
				if addr != "" {
					if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
						c.Close()
						t.Errorf("port %s still accepts connections", addr)
					}
				}
				var left []string
				if unservedAggregator[at] {
					var kept int
					left = leftBehindExcept(before, func(left []string) []string {
						left, kept = withoutDiscoveryManagerQueue(left)
						return left
					})
					if kept != 2 {
						t.Errorf("expected the aggregator's discovery manager queue to stay (its two goroutines), found %d of them: update withoutDiscoveryManagerQueue and chain_stop.go", kept)
					}
				} else {
					left = leftBehind(before)
				}
				if len(left) > 0 {
					t.Errorf("%d goroutines left behind after Close:\n%s", len(left), strings.Join(left, "\n\n"))
				}
			})
		}
	}
}

// unservedAggregator are the checkpoints at which the aggregator exists and has never run.
var unservedAggregator = map[string]bool{"install/aggregator": true, "serve/prepare-run": true}

// withoutDiscoveryManagerQueue takes out of left the two goroutines of the one work queue a
// chain closed with an aggregator that never ran keeps (server/chain_stop.go), and says how
// many it took: kube-aggregator makes its discovery manager's queue in NewWithDelegate and
// shuts it down only from a post-start hook that runs the manager once the APIService
// informer has synced, which needs a serving server. It takes at most one goroutine of each
// kind, so another queue left running still shows.
func withoutDiscoveryManagerQueue(left []string) ([]string, int) {
	kinds := []string{
		"workqueue.(*delayingType[...]).waitingLoop",
		"workqueue.(*Typed[...]).updateUnfinishedWorkLoop",
	}
	taken := make([]bool, len(kinds))
	var out []string
	n := 0
next:
	for _, stack := range left {
		for i, fn := range kinds {
			if !taken[i] && strings.Contains(stack, fn) {
				taken[i] = true
				n++
				continue next
			}
		}
		out = append(out, stack)
	}
	return out, n
}

// TestCloseBetweenPhases: a phase asked to run after Close says so with server.ErrClosed,
// naming the phase, so callers can tell a shutdown from a failure.
func TestCloseBetweenPhases(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	if err := s.Config(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	err := s.Authn(ctx)
	if !errors.Is(err, server.ErrClosed) || !strings.Contains(err.Error(), "phase authn") {
		t.Fatalf("Authn after Close: want server.ErrClosed naming phase authn, got %v", err)
	}
}

// TestFailingStoreLeavesNothing makes building one REST store fail and checks that the
// stores built before it are destroyed at once: their watch caches and count observers stop
// before Close, which would otherwise only reach the stores it knows of.
func TestFailingStoreLeavesNothing(t *testing.T) {
	for _, resource := range []string{"configmaps", "pods", "rolebindings", "clusterrolebindings"} {
		t.Run(resource, func(t *testing.T) {
			before := goroutines()
			s := newServer(t, func(o *server.Options) {
				o.Hook = server.HookFunc(func(ctx context.Context, cp server.Checkpoint, s *server.Server) error {
					if cp.ID() == "storage/storage-factory" {
						server.FailRESTOptionsFor(s, resource)
					}
					return nil
				})
			})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			err := s.Start(ctx)
			if err == nil || !strings.Contains(err.Error(), "REST store "+resource) {
				t.Fatalf("want the %s store to fail, got %v", resource, err)
			}
			var stores []string
			_ = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
				stores = nil
				for _, g := range before.started(goroutines()) {
					if strings.Contains(g, "storage/cacher.") || strings.Contains(g, "startObservingCount") {
						stores = append(stores, g)
					}
				}
				return len(stores) == 0, nil
			})
			if len(stores) > 0 {
				t.Fatalf("%d store goroutines still run after the storage phase failed:\n%s", len(stores), strings.Join(stores, "\n\n"))
			}
		})
	}
}

// TestNothingListensBeforeServe: while the walkthrough is paused before serve, a client gets
// "connection refused", not a hung TLS handshake.
func TestNothingListensBeforeServe(t *testing.T) {
	hook := newPauseHook("install/post-start-hooks")
	s := newServer(t, func(o *server.Options) { o.Hook = hook })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- s.Start(ctx) }()
	select {
	case <-hook.arrived:
	case err := <-errc:
		t.Fatalf("Start ended before install/post-start-hooks: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("never reached install/post-start-hooks")
	}
	addr := strings.TrimPrefix(s.Address(), "https://")
	_, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("dial %s before serve: want connection refused, got %v", addr, err)
	}
	if got := s.PhaseState(server.PhaseConfig).Find("listening"); got == nil || !strings.HasPrefix(got.Value, "no") {
		t.Fatalf("state says listening = %v", got)
	}
	close(hook.release)
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Start after the pause: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("Start did not finish after the pause")
	}
}

// TestBadInput checks each bad setting fails with one error naming its flag: the settings that
// can be checked up front fail in New (before any phase, so before a walkthrough starts),
// the others in the phase that meets them.
func TestBadInput(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port
	tests := []struct {
		name string
		opts func(*server.Options)
		want string
	}{
		{"busy port", func(o *server.Options) { o.SecurePort = busyPort }, fmt.Sprintf("--secure-port %d", busyPort)},
		{"unreachable etcd", func(o *server.Options) { o.EtcdServers = []string{"http://127.0.0.1:1"} }, "--etcd-servers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.opts)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := s.Start(ctx)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want error naming %q, got %v", tt.want, err)
			}
		})
	}

	// Below a regular file nothing can be created, not even by root.
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opts server.Options
		want string
	}{
		{"port out of range", server.Options{SecurePort: 70000}, "--secure-port"},
		{"etcd client port out of range", server.Options{EtcdClientPort: -1}, "--etcd-client-port -1: must be between 0 and 65535"},
		{"etcd peer port with external etcd", server.Options{EtcdServers: []string{"http://x:1"}, EtcdPeerPort: 2380}, "--etcd-peer-port 2380 and --etcd-servers"},
		{"etcd ports alike", server.Options{EtcdClientPort: 2379, EtcdPeerPort: 2379}, "--etcd-client-port and --etcd-peer-port are both 2379"},
		{"etcd port is the secure port", server.Options{SecurePort: 6443, EtcdClientPort: 6443}, "--etcd-client-port 6443: --secure-port is 6443 too"},
		{"bind address with a port", server.Options{BindAddress: "localhost:1"}, "--bind-address"},
		{"etcd URL scheme", server.Options{EtcdServers: []string{"ftp://x"}}, "--etcd-servers"},
		{"data dir with external etcd", server.Options{EtcdServers: []string{"http://x:1"}, DataDir: filepath.Join(tmp, "etcd")}, "--data-dir"},
		{"data dir in /proc", server.Options{DataDir: "/proc/x"}, "--data-dir /proc/x: cannot create it"},
		{"data dir below a file", server.Options{DataDir: file + "/etcd"}, "--data-dir " + file + "/etcd: cannot create it"},
		{"kubeconfig below a file", server.Options{Kubeconfig: file + "/dir/kubeconfig"}, "--kubeconfig " + file + "/dir/kubeconfig: directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Validate: want one line naming %s, got %v", tt.want, err)
			}
			if _, err := server.New(tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: want error naming %s, got %v", tt.want, err)
			}
		})
	}
	if _, err := os.Stat("/proc/x"); !os.IsNotExist(err) {
		t.Errorf("validation left /proc/x behind: %v", err)
	}
}

// TestValidateLeavesNothing: checking that --data-dir and --kubeconfig's directory can be
// written creates nothing that stays.
func TestValidateLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	opts := server.Options{DataDir: filepath.Join(dir, "a", "b", "etcd"), Kubeconfig: filepath.Join(dir, "c", "kubeconfig")}
	if err := opts.Validate(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 0 {
		t.Fatalf("Validate left %v behind (%v)", entries, err)
	}
}

// ownKubeconfig is a kubeconfig as a kubewalk run that has ended would have left it.
const ownKubeconfig = `apiVersion: v1
kind: Config
clusters:
- cluster:
    server: https://127.0.0.1:1
  name: kubewalk
contexts: []
preferences:
  extensions:
  - name: kubewalk.io/run
    extension:
      pid: 1
      run: 0123456789abcdef
`

// TestKubeconfigNotOurs: kubewalk refuses a --kubeconfig that holds a file it did not write,
// before any phase runs, says how to proceed, and leaves the file as it was.
func TestKubeconfigNotOurs(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ name, content string }{
		{"a real kubeconfig", "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://prod.example.com\n  name: prod\ncurrent-context: prod\n"},
		{"not a kubeconfig", "important notes\n"},
		{"empty", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			opts := server.Options{Kubeconfig: path}
			for what, err := range map[string]error{"Validate": opts.Validate(), "New": newErr(opts)} {
				if err == nil || !strings.Contains(err.Error(), "--kubeconfig "+path+": the file exists and kubewalk did not write it") ||
					!strings.Contains(err.Error(), "pass another path") {
					t.Errorf("%s: want a refusal naming --kubeconfig and how to proceed, got %v", what, err)
				}
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != tt.content {
				t.Errorf("the file changed: %q (%v)", b, err)
			}
		})
	}
}

func newErr(opts server.Options) error {
	s, err := server.New(opts)
	if err == nil {
		s.Close()
	}
	return err
}

// TestKubeconfigLifecycle: a file an ended run left is replaced; the kubeconfig works with
// client-go's loader; kubectl-style edits keep it ours; Close removes it and its lock.
func TestKubeconfigLifecycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kube", "config")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(ownKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, func(o *server.Options) { o.Kubeconfig = path })
	if s.Kubeconfig() != path || s.KubeconfigNote() != "" {
		t.Fatalf("kubeconfig %s (note %q), want %s", s.Kubeconfig(), s.KubeconfigNote(), path)
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Clusters["kubewalk"].Server; got != s.Address() {
		t.Fatalf("kubeconfig server %s, want %s: the stale file was not replaced", got, s.Address())
	}
	// What kubectl config use-context does: load, change, write back.
	cfg.CurrentContext = "alice"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	rc, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubernetes.NewForConfigOrDie(rc).CoreV1().ConfigMaps("default").List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatalf("alice through the kubeconfig: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil || len(entries) != 0 {
		t.Fatalf("after Close the kubeconfig dir holds %v (%v)", entries, err)
	}
}

// TestConcurrentRuns: two runs at once both work. The second finds the default kubeconfig
// path held by the first, uses its work dir and says so; an explicit path held by a live run
// is an error naming the flag.
func TestConcurrentRuns(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	def := server.DefaultKubeconfigPath()
	first := startServer(t, func(o *server.Options) { o.Kubeconfig = def })
	second := startServer(t, func(o *server.Options) { o.Kubeconfig = def })
	if first.Kubeconfig() != def {
		t.Fatalf("first run's kubeconfig %s, want %s", first.Kubeconfig(), def)
	}
	if second.Kubeconfig() == def || !strings.HasPrefix(second.Kubeconfig(), second.WorkDir()) {
		t.Fatalf("second run's kubeconfig %s, want one in its work dir %s", second.Kubeconfig(), second.WorkDir())
	}
	if note := second.KubeconfigNote(); !strings.Contains(note, def) || !strings.Contains(note, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second run's note %q does not say why", note)
	}
	if n := second.State().Find("note"); n == nil || n.Value != second.KubeconfigNote() {
		t.Fatalf("state does not show the note: %v", n)
	}
	for _, s := range []*server.Server{first, second} {
		rc, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := rc.Host, s.Address(); got != want {
			t.Fatalf("kubeconfig %s points at %s, want %s", s.Kubeconfig(), got, want)
		}
		if _, err := kubernetes.NewForConfigOrDie(rc).CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{}); err != nil {
			t.Fatalf("through %s: %v", s.Kubeconfig(), err)
		}
	}
	explicit := filepath.Join(t.TempDir(), "kubeconfig")
	newServer(t, func(o *server.Options) { o.Kubeconfig = explicit }) // holds explicit
	_, err := server.New(server.Options{Kubeconfig: explicit})
	if err == nil || !strings.Contains(err.Error(), "--kubeconfig "+explicit+": another kubewalk run (pid") {
		t.Fatalf("explicit path held by a live run: want an error naming the flag, got %v", err)
	}
	// A default path that cannot be used at all falls back too, instead of failing.
	unusable := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(unusable, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", unusable)
	s, err := server.New(server.Options{Kubeconfig: server.DefaultKubeconfigPath()})
	if err != nil {
		t.Fatalf("unusable default path: %v", err)
	}
	if note := s.KubeconfigNote(); !strings.Contains(note, "cannot be used") {
		t.Errorf("unusable default path: note %q", note)
	}
	s.Close()

	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{def, def + ".kubewalk-lock"} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still exists after Close (%v)", p, err)
		}
	}
}

// TestExternalEtcd runs against an etcd the test starts itself, through --etcd-servers.
func TestExternalEtcd(t *testing.T) {
	endpoint := startTestEtcd(t)
	s := startServer(t, func(o *server.Options) { o.EtcdServers = []string{endpoint} })
	ctx := context.Background()
	if _, err := clientFor(t, s, "admin").CoreV1().ConfigMaps("default").Create(ctx,
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ext"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := s.State().Find("mode"); n == nil || !strings.Contains(n.Value, "external") {
		t.Fatalf("state etcd mode = %v", n)
	}
}

func statusOf(t *testing.T, cfg *rest.Config, path string) int {
	t.Helper()
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	resp, err := client.Get(cfg.Host + path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestStateAtEveryCheckpoint builds the state tree at every checkpoint, as a walkthrough does.
func TestStateAtEveryCheckpoint(t *testing.T) {
	h := &stateEveryCheckpoint{}
	startServer(t, func(o *server.Options) { o.Hook = h })
	if len(h.seen) != len(server.Checkpoints()) {
		t.Fatalf("hook saw %d checkpoints, server declares %d", len(h.seen), len(server.Checkpoints()))
	}
	for i, cp := range server.Checkpoints() {
		if h.seen[i] != cp.ID() {
			t.Fatalf("checkpoint %d = %s, want %s", i, h.seen[i], cp.ID())
		}
	}
}

// TestKubeconfigDirRemoved: a directory the run made for its kubeconfig (the default
// $XDG_RUNTIME_DIR/kubewalk on a first run) goes with it; one that was there before stays.
func TestKubeconfigDirRemoved(t *testing.T) {
	for _, existed := range []bool{false, true} {
		t.Run(fmt.Sprintf("existed=%t", existed), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "kubewalk")
			if existed {
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			s := startServer(t, func(o *server.Options) { o.Kubeconfig = filepath.Join(dir, "kubeconfig") })
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(dir)
			if existed && err != nil {
				t.Errorf("the directory that was there before is gone: %v", err)
			}
			if !existed && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the directory the run made is still there (%v)", err)
			}
		})
	}
}

// TestChosenPorts: a run given its three ports (as class ssh gives each student's tour, whose
// sandbox lets it bind those only) serves on them: the apiserver on --secure-port, embedded
// etcd's client and peer listeners on --etcd-client-port and --etcd-peer-port.
func TestChosenPorts(t *testing.T) {
	var ports [3]int
	var ls []net.Listener
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	for _, l := range ls {
		l.Close()
	}
	s := startServer(t, func(o *server.Options) {
		o.SecurePort, o.EtcdClientPort, o.EtcdPeerPort = ports[0], ports[1], ports[2]
	})
	if got, want := s.Address(), fmt.Sprintf("https://127.0.0.1:%d", ports[0]); got != want {
		t.Errorf("Address() = %s, want %s", got, want)
	}
	etcd, err := s.Etcd()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := etcd.Endpoints(), []string{fmt.Sprintf("http://127.0.0.1:%d", ports[1])}; !slices.Equal(got, want) {
		t.Errorf("etcd endpoints %v, want %v", got, want)
	}
	// The peer port is etcd's: something listens there, and it is not the apiserver.
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", ports[2]), 5*time.Second)
	if err != nil {
		t.Fatalf("etcd peer port %d: %v", ports[2], err)
	}
	c.Close()
}
