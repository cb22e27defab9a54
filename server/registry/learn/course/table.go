package course

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubewalk/kubewalk/server/apis/learn"
	"github.com/kubewalk/kubewalk/server/registry/internal/table"
)

// tableConvertor renders courses for `kubectl get courses`.
var tableConvertor = table.New(resource,
	[]metav1.TableColumnDefinition{
		table.NameColumn,
		{Name: "Title", Type: "string", Description: "The course's title (spec.title)."},
		{Name: "Lessons", Type: "integer", Description: "How many lessons the course lists (len(spec.lessons))."},
		table.AgeColumn,
	},
	func(c *learn.Course) table.Row {
		return table.Row{Cells: []any{c.Name, c.Spec.Title, int64(len(c.Spec.Lessons)), table.Age(c.CreationTimestamp)}}
	})
