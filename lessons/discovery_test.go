package lessons

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery/cached/disk"
	"k8s.io/client-go/restmapper"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/server"
)

// aggregatedV2 is the content type of aggregated discovery, apidiscovery.k8s.io/v2.
const aggregatedV2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// recorded is one request a client sent, and the content type of the answer.
type recorded struct {
	method, path, accept, contentType string
}

// recorder is a RoundTripper that remembers every request.
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	reqs []recorded
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	rec := recorded{method: req.Method, path: req.URL.Path, accept: req.Header.Get("Accept")}
	if resp != nil {
		rec.contentType = resp.Header.Get("Content-Type")
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, rec)
	r.mu.Unlock()
	return resp, err
}

// TestDiscoveryClaims holds the apimachinery lesson's restmapper step to what kubectl's
// discovery does at the pinned client-go against a real server: on a fresh cache, the
// disk-cached discovery client and RESTMapper kubectl builds send exactly GET /api and GET
// /apis, asking for aggregated discovery (apidiscovery.k8s.io/v2), which the server answers,
// and then map the short name cm to configmaps without another request; the per-group-version
// documents the step calls the older format are still served. The step must say so.
func TestDiscoveryClaims(t *testing.T) {
	quietKlog()
	s, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("starting the server: %v", err)
	}
	cfg, err := s.RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec })
	dir := t.TempDir()
	cached, err := disk.NewCachedDiscoveryClientForConfig(cfg, dir+"/discovery", dir+"/http", 6*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(cached), cached, nil)
	gvr, err := mapper.ResourceFor(schema.GroupVersionResource{Resource: "cm"})
	if err != nil || gvr != (schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}) {
		t.Fatalf("ResourceFor(cm) = %v, %v; want /v1/configmaps", gvr, err)
	}
	var paths []string
	for _, r := range rec.reqs {
		paths = append(paths, r.method+" "+r.path)
		if !strings.Contains(r.accept, "g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList") {
			t.Errorf("%s %s asked for %q, not aggregated discovery", r.method, r.path, r.accept)
		}
		if r.contentType != aggregatedV2 {
			t.Errorf("%s %s was answered with %q, not aggregated discovery", r.method, r.path, r.contentType)
		}
	}
	if strings.Join(paths, ", ") != "GET /api, GET /apis" {
		t.Errorf("discovery on a fresh cache sent %q, want GET /api, GET /apis", paths)
	}

	// The older format is still served, one document per group version.
	raw, err := cached.RESTClient().Get().AbsPath("/apis/apps/v1").SetHeader("Accept", "application/json").DoRaw(ctx)
	if err != nil || !strings.Contains(string(raw), `"kind":"APIResourceList"`) {
		t.Errorf("GET /apis/apps/v1 = %.100s, %v; want an APIResourceList", raw, err)
	}

	// The lesson says what happened.
	data, err := content.FS.ReadFile("en/21-apimachinery.md")
	if err != nil {
		t.Fatal(err)
	}
	_, step, _ := strings.Cut(string(data), "\n## restmapper\n")
	step, _, _ = strings.Cut(step, "\n## ")
	for _, want := range []string{"aggregated discovery (`apidiscovery.k8s.io/v2`)", "`GET /api`, `GET /apis`, then the list",
		"`installAPIResources`", "`discovery.NewAPIVersionHandler`", "`kubectl get --raw /apis/apps/v1`"} {
		if !strings.Contains(step, want) {
			t.Errorf("content/en/21-apimachinery.md step restmapper does not say %q", want)
		}
	}
}
