package exercises_test

import (
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/exercises"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server/observe"
)

// bobListsKubeSystem is the lane runtime/tracing assembles from the server's records of bob
// listing the configmaps of kube-system: 403, neither authorizer had an opinion.
func bobListsKubeSystem(t *testing.T) *tracing.Trace {
	t.Helper()
	s := tracing.NewStore(10)
	now := time.Now()
	id := "bob-403"
	for _, r := range []observe.Record{
		&observe.Request{ID: id, Received: now, Method: "GET", Path: "/api/v1/namespaces/kube-system/configmaps",
			IsResource: true, Verb: "list", APIVersion: "v1", Resource: "configmaps", Namespace: "kube-system"},
		&observe.Authn{ID: id, Authenticator: "token", OK: true, User: "bob", Groups: []string{"system:authenticated"}},
		&observe.Authn{ID: id, Chain: true, OK: true, User: "bob", Groups: []string{"system:authenticated"}},
		&observe.Span{ID: id, Name: "constrainedimpersonation", Start: now.Add(20 * time.Microsecond)},
		&observe.Span{ID: id, Name: "authorization", Start: now.Add(30 * time.Microsecond)},
		&observe.Authz{ID: id, Purpose: observe.PurposeAuthorization, Authorizer: "privileged-groups", Decision: observe.DecisionNoOpinion},
		&observe.Authz{ID: id, Purpose: observe.PurposeAuthorization, Authorizer: "rbac", Decision: observe.DecisionNoOpinion},
		&observe.Audit{ID: id, Stage: observe.AuditResponseComplete, Received: now, StageTime: now.Add(time.Millisecond),
			User: "bob", Groups: []string{"system:authenticated"}, Code: 403, Decision: "forbid",
			Message: `configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "kube-system"`},
		&observe.Span{ID: id, Name: "LIST", Server: true, End: now.Add(time.Millisecond)},
	} {
		s.Record(r)
	}
	tr, ok := s.Get(id)
	if !ok || !tr.Done {
		t.Fatalf("no finished lane: %+v", tr)
	}
	return &tr
}

// TestWhyInLearnersLanguage: the detail a trace check fills an exercise's "why" with comes in
// the learner's language where the lane words it, and as the server wrote it where the server
// did; the check matches the English either way.
func TestWhyInLearnersLanguage(t *testing.T) {
	lane := bobListsKubeSystem(t)
	forbidden := lessons.ExerciseCheck{Kind: lessons.CheckTrace, User: "bob", Verb: "list", Resource: "configmaps",
		Namespace: "kube-system", Code: 403, Stage: tracing.StageAuthorization, Outcome: string(tracing.OutcomeDenied)}
	byMessage := forbidden
	byMessage.Stage, byMessage.Outcome, byMessage.Detail = tracing.StageResponse, "", "cannot list"
	byWord := forbidden
	byWord.Detail = "no opinion" // the English the check is written in
	tests := []struct {
		name  string
		lang  string
		check lessons.ExerciseCheck
		why   string
		want  string
	}{
		{"stage detail, en", i18n.English, forbidden, "Refused: {detail}.",
			"Refused: 403 Forbidden: privileged-groups: no opinion, rbac: no opinion."},
		{"stage detail, zh-CN", i18n.SimplifiedChinese, forbidden, "被拒绝：{detail}。",
			"被拒绝：403 Forbidden：privileged-groups：不表态；rbac：不表态。"},
		{"English detail matched, Chinese shown", i18n.SimplifiedChinese, byWord, "被拒绝：{detail}。",
			"被拒绝：403 Forbidden：privileged-groups：不表态；rbac：不表态。"},
		{"the server's message, zh-CN", i18n.SimplifiedChinese, byMessage, "服务器说：{detail}。",
			`服务器说：configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "kube-system"。`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			detail, ok := exercises.MatchTraceIn(tt.check, lane, i18n.For(tt.lang))
			if !ok {
				t.Fatalf("check %+v does not match the lane", tt.check)
			}
			if got := exercises.Why(lessons.Exercise{Why: tt.why}, detail); got != tt.want {
				t.Errorf("why = %q\nwant  %q", got, tt.want)
			}
		})
	}
	// MatchTrace is the English.
	if d, _ := exercises.MatchTrace(forbidden, lane); d != "403 Forbidden: privileged-groups: no opinion, rbac: no opinion" {
		t.Errorf("MatchTrace = %q", d)
	}
}
