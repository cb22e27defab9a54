// Package testutil holds the test helpers the registry packages share: a RESTOptionsGetter
// that lets a store be completed without a storage backend, and checks for stores and tables.
package testutil

import (
	"context"
	"maps"
	"path"
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"

	"github.com/kubewalk/kubewalk/server/apis"
)

// Scheme returns the kubewalk scheme (apis.NewScheme) or fails the test.
func Scheme(t testing.TB) *apis.Scheme {
	t.Helper()
	s, err := apis.NewScheme()
	if err != nil {
		t.Fatalf("scheme: %v", err)
	}
	return s
}

// RESTOptionsGetter hands out RESTOptions whose storage decorator builds no backend, so a
// store can be completed (and its wiring checked) but its verbs must not be called.
type RESTOptionsGetter struct {
	// Resources records every resource options were asked for.
	Resources []schema.GroupResource
	// AttrFuncs records the AttrFunc each store passed to its storage decorator.
	AttrFuncs map[schema.GroupResource]storage.AttrFunc
}

// GetRESTOptions implements generic.RESTOptionsGetter.
func (g *RESTOptionsGetter) GetRESTOptions(resource schema.GroupResource, _ runtime.Object) (generic.RESTOptions, error) {
	g.Resources = append(g.Resources, resource)
	return generic.RESTOptions{
		StorageConfig: &storagebackend.ConfigForResource{GroupResource: resource},
		Decorator: func(_ *storagebackend.ConfigForResource, _ string, _ func(runtime.Object) (string, error),
			_, _ func() runtime.Object, attrs storage.AttrFunc, _ storage.IndexerFuncs, _ *cache.Indexers,
		) (storage.Interface, factory.DestroyFunc, error) {
			if g.AttrFuncs == nil {
				g.AttrFuncs = map[schema.GroupResource]storage.AttrFunc{}
			}
			g.AttrFuncs[resource] = attrs
			return nil, func() {}, nil
		},
		ResourcePrefix: path.Join("/", resource.Group, resource.Resource),
	}, nil
}

// StoreWant is what CheckStore expects of a completed store.
type StoreWant struct {
	Resource   schema.GroupResource
	Singular   string
	Namespaced bool
	ShortNames []string
	Categories []string
	// New is the type NewFunc must return.
	New runtime.Object
	// NewList is the type NewListFunc must return.
	NewList runtime.Object
}

// CheckStore checks a store built by a NewREST against want: resource names, scope, object
// types, predicate and attr funcs, and the short names and categories of r (which may not
// implement those interfaces when want has none).
func CheckStore(t *testing.T, r any, s *genericregistry.Store, g *RESTOptionsGetter, want StoreWant) {
	t.Helper()
	if s.DefaultQualifiedResource != want.Resource {
		t.Errorf("resource = %v, want %v", s.DefaultQualifiedResource, want.Resource)
	}
	if got := s.GetSingularName(); got != want.Singular {
		t.Errorf("singular = %q, want %q", got, want.Singular)
	}
	if got := s.NamespaceScoped(); got != want.Namespaced {
		t.Errorf("namespaced = %v, want %v", got, want.Namespaced)
	}
	if got, want := reflect.TypeOf(s.New()), reflect.TypeOf(want.New); got != want {
		t.Errorf("New() = %v, want %v", got, want)
	}
	if got, want := reflect.TypeOf(s.NewList()), reflect.TypeOf(want.NewList); got != want {
		t.Errorf("NewList() = %v, want %v", got, want)
	}
	if !slices.Contains(g.Resources, want.Resource) {
		t.Errorf("RESTOptions requested for %v, want %v", g.Resources, want.Resource)
	}
	if g.AttrFuncs[want.Resource] == nil {
		t.Errorf("storage decorator got no AttrFunc")
	}
	if s.PredicateFunc == nil || s.TableConvertor == nil || s.ResetFieldsStrategy == nil {
		t.Errorf("store lacks PredicateFunc, TableConvertor or ResetFieldsStrategy")
	}
	if s.UpdateStrategy.AllowCreateOnUpdate(context.Background()) ||
		!s.UpdateStrategy.AllowUnconditionalUpdate(context.Background()) {
		t.Errorf("strategy must refuse create on update and allow unconditional update")
	}
	var short, categories []string
	if p, ok := r.(rest.ShortNamesProvider); ok {
		short = p.ShortNames()
	}
	if p, ok := r.(rest.CategoriesProvider); ok {
		categories = p.Categories()
	}
	if !slices.Equal(short, want.ShortNames) {
		t.Errorf("short names = %v, want %v", short, want.ShortNames)
	}
	if !slices.Equal(categories, want.Categories) {
		t.Errorf("categories = %v, want %v", categories, want.Categories)
	}
}

// CheckTable converts obj alone and list (holding obj) with c, and checks the column names,
// that Name is formatted "name", the cells of obj's row, and that NoHeaders drops the columns.
func CheckTable(t *testing.T, c rest.TableConvertor, obj, list runtime.Object, wantColumns []string, wantCells []any) {
	t.Helper()
	ctx := context.Background()
	single, err := c.ConvertToTable(ctx, obj, nil)
	if err != nil {
		t.Fatalf("ConvertToTable(object): %v", err)
	}
	var names []string
	for _, col := range single.ColumnDefinitions {
		names = append(names, col.Name)
		if col.Name == "Name" && col.Format != "name" {
			t.Errorf("Name column format = %q, want name", col.Format)
		}
	}
	if !slices.Equal(names, wantColumns) {
		t.Errorf("columns = %q, want %q", names, wantColumns)
	}
	if len(single.Rows) != 1 {
		t.Fatalf("object table has %d rows, want 1", len(single.Rows))
	}
	if got := single.Rows[0].Cells; !reflect.DeepEqual(got, wantCells) {
		t.Errorf("cells = %#v, want %#v", got, wantCells)
	}
	if single.Rows[0].Object.Object != obj {
		t.Errorf("row object is not the converted object")
	}

	listed, err := c.ConvertToTable(ctx, list, &metav1.TableOptions{NoHeaders: true})
	if err != nil {
		t.Fatalf("ConvertToTable(list): %v", err)
	}
	if len(listed.ColumnDefinitions) != 0 {
		t.Errorf("noHeaders table has %d columns, want none", len(listed.ColumnDefinitions))
	}
	if len(listed.Rows) != 1 {
		t.Fatalf("list table has %d rows, want 1", len(listed.Rows))
	}
	if got := listed.Rows[0].Cells; !reflect.DeepEqual(got, wantCells) {
		t.Errorf("list cells = %#v, want %#v", got, wantCells)
	}
	if l, ok := list.(metav1.ListInterface); ok && listed.ResourceVersion != l.GetResourceVersion() {
		t.Errorf("list table resourceVersion = %q, want %q", listed.ResourceVersion, l.GetResourceVersion())
	}
}

// ErrorFields returns each error of errs as "field: type", e.g. "data[bad key]: Invalid value",
// so tests can compare validation results by path and kind.
func ErrorFields(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Field+": "+e.Type.String())
	}
	return out
}

// CheckAttrs calls attrs on obj and checks that the labels are obj's, that the field set equals
// want, and that it holds metadata.name, metadata.namespace when namespaced, and every field
// label the scheme accepts for kind (apis.FieldLabels), so no field selector the server accepts
// can miss.
func CheckAttrs(t *testing.T, attrs storage.AttrFunc, obj runtime.Object, kind string, namespaced bool, want fields.Set) {
	t.Helper()
	ls, fs, err := attrs(obj)
	if err != nil {
		t.Fatalf("attrs: %v", err)
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatalf("accessor: %v", err)
	}
	if !maps.Equal(ls, labels.Set(m.GetLabels())) {
		t.Errorf("labels = %v, want %v", ls, m.GetLabels())
	}
	if !maps.Equal(fs, want) {
		t.Errorf("fields = %v, want %v", fs, want)
	}
	required := append(apis.FieldLabels(kind), "metadata.name")
	if namespaced {
		required = append(required, "metadata.namespace")
	}
	for _, f := range required {
		if _, ok := fs[f]; !ok {
			t.Errorf("fields lack %q", f)
		}
	}
	if _, _, err := attrs(&metav1.Status{}); err == nil {
		t.Errorf("attrs accepted a %T", &metav1.Status{})
	}
}
