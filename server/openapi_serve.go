package server

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/klog/v2"
	builder2 "k8s.io/kube-openapi/pkg/builder"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/cached"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/common/restfuladapter"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// installLazyOpenAPI installs /openapi/v2 and /openapi/v3 on g as PrepareRun does
// (routes.OpenAPI.InstallV2 and InstallV3 in k8s.io/apiserver/pkg/server/routes/openapi.go),
// with one difference: the specs — the v2 document, and the v3 documents of all group
// versions — are built on the first request for one of them instead of before the server
// listens. A server no client asked keeps neither the ~100 ms of building nor the ~7 MB of spec
// objects; a client asking (kubectl apply, explain, helm) gets the same documents, built once
// and kept as before. It must run after the last group is installed and before PrepareRun; the
// config phase set SkipOpenAPIInstallation so that PrepareRun does not install them again.
//
// The v3 documents are built together, as InstallV3 builds them, from the one set of
// definitions the config holds: the /openapi/v3 discovery document lists each group's hash,
// which needs every group's document. One set instead of one per group saves a GetDefinitions
// call per group (~20% of start's CPU when they were built one by one) and lets the documents
// share their schemas. It also keeps the builds apart from the requests: builder3 writes into
// the definitions it builds from (it deletes a key from each one's extensions) and the specs it
// returns share their maps, so no build may run once a spec can be marshalled for a request;
// after the one batch, none does. Until the batch has run, the discovery document is answered
// without hashes (see below), so that the aggregator, which asks for it in PrepareRun, does not
// build every document before the server listens.
func installLazyOpenAPI(g *genericapiserver.GenericAPIServer, v2 *common.Config, v3 *common.OpenAPIV3Config) error {
	services := append([]*restful.WebService(nil), g.Handler.GoRestfulContainer.RegisteredWebServices()...)
	mux := g.Handler.NonGoRestfulMux
	var building sync.Mutex

	g.OpenAPIVersionedService = handler.NewOpenAPIServiceLazy(buildOnce(&building, func() (*spec.Swagger, error) {
		s, err := builder2.BuildOpenAPISpecFromRoutes(restfuladapter.AdaptWebServices(services), v2)
		if err != nil {
			return nil, fmt.Errorf("OpenAPI v2: %w", err)
		}
		s.Definitions = handler.PruneDefaults(s.Definitions)
		return s, nil
	}))
	g.OpenAPIVersionedService.RegisterOpenAPIVersionedService("/openapi/v2", mux)

	v3s := handler3.NewOpenAPIService()
	// As InstallV3: one document per web service root ("api/v1", "apis/apps/v1", ...); a later
	// web service with the same root replaces an earlier one.
	var gvs []string
	byGV := map[string]*restful.WebService{}
	for _, ws := range services {
		gv := strings.TrimPrefix(ws.RootPath(), "/")
		if _, ok := byGV[gv]; !ok {
			gvs = append(gvs, gv)
		}
		byGV[gv] = ws
	}
	// The config's definitions (DefaultOpenAPIV3Config built them for the install phase's
	// models) are the batch's; the config lets them go, and the batch once it has run.
	v3own := *v3
	v3.Definitions = nil
	var built atomic.Bool
	batch := buildOnce(&building, func() (map[string]v3Result, error) {
		out := make(map[string]v3Result, len(gvs))
		for _, gv := range gvs {
			routes := restfuladapter.AdaptWebServices([]*restful.WebService{byGV[gv]})
			s, err := builder3.BuildOpenAPISpecFromRoutes(routes, &v3own)
			if err != nil {
				out[gv] = v3Result{err: fmt.Errorf("OpenAPI v3 %s: %w", gv, err)}
				continue
			}
			if group, version, ok := groupVersionFromPath(gv); ok {
				filterScopedGVKs(s, group, version)
			}
			out[gv] = v3Result{spec: s}
		}
		v3own.Definitions = nil
		built.Store(true)
		return out, nil
	})
	for _, gv := range gvs {
		v3s.UpdateGroupVersionLazy(gv, cached.Once(cached.Func(func() (*spec3.OpenAPI, string, error) {
			all, _, _ := batch.Get()
			r := all[gv]
			if r.err != nil {
				klog.ErrorS(r.err, "Failed to build OpenAPI spec")
			}
			return r.spec, "built", r.err
		})))
	}
	// As RegisterOpenAPIV3VersionedService, but for the discovery document: its URLs carry
	// each document's hash, which only a built document has, and the aggregator in front asks
	// for it in PrepareRun and every second after. Until a client asks for a document, it is
	// answered with the same paths and URLs without their hash (a client fetching one gets it,
	// only without the immutable caching a hash allows); from then on, with the hashes, as
	// kube-apiserver does. The aggregator's discovery shows them at its next look.
	unhashed, err := unhashedDiscovery(gvs)
	if err != nil {
		return fmt.Errorf("OpenAPI v3 discovery: %w", err)
	}
	mux.Handle("/openapi/v3", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if built.Load() {
			v3s.HandleDiscovery(w, r)
			return
		}
		w.Header().Set("Etag", strconv.Quote(unhashed.etag))
		w.Header().Set("Content-Type", "application/json")
		http.ServeContent(w, r, "/openapi/v3", unhashed.at, bytes.NewReader(unhashed.body))
	}))
	mux.HandlePrefix("/openapi/v3/", http.HandlerFunc(v3s.HandleGroupVersion))
	g.OpenAPIV3VersionedService = v3s
	return nil
}

// discoveryDoc is a v3 discovery document as served: its JSON, ETag and time.
type discoveryDoc struct {
	body []byte
	etag string
	at   time.Time
}

// unhashedDiscovery is the OpenAPI v3 discovery document (handler3.OpenAPIV3Discovery) of the
// group versions gvs with URLs that carry no hash.
func unhashedDiscovery(gvs []string) (discoveryDoc, error) {
	d := handler3.OpenAPIV3Discovery{Paths: make(map[string]handler3.OpenAPIV3DiscoveryGroupVersion, len(gvs))}
	for _, gv := range gvs {
		d.Paths[gv] = handler3.OpenAPIV3DiscoveryGroupVersion{ServerRelativeURL: path.Join("/openapi/v3", gv)}
	}
	b, err := json.Marshal(d)
	if err != nil {
		return discoveryDoc{}, err
	}
	return discoveryDoc{body: b, etag: fmt.Sprintf("%X", sha512.Sum512(b)), at: time.Now()}, nil
}

// v3Result is the outcome of building one group version's OpenAPI v3 document.
type v3Result struct {
	spec *spec3.OpenAPI
	err  error
}

// buildOnce returns a cached value that calls build, holding mu, on its first Get and keeps the
// result (or the error, logged: the handlers answer 503 to a spec that cannot be built, which
// the eager InstallV2 would have turned into a fatal error at startup).
func buildOnce[T any](mu *sync.Mutex, build func() (T, error)) cached.Value[T] {
	return cached.Once(cached.Func(func() (T, string, error) {
		mu.Lock()
		v, err := build()
		mu.Unlock()
		if err != nil {
			klog.ErrorS(err, "Failed to build OpenAPI spec")
		}
		// The etag versions the cache only (the handlers hash the JSON for HTTP): the spec is
		// built once and never changes.
		return v, "built", err
	}))
}

// groupVersionFromPath extracts the API group and version from a root path like "apis/apps/v1"
// or "api/v1". Copied from k8s.io/apiserver/pkg/server/routes/openapi.go (v0.37.2), where it
// is unexported.
func groupVersionFromPath(path string) (group, version string, ok bool) {
	parts := strings.SplitN(path, "/", 4)
	switch {
	case len(parts) < 2:
		return "", "", false
	case parts[0] == "api" && len(parts) == 2:
		return "", parts[1], true
	case parts[0] == "apis" && len(parts) == 3:
		return parts[1], parts[2], true
	default:
		return "", "", false
	}
}

// crossRegisteredKinds lists the kinds that AddToGroupVersion registers into every API group.
// Copied from k8s.io/apiserver/pkg/server/routes/openapi.go (v0.37.2).
var crossRegisteredKinds = map[string]bool{
	"WatchEvent":    true,
	"DeleteOptions": true,
}

// filterScopedGVKs narrows x-kubernetes-group-version-kind of the meta types that
// AddToGroupVersion registers into every group (crossRegisteredKinds) to this document's group
// version plus core/v1, as InstallV3 does. Copied from k8s.io/apiserver/pkg/server/routes/
// openapi.go (v0.37.2), where it is unexported.
func filterScopedGVKs(s *spec3.OpenAPI, group, version string) {
	if s == nil || s.Components == nil {
		return
	}
	for _, schema := range s.Components.Schemas {
		if schema == nil {
			continue
		}
		ext, ok := schema.Extensions["x-kubernetes-group-version-kind"]
		if !ok {
			continue
		}
		gvks, ok := ext.([]interface{})
		if !ok || len(gvks) <= 1 || !isCrossRegisteredKind(gvks) {
			continue
		}
		var filtered []interface{}
		for _, item := range gvks {
			m, ok := item.(map[string]interface{})
			if !ok {
				continue
			}
			g, gok := m["group"].(string)
			v, vok := m["version"].(string)
			if !gok || !vok {
				continue
			}
			if (g == group && v == version) || (g == "" && v == "v1") {
				filtered = append(filtered, item)
			}
		}
		if len(filtered) > 0 {
			schema.Extensions["x-kubernetes-group-version-kind"] = filtered
		} else {
			klog.Warningf("Unexpected: filtering x-kubernetes-group-version-kind for %s/%s produced no matches", group, version)
			delete(schema.Extensions, "x-kubernetes-group-version-kind")
		}
	}
}

// isCrossRegisteredKind reports whether a GVK list belongs to one of crossRegisteredKinds, by
// its first entry's kind.
func isCrossRegisteredKind(gvks []interface{}) bool {
	if len(gvks) == 0 {
		return false
	}
	m, ok := gvks[0].(map[string]interface{})
	if !ok {
		return false
	}
	kind, _ := m["kind"].(string)
	return crossRegisteredKinds[kind]
}
