package server_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/kubewalk/kubewalk/server"
	extensionv1alpha1 "github.com/kubewalk/kubewalk/server/extension/apis/v1alpha1"
)

// availabilityBound bounds each wait for the availability controller: it sees an endpoint
// change at once and probes within 5 s per attempt; the bound leaves room for a loaded machine.
const availabilityBound = 60 * time.Second

// waitAvailable waits until the extension's APIService has Available == want, and returns it.
func waitAvailable(ctx context.Context, t *testing.T, client aggregatorclient.Interface, want apiregistrationv1.ConditionStatus) *apiregistrationv1.APIService {
	t.Helper()
	var last *apiregistrationv1.APIService
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, availabilityBound, true, func(ctx context.Context) (bool, error) {
		svc, err := client.ApiregistrationV1().APIServices().Get(ctx, server.ExtensionAPIService, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = svc
		c := v1helper.GetAPIServiceConditionByType(svc, apiregistrationv1.Available)
		return c != nil && c.Status == want, nil
	})
	if err != nil {
		t.Fatalf("APIService %s Available=%s: %v (last: %+v)", server.ExtensionAPIService, want, err, last)
	}
	return last
}

// listCallers lists callers through the aggregator as the given context's user.
func listCallers(ctx context.Context, t *testing.T, s *server.Server, context string) (*extensionv1alpha1.CallerList, error) {
	t.Helper()
	client, err := dynamic.NewForConfig(restConfig(t, s, context))
	if err != nil {
		t.Fatal(err)
	}
	u, err := client.Resource(extensionv1alpha1.SchemeGroupVersion.WithResource("callers")).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	list := &extensionv1alpha1.CallerList{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), list); err != nil {
		t.Fatalf("decode callers: %v", err)
	}
	return list, nil
}

// discovered reports whether discovery lists callers under the extension's group version,
// and, if not, the error discovery gives for that group version.
func discovered(t *testing.T, cfg *rest.Config) (bool, error) {
	t.Helper()
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	gv := extensionv1alpha1.SchemeGroupVersion
	_, lists, err := disco.ServerGroupsAndResources()
	var gvErr error
	if err != nil {
		failed, ok := err.(*discovery.ErrGroupDiscoveryFailed)
		if !ok {
			t.Fatalf("discovery: %v", err)
		}
		gvErr = failed.Groups[gv]
	}
	for _, l := range lists {
		if l.GroupVersion != gv.String() {
			continue
		}
		for _, r := range l.APIResources {
			if r.Name == "callers" {
				return true, gvErr
			}
		}
	}
	return false, gvErr
}

// waitDiscovered waits until discovery lists callers, fresh.
func waitDiscovered(ctx context.Context, t *testing.T, cfg *rest.Config, when string) {
	t.Helper()
	var gvErr error
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, availabilityBound, true, func(context.Context) (bool, error) {
		var ok bool
		ok, gvErr = discovered(t, cfg)
		return ok && gvErr == nil, nil
	})
	if err != nil {
		t.Errorf("discovery lacks callers %s: %v (group version error: %v)", when, err, gvErr)
	}
}

// TestAggregatedAPI drives the extension server through the aggregator with client-go: the
// availability controller marks its APIService Available, a read reaches it as the caller
// (X-Remote-User), its SubjectAccessReview delegation lets alice in once RBAC does and keeps
// bob out, and stopping it makes the APIService unavailable and discovery drop the group
// until it starts again.
func TestAggregatedAPI(t *testing.T) {
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if err := s.WaitExtensionRegistered(ctx); err != nil {
		t.Fatal(err)
	}
	admin := restConfig(t, s, "admin")
	agg, err := aggregatorclient.NewForConfig(admin)
	if err != nil {
		t.Fatal(err)
	}
	kube, err := kubernetes.NewForConfig(admin)
	if err != nil {
		t.Fatal(err)
	}

	svc := waitAvailable(ctx, t, agg, apiregistrationv1.ConditionTrue)
	if ref := svc.Spec.Service; ref == nil || ref.Namespace != server.ExtensionNamespace || ref.Name != server.ExtensionService {
		t.Errorf("APIService service = %+v, want %s/%s", ref, server.ExtensionNamespace, server.ExtensionService)
	}
	// The discovery manager fetches the extension's discovery once the aggregator sees the
	// APIService Available; until then it may list the group version as stale.
	waitDiscovered(ctx, t, admin, "once the APIService is Available")

	// The aggregator's OpenAPI v3 lists the group's document and proxies it from the
	// extension, and it is the only path the extension adds.
	disco, err := discovery.NewDiscoveryClientForConfig(admin)
	if err != nil {
		t.Fatal(err)
	}
	gvPath := "apis/" + extensionv1alpha1.SchemeGroupVersion.String()
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, availabilityBound, true, func(context.Context) (bool, error) {
		paths, err := disco.OpenAPIV3().Paths()
		if err != nil {
			return false, nil
		}
		_, ok := paths[gvPath]
		return ok, nil
	})
	if err != nil {
		t.Fatalf("/openapi/v3 does not list %s", gvPath)
	}
	paths, err := disco.OpenAPIV3().Paths()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := paths[gvPath].Schema("application/json")
	if err != nil {
		t.Fatalf("/openapi/v3/%s: %v", gvPath, err)
	}
	if !strings.Contains(string(doc), `"io.kubewalk.learn.extension.v1alpha1.Caller"`) {
		t.Errorf("/openapi/v3/%s lacks the Caller schema", gvPath)
	}

	// bob holds no RBAC for callers: the extension asks kubewalk, which says no.
	_, err = listCallers(ctx, t, s, "bob")
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `"callers"`) {
		t.Errorf("bob lists callers: got %v, want 403 from the extension's SubjectAccessReview", err)
	}

	// A ClusterRole and binding for alice, as a learner would apply them; the extension's
	// SubjectAccessReview then finds them.
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "callers-reader"},
		Rules:      []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{extensionv1alpha1.GroupName}, Resources: []string{"callers"}}},
	}
	if _, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "alice-callers"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: server.AliceUser}},
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// kubewalk's RBAC informers see the binding within moments; the extension had asked
	// nothing about alice yet, so no cached denial is in the way.
	var list *extensionv1alpha1.CallerList
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err = listCallers(ctx, t, s, "alice")
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("alice lists callers: %v", err)
	}
	var alice *extensionv1alpha1.Caller
	for i := range list.Items {
		if list.Items[i].Name == server.AliceUser {
			alice = &list.Items[i]
		}
	}
	switch {
	case alice == nil:
		t.Fatalf("callers %+v: no %s, the user the extension should have seen in X-Remote-User", list.Items, server.AliceUser)
	case alice.User != server.AliceUser || !contains(alice.Groups, "system:authenticated") || alice.Requests < 1:
		t.Errorf("caller %s = %+v, want user %s in system:authenticated with a request counted", alice.Name, alice, server.AliceUser)
	}
	for _, c := range list.Items {
		if c.Name == server.BobUser || c.Name == server.FrontProxyClientName {
			t.Errorf("callers lists %s, who read nothing (or is the proxy, not a caller)", c.Name)
		}
	}

	// Stop the extension: the availability controller marks the APIService unavailable, the
	// aggregator answers 503 for the group, and aggregated discovery keeps the group version
	// but marks it stale, without its resources; client-go reports it as a failed group.
	if err := s.StopExtension(); err != nil {
		t.Fatal(err)
	}
	if s.ExtensionRunning() {
		t.Error("ExtensionRunning after StopExtension")
	}
	// StopExtension marks the stand-in endpoint not ready before it stops the server, as the
	// EndpointSlice controller would for a pod that goes away: the controller says so.
	svc = waitAvailable(ctx, t, agg, apiregistrationv1.ConditionFalse)
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, availabilityBound, true, func(ctx context.Context) (bool, error) {
		svc, err := agg.ApiregistrationV1().APIServices().Get(ctx, server.ExtensionAPIService, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		c := v1helper.GetAPIServiceConditionByType(svc, apiregistrationv1.Available)
		return c.Status == apiregistrationv1.ConditionFalse && c.Reason == "MissingEndpoints" && strings.Contains(c.Message, server.ExtensionService), nil
	})
	if err != nil {
		t.Errorf("unavailable, but not for MissingEndpoints: %+v", v1helper.GetAPIServiceConditionByType(svc, apiregistrationv1.Available))
	}
	_, err = listCallers(ctx, t, s, "alice")
	if !apierrors.IsServiceUnavailable(err) {
		t.Errorf("alice lists callers while the extension is stopped: got %v, want 503", err)
	}
	var gvErr error
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, availabilityBound, true, func(context.Context) (bool, error) {
		var ok bool
		ok, gvErr = discovered(t, admin)
		return !ok && gvErr != nil, nil
	})
	var stale discovery.StaleGroupVersionError
	if err != nil || !errors.As(gvErr, &stale) {
		t.Errorf("discovery with the APIService unavailable: %v (group version error %v), want callers gone and the group version stale", err, gvErr)
	}

	// Start it again: available, discovered and serving, as a new process with no callers.
	if err := s.StartExtension(ctx); err != nil {
		t.Fatal(err)
	}
	waitAvailable(ctx, t, agg, apiregistrationv1.ConditionTrue)
	waitDiscovered(ctx, t, admin, "after the restart")
	list, err = listCallers(ctx, t, s, "alice")
	if err != nil {
		t.Fatalf("alice lists callers after the restart: %v", err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != server.AliceUser || list.Items[0].Requests != 1 {
		t.Errorf("callers after the restart = %+v, want alice's one read", list.Items)
	}
}

// TestExtensionRefusesDirectHeaders checks the extension's request-header authentication from
// outside the aggregator: X-Remote-User without the front-proxy certificate is ignored (the
// request is anonymous, and RBAC lets anonymous read nothing there), and kubewalk's own client
// certificates, signed by another CA, cannot vouch for headers either.
func TestExtensionRefusesDirectHeaders(t *testing.T) {
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.WaitExtensionRegistered(ctx); err != nil {
		t.Fatal(err)
	}
	admin := restConfig(t, s, "admin")
	for _, tt := range []struct {
		name string
		cfg  *rest.Config
		want int
	}{
		// Anonymous: the headers are ignored, and kubewalk's RBAC lets system:anonymous read
		// nothing there.
		{"no client certificate", &rest.Config{TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData}}, http.StatusForbidden},
		// A certificate the front-proxy CA did not sign: request-header authentication fails.
		{"kubewalk's admin certificate", &rest.Config{TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData, CertData: admin.CertData, KeyData: admin.KeyData}}, http.StatusUnauthorized},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Host = s.ExtensionAddress()
			client, err := rest.HTTPClientFor(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, tt.cfg.Host+"/apis/"+extensionv1alpha1.GroupName+"/v1alpha1/callers", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-Remote-User", server.AdminUser)
			req.Header.Set("X-Remote-Group", "system:masters")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("GET callers with forged headers: %s, want %d", resp.Status, tt.want)
			}
		})
	}
}
