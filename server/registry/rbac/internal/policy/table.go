package policy

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubewalk/kubewalk/server/registry/internal/store"
	"github.com/kubewalk/kubewalk/server/registry/internal/table"
)

// RoleTable returns the table convertor of roles or clusterroles (type T): Name, Created At.
func RoleTable[T store.Object](resource schema.GroupResource) *table.Convertor[T] {
	return table.New(resource, []metav1.TableColumnDefinition{table.NameColumn, table.CreatedAtColumn},
		func(obj T) table.Row {
			r := asRole(obj)
			return table.Row{Cells: []any{r.meta.Name, table.CreatedAt(r.meta.CreationTimestamp)}}
		})
}

// BindingTable returns the table convertor of rolebindings or clusterrolebindings (type T):
// Name, Role, Age and, wide, Users, Groups and ServiceAccounts.
func BindingTable[T store.Object](resource schema.GroupResource) *table.Convertor[T] {
	return table.New(resource,
		[]metav1.TableColumnDefinition{
			table.NameColumn,
			{Name: "Role", Type: "string", Description: rbacv1.RoleBinding{}.SwaggerDoc()["roleRef"]},
			table.AgeColumn,
			{Name: "Users", Type: "string", Priority: 1, Description: "Users in the roleBinding"},
			{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the roleBinding"},
			{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the roleBinding"},
		},
		func(obj T) table.Row {
			b := asBinding(obj)
			users, groups, sas := subjectStrings(b.subjects)
			return table.Row{Cells: []any{
				b.meta.Name, b.roleRef.Kind + "/" + b.roleRef.Name, table.Age(b.meta.CreationTimestamp),
				users, groups, sas,
			}}
		})
}

// subjectStrings renders the users, groups and service accounts (as namespace/name) of a
// binding, each comma-separated.
func subjectStrings(subjects []rbacv1.Subject) (users, groups, serviceAccounts string) {
	var u, g, sa []string
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.UserKind:
			u = append(u, s.Name)
		case rbacv1.GroupKind:
			g = append(g, s.Name)
		case rbacv1.ServiceAccountKind:
			sa = append(sa, s.Namespace+"/"+s.Name)
		}
	}
	return strings.Join(u, ", "), strings.Join(g, ", "), strings.Join(sa, ", ")
}
