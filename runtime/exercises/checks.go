// Package exercises evaluates the lessons' exercises against the live server: the requests it
// recorded (runtime/tracing), its objects, its authorizer (SubjectAccessReviews) and its etcd.
// A Tracker follows every exercise of a walkthrough, off the request path: it reads the trace
// store after requests arrive and keeps each exercise's state, hints shown and why it passed.
package exercises

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/jsonpath"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server"
)

// UserAgent is the user agent of the checks' own requests (SubjectAccessReviews, object
// reads); the tracker never takes them for the learner's.
const UserAgent = "kubewalk-exercises"

// Live is what the checks read of the server: *server.Server.
type Live interface {
	// RESTConfig returns a client configuration for a kubeconfig context ("admin").
	RESTConfig(contextName string) (*rest.Config, error)
	// Etcd returns read access to the server's etcd.
	Etcd() (*server.EtcdAccess, error)
}

// Result is what one evaluation found.
type Result struct {
	// Passed is set when the check holds.
	Passed bool
	// Detail says what made it pass ("RBAC: allowed by RoleBinding ..."), for the why.
	Detail string
	// Wrong says, after a typed answer that is not right, what is wrong, in a few words.
	Wrong string
}

// Checker evaluates the checks that read the server's present state or a typed answer. Its
// clients act as the admin context and are made on first use. It is safe for concurrent use.
type Checker struct {
	live Live
	tr   *i18n.Strings

	once sync.Once
	dyn  dynamic.Interface
	kube kubernetes.Interface
	err  error
}

// NewChecker returns a checker reading live that says what is wrong with an answer in tr's
// language (English when tr is nil).
func NewChecker(live Live, tr *i18n.Strings) *Checker {
	if tr == nil {
		tr = i18n.For(i18n.English)
	}
	return &Checker{live: live, tr: tr}
}

// clients makes the admin clients once.
func (k *Checker) clients() error {
	k.once.Do(func() {
		cfg, err := k.live.RESTConfig("admin")
		if err != nil {
			k.err = fmt.Errorf("exercise checks: %w", err)
			return
		}
		cfg = rest.CopyConfig(cfg)
		cfg.UserAgent = UserAgent
		if k.dyn, k.err = dynamic.NewForConfig(cfg); k.err != nil {
			return
		}
		k.kube, k.err = kubernetes.NewForConfig(cfg)
	})
	return k.err
}

// MatchTrace reports whether trace t matches trace check c, and the detail to explain it in
// English: the named stage's detail (or the value of its field that holds c.Detail, such as
// the response's message), else who did what with which answer. A check that names a user
// matches only that user's own requests, not another user's --as, unless it names the
// impersonator. An event check never matches one trace alone: WatchEvent decides it.
func MatchTrace(c lessons.ExerciseCheck, t *tracing.Trace) (string, bool) {
	return matchTrace(c, t, nil)
}

// MatchTraceIn is MatchTrace with the detail in tr's language: the lane's own words
// translated, what the server wrote as it is. The check matches the English all the same.
func MatchTraceIn(c lessons.ExerciseCheck, t *tracing.Trace, tr *i18n.Strings) (string, bool) {
	return matchTrace(c, t, tr)
}

func matchTrace(c lessons.ExerciseCheck, t *tracing.Trace, tr *i18n.Strings) (string, bool) {
	if c.Kind != lessons.CheckTrace || c.Event || !matchRequest(c, t) {
		return "", false
	}
	detail := ""
	if c.Stage != "" || c.Detail != "" {
		found := false
		for _, s := range t.Stages {
			if c.Stage != "" && (s.Name != c.Stage || (c.Outcome != "" && string(s.Outcome) != c.Outcome)) {
				continue
			}
			if d, ok := stageDetail(s, c.Detail, tr); ok {
				found, detail = true, d
				break
			}
		}
		if !found {
			return "", false
		}
	}
	if detail == "" {
		detail = requestDetail(t, tr)
	}
	return detail, true
}

// matchRequest reports whether t is the request c describes: who, what, where, which answer,
// and which kubectl command sent it (the stages aside).
func matchRequest(c lessons.ExerciseCheck, t *tracing.Trace) bool {
	for _, f := range []struct{ want, got string }{
		{c.User, t.User}, {c.Verb, t.Verb}, {c.Resource, t.Resource}, {c.Subresource, t.Subresource},
		{c.Namespace, t.Namespace}, {c.Name, t.Name}, {c.Path, t.Path}, {c.Command, t.Command},
		{c.Impersonator, t.Impersonator},
	} {
		if f.want != "" && f.want != f.got {
			return false
		}
	}
	if c.User != "" && c.Impersonator == "" && t.Impersonator != "" {
		return false // another user's --as is not the user's own request
	}
	return c.Code == 0 || c.Code == t.Code
}

// requestDetail says who did what with which answer: "bob LIST /api/v1/... → 403".
func requestDetail(t *tracing.Trace, tr *i18n.Strings) string {
	if tr == nil {
		tr = i18n.For(i18n.English)
	}
	who := t.User
	if who == "" {
		who = tr.ExDetailNobody
	}
	return fmt.Sprintf(tr.ExDetailRequest, who, strings.ToUpper(t.Verb), t.Path, t.Code)
}

// WatchEvent reports whether watch, a request matching event check c, was reached by the event
// of write: a change to an object it watches (same group and resource, in its namespace or
// any, its name when it watches one) that the server received after the watch and answered
// with success while the watch was still open (now, when it has not finished). The watch
// cache sends such an event to every watch open on its key range.
func WatchEvent(c lessons.ExerciseCheck, watch, write *tracing.Trace) bool {
	if c.Kind != lessons.CheckTrace || !c.Event || watch.Verb != "watch" || !matchRequest(c, watch) {
		return false
	}
	if watch.Code != 200 || !write.Done || write.Code < 200 || write.Code > 299 || !isWrite(write.Verb) {
		return false
	}
	if write.APIGroup != watch.APIGroup || write.Resource != watch.Resource ||
		(write.Subresource != "" && write.Subresource != "status" && write.Subresource != "scale") {
		return false
	}
	if (watch.Namespace != "" && write.Namespace != watch.Namespace) || (watch.Name != "" && write.Name != watch.Name) {
		return false
	}
	if !write.Received.After(watch.Received) {
		return false
	}
	writeEnd := write.Received.Add(write.Duration)
	return !watch.Done || watch.Received.Add(watch.Duration).After(writeEnd)
}

// isWrite reports whether a request verb changes objects.
func isWrite(verb string) bool {
	switch verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// watchEventDetail says whose watch got which change.
func watchEventDetail(watch, write *tracing.Trace, tr *i18n.Strings) string {
	where := watch.Namespace
	if where == "" {
		where = tr.ExDetailAllNamespaces
	}
	what := write.Resource
	if write.Name != "" {
		what += "/" + write.Name
	}
	return fmt.Sprintf(tr.ExDetailWatchEvent, watch.User, watch.Resource, where, write.User, strings.ToUpper(write.Verb), what)
}

// stageDetail reports whether stage s holds want (always, when want is empty): in its detail,
// which it returns, or in the value of one of its fields, which it then returns. It matches
// the English (a check's detail is written in English) and returns the words in tr's
// language (English when tr is nil).
func stageDetail(s tracing.Stage, want string, tr *i18n.Strings) (string, bool) {
	if tr == nil {
		tr = i18n.For(i18n.English)
	}
	if strings.Contains(s.Detail, want) {
		return s.DetailIn(tr), true
	}
	for _, f := range s.Fields {
		if strings.Contains(f.Value, want) {
			return f.ValueIn(tr), true
		}
	}
	return "", false
}

// State evaluates a check on the server's present state: object, access or etcd-key. Other
// kinds never pass here.
func (k *Checker) State(ctx context.Context, c lessons.ExerciseCheck) (Result, error) {
	switch c.Kind {
	case lessons.CheckObject:
		return k.object(ctx, c)
	case lessons.CheckAccess:
		return k.access(ctx, c)
	case lessons.CheckEtcdKey:
		return k.etcdKey(ctx, c)
	}
	return Result{}, nil
}

// object reads the object and compares its fields.
func (k *Checker) object(ctx context.Context, c lessons.ExerciseCheck) (Result, error) {
	if err := k.clients(); err != nil {
		return Result{}, err
	}
	gv, err := schema.ParseGroupVersion(c.APIVersion)
	if err != nil {
		return Result{}, fmt.Errorf("object check: %w", err)
	}
	res := k.dyn.Resource(gv.WithResource(c.Resource))
	var ri dynamic.ResourceInterface = res
	if c.Namespace != "" {
		ri = res.Namespace(c.Namespace)
	}
	obj, err := ri.Get(ctx, c.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return Result{}, nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("object check: get %s %s: %w", c.Resource, c.Name, err)
	}
	name := c.Name
	if c.Namespace != "" {
		name = c.Namespace + "/" + c.Name
	}
	kind := obj.GetKind()
	if kind == "" {
		kind = c.Resource
	}
	var got []string
	for _, f := range sortedKeys(c.Fields) {
		v, ok := jsonPathValue(f, obj.Object)
		if !ok || v != c.Fields[f] {
			return Result{}, nil
		}
		got = append(got, fmt.Sprintf(k.tr.ExDetailFieldValue, k.fieldWords(f), v))
	}
	detail := fmt.Sprintf(k.tr.ExDetailObjectExists, kind, name)
	if len(got) > 0 {
		detail = fmt.Sprintf(k.tr.ExDetailObjectHas, kind, name, strings.Join(got, k.tr.ExDetailAnd))
	}
	return Result{Passed: true, Detail: detail}, nil
}

// fieldWords says which field a check's JSONPath names, as a learner reads it: "annotation
// kubewalk.io/created-by" for {.metadata.annotations.kubewalk\.io/created-by}, "status.replicas"
// for {.status.replicas}, "condition Established" for
// {.status.conditions[?(@.type=="Established")].status}, "spec.versions[v1].served" for
// {.spec.versions[?(@.name=="v1")].served}.
func (k *Checker) fieldWords(path string) string {
	p := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(path, "{"), "."), "}")
	if m := conditionPath.FindStringSubmatch(p); m != nil {
		return fmt.Sprintf(k.tr.ExDetailCondition, m[1])
	}
	p = filterPath.ReplaceAllString(p, "[$1]")
	for _, m := range []struct{ prefix, format string }{
		{"metadata.annotations.", k.tr.ExDetailAnnotation},
		{"metadata.labels.", k.tr.ExDetailLabel},
	} {
		if rest, ok := strings.CutPrefix(p, m.prefix); ok {
			return fmt.Sprintf(m.format, strings.ReplaceAll(rest, `\.`, "."))
		}
	}
	return strings.ReplaceAll(p, `\.`, ".")
}

// conditionPath is a JSONPath (without braces and the leading dot) to the status of a
// condition; filterPath a filter on a list item's field.
var (
	conditionPath = regexp.MustCompile(`^status\.conditions\[\?\(@\.type=="([^"]+)"\)\]\.status$`)
	filterPath    = regexp.MustCompile(`\[\?\(@\.[A-Za-z]+=="([^"]+)"\)\]`)
)

// jsonPathValue evaluates a kubectl JSONPath on obj; false when a key is missing.
func jsonPathValue(path string, obj map[string]any) (string, bool) {
	jp := jsonpath.New("field")
	if err := jp.Parse(path); err != nil {
		return "", false
	}
	var b bytes.Buffer
	if err := jp.Execute(&b, obj); err != nil {
		return "", false
	}
	return b.String(), true
}

// access asks the authorizer, through SubjectAccessReviews, each of the check's questions.
func (k *Checker) access(ctx context.Context, c lessons.ExerciseCheck) (Result, error) {
	if err := k.clients(); err != nil {
		return Result{}, err
	}
	var reasons []string
	for _, a := range c.Asks {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: a.User, Groups: a.Groups}}
		if a.Path != "" {
			sar.Spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: a.Path, Verb: a.Verb}
		} else {
			sar.Spec.ResourceAttributes = &authorizationv1.ResourceAttributes{Namespace: a.Namespace, Verb: a.Verb,
				Group: a.Group, Resource: a.Resource, Subresource: a.Subresource, Name: a.Name}
		}
		got, err := k.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			return Result{}, fmt.Errorf("access check: SubjectAccessReview: %w", err)
		}
		if got.Status.Allowed != a.Allowed {
			return Result{}, nil
		}
		if a.Allowed && got.Status.Reason != "" {
			reasons = append(reasons, got.Status.Reason)
		}
	}
	return Result{Passed: true, Detail: strings.Join(reasons, "; ")}, nil
}

// etcdKey looks the key (or a key under it) up in etcd.
func (k *Checker) etcdKey(ctx context.Context, c lessons.ExerciseCheck) (Result, error) {
	kv, err := k.etcdGet(ctx, c.Key, c.Prefix)
	if err != nil || kv == nil {
		return Result{}, err
	}
	return Result{Passed: true, Detail: fmt.Sprintf(k.tr.ExDetailEtcdKey, kv.Key, kv.ModRevision)}, nil
}

// etcdKV is the part of an etcd key-value the checks read.
type etcdKV struct {
	Key         string
	ModRevision int64
}

// etcdGet returns the key below the server's prefix (the first one under it with prefix), or
// nil when there is none.
func (k *Checker) etcdGet(ctx context.Context, key string, prefix bool) (*etcdKV, error) {
	access, err := k.live.Etcd()
	if err != nil {
		return nil, fmt.Errorf("etcd check: %w", err)
	}
	full := access.KeyPrefix() + key
	opts := []clientv3.OpOption{clientv3.WithKeysOnly()}
	if prefix {
		opts = append(opts, clientv3.WithPrefix(), clientv3.WithLimit(1))
	}
	resp, err := access.Get(ctx, full, opts...)
	if err != nil {
		return nil, fmt.Errorf("etcd check: get %s: %w", full, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, nil
	}
	return &etcdKV{Key: string(resp.Kvs[0].Key), ModRevision: resp.Kvs[0].ModRevision}, nil
}

// ErrNotTyped is returned by Answer for an exercise that is not answered by typing.
var ErrNotTyped = errors.New("this exercise is checked against the server, not answered")

// Answer checks a typed answer (answer, etcd-revision) or a choice's number (choice).
func (k *Checker) Answer(ctx context.Context, e lessons.Exercise, answer string) (Result, error) {
	c := e.Check
	if strings.TrimSpace(answer) == "" {
		return Result{Wrong: k.tr.ExWrongEmpty}, nil
	}
	switch c.Kind {
	case lessons.CheckAnswer:
		if c.Accepts(answer) {
			if c.Key != "" {
				// The answer names an object the learner made: it must be there.
				kv, err := k.etcdGet(ctx, c.Key, false)
				if err != nil {
					return Result{}, err
				}
				if kv == nil {
					return Result{Wrong: k.tr.ExWrongNoKey}, nil
				}
			}
			// The canonical answer, not the words typed: a why that names the kind around
			// {detail} ("RoleBinding {detail}") must not repeat it.
			return Result{Passed: true, Detail: c.Accept[0]}, nil
		}
		return Result{Wrong: k.tr.ExWrongAnswer}, nil
	case lessons.CheckChoice:
		n := lessons.Choice(answer)
		switch {
		case n == 0 || n > len(e.Choices):
			return Result{Wrong: fmt.Sprintf(k.tr.ExWrongRange, len(e.Choices))}, nil
		case n != c.Correct:
			return Result{Wrong: fmt.Sprintf(k.tr.ExWrongChoice, n)}, nil
		}
		return Result{Passed: true, Detail: e.Choices[n-1]}, nil
	case lessons.CheckEtcdRevision:
		kv, err := k.etcdGet(ctx, c.Key, false)
		if err != nil {
			return Result{}, err
		}
		if kv == nil {
			return Result{Wrong: k.tr.ExWrongNoKey}, nil
		}
		want := strconv.FormatInt(kv.ModRevision, 10)
		if strings.TrimSpace(answer) != want {
			return Result{Wrong: k.tr.ExWrongRevision}, nil
		}
		return Result{Passed: true, Detail: fmt.Sprintf(k.tr.ExDetailEtcdRevision, kv.Key, want)}, nil
	}
	return Result{}, ErrNotTyped
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}
