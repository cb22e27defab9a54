package lesson

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubewalk/kubewalk/server/apis/learn"
	"github.com/kubewalk/kubewalk/server/registry/internal/table"
)

// tableConvertor renders lessons for `kubectl get`: the server builds the table from the
// internal object, so the columns read the same whichever version the client asked for.
var tableConvertor = table.New(resource,
	[]metav1.TableColumnDefinition{
		table.NameColumn,
		{Name: "Title", Type: "string", Description: "The lesson's title (spec.title)."},
		{Name: "Author", Type: "string", Description: "Who wrote the lesson (spec.author in v1, spec.owner in v1alpha1)."},
		{Name: "Progress", Type: "string", Description: "Steps done of the lesson's steps (status.completedSteps/len(spec.steps))."},
		table.AgeColumn,
		{Name: "Level", Type: "string", Priority: 1, Description: "How much the lesson expects (spec.level)."},
	},
	func(l *learn.Lesson) table.Row {
		author := l.Spec.Author
		if author == "" {
			author = "<none>"
		}
		return table.Row{Cells: []any{
			l.Name, l.Spec.Title, author,
			fmt.Sprintf("%d/%d", l.Status.CompletedSteps, len(l.Spec.Steps)),
			table.Age(l.CreationTimestamp), string(l.Spec.Level),
		}}
	})
