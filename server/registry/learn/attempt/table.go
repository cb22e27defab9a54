package attempt

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubewalk/kubewalk/server/apis/learn"
	"github.com/kubewalk/kubewalk/server/registry/internal/table"
)

// tableConvertor renders attempts for `kubectl get attempts`.
var tableConvertor = table.New(resource,
	[]metav1.TableColumnDefinition{
		table.NameColumn,
		{Name: "Lesson", Type: "string", Description: "The lesson tried (spec.lesson)."},
		{Name: "Step", Type: "string", Description: "The step tried (spec.step)."},
		table.AgeColumn,
		{Name: "Answer", Type: "string", Priority: 1, Description: "What the learner answered (spec.answer)."},
	},
	func(a *learn.Attempt) table.Row {
		return table.Row{Cells: []any{a.Name, a.Spec.Lesson, a.Spec.Step, table.Age(a.CreationTimestamp), a.Spec.Answer}}
	})
