package server

import (
	"errors"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/server/mux"
	"k8s.io/apiserver/pkg/server/routes"
)

// FailRESTOptionsFor makes the storage phase's RESTOptionsGetter fail for one resource, so a
// test can see what a failing NewREST leaves behind. Call it from the hook at
// storage/storage-factory.
func FailRESTOptionsFor(s *Server, resource string) {
	s.st.getter.inner = failingGetter{inner: s.st.getter.inner, resource: resource}
}

type failingGetter struct {
	inner    generic.RESTOptionsGetter
	resource string
}

func (g failingGetter) GetRESTOptions(gr schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	if gr.Resource == g.resource {
		return generic.RESTOptions{}, errors.New("injected failure")
	}
	return g.inner.GetRESTOptions(gr, example)
}

// EagerOpenAPIHandler returns a handler serving /openapi/v2 and /openapi/v3 as PrepareRun
// would without SkipOpenAPIInstallation: every spec built up front by the library's
// routes.OpenAPI from the web services s installed. Call it once s is serving.
func EagerOpenAPIHandler(s *Server) http.Handler {
	m := mux.NewPathRecorderMux("eager-openapi")
	oa := routes.OpenAPI{Config: s.in.completed.OpenAPIConfig, V3Config: s.in.completed.OpenAPIV3Config}
	oa.InstallV2(s.in.generic.Handler.GoRestfulContainer, m)
	oa.InstallV3(s.in.generic.Handler.GoRestfulContainer, m)
	return m
}
