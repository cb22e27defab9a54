package table

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

var resource = corev1.Resource("configmaps")

func convertor(cells func(*corev1.ConfigMap) []any) *Convertor[*corev1.ConfigMap] {
	return New(resource, []metav1.TableColumnDefinition{NameColumn, AgeColumn},
		func(cm *corev1.ConfigMap) Row { return Row{Cells: cells(cm)} })
}

func TestConvertToTable(t *testing.T) {
	c := convertor(func(cm *corev1.ConfigMap) []any { return []any{cm.Name, Age(cm.CreationTimestamp)} })
	list := &corev1.ConfigMapList{
		ListMeta: metav1.ListMeta{ResourceVersion: "9", Continue: "next", RemainingItemCount: new(int64)},
		Items:    []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, {ObjectMeta: metav1.ObjectMeta{Name: "b"}}},
	}
	tbl, err := c.ConvertToTable(context.Background(), list, &metav1.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.ColumnDefinitions) != 2 || len(tbl.Rows) != 2 || tbl.Rows[1].Cells[0] != "b" || tbl.Rows[1].Cells[1] != "<unknown>" {
		t.Errorf("table = %+v", tbl)
	}
	if tbl.Rows[0].Object.Object != &list.Items[0] {
		t.Errorf("row object is not the list item")
	}
	if tbl.ResourceVersion != "9" || tbl.Continue != "next" || tbl.RemainingItemCount == nil {
		t.Errorf("list metadata = %+v", tbl.ListMeta)
	}

	empty, err := c.ConvertToTable(context.Background(), &corev1.ConfigMapList{}, nil)
	if err != nil || empty.Rows == nil || len(empty.Rows) != 0 {
		t.Errorf("empty list: rows = %#v, err = %v", empty.Rows, err)
	}

	single, err := c.ConvertToTable(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "3"}}, nil)
	if err != nil || single.ResourceVersion != "3" || len(single.Rows) != 1 {
		t.Errorf("single: %+v, %v", single, err)
	}
}

func TestConvertToTableErrors(t *testing.T) {
	good := convertor(func(cm *corev1.ConfigMap) []any { return []any{cm.Name, ""} })
	short := convertor(func(cm *corev1.ConfigMap) []any { return []any{cm.Name} })
	tests := []struct {
		name string
		c    *Convertor[*corev1.ConfigMap]
		obj  runtime.Object
		opts runtime.Object
		want string
	}{
		{"wrong type", good, &corev1.Secret{}, nil, "configmaps: table: object is *v1.Secret, not *v1.ConfigMap"},
		{"wrong list", good, &corev1.SecretList{Items: []corev1.Secret{{}}}, nil, "object is *v1.Secret"},
		{"cell count", short, &corev1.ConfigMap{}, nil, "row has 1 cells for 2 columns"},
		{"options", good, &corev1.ConfigMap{}, &metav1.ListOptions{}, "unrecognized table options type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.c.ConvertToTable(context.Background(), tc.obj, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestTimes(t *testing.T) {
	ts := metav1.NewTime(time.Date(2024, 5, 1, 12, 0, 0, 0, time.FixedZone("x", -7200)))
	if got := CreatedAt(ts); got != "2024-05-01T14:00:00Z" {
		t.Errorf("CreatedAt = %q", got)
	}
	if got := Age(metav1.NewTime(time.Now().Add(-90 * time.Second))); got != "90s" {
		t.Errorf("Age = %q, want 90s", got)
	}
	if got := MicroAge(metav1.MicroTime{}); got != "<unknown>" {
		t.Errorf("MicroAge(zero) = %q", got)
	}
	if NameColumn.Format != "name" {
		t.Errorf("NameColumn format = %q", NameColumn.Format)
	}
}
