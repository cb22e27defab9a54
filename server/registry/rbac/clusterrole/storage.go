package clusterrole

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
	"github.com/kubewalk/kubewalk/server/registry/rbac/internal/policy"
)

// REST is the storage of clusterroles.
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

var resource = rbacv1.Resource("clusterroles")

var tableConvertor = policy.RoleTable[*rbacv1.ClusterRole](resource)

// NewREST returns the storage of clusterroles. s must be the scheme the API group is installed
// with; optsGetter supplies the storage settings for "clusterroles".
func NewREST(s *apis.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, error) {
	st, err := store.New(optsGetter, store.Config{
		Resource:       resource,
		Singular:       "clusterrole",
		NewFunc:        func() runtime.Object { return &rbacv1.ClusterRole{} },
		NewListFunc:    func() runtime.Object { return &rbacv1.ClusterRoleList{} },
		Strategy:       newStrategy(s),
		TableConvertor: tableConvertor,
		AttrFunc:       GetAttrs,
	})
	if err != nil {
		return nil, err
	}
	return &REST{st}, nil
}
