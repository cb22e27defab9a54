package tui

import (
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server/observe"
)

// bobForbiddenMessage is what the server answers bob's list of secrets in kube-system.
const bobForbiddenMessage = `secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "kube-system"`

// assembledLanes are lanes runtime/tracing assembles from the records the server makes (the
// words are lane.go's, not a fake's): bob refused a list of secrets in kube-system, and alice
// reading a configmap from etcd.
func assembledLanes(t *testing.T) []tracing.Trace {
	t.Helper()
	s := tracing.NewStore(10)
	now := traceBase.Add(20 * time.Second)
	bob := "bob-403"
	for _, r := range []observe.Record{
		&observe.Request{ID: bob, Received: now, Method: "GET", Path: "/api/v1/namespaces/kube-system/secrets",
			IsResource: true, Verb: "list", APIVersion: "v1", Resource: "secrets", Namespace: "kube-system"},
		&observe.Authn{ID: bob, Authenticator: "x509"},
		&observe.Authn{ID: bob, Authenticator: "token", OK: true, User: "bob", Groups: []string{"system:authenticated"}},
		&observe.Authn{ID: bob, Chain: true, OK: true, User: "bob", Groups: []string{"system:authenticated"}, Duration: 10 * time.Microsecond},
		&observe.Span{ID: bob, Name: "constrainedimpersonation", Start: now.Add(20 * time.Microsecond)},
		&observe.Span{ID: bob, Name: "authorization", Start: now.Add(30 * time.Microsecond)},
		&observe.Authz{ID: bob, Purpose: observe.PurposeAuthorization, Authorizer: "privileged-groups", Decision: observe.DecisionNoOpinion},
		&observe.Authz{ID: bob, Purpose: observe.PurposeAuthorization, Authorizer: "rbac", Decision: observe.DecisionNoOpinion},
		&observe.Audit{ID: bob, Stage: observe.AuditResponseComplete, Received: now, StageTime: now.Add(time.Millisecond),
			User: "bob", Groups: []string{"system:authenticated"}, Code: 403, Decision: "forbid", Message: bobForbiddenMessage},
		&observe.Span{ID: bob, Name: "GET", Server: true, End: now.Add(time.Millisecond)},
	} {
		s.Record(r)
	}
	alice := "alice-get"
	now = now.Add(time.Second)
	for _, r := range []observe.Record{
		&observe.Request{ID: alice, Received: now, Method: "GET", Path: "/api/v1/namespaces/default/configmaps/demo",
			IsResource: true, Verb: "get", APIVersion: "v1", Resource: "configmaps", Namespace: "default", Name: "demo"},
		&observe.Authn{ID: alice, Authenticator: "token", OK: true, User: "alice"},
		&observe.Authn{ID: alice, Chain: true, OK: true, User: "alice", Groups: []string{"system:authenticated"}},
		&observe.Span{ID: alice, Name: "constrainedimpersonation", Start: now.Add(20 * time.Microsecond)},
		&observe.Span{ID: alice, Name: "authorization", Start: now.Add(30 * time.Microsecond)},
		&observe.Authz{ID: alice, Purpose: observe.PurposeAuthorization, Authorizer: "rbac", Decision: observe.DecisionAllow,
			Reason: `RBAC: allowed by RoleBinding "alice-configmaps/default" of Role "configmap-editor" to User "alice"`},
		&observe.Span{ID: alice, Name: "Get etcd3", Start: now.Add(50 * time.Microsecond), End: now.Add(90 * time.Microsecond)},
		&observe.Storage{ID: alice, Op: observe.OpGet, Key: "/registry/configmaps/default/demo", Revision: "57",
			Start: now.Add(40 * time.Microsecond), Duration: 60 * time.Microsecond},
		&observe.Audit{ID: alice, Stage: observe.AuditResponseComplete, Received: now, StageTime: now.Add(time.Millisecond), User: "alice", Code: 200},
		&observe.Span{ID: alice, Name: "GET", Server: true, End: now.Add(time.Millisecond)},
	} {
		s.Record(r)
	}
	var out []tracing.Trace
	for _, id := range []string{bob, alice} {
		tr, ok := s.Get(id)
		if !ok || !tr.Done {
			t.Fatalf("no finished lane for %s: %+v", id, tr)
		}
		out = append(out, tr)
	}
	return out
}

// TestLaneInLearnersLanguage: the lane pane's stage details say kubewalk's words in the
// learner's language, and what the server wrote (users, groups, keys, the server's message,
// RBAC's reason, authorizer names) as it is.
func TestLaneInLearnersLanguage(t *testing.T) {
	type view struct {
		id, stage string
		want      []string
	}
	tests := []struct {
		lang  string
		views []view
		not   []string // English that must not show
	}{
		{i18n.English, []view{
			{"bob-403", tracing.StageAuthentication, []string{"token: bob (groups system:authenticated)", "x509", "no answer: no client certificate", "accepted: bob"}},
			{"bob-403", tracing.StageImpersonation, []string{"no Impersonate-User header: the request acts as its own user"}},
			{"bob-403", tracing.StageAuthorization, []string{"403 Forbidden: privileged-groups: no opinion, rbac: no opinion", "chain", "a union with no Allow is a 403"}},
			{"bob-403", tracing.StageResponse, []string{"403 Forbidden", "message", bobForbiddenMessage}},
			{"alice-get", tracing.StageAuthorization, []string{`rbac: allowed by RoleBinding "alice-configmaps/default" of Role "configmap-editor"`}},
			{"alice-get", tracing.StageStorage, []string{"GET /registry/configmaps/default/demo rev 57 (etcd)", "key", "revision", "57"}},
		}, nil},
		{i18n.SimplifiedChinese, []view{
			{"bob-403", tracing.StageAuthentication, []string{"token：bob（组：system:authenticated）", "x509", "未作答：请求没有客户端证书", "接受：bob"}},
			{"bob-403", tracing.StageImpersonation, []string{"没有 Impersonate-User 头：请求以自己的用户身份执行"}},
			{"bob-403", tracing.StageAuthorization, []string{"403 Forbidden：privileged-groups：不表态；rbac：不表态", "鉴权链", "没有鉴权器允许这个请求"}},
			{"bob-403", tracing.StageResponse, []string{"403 Forbidden", "消息", bobForbiddenMessage}},
			{"alice-get", tracing.StageAuthorization, []string{`rbac：允许：allowed by RoleBinding "alice-configmaps/default" of Role "configmap-editor"`}},
			{"alice-get", tracing.StageStorage, []string{"GET /registry/configmaps/default/demo 修订号 57（etcd）", "键", "修订号", "57"}},
		}, []string{"no opinion", "no answer", "(groups", "union", "Impersonate-User header:", "accepted", " rev "}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			f := newFixtureIn(t, tt.lang, 120, 40, assembledLanes(t)...)
			f.hs.typeLine("req")
			for _, v := range tt.views {
				f.hs.model.m.rqv().Select(v.id, v.stage)
				f.hs.settle()
				lane := unwrapped(f.lane())
				for _, w := range v.want {
					if !strings.Contains(lane, unwrapped(w)) {
						t.Errorf("%s %s: lane pane lacks %q:\n%s", v.id, v.stage, w, f.lane())
					}
				}
				for _, w := range tt.not {
					if strings.Contains(lane, unwrapped(w)) {
						t.Errorf("%s %s: English %q in the %s lane pane:\n%s", v.id, v.stage, w, tt.lang, f.lane())
					}
				}
			}
		})
	}
}

// unwrapped is a pane's text with its borders and all white space taken out, so that a phrase
// wrapped anywhere (CJK text breaks between any two characters) is found whole.
func unwrapped(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || strings.ContainsRune("│┃", r) {
			return -1
		}
		return r
	}, s)
}
