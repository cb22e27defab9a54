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

// MatchTrace reports whether trace t matches trace check c, and the detail to explain it: the
// named stage's detail (or the value of its field that holds c.Detail, such as the response's
// message), else who did what with which answer.
func MatchTrace(c lessons.ExerciseCheck, t *tracing.Trace) (string, bool) {
	if c.Kind != lessons.CheckTrace {
		return "", false
	}
	for _, f := range []struct{ want, got string }{
		{c.User, t.User}, {c.Verb, t.Verb}, {c.Resource, t.Resource}, {c.Subresource, t.Subresource},
		{c.Namespace, t.Namespace}, {c.Name, t.Name}, {c.Path, t.Path},
	} {
		if f.want != "" && f.want != f.got {
			return "", false
		}
	}
	if c.Code != 0 && c.Code != t.Code {
		return "", false
	}
	detail := ""
	if c.Stage != "" || c.Detail != "" {
		found := false
		for _, s := range t.Stages {
			if c.Stage != "" && (s.Name != c.Stage || (c.Outcome != "" && string(s.Outcome) != c.Outcome)) {
				continue
			}
			if d, ok := stageDetail(s, c.Detail); ok {
				found, detail = true, d
				break
			}
		}
		if !found {
			return "", false
		}
	}
	if detail == "" {
		who := t.User
		if who == "" {
			who = "an unauthenticated client"
		}
		detail = fmt.Sprintf("%s %s %s → %d", who, strings.ToUpper(t.Verb), t.Path, t.Code)
	}
	return detail, true
}

// stageDetail reports whether stage s holds want (always, when want is empty): in its detail,
// which it returns, or in the value of one of its fields, which it then returns.
func stageDetail(s tracing.Stage, want string) (string, bool) {
	if strings.Contains(s.Detail, want) {
		return s.Detail, true
	}
	for _, f := range s.Fields {
		if strings.Contains(f.Value, want) {
			return f.Value, true
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
	var got []string
	for _, f := range sortedKeys(c.Fields) {
		v, ok := jsonPathValue(f, obj.Object)
		if !ok || v != c.Fields[f] {
			return Result{}, nil
		}
		got = append(got, f+"="+v)
	}
	detail := fmt.Sprintf("%s %s exists", c.Resource, name)
	if len(got) > 0 {
		detail = fmt.Sprintf("%s %s has %s", c.Resource, name, strings.Join(got, ", "))
	}
	return Result{Passed: true, Detail: detail}, nil
}

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
	return Result{Passed: true, Detail: fmt.Sprintf("%s (mod revision %d)", kv.Key, kv.ModRevision)}, nil
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
			return Result{Passed: true, Detail: strings.TrimSpace(answer)}, nil
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
		return Result{Passed: true, Detail: fmt.Sprintf("%s is at mod revision %s", kv.Key, want)}, nil
	}
	return Result{}, ErrNotTyped
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}
