package event

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/kubewalk/kubewalk/server/registry/internal/testutil"
)

func event() *corev1.Event {
	return &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "web.17a", Namespace: "default", ResourceVersion: "11"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web", UID: "u1",
			APIVersion: "v1", ResourceVersion: "10", FieldPath: "spec.containers{app}"},
		Reason:  "Pulled",
		Message: "Container image pulled ",
		Source:  corev1.EventSource{Component: "kubelet", Host: "node-1"},
		Type:    corev1.EventTypeNormal,
		Count:   3,
	}
}

func TestNewREST(t *testing.T) {
	g := &testutil.RESTOptionsGetter{}
	r, err := NewREST(testutil.Scheme(t), g)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckStore(t, r, r.Store, g, testutil.StoreWant{
		Resource: resource, Singular: "event", Namespaced: true, ShortNames: []string{"ev"},
		New: &corev1.Event{}, NewList: &corev1.EventList{},
	})
	if ttl, err := r.TTLFunc(event(), 0, false); err != nil || ttl != 3600 {
		t.Errorf("TTL = %d, %v, want 3600", ttl, err)
	}
}

func TestValidate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	tests := []struct {
		name   string
		mutate func(*corev1.Event)
		want   []string
	}{
		{"valid", func(*corev1.Event) {}, []string{}},
		{"no involved object", func(e *corev1.Event) { e.InvolvedObject = corev1.ObjectReference{} },
			[]string{"involvedObject.kind: Required value", "involvedObject.name: Required value"}},
		{"namespace mismatch", func(e *corev1.Event) { e.InvolvedObject.Namespace = "other" },
			[]string{"involvedObject.namespace: Invalid value"}},
		{"cluster-scoped object in default", func(e *corev1.Event) {
			e.InvolvedObject = corev1.ObjectReference{Kind: "Node", Name: "node-1"}
		}, []string{}},
		{"cluster-scoped object elsewhere", func(e *corev1.Event) {
			e.Namespace = "team"
			e.InvolvedObject = corev1.ObjectReference{Kind: "Node", Name: "node-1"}
		}, []string{"involvedObject.namespace: Invalid value"}},
		{"new style lacks reporter", func(e *corev1.Event) { e.EventTime = metav1.NowMicro() },
			[]string{"reportingComponent: Required value", "reportingInstance: Required value", "action: Required value"}},
		{"new style complete", func(e *corev1.Event) {
			e.EventTime = metav1.NowMicro()
			e.ReportingController, e.ReportingInstance, e.Action = "example.com/ctl", "ctl-1", "Pull"
		}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := event()
			tc.mutate(ev)
			got := testutil.ErrorFields(s.Validate(context.Background(), ev))
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	old, ev := event(), event()
	ev.Count, ev.Message = 4, "again"
	if errs := s.ValidateUpdate(context.Background(), ev, old); len(errs) != 0 {
		t.Errorf("recorder update rejected: %v", errs)
	}
	ev.InvolvedObject.Name = "other"
	if got := testutil.ErrorFields(s.ValidateUpdate(context.Background(), ev, old)); !slices.Equal(got, []string{"involvedObject: Invalid value"}) {
		t.Errorf("errors = %q, want involvedObject immutable", got)
	}
}

func TestGetAttrs(t *testing.T) {
	testutil.CheckAttrs(t, GetAttrs, event(), "Event", true, fields.Set{
		"metadata.name": "web.17a", "metadata.namespace": "default",
		"involvedObject.kind": "Pod", "involvedObject.namespace": "default", "involvedObject.name": "web",
		"involvedObject.uid": "u1", "involvedObject.apiVersion": "v1", "involvedObject.resourceVersion": "10",
		"involvedObject.fieldPath": "spec.containers{app}", "reason": "Pulled", "reportingComponent": "",
		"source": "kubelet", "type": "Normal",
	})
}

func TestTable(t *testing.T) {
	ev := event()
	ev.FirstTimestamp = metav1.NewTime(time.Now().Add(-10 * 24 * time.Hour))
	ev.LastTimestamp = metav1.NewTime(time.Now().Add(-9 * 24 * time.Hour))
	list := &corev1.EventList{ListMeta: metav1.ListMeta{ResourceVersion: "12"}, Items: []corev1.Event{*ev}}
	testutil.CheckTable(t, tableConvertor, ev, list,
		[]string{"Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message", "First Seen", "Count", "Name"},
		[]any{"9d", "Normal", "Pulled", "pod/web", "spec.containers{app}", "kubelet, node-1",
			"Container image pulled", "10d", int64(3), "web.17a"})
}

func TestTableNewStyleEvent(t *testing.T) {
	ev := &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "n", Namespace: "default"},
		InvolvedObject:      corev1.ObjectReference{Kind: "Node", Name: "node-1"},
		EventTime:           metav1.NewMicroTime(time.Now().Add(-10 * 24 * time.Hour)),
		Series:              &corev1.EventSeries{Count: 7, LastObservedTime: metav1.NewMicroTime(time.Now().Add(-9 * 24 * time.Hour))},
		ReportingController: "example.com/ctl",
	}
	tbl, err := tableConvertor.ConvertToTable(context.Background(), ev, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"9d", "", "", "node/node-1", "", "example.com/ctl", "", "10d", int64(7), "n"}
	if got := tbl.Rows[0].Cells; !reflect.DeepEqual(got, want) {
		t.Errorf("cells = %#v, want %#v", got, want)
	}
}
