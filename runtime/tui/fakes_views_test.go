package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/runtime/tui/etcd"
	kubectlview "github.com/kubewalk/kubewalk/runtime/tui/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
)

// fakeStore is a Requests: a bounded ring of traces with subscriptions, like
// runtime/tracing.Store promises to be.
type fakeStore struct {
	mu      sync.Mutex
	limit   int
	traces  []tracing.Trace // oldest first
	dropped uint64
	seq     uint64
	subs    map[int]chan tracing.Event
	nextSub int
	lists   int // List calls, for tests
}

func newFakeStore(limit int) *fakeStore {
	return &fakeStore{limit: limit, subs: map[int]chan tracing.Event{}}
}

// add records a trace (its Seq is assigned) and tells the subscribers.
func (s *fakeStore) add(t tracing.Trace) {
	s.mu.Lock()
	s.seq++
	t.Seq = s.seq
	s.traces = append(s.traces, t)
	if over := len(s.traces) - s.limit; over > 0 {
		s.traces = append([]tracing.Trace(nil), s.traces[over:]...)
		s.dropped += uint64(over)
	}
	s.publishLocked(t.ID)
	s.mu.Unlock()
}

// update changes a trace in place and tells the subscribers.
func (s *fakeStore) update(id string, f func(*tracing.Trace)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.traces {
		if s.traces[i].ID == id {
			f(&s.traces[i])
			s.publishLocked(id)
			return
		}
	}
}

func (s *fakeStore) publishLocked(id string) {
	for _, ch := range s.subs {
		select {
		case ch <- tracing.Event{ID: id}:
		default: // coalesced: the view re-reads everything anyway
		}
	}
}

func (s *fakeStore) List(f tracing.Filter) []tracing.Trace {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	var out []tracing.Trace
	q := strings.ToLower(f.Text)
	for _, t := range s.traces {
		if t.Loopback && !f.Loopback {
			continue
		}
		if q != "" {
			hay := strings.ToLower(strings.Join([]string{t.User, t.Verb, t.Resource, t.Namespace, t.Name, t.Path, fmt.Sprint(t.Code)}, " "))
			if !strings.Contains(hay, q) {
				continue
			}
		}
		out = append(out, copyTrace(t))
	}
	return out
}

func (s *fakeStore) Get(id string) (tracing.Trace, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.traces {
		if t.ID == id {
			return copyTrace(t), true
		}
	}
	return tracing.Trace{}, false
}

func (s *fakeStore) Subscribe() (<-chan tracing.Event, func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextSub
	s.nextSub++
	ch := make(chan tracing.Event, 16)
	s.subs[id] = ch
	return ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.subs, id)
	}
}

func (s *fakeStore) Dropped() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

func copyTrace(t tracing.Trace) tracing.Trace {
	t.Stages = append([]tracing.Stage(nil), t.Stages...)
	t.Groups = append([]string(nil), t.Groups...)
	return t
}

// Traces for the tests, one per kind of ending.
var traceBase = time.Date(2025, 5, 1, 10, 30, 0, 0, time.UTC)

func stage(name string, o tracing.Outcome, detail string, d time.Duration) tracing.Stage {
	return tracing.Stage{Name: name, Outcome: o, Detail: detail, Duration: d, DurationMicros: d.Microseconds()}
}

// okGet is alice listing configmaps, served from the watch cache.
func okGet(id string, at int) tracing.Trace {
	authn := stage(tracing.StageAuthentication, tracing.OutcomeOK, "token: alice", 80*time.Microsecond)
	authn.Fields = []tracing.Field{{Label: "authenticator", Value: "bearer token (tokenfile)"}, {Label: "user", Value: "alice"}, {Label: "groups", Value: "developers, system:authenticated"}}
	authn.Source = tracing.SourceRef{Anchor: "server/(*Server).Authn"}
	authz := stage(tracing.StageAuthorization, tracing.OutcomeAllowed, `rbac: allowed by RoleBinding "developers" of Role "configmap-writer"`, 120*time.Microsecond)
	authz.Fields = []tracing.Field{{Label: "privileged-groups", Value: "no opinion"}, {Label: "rbac", Value: `allowed by RoleBinding "developers" of Role "configmap-writer"`}}
	authz.Source = tracing.SourceRef{Upstream: upstreamOK}
	sto := stage(tracing.StageStorage, tracing.OutcomeCache, "LIST /registry/configmaps/default from the watch cache at rev 42", 300*time.Microsecond)
	return tracing.Trace{
		ID: id, Received: traceBase.Add(time.Duration(at) * time.Second), Duration: 2100 * time.Microsecond,
		Verb: "list", Path: "/api/v1/namespaces/default/configmaps", APIVersion: "v1", Resource: "configmaps", Namespace: "default",
		User: "alice", Groups: []string{"developers", "system:authenticated"}, UserAgent: "kubectl/v1.37.2",
		Code: 200, Bytes: 412, Done: true,
		Stages: []tracing.Stage{
			authn,
			stage(tracing.StageImpersonation, tracing.OutcomeSkipped, "no --as", 0),
			stage(tracing.StageFlowControl, tracing.OutcomeOK, "max-in-flight: 1 of 400 in flight", 10*time.Microsecond),
			authz, sto,
			stage(tracing.StageResponse, tracing.OutcomeOK, "200 OK, 412 bytes", 50*time.Microsecond),
		},
	}
}

// okCreate is alice creating configmap demo: CreatedBy adds its annotation.
func okCreate(id string, at int) tracing.Trace {
	t := okGet(id, at)
	t.Verb, t.Path, t.Name, t.Code = "create", "/api/v1/namespaces/default/configmaps", "demo", 201
	mut := stage(tracing.StageMutatingPrefix+"CreatedBy", tracing.OutcomeChanged, "added the created-by annotation", 40*time.Microsecond)
	mut.Patch = `[{"op":"add","path":"/metadata/annotations","value":{"kubewalk.io/created-by":"alice"}}]`
	sto := stage(tracing.StageStorage, tracing.OutcomeEtcd, "CREATE /registry/configmaps/default/demo rev 57", 900*time.Microsecond)
	sto.Fields = []tracing.Field{{Label: "key", Value: "/registry/configmaps/default/demo"}, {Label: "revision", Value: "57"}}
	t.Stages = append(t.Stages[:4:4], mut,
		stage(tracing.StageValidation, tracing.OutcomeOK, "configMapStrategy.Validate: no error", 20*time.Microsecond),
		stage(tracing.StageValidatingPrefix+"PinnedImages", tracing.OutcomeOK, "not a pod", 5*time.Microsecond),
		sto, stage(tracing.StageResponse, tracing.OutcomeOK, "201 Created", 60*time.Microsecond))
	return t
}

// unauthorized is a request with a bad token: 401 at authentication.
func unauthorized(id string, at int) tracing.Trace {
	a := stage(tracing.StageAuthentication, tracing.OutcomeFailed, "token: invalid bearer token", 70*time.Microsecond)
	a.Stopped = true
	return tracing.Trace{ID: id, Received: traceBase.Add(time.Duration(at) * time.Second), Duration: 400 * time.Microsecond,
		Verb: "list", Path: "/api/v1/namespaces/default/configmaps", Resource: "configmaps", Namespace: "default",
		User: "", Code: 401, Done: true,
		Stages: []tracing.Stage{a, stage(tracing.StageResponse, tracing.OutcomeOK, "401 Unauthorized", 20*time.Microsecond)}}
}

// forbidden is bob listing configmaps: 403 at authorization.
func forbidden(id string, at int) tracing.Trace {
	t := okGet(id, at)
	t.User, t.Groups, t.Code = "bob", []string{"system:authenticated"}, 403
	z := stage(tracing.StageAuthorization, tracing.OutcomeDenied, `rbac: bob cannot list resource "configmaps" in namespace "default"`, 90*time.Microsecond)
	z.Stopped = true
	z.Source = tracing.SourceRef{Upstream: upstreamOK}
	t.Stages = append(t.Stages[:3:3], z, stage(tracing.StageResponse, tracing.OutcomeOK, "403 Forbidden", 30*time.Microsecond))
	return t
}

// invalid is a create refused by validation: 422.
func invalid(id string, at int) tracing.Trace {
	t := okCreate(id, at)
	t.Name, t.Code = "Bad_Name", 422
	v := stage(tracing.StageValidation, tracing.OutcomeRefused, "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain", 30*time.Microsecond)
	v.Stopped = true
	v.Source = tracing.SourceRef{Anchor: "(*authnState).describe"}
	t.Stages = append(t.Stages[:5:5], v, stage(tracing.StageResponse, tracing.OutcomeOK, "422 Unprocessable Entity", 30*time.Microsecond))
	return t
}

// refusedByAdmission is a pod with :latest refused by PinnedImages.
func refusedByAdmission(id string, at int) tracing.Trace {
	t := okCreate(id, at)
	t.Resource, t.Name, t.Code = "pods", "web", 403
	a := stage(tracing.StageValidatingPrefix+"PinnedImages", tracing.OutcomeRefused, `image "nginx:latest" is not pinned`, 15*time.Microsecond)
	a.Stopped = true
	t.Stages = append(t.Stages[:6:6], a, stage(tracing.StageResponse, tracing.OutcomeOK, "403 Forbidden", 30*time.Microsecond))
	return t
}

// loopbackList is the server's own informer listing roles.
func loopbackList(id string, at int) tracing.Trace {
	t := okGet(id, at)
	t.User, t.Groups, t.Loopback, t.Resource, t.APIGroup = "system:apiserver", []string{"system:masters"}, true, "roles", "rbac.authorization.k8s.io"
	t.Path, t.Namespace = "/apis/rbac.authorization.k8s.io/v1/roles", ""
	return t
}

// fakeBreakpoints holds requests of a fakeStore. Tests call hold to have a request held, as
// the server's gate would.
type fakeBreakpoints struct {
	store *fakeStore
	mu    sync.Mutex
	specs []string
	held  []HeldRequest
	calls []string
}

var breakOrder = []string{tracing.StageAuthentication, tracing.StageAuthorization, tracing.StageMutatingAdmission, tracing.StageStorage}

func (b *fakeBreakpoints) Add(spec string) error {
	stage, _, _ := strings.Cut(spec, ":")
	switch stage {
	case "authentication", "authorization", "admission", "storage":
	default:
		return fmt.Errorf("breakpoint %q: unknown stage %q (authentication, authorization, admission or storage)", spec, stage)
	}
	b.mu.Lock()
	b.specs = append(b.specs, spec)
	b.mu.Unlock()
	b.store.publish()
	return nil
}

func (b *fakeBreakpoints) Remove(spec string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, s := range b.specs {
		if s == spec {
			b.specs = append(b.specs[:i], b.specs[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("no breakpoint %q", spec)
}

func (b *fakeBreakpoints) List() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.specs...)
}

func (b *fakeBreakpoints) Held() []HeldRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]HeldRequest(nil), b.held...)
}

// hold adds a request to the store, held at stage: its lane so far ends with a held box.
func (b *fakeBreakpoints) hold(t tracing.Trace, stage, spec, body string) {
	t.Done, t.Code, t.Duration = false, 0, 0
	t.Stages = heldLane(t, stage)
	b.mu.Lock()
	b.held = append(b.held, HeldRequest{ID: t.ID, Stage: stage, Spec: spec, Since: t.Received, Body: body})
	b.mu.Unlock()
	b.store.add(t)
}

// heldLane is the lane of t up to stage, held there.
func heldLane(t tracing.Trace, stage string) []tracing.Stage {
	var out []tracing.Stage
	for _, s := range okCreate(t.ID, 0).Stages {
		if requests.PathIndex(s.Name) >= requests.PathIndex(stage) {
			h := tracing.Stage{Name: stage, Outcome: tracing.OutcomeHeld, Detail: "held by a breakpoint", Source: tracing.SourceRef{Anchor: "(*Server).Authn"}}
			if stage == tracing.StageMutatingAdmission {
				h.Name = tracing.StageMutatingPrefix + "CreatedBy"
			}
			return append(out, h)
		}
		out = append(out, s)
	}
	return out
}

func (b *fakeBreakpoints) find(id string) (int, bool) {
	for i, h := range b.held {
		if h.ID == id {
			return i, true
		}
	}
	return 0, false
}

func (b *fakeBreakpoints) Step(id string) error {
	b.mu.Lock()
	b.calls = append(b.calls, "step "+id)
	i, ok := b.find(id)
	if !ok {
		b.mu.Unlock()
		return errors.New("not held")
	}
	cur := b.held[i].Stage
	next := ""
	for j, s := range breakOrder {
		if s == cur && j+1 < len(breakOrder) {
			next = breakOrder[j+1]
		}
	}
	if next == "" {
		b.mu.Unlock()
		return b.Continue(id)
	}
	b.held[i].Stage = next
	b.mu.Unlock()
	b.store.update(id, func(t *tracing.Trace) { t.Stages = heldLane(*t, next) })
	return nil
}

func (b *fakeBreakpoints) Continue(id string) error {
	b.mu.Lock()
	b.calls = append(b.calls, "continue "+id)
	i, ok := b.find(id)
	if ok {
		b.held = append(b.held[:i], b.held[i+1:]...)
	}
	b.mu.Unlock()
	if !ok {
		return errors.New("not held")
	}
	b.store.update(id, func(t *tracing.Trace) {
		done := okCreate(id, 0)
		t.Stages, t.Code, t.Done, t.Duration = done.Stages, 201, true, 3*time.Millisecond
	})
	return nil
}

func (b *fakeBreakpoints) Abort(id string) error {
	b.mu.Lock()
	b.calls = append(b.calls, "abort "+id)
	i, ok := b.find(id)
	var stage string
	if ok {
		stage = b.held[i].Stage
		b.held = append(b.held[:i], b.held[i+1:]...)
	}
	b.mu.Unlock()
	if !ok {
		return errors.New("not held")
	}
	b.store.update(id, func(t *tracing.Trace) {
		st := t.Stages[len(t.Stages)-1]
		st.Outcome, st.Stopped, st.Detail = tracing.OutcomeAborted, true, "failed at the breakpoint at "+stage
		t.Stages = append(t.Stages[:len(t.Stages)-1], st, stage2(tracing.StageResponse, "500 Internal Server Error"))
		t.Code, t.Done = 500, true
	})
	return nil
}

func stage2(name, detail string) tracing.Stage {
	return tracing.Stage{Name: name, Outcome: tracing.OutcomeOK, Detail: detail}
}

func (s *fakeStore) publish() {
	s.mu.Lock()
	s.publishLocked("")
	s.mu.Unlock()
}

// fakeEtcd is an EtcdBrowser over a sorted in-memory map.
type fakeEtcd struct {
	mu      sync.Mutex
	keys    map[string]EtcdKey
	rev     int64
	watches []chan EtcdChange
	lists   int
}

func newFakeEtcd(keys ...string) *fakeEtcd {
	e := &fakeEtcd{keys: map[string]EtcdKey{}}
	for _, k := range keys {
		e.rev++
		e.keys[k] = EtcdKey{Key: k, CreateRevision: e.rev, ModRevision: e.rev, Version: 1, Size: 100 + len(k)}
	}
	return e
}

func (e *fakeEtcd) List(ctx context.Context, prefix string, limit int, after string) (EtcdPage, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lists++
	var all []string
	for k := range e.keys {
		if strings.HasPrefix(k, prefix) && k > after {
			all = append(all, k)
		}
	}
	sort.Strings(all)
	page := EtcdPage{Revision: e.rev}
	for i, k := range all {
		if i == limit {
			page.Continue = page.Keys[len(page.Keys)-1].Key
			break
		}
		page.Keys = append(page.Keys, e.keys[k])
	}
	return page, nil
}

func (e *fakeEtcd) Decode(ctx context.Context, key string) (EtcdValue, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	k, ok := e.keys[key]
	if !ok {
		return EtcdValue{}, fmt.Errorf("%s: not found", key)
	}
	res, ns, name := etcd.SplitKey(key)
	y := fmt.Sprintf("apiVersion: v1\nkind: %s\nmetadata:\n  name: %s\n", strings.TrimSuffix(res, "s"), name)
	if ns != "" {
		y += "  namespace: " + ns + "\n"
	}
	y += fmt.Sprintf("  resourceVersion: \"%d\"\ndata:\n  a: b\n", k.ModRevision)
	return EtcdValue{EtcdKey: k, Encoding: "protobuf (k8s\\x00 envelope)", YAML: y}, nil
}

func (e *fakeEtcd) Watch(ctx context.Context, afterRevision int64) <-chan EtcdChange {
	ch := make(chan EtcdChange, 64)
	e.mu.Lock()
	e.watches = append(e.watches, ch)
	e.mu.Unlock()
	return ch
}

// put writes a key and tells the watches.
func (e *fakeEtcd) put(key string) {
	e.mu.Lock()
	e.rev++
	k, ok := e.keys[key]
	if !ok {
		k = EtcdKey{Key: key, CreateRevision: e.rev}
	}
	k.ModRevision, k.Version, k.Size = e.rev, k.Version+1, 120+len(key)
	e.keys[key] = k
	ws := e.watches
	e.mu.Unlock()
	for _, w := range ws {
		w <- EtcdChange{Key: k}
	}
}

// del deletes a key and tells the watches.
func (e *fakeEtcd) del(key string) {
	e.mu.Lock()
	e.rev++
	k := e.keys[key]
	delete(e.keys, key)
	k.ModRevision = e.rev
	ws := e.watches
	e.mu.Unlock()
	for _, w := range ws {
		w <- EtcdChange{Key: k, Deleted: true}
	}
}

// fakeKubectl plays kubectl: fixed output for a few commands, `-w` streams until ctx ends,
// `edit` is refused.
type fakeKubectl struct {
	mu     sync.Mutex
	runs   [][]string
	closed bool
	watch  chan string // lines a -w command prints, one by one
}

func (k *fakeKubectl) Run(ctx context.Context, args []string, out io.Writer) (kubectl.Result, error) {
	k.mu.Lock()
	k.runs = append(k.runs, args)
	k.mu.Unlock()
	res := kubectl.Result{Args: args, Context: kubectlview.ContextOf(args)}
	line := strings.Join(args, " ")
	switch {
	case len(args) > 0 && args[0] == "edit":
		return res, &kubectl.RefusedError{Args: args, Reason: "needs a terminal of its own: edit opens an editor on the terminal",
			Command: "KUBECONFIG=/tmp/kubewalk-1234/kubeconfig kubectl " + kubectl.Quote(args)}
	case strings.Contains(line, "-w"):
		fmt.Fprintln(out, "NAME   DATA   AGE")
		for {
			select {
			case l := <-k.watch:
				fmt.Fprintln(out, l)
			case <-ctx.Done():
				res.Canceled = true
				res.Requests = []kubectl.Request{{Method: "GET", Path: "/api/v1/namespaces/default/configmaps?watch=true", Code: 200, AuditID: "w-1"}}
				return res, nil
			}
		}
	case kubectlview.ContextOf(args) == "bob":
		fmt.Fprintln(out, `Error from server (Forbidden): configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"`)
		res.ExitCode = 1
		res.Requests = []kubectl.Request{{Method: "GET", Path: "/api/v1/namespaces/default/configmaps?limit=500", Code: 403, AuditID: "f-1"}}
		return res, nil
	default:
		fmt.Fprintln(out, "NAME               DATA   AGE")
		fmt.Fprintln(out, "demo               1      5s")
		fmt.Fprintln(out, "kube-root-ca.crt   1      1m")
		res.Requests = []kubectl.Request{{Method: "GET", Path: "/api/v1/namespaces/default/configmaps?limit=500", Code: 200, AuditID: "g-1"}}
		return res, nil
	}
}

func (k *fakeKubectl) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
	return nil
}
