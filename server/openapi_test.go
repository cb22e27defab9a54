package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

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
			if !bytes.Equal(lazy[i], want) {
				t.Errorf("GET %s (%s): %d bytes served, the eager build has %d", f.path, f.accept, len(lazy[i]), len(want))
			}
		})
	}
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
