package configmap

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

// REST is the storage of configmaps.
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

var resource = corev1.Resource("configmaps")

// NewREST returns the storage of configmaps. s must be the scheme the API group is installed
// with; optsGetter supplies the storage settings for "configmaps".
func NewREST(s *apis.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, error) {
	st, err := store.New(optsGetter, store.Config{
		Resource:       resource,
		Singular:       "configmap",
		NewFunc:        func() runtime.Object { return &corev1.ConfigMap{} },
		NewListFunc:    func() runtime.Object { return &corev1.ConfigMapList{} },
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
func (*REST) ShortNames() []string { return []string{"cm"} }

var tableConvertor = table.New(resource,
	[]metav1.TableColumnDefinition{
		table.NameColumn,
		{Name: "Data", Type: "integer", Description: "Number of keys in data and binaryData."},
		table.AgeColumn,
	},
	func(cm *corev1.ConfigMap) table.Row {
		return table.Row{Cells: []any{cm.Name, int64(len(cm.Data) + len(cm.BinaryData)), table.Age(cm.CreationTimestamp)}}
	})
