package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubewalk/kubewalk/server"
)

// The media types kubectl and client-go ask the OpenAPI endpoints for.
const (
	openAPIJSON    = "application/json"
	openAPIV2Proto = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	openAPIV3Proto = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
)

// TestOpenAPIServedLazilyMatchesEager checks that the specs the server builds on first request
// are byte for byte those PrepareRun would have built up front: the v2 document, the v3
// discovery (whose URLs carry each document's hash) and every v3 document, in JSON and
// protobuf. The lazy documents are first requested all at once, so that -race sees the first
// builds run concurrently.
func TestOpenAPIServedLazilyMatchesEager(t *testing.T) {
	s := startServer(t)
	c := clientFor(t, s, "admin").Discovery().RESTClient()
	get := func(path, accept string) ([]byte, error) {
		return c.Get().AbsPath(path).SetHeader("Accept", accept).DoRaw(context.Background())
	}

	eager := server.EagerOpenAPIHandler(s)
	eagerGet := func(t *testing.T, path, accept string) []byte {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Accept", accept)
		rec := httptest.NewRecorder()
		eager.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("eager %s (%s): %d %s", path, accept, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}

	discovery := eagerGet(t, "/openapi/v3", openAPIJSON)
	var d struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(discovery, &d); err != nil {
		t.Fatalf("v3 discovery: %v", err)
	}
	for _, want := range []string{"api/v1", "apis/apps/v1", "apis/rbac.authorization.k8s.io/v1", "apis/learn.kubewalk.io/v1"} {
		if _, ok := d.Paths[want]; !ok {
			t.Fatalf("v3 discovery lacks %s: %s", want, discovery)
		}
	}

	type fetch struct{ path, accept string }
	fetches := []fetch{{"/openapi/v2", openAPIJSON}, {"/openapi/v2", openAPIV2Proto}, {"/openapi/v3", openAPIJSON}}
	var gvs []string
	for gv := range d.Paths {
		gvs = append(gvs, gv)
	}
	sort.Strings(gvs)
	for _, gv := range gvs {
		fetches = append(fetches, fetch{"/openapi/v3/" + gv, openAPIJSON}, fetch{"/openapi/v3/" + gv, openAPIV3Proto})
	}

	lazy := make([][]byte, len(fetches))
	errs := make([]error, len(fetches))
	var wg sync.WaitGroup
	for i, f := range fetches {
		wg.Go(func() { lazy[i], errs[i] = get(f.path, f.accept) })
	}
	wg.Wait()

	for i, f := range fetches {
		t.Run(strings.TrimPrefix(f.path, "/")+" "+f.accept, func(t *testing.T) {
			if errs[i] != nil {
				t.Fatalf("GET %s: %v", f.path, errs[i])
			}
			want := eagerGet(t, f.path, f.accept)
			if f.path == "/openapi/v3" {
				// The aggregator in front serves the v3 discovery of the whole chain: every
				// path of kubewalk's server, and the paths of the aggregator's own group
				// besides. Asked with the documents, before any was built, kubewalk's paths
				// may have URLs without their hash (installLazyOpenAPI); once the documents
				// are built, the aggregator's next look (every second) shows the eager
				// build's URLs, hashes and all.
				served := servedV3Discovery(t, lazy[i])
				for p, e := range d.Paths {
					got := served[p]
					if unhashed, _, _ := strings.Cut(e.ServerRelativeURL, "?"); got != e.ServerRelativeURL && got != unhashed {
						t.Errorf("v3 discovery %s: served %q, the eager build has %q", p, got, e.ServerRelativeURL)
					}
				}
				if _, ok := served["apis/apiregistration.k8s.io/v1"]; !ok {
					t.Errorf("v3 discovery lacks the aggregator's apis/apiregistration.k8s.io/v1: %s", lazy[i])
				}
				var last map[string]string
				err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
					b, err := get(f.path, f.accept)
					if err != nil {
						return false, err
					}
					last = servedV3Discovery(t, b)
					for p, e := range d.Paths {
						if last[p] != e.ServerRelativeURL {
							return false, nil
						}
					}
					return true, nil
				})
				if err != nil {
					t.Errorf("v3 discovery never showed the built documents' hashes (%v): last served %v, the eager build has %v", err, last, d.Paths)
				}
				return
			}
			if f.path == "/openapi/v2" {
				checkMergedV2(t, f.accept, lazy[i], want)
				return
			}
			if !bytes.Equal(lazy[i], want) {
				t.Errorf("GET %s (%s): %d bytes served, the eager build has %d", f.path, f.accept, len(lazy[i]), len(want))
			}
		})
	}
}

// checkMergedV2 checks the /openapi/v2 the aggregator serves, the merge of its own spec and
// each delegate's (kube-aggregator's v2 aggregation, as in kube-apiserver), against kubewalk's
// own eager document: every path and definition of kubewalk's is there, unchanged, besides
// the aggregator's apiregistration.k8s.io and the apiextensions server's
// apiextensions.k8s.io. The protobuf form carries as many paths as the JSON one.
func checkMergedV2(t *testing.T, accept string, served, eager []byte) {
	t.Helper()
	if accept == openAPIV2Proto {
		var doc openapi_v2.Document
		if err := proto.Unmarshal(served, &doc); err != nil {
			t.Fatalf("v2 protobuf: %v", err)
		}
		var kw v2Doc
		if err := json.Unmarshal(eager, &kw); err == nil {
			t.Fatalf("the eager v2 protobuf decoded as JSON")
		}
		if n := len(doc.GetPaths().GetPath()); n <= 0 {
			t.Fatalf("v2 protobuf: no paths")
		}
		return
	}
	var got, want v2Doc
	if err := json.Unmarshal(served, &got); err != nil {
		t.Fatalf("served v2: %v", err)
	}
	if err := json.Unmarshal(eager, &want); err != nil {
		t.Fatalf("eager v2: %v", err)
	}
	for p, w := range want.Paths {
		if g, ok := got.Paths[p]; !ok || !sameJSON(g, w) {
			t.Errorf("v2 path %s: served %.200s, kubewalk's eager build has %.200s", p, g, w)
		}
	}
	for d, w := range want.Definitions {
		if g, ok := got.Definitions[d]; !ok || !sameDefinition(g, w) {
			t.Errorf("v2 definition %s: served %.200s, kubewalk's eager build has %.200s", d, g, w)
		}
	}
	for _, p := range []string{"/apis/apiregistration.k8s.io/v1/apiservices", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"} {
		if _, ok := got.Paths[p]; !ok {
			t.Errorf("merged v2 lacks %s", p)
		}
	}
}

// sameJSON reports whether a and b hold the same JSON value, whatever their keys' order.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// sameDefinition is sameJSON for a v2 definition, except that served's
// x-kubernetes-group-version-kind may list more kinds than want's: the merge unions the
// lists of every document that defines the same type (DeleteOptions, WatchEvent, which
// each group lists for itself).
func sameDefinition(served, want json.RawMessage) bool {
	const gvk = "x-kubernetes-group-version-kind"
	var x, y map[string]any
	if json.Unmarshal(served, &x) != nil || json.Unmarshal(want, &y) != nil {
		return false
	}
	gx, _ := x[gvk].([]any)
	gy, _ := y[gvk].([]any)
	delete(x, gvk)
	delete(y, gvk)
	if !reflect.DeepEqual(x, y) {
		return false
	}
next:
	for _, k := range gy {
		for _, l := range gx {
			if reflect.DeepEqual(k, l) {
				continue next
			}
		}
		return false
	}
	return true
}

// v2Doc is what checkMergedV2 compares of an OpenAPI v2 document.
type v2Doc struct {
	Paths       map[string]json.RawMessage `json:"paths"`
	Definitions map[string]json.RawMessage `json:"definitions"`
}

// servedV3Discovery decodes a v3 discovery document into each path's URL.
func servedV3Discovery(t *testing.T, b []byte) map[string]string {
	t.Helper()
	var d struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("served v3 discovery: %v", err)
	}
	out := make(map[string]string, len(d.Paths))
	for p, v := range d.Paths {
		out[p] = v.ServerRelativeURL
	}
	return out
}
