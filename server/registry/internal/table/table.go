// Package table implements the rest.TableConvertor every kubewalk resource uses for
// `kubectl get`: a resource supplies its column definitions and a row function, and the
// convertor handles single objects, lists, list metadata and the noHeaders option.
package table

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apiserver/pkg/registry/rest"
)

var objectMetaDoc = metav1.ObjectMeta{}.SwaggerDoc()

// NameColumn is the Name column every resource starts with; kubectl uses its "name" format for
// `-o name`.
var NameColumn = metav1.TableColumnDefinition{
	Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"],
}

// AgeColumn shows how long ago an object was created.
var AgeColumn = metav1.TableColumnDefinition{
	Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"],
}

// CreatedAtColumn shows the creation time as an RFC 3339 date, as kubectl shows for RBAC roles.
var CreatedAtColumn = metav1.TableColumnDefinition{
	Name: "Created At", Type: "date", Description: objectMetaDoc["creationTimestamp"],
}

// Age renders the time elapsed since t the way kubectl does, "<unknown>" for a zero time.
func Age(t metav1.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(t.Time))
}

// MicroAge is Age for a metav1.MicroTime.
func MicroAge(t metav1.MicroTime) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(t.Time))
}

// CreatedAt renders a creation timestamp for CreatedAtColumn.
func CreatedAt(t metav1.Time) string {
	return t.UTC().Format(time.RFC3339)
}

// Row is the cells of one object's row plus optional row conditions (e.g. Completed for pods).
type Row struct {
	Cells      []any
	Conditions []metav1.TableRowCondition
}

// Convertor is a rest.TableConvertor for objects of type T.
type Convertor[T runtime.Object] struct {
	resource schema.GroupResource
	columns  []metav1.TableColumnDefinition
	row      func(T) Row
}

var _ rest.TableConvertor = &Convertor[*metav1.Status]{}

// New returns a convertor for resource with the given columns; row must return exactly one cell
// per column, priority-1 (wide) columns included.
func New[T runtime.Object](resource schema.GroupResource, columns []metav1.TableColumnDefinition, row func(T) Row) *Convertor[T] {
	return &Convertor[T]{resource: resource, columns: columns, row: row}
}

// Columns returns a copy of the convertor's column definitions.
func (c *Convertor[T]) Columns() []metav1.TableColumnDefinition {
	return append([]metav1.TableColumnDefinition(nil), c.columns...)
}

// ConvertToTable renders obj, a T or a list of T, as a table.
func (c *Convertor[T]) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	noHeaders := false
	switch opts := tableOptions.(type) {
	case nil:
	case *metav1.TableOptions:
		noHeaders = opts != nil && opts.NoHeaders
	default:
		return nil, fmt.Errorf("%s: table: unrecognized table options type %T", c.resource, tableOptions)
	}

	t := &metav1.Table{}
	if !noHeaders {
		t.ColumnDefinitions = c.Columns()
	}
	if meta.IsListType(obj) {
		items, err := meta.ExtractList(obj)
		if err != nil {
			return nil, fmt.Errorf("%s: table: %w", c.resource, err)
		}
		t.Rows = make([]metav1.TableRow, 0, len(items))
		for _, item := range items {
			r, err := c.rowOf(item)
			if err != nil {
				return nil, err
			}
			t.Rows = append(t.Rows, r)
		}
		if l, err := meta.ListAccessor(obj); err == nil {
			t.ResourceVersion = l.GetResourceVersion()
			t.Continue = l.GetContinue()
			t.RemainingItemCount = l.GetRemainingItemCount()
		}
		return t, nil
	}
	r, err := c.rowOf(obj)
	if err != nil {
		return nil, err
	}
	t.Rows = []metav1.TableRow{r}
	if m, err := meta.Accessor(obj); err == nil {
		t.ResourceVersion = m.GetResourceVersion()
	}
	return t, nil
}

func (c *Convertor[T]) rowOf(obj runtime.Object) (metav1.TableRow, error) {
	o, ok := obj.(T)
	if !ok {
		var want T
		return metav1.TableRow{}, fmt.Errorf("%s: table: object is %T, not %T", c.resource, obj, want)
	}
	r := c.row(o)
	if len(r.Cells) != len(c.columns) {
		return metav1.TableRow{}, fmt.Errorf("%s: table: row has %d cells for %d columns", c.resource, len(r.Cells), len(c.columns))
	}
	return metav1.TableRow{Cells: r.Cells, Conditions: r.Conditions, Object: runtime.RawExtension{Object: obj}}, nil
}
