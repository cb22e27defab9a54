package exercises_test

import (
	"context"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/exercises"
	"github.com/kubewalk/kubewalk/runtime/tracing"
)

// TestMatchTrace: a trace check's detail is found in a stage's detail or in one of its
// fields, and {detail} is what held it; the 404 of a subresource kubewalk does not serve is
// told from the 404 of a missing pod by the response's message.
func TestMatchTrace(t *testing.T) {
	notServed := "pods/log is not served here: kubewalk runs no kubelet, so no container runs; ..."
	trace := func(code int, message string) *tracing.Trace {
		return &tracing.Trace{Verb: "get", Resource: "pods", Subresource: "log", Name: "logs-demo", Path: "/api/v1/namespaces/default/pods/logs-demo/log", Code: code,
			Stages: []tracing.Stage{
				{Name: tracing.StageAuthorization, Outcome: tracing.OutcomeAllowed, Detail: "rbac: allowed by ClusterRoleBinding \"cluster-admin\""},
				{Name: tracing.StageResponse, Outcome: tracing.OutcomeFailed, Detail: "404 Not Found · 250 B",
					Fields: []tracing.Field{{Label: "message", Value: message}}},
			}}
	}
	served := trace(404, notServed)
	missing := trace(404, `pods "logs-demo" not found`)
	logCheck := lessons.ExerciseCheck{Kind: lessons.CheckTrace, Verb: "get", Resource: "pods", Subresource: "log", Code: 404}

	tests := []struct {
		name       string
		check      func(c lessons.ExerciseCheck) lessons.ExerciseCheck
		trace      *tracing.Trace
		wantOK     bool
		wantDetail string
	}{
		{"no stage: who did what", func(c lessons.ExerciseCheck) lessons.ExerciseCheck { return c }, served, true,
			"an unauthenticated client GET /api/v1/namespaces/default/pods/logs-demo/log → 404"},
		{"stage alone: its detail", func(c lessons.ExerciseCheck) lessons.ExerciseCheck { c.Stage = tracing.StageResponse; return c }, served, true,
			"404 Not Found · 250 B"},
		{"detail in the stage's detail", func(c lessons.ExerciseCheck) lessons.ExerciseCheck {
			c.Stage, c.Detail = tracing.StageResponse, "404 Not Found"
			return c
		}, served, true, "404 Not Found · 250 B"},
		{"detail in the response's message", func(c lessons.ExerciseCheck) lessons.ExerciseCheck {
			c.Stage, c.Detail = tracing.StageResponse, "is not served here"
			return c
		}, served, true, notServed},
		{"a missing pod's 404 lacks the message", func(c lessons.ExerciseCheck) lessons.ExerciseCheck {
			c.Stage, c.Detail = tracing.StageResponse, "is not served here"
			return c
		}, missing, false, ""},
		{"detail in any stage", func(c lessons.ExerciseCheck) lessons.ExerciseCheck { c.Detail = "is not served here"; return c }, served, true, notServed},
		{"detail in another stage than the one named", func(c lessons.ExerciseCheck) lessons.ExerciseCheck {
			c.Stage, c.Detail = tracing.StageAuthorization, "is not served here"
			return c
		}, served, false, ""},
		{"outcome must match too", func(c lessons.ExerciseCheck) lessons.ExerciseCheck {
			c.Stage, c.Outcome, c.Detail = tracing.StageResponse, string(tracing.OutcomeOK), "is not served here"
			return c
		}, served, false, ""},
		{"code must match", func(c lessons.ExerciseCheck) lessons.ExerciseCheck {
			c.Code, c.Stage, c.Detail = 503, tracing.StageResponse, "is not served here"
			return c
		}, served, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			detail, ok := exercises.MatchTrace(tt.check(logCheck), tt.trace)
			if ok != tt.wantOK || detail != tt.wantDetail {
				t.Errorf("MatchTrace = %q, %v; want %q, %v", detail, ok, tt.wantDetail, tt.wantOK)
			}
		})
	}
}

// TestMatchTraceWho: a check that names a user matches that user's own request, not another
// user's --as unless it names the impersonator; a command must be the kubectl command that
// sent the request.
func TestMatchTraceWho(t *testing.T) {
	own := &tracing.Trace{User: "bob", Verb: "list", Resource: "configmaps", Namespace: "kube-system", Code: 403, Path: "/api/v1/namespaces/kube-system/configmaps"}
	as := *own
	as.Impersonator = "kubewalk-admin"
	explain := &tracing.Trace{User: "kubewalk-admin", Verb: "get", Path: "/openapi/v3/api/v1", Code: 200, Command: "kubectl explain"}
	raw := *explain
	raw.Command = "kubectl get"
	tests := []struct {
		name   string
		check  lessons.ExerciseCheck
		trace  *tracing.Trace
		wantOK bool
	}{
		{"the user's own request", lessons.ExerciseCheck{Kind: lessons.CheckTrace, User: "bob", Code: 403}, own, true},
		{"another user's --as", lessons.ExerciseCheck{Kind: lessons.CheckTrace, User: "bob", Code: 403}, &as, false},
		{"--as when the check names the impersonator", lessons.ExerciseCheck{Kind: lessons.CheckTrace, User: "bob", Impersonator: "kubewalk-admin"}, &as, true},
		{"the impersonator named, the user's own request", lessons.ExerciseCheck{Kind: lessons.CheckTrace, User: "bob", Impersonator: "kubewalk-admin"}, own, false},
		{"no user named: --as counts", lessons.ExerciseCheck{Kind: lessons.CheckTrace, Code: 403}, &as, true},
		{"the wrong namespace", lessons.ExerciseCheck{Kind: lessons.CheckTrace, User: "bob", Namespace: "default"}, own, false},
		{"kubectl explain", lessons.ExerciseCheck{Kind: lessons.CheckTrace, Command: "kubectl explain", Path: "/openapi/v3/api/v1"}, explain, true},
		{"the same document fetched by get --raw", lessons.ExerciseCheck{Kind: lessons.CheckTrace, Command: "kubectl explain", Path: "/openapi/v3/api/v1"}, &raw, false},
		{"an event check never matches one request", lessons.ExerciseCheck{Kind: lessons.CheckTrace, Verb: "list", Resource: "configmaps", Event: true}, own, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := exercises.MatchTrace(tt.check, tt.trace); ok != tt.wantOK {
				t.Errorf("MatchTrace = %v, want %v", ok, tt.wantOK)
			}
		})
	}
}

// TestWatchEvent: a watch counts as reached by a write when the write changed what it
// watches, after it opened, and finished while it was still open.
func TestWatchEvent(t *testing.T) {
	t0 := time.Now()
	check := lessons.ExerciseCheck{Kind: lessons.CheckTrace, Verb: "watch", Resource: "configmaps", Namespace: "default", Event: true}
	watch := func(mod func(w *tracing.Trace)) *tracing.Trace {
		w := &tracing.Trace{User: "kubewalk-admin", Verb: "watch", Resource: "configmaps", Namespace: "default", Code: 200, LongRunning: true, Received: t0}
		if mod != nil {
			mod(w)
		}
		return w
	}
	write := func(mod func(w *tracing.Trace)) *tracing.Trace {
		w := &tracing.Trace{User: "alice", Verb: "create", Resource: "configmaps", Namespace: "default", Name: "watched", Code: 201, Done: true,
			Received: t0.Add(time.Second), Duration: time.Millisecond}
		if mod != nil {
			mod(w)
		}
		return w
	}
	tests := []struct {
		name         string
		check        lessons.ExerciseCheck
		watch, write *tracing.Trace
		want         bool
	}{
		{"a create while the watch is open", check, watch(nil), write(nil), true},
		{"a delete", check, watch(nil), write(func(w *tracing.Trace) { w.Verb, w.Code = "delete", 200 }), true},
		{"a status write", check, watch(nil), write(func(w *tracing.Trace) { w.Verb, w.Subresource, w.Code = "patch", "status", 200 }), true},
		{"a watch of all namespaces", lessons.ExerciseCheck{Kind: lessons.CheckTrace, Verb: "watch", Resource: "configmaps", Event: true},
			watch(func(w *tracing.Trace) { w.Namespace = "" }), write(func(w *tracing.Trace) { w.Namespace = "kube-public" }), true},
		{"a write in another namespace", check, watch(nil), write(func(w *tracing.Trace) { w.Namespace = "kube-public" }), false},
		{"a write of another resource", check, watch(nil), write(func(w *tracing.Trace) { w.Resource = "secrets" }), false},
		{"a write of another object than the one watched", check, watch(func(w *tracing.Trace) { w.Name = "other" }), write(nil), false},
		{"a refused write", check, watch(nil), write(func(w *tracing.Trace) { w.Code = 422 }), false},
		{"a read", check, watch(nil), write(func(w *tracing.Trace) { w.Verb, w.Code = "get", 200 }), false},
		{"a write before the watch", check, watch(nil), write(func(w *tracing.Trace) { w.Received = t0.Add(-time.Second) }), false},
		{"a write after the watch ended", check, watch(func(w *tracing.Trace) { w.Done, w.Duration = true, 500*time.Millisecond }), write(nil), false},
		{"a write before the watch ended", check, watch(func(w *tracing.Trace) { w.Done, w.Duration = true, 2*time.Second }), write(nil), true},
		{"a watch refused", check, watch(func(w *tracing.Trace) { w.Code = 403 }), write(nil), false},
		{"a watch in the wrong namespace", check, watch(func(w *tracing.Trace) { w.Namespace = "kube-public" }), write(func(w *tracing.Trace) { w.Namespace = "kube-public" }), false},
		{"a list is not a watch", check, watch(func(w *tracing.Trace) { w.Verb = "list" }), write(nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exercises.WatchEvent(tt.check, tt.watch, tt.write); got != tt.want {
				t.Errorf("WatchEvent = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestAnswerWhy: the why of a typed answer names the canonical answer, however the learner
// typed it, so a why that names the kind around it never repeats a word.
func TestAnswerWhy(t *testing.T) {
	ex := lessons.Exercise{ID: "binding", Why: "Right: RoleBinding {detail} binds the Role configmap-editor to alice.",
		Check: lessons.ExerciseCheck{Kind: lessons.CheckAnswer, Accept: []string{"alice-configmaps", "rolebinding alice-configmaps", "rolebinding/alice-configmaps"}}}
	for _, typed := range []string{"alice-configmaps", "RoleBinding alice-configmaps", " rolebinding/alice-configmaps. "} {
		res, err := exercises.NewChecker(nil, nil).Answer(context.Background(), ex, typed)
		if err != nil || !res.Passed {
			t.Fatalf("%q: %+v, %v", typed, res, err)
		}
		if got, want := exercises.Why(ex, res.Detail), "Right: RoleBinding alice-configmaps binds the Role configmap-editor to alice."; got != want {
			t.Errorf("%q: why %q, want %q", typed, got, want)
		}
	}
}
