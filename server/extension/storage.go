package extension

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubewalk/kubewalk/server/extension/apis/v1alpha1"
)

// callersREST is the read-only REST storage of callers: an in-memory rest.Storage of the kind
// metrics-server serves its metrics with (rest.Getter, rest.Lister, rest.TableConvertor, no
// Creater or Updater), not a registry.Store on etcd. The objects are not data anyone wrote:
// each is computed by the server as it serves a read, from the user the request carries, so
// there is nothing to persist, and a restarted extension server starts from none, as an
// aggregated API server that keeps its state in memory does.
type callersREST struct {
	mu      sync.Mutex
	callers map[string]*v1alpha1.Caller
	now     func() time.Time
}

var (
	_ rest.Storage              = &callersREST{}
	_ rest.Getter               = &callersREST{}
	_ rest.Lister               = &callersREST{}
	_ rest.Scoper               = &callersREST{}
	_ rest.SingularNameProvider = &callersREST{}
	_ rest.TableConvertor       = &callersREST{}
)

func newCallersREST() *callersREST {
	return &callersREST{callers: map[string]*v1alpha1.Caller{}, now: time.Now}
}

// New implements rest.Storage.
func (r *callersREST) New() runtime.Object { return &v1alpha1.Caller{} }

// Destroy implements rest.Storage: nothing outlives the server.
func (r *callersREST) Destroy() {}

// NamespaceScoped implements rest.Scoper: callers are cluster-wide.
func (r *callersREST) NamespaceScoped() bool { return false }

// GetSingularName implements rest.SingularNameProvider.
func (r *callersREST) GetSingularName() string { return "caller" }

// NewList implements rest.Lister.
func (r *callersREST) NewList() runtime.Object { return &v1alpha1.CallerList{} }

// record counts the read for the user the request carries: the user the authentication filter
// put in the context, here from the front proxy's X-Remote-User and X-Remote-Group headers.
func (r *callersREST) record(ctx context.Context) error {
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok || u.GetName() == "" {
		return apierrors.NewInternalError(fmt.Errorf("no user in the request"))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.callers[u.GetName()]
	if !ok {
		c = &v1alpha1.Caller{
			ObjectMeta: metav1.ObjectMeta{Name: u.GetName(), CreationTimestamp: metav1.NewTime(r.now())},
			User:       u.GetName(),
		}
		r.callers[u.GetName()] = c
	}
	c.Groups = slices.Clone(u.GetGroups())
	c.Requests++
	c.LastSeen = metav1.NewTime(r.now())
	return nil
}

// Get implements rest.Getter: the caller named name, after counting this read.
func (r *callersREST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	if err := r.record(ctx); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.callers[name]
	if !ok {
		return nil, apierrors.NewNotFound(v1alpha1.Resource, name)
	}
	return c.DeepCopy(), nil
}

// List implements rest.Lister: every caller, this one counted, sorted by name. The label
// selector matches no caller but the empty one (callers carry no labels); the field selector
// knows metadata.name.
func (r *callersREST) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	if err := r.record(ctx); err != nil {
		return nil, err
	}
	labelSel, fieldSel := labels.Everything(), fields.Everything()
	if opts != nil && opts.LabelSelector != nil {
		labelSel = opts.LabelSelector
	}
	if opts != nil && opts.FieldSelector != nil {
		fieldSel = opts.FieldSelector
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	list := &v1alpha1.CallerList{Items: []v1alpha1.Caller{}}
	for _, c := range r.callers {
		if !labelSel.Matches(labels.Set(c.Labels)) || !fieldSel.Matches(fields.Set{"metadata.name": c.Name}) {
			continue
		}
		list.Items = append(list.Items, *c.DeepCopy())
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list, nil
}

var callerColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "The user, as the extension server authenticated it"},
	{Name: "Groups", Type: "string", Description: "The user's groups, from X-Remote-Group"},
	{Name: "Requests", Type: "integer", Description: "Reads of callers by this user"},
	{Name: "Last Seen", Type: "string", Description: "When the user last read callers"},
}

// ConvertToTable implements rest.TableConvertor: the columns kubectl get prints.
func (r *callersREST) ConvertToTable(_ context.Context, obj runtime.Object, _ runtime.Object) (*metav1.Table, error) {
	var items []v1alpha1.Caller
	t := &metav1.Table{ColumnDefinitions: callerColumns}
	switch o := obj.(type) {
	case *v1alpha1.Caller:
		items = []v1alpha1.Caller{*o}
		t.ResourceVersion = o.ResourceVersion
	case *v1alpha1.CallerList:
		items = o.Items
		t.ResourceVersion, t.Continue = o.ResourceVersion, o.Continue
	default:
		return nil, fmt.Errorf("callers: cannot print %T", obj)
	}
	now := r.now()
	for i := range items {
		c := &items[i]
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells:  []any{c.Name, strings.Join(c.Groups, ","), c.Requests, duration.HumanDuration(now.Sub(c.LastSeen.Time))},
			Object: runtime.RawExtension{Object: c},
		})
	}
	return t, nil
}
