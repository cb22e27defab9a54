package exercises_test

import (
	"testing"

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
