package serviceaccount

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

// REST is the storage of serviceaccounts. kubewalk runs no token controller, so
// serviceaccounts get no token secrets and no serviceaccounts/token subresource.
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

var resource = corev1.Resource("serviceaccounts")

// NewREST returns the storage of serviceaccounts. s must be the scheme the API group is
// installed with; optsGetter supplies the storage settings for "serviceaccounts".
func NewREST(s *apis.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, error) {
	st, err := store.New(optsGetter, store.Config{
		Resource:       resource,
		Singular:       "serviceaccount",
		NewFunc:        func() runtime.Object { return &corev1.ServiceAccount{} },
		NewListFunc:    func() runtime.Object { return &corev1.ServiceAccountList{} },
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
func (*REST) ShortNames() []string { return []string{"sa"} }

var tableConvertor = table.New(resource,
	[]metav1.TableColumnDefinition{
		table.NameColumn,
		{Name: "Secrets", Type: "integer", Description: corev1.ServiceAccount{}.SwaggerDoc()["secrets"]},
		table.AgeColumn,
	},
	func(sa *corev1.ServiceAccount) table.Row {
		return table.Row{Cells: []any{sa.Name, int64(len(sa.Secrets)), table.Age(sa.CreationTimestamp)}}
	})
