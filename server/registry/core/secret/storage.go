package secret

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

// REST is the storage of secrets.
type REST struct {
	*genericregistry.Store
}

var (
	_ rest.StandardStorage      = &REST{}
	_ rest.Scoper               = &REST{}
	_ rest.SingularNameProvider = &REST{}
	_ rest.TableConvertor       = &REST{}
	_ rest.ResetFieldsStrategy  = &REST{}
)

var resource = corev1.Resource("secrets")

// NewREST returns the storage of secrets. s must be the scheme the API group is installed
// with; optsGetter supplies the storage settings for "secrets".
func NewREST(s *apis.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, error) {
	st, err := store.New(optsGetter, store.Config{
		Resource:       resource,
		Singular:       "secret",
		NewFunc:        func() runtime.Object { return &corev1.Secret{} },
		NewListFunc:    func() runtime.Object { return &corev1.SecretList{} },
		Strategy:       newStrategy(s),
		TableConvertor: tableConvertor,
		AttrFunc:       GetAttrs,
	})
	if err != nil {
		return nil, err
	}
	return &REST{st}, nil
}

var secretDoc = corev1.Secret{}.SwaggerDoc()

var tableConvertor = table.New(resource,
	[]metav1.TableColumnDefinition{
		table.NameColumn,
		{Name: "Type", Type: "string", Description: secretDoc["type"]},
		{Name: "Data", Type: "integer", Description: secretDoc["data"]},
		table.AgeColumn,
	},
	func(s *corev1.Secret) table.Row {
		return table.Row{Cells: []any{s.Name, string(s.Type), int64(len(s.Data)), table.Age(s.CreationTimestamp)}}
	})
