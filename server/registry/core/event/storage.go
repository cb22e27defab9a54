package event

import (
	"strings"
	"time"

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

// DefaultTTL is how long an event is kept after its last write.
const DefaultTTL = time.Hour

// REST is the storage of events.
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

var resource = corev1.Resource("events")

// NewREST returns the storage of events, which expire DefaultTTL after their last write. s
// must be the scheme the API group is installed with; optsGetter supplies the storage settings
// for "events".
func NewREST(s *apis.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, error) {
	st, err := store.New(optsGetter, store.Config{
		Resource:       resource,
		Singular:       "event",
		NewFunc:        func() runtime.Object { return &corev1.Event{} },
		NewListFunc:    func() runtime.Object { return &corev1.EventList{} },
		Strategy:       newStrategy(s),
		TableConvertor: tableConvertor,
		AttrFunc:       GetAttrs,
		TTL:            DefaultTTL,
	})
	if err != nil {
		return nil, err
	}
	return &REST{st}, nil
}

// ShortNames implements rest.ShortNamesProvider.
func (*REST) ShortNames() []string { return []string{"ev"} }

var eventDoc = corev1.Event{}.SwaggerDoc()

var tableConvertor = table.New(resource,
	[]metav1.TableColumnDefinition{
		{Name: "Last Seen", Type: "string", Description: eventDoc["lastTimestamp"]},
		{Name: "Type", Type: "string", Description: eventDoc["type"]},
		{Name: "Reason", Type: "string", Description: eventDoc["reason"]},
		{Name: "Object", Type: "string", Description: eventDoc["involvedObject"]},
		{Name: "Subobject", Type: "string", Priority: 1, Description: corev1.ObjectReference{}.SwaggerDoc()["fieldPath"]},
		{Name: "Source", Type: "string", Priority: 1, Description: eventDoc["source"]},
		{Name: "Message", Type: "string", Description: eventDoc["message"]},
		{Name: "First Seen", Type: "string", Priority: 1, Description: eventDoc["firstTimestamp"]},
		{Name: "Count", Type: "integer", Priority: 1, Description: eventDoc["count"]},
		withPriority(table.NameColumn, 1),
	},
	row)

func withPriority(c metav1.TableColumnDefinition, p int32) metav1.TableColumnDefinition {
	c.Priority = p
	return c
}

// row renders an event as kubectl shows it: old-style events carry first/last timestamps and a
// count, events.k8s.io-style ones an eventTime and possibly a series.
func row(ev *corev1.Event) table.Row {
	first := table.Age(ev.FirstTimestamp)
	if ev.FirstTimestamp.IsZero() {
		first = table.MicroAge(ev.EventTime)
	}
	last := table.Age(ev.LastTimestamp)
	if ev.LastTimestamp.IsZero() {
		last = first
	}
	count := ev.Count
	switch {
	case ev.Series != nil:
		last = table.MicroAge(ev.Series.LastObservedTime)
		count = ev.Series.Count
	case count == 0:
		count = 1
	}
	object := strings.ToLower(ev.InvolvedObject.Kind)
	if ev.InvolvedObject.Name != "" {
		object += "/" + ev.InvolvedObject.Name
	}
	return table.Row{Cells: []any{
		last, ev.Type, ev.Reason, object, ev.InvolvedObject.FieldPath, source(ev),
		strings.TrimSpace(ev.Message), first, int64(count), ev.Name,
	}}
}

// source renders the component and host that reported an event, "component, host".
func source(ev *corev1.Event) string {
	component, host := ev.Source.Component, ev.Source.Host
	if component == "" {
		component = ev.ReportingController
	}
	if host == "" {
		host = ev.ReportingInstance
	}
	if host == "" {
		return component
	}
	return component + ", " + host
}
