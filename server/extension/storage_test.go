package extension

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/kubewalk/kubewalk/server/extension/apis/v1alpha1"
)

func as(name string, groups ...string) context.Context {
	return genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: name, Groups: groups})
}

func TestCallersREST(t *testing.T) {
	start := time.Date(2026, 12, 5, 20, 0, 0, 0, time.UTC)
	now := start
	r := newCallersREST()
	r.now = func() time.Time { return now }

	type step struct {
		name      string
		ctx       context.Context
		get       string // "" lists
		opts      *metainternalversion.ListOptions
		wantNames []string
		wantErr   func(error) bool
	}
	for _, st := range []step{
		{name: "alice lists and finds herself", ctx: as("alice", "system:authenticated"), wantNames: []string{"alice"}},
		{name: "bob lists and finds both", ctx: as("bob", "system:authenticated", "dev"), wantNames: []string{"alice", "bob"}},
		{name: "alice gets bob", ctx: as("alice", "system:authenticated"), get: "bob", wantNames: []string{"bob"}},
		{name: "a caller who never read is not found", ctx: as("alice"), get: "carol", wantErr: apierrors.IsNotFound},
		{name: "field selector on the name", ctx: as("bob"), opts: &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "alice")}, wantNames: []string{"alice"}},
		{name: "a label selector matches nobody", ctx: as("bob"), opts: &metainternalversion.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"a": "b"})}, wantNames: nil},
		{name: "no user is an internal error", ctx: context.Background(), wantErr: apierrors.IsInternalError},
	} {
		now = now.Add(time.Second)
		var names []string
		var err error
		if st.get != "" {
			var obj any
			obj, err = r.Get(st.ctx, st.get, &metav1.GetOptions{})
			if err == nil {
				names = []string{obj.(*v1alpha1.Caller).Name}
			}
		} else {
			var obj any
			obj, err = r.List(st.ctx, st.opts)
			if err == nil {
				for _, c := range obj.(*v1alpha1.CallerList).Items {
					names = append(names, c.Name)
				}
			}
		}
		switch {
		case st.wantErr != nil:
			if !st.wantErr(err) {
				t.Errorf("%s: got %v, want the error", st.name, err)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", st.name, err)
			continue
		}
		if len(names) != len(st.wantNames) {
			t.Errorf("%s: got %v, want %v", st.name, names, st.wantNames)
			continue
		}
		for i := range names {
			if names[i] != st.wantNames[i] {
				t.Errorf("%s: got %v, want %v", st.name, names, st.wantNames)
			}
		}
	}

	// alice read three times (a list and two gets, one of them not found), bob three (his
	// list and the two selector lists); groups are the
	// last read's.
	list, err := r.List(as("admin", "system:masters"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		requests int64
		groups   int
	}{"alice": {3, 0}, "bob": {3, 0}, "admin": {1, 1}}
	for _, c := range list.(*v1alpha1.CallerList).Items {
		w, ok := want[c.Name]
		if !ok || c.Requests != w.requests || len(c.Groups) != w.groups || c.User != c.Name {
			t.Errorf("caller %+v, want %+v", c, w)
		}
		delete(want, c.Name)
	}
	if len(want) > 0 {
		t.Errorf("missing callers %v", want)
	}

	// The table kubectl get prints.
	now = now.Add(time.Minute)
	table, err := r.ConvertToTable(context.Background(), list, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(table.ColumnDefinitions) != 4 || len(table.Rows) != 3 {
		t.Fatalf("table %d columns, %d rows", len(table.ColumnDefinitions), len(table.Rows))
	}
	if got := table.Rows[0].Cells; got[0] != "admin" || got[1] != "system:masters" || got[2] != int64(1) || got[3] != "60s" {
		t.Errorf("first row %v", got)
	}
	if _, err := r.ConvertToTable(context.Background(), &metav1.Status{}, nil); err == nil {
		t.Error("ConvertToTable of a Status: no error")
	}
}

// TestCallersRESTConcurrent reads from many goroutines, for the race detector.
func TestCallersRESTConcurrent(t *testing.T) {
	r := newCallersREST()
	done := make(chan struct{})
	for i := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			ctx := as([]string{"alice", "bob"}[i%2])
			for range 50 {
				if _, err := r.List(ctx, nil); err != nil {
					t.Error(err)
				}
				if _, err := r.Get(ctx, "alice", nil); err != nil && !apierrors.IsNotFound(err) {
					t.Error(err)
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	list, _ := r.List(as("alice"), nil)
	var total int64
	for _, c := range list.(*v1alpha1.CallerList).Items {
		total += c.Requests
	}
	if total != 8*100+1 {
		t.Errorf("%d reads counted, want %d", total, 8*100+1)
	}
}
