package server

import (
	"errors"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
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
