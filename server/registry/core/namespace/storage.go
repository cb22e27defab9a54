package namespace

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
	"github.com/kubewalk/kubewalk/server/registry/internal/table"
)

// REST is the storage of namespaces. Deleting a namespace removes it at once (see the package
// documentation).
type REST struct {
	*genericregistry.Store
}

var (
	_ rest.StandardStorage      = &REST{}
	_ rest.Scoper               = &REST{}
	_ rest.ShortNamesProvider   = &REST{}
	_ rest.SingularNameProvider = &REST{}
	_ rest.TableConvertor       = &REST{}
	_ rest.ResetFieldsStrategy  = &REST{}
)

var resource = corev1.Resource("namespaces")

// NewREST returns the storage of namespaces. s must be the scheme the API group is installed
// with; optsGetter supplies the storage settings for "namespaces".
func NewREST(s *apis.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, error) {
	st, err := store.New(optsGetter, store.Config{
		Resource:       resource,
		Singular:       "namespace",
		NewFunc:        func() runtime.Object { return &corev1.Namespace{} },
		NewListFunc:    func() runtime.Object { return &corev1.NamespaceList{} },
		Strategy:       newStrategy(s),
		TableConvertor: tableConvertor,
		AttrFunc:       GetAttrs,
	})
	if err != nil {
		return nil, err
	}
	return &REST{st}, nil
}

// ShortNames implements rest.ShortNamesProvider.
func (*REST) ShortNames() []string { return []string{"ns"} }

var tableConvertor = table.New(resource,
	[]metav1.TableColumnDefinition{
		table.NameColumn,
		{Name: "Status", Type: "string", Description: "The status of the namespace"},
		table.AgeColumn,
	},
	func(ns *corev1.Namespace) table.Row {
		return table.Row{Cells: []any{ns.Name, string(ns.Status.Phase), table.Age(ns.CreationTimestamp)}}
	})
