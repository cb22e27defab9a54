package tracing

import (
	"fmt"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/server/observe"
)

// BenchmarkAssemble measures assembling one finished GET's lane from its records, which a
// view pays each time a trace it reads has changed.
func BenchmarkAssemble(b *testing.B) {
	s := NewStore(10)
	now := time.Now()
	id := "a"
	s.Record(&observe.Request{ID: id, Received: now, Method: "GET", Path: "/api/v1/namespaces/default/configmaps/x",
		IsResource: true, Verb: "get", APIVersion: "v1", Resource: "configmaps", Namespace: "default", Name: "x"})
	s.Record(&observe.Authn{ID: id, Authenticator: "x509", Source: "k8s.io/apiserver/pkg/authentication/request/x509.(*Authenticator).AuthenticateRequest"})
	s.Record(&observe.Authn{ID: id, Authenticator: "token", OK: true, User: "alice"})
	s.Record(&observe.Authn{ID: id, Chain: true, OK: true, User: "alice", Groups: []string{"system:authenticated"}, Duration: 10 * time.Microsecond})
	s.Record(&observe.Span{ID: id, Name: "constrainedimpersonation", Start: now.Add(20 * time.Microsecond)})
	s.Record(&observe.Span{ID: id, Name: "authorization", Start: now.Add(30 * time.Microsecond)})
	s.Record(&observe.Authz{ID: id, Purpose: observe.PurposeAuthorization, Authorizer: "privileged-groups", Decision: observe.DecisionNoOpinion})
	s.Record(&observe.Authz{ID: id, Purpose: observe.PurposeAuthorization, Authorizer: "rbac", Source: "rbac.(*Authorizer).Authorize",
		Decision: observe.DecisionAllow, Reason: `RBAC: allowed by RoleBinding "alice-configmaps/default" of Role "configmap-editor" to User "alice"`})
	s.Record(&observe.Span{ID: id, Name: "Get etcd3", Start: now.Add(50 * time.Microsecond), End: now.Add(90 * time.Microsecond), Attributes: map[string]string{"key": "/configmaps/default/x"}})
	s.Record(&observe.Storage{ID: id, Op: observe.OpGet, Key: "/registry/configmaps/default/x", Revision: "15", Start: now.Add(40 * time.Microsecond), Duration: 60 * time.Microsecond})
	s.Record(&observe.Audit{ID: id, Stage: observe.AuditResponseComplete, Received: now, StageTime: now.Add(time.Millisecond), User: "alice", Code: 200})
	s.Record(&observe.Span{ID: id, Name: "GET", Server: true, End: now, Attributes: map[string]string{"http.response.body.size": "233"}})
	e := s.byID[id]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := assemble(e)
		if len(t.Stages) != 6 {
			b.Fatal(fmt.Sprint(stageNamesOf(t)))
		}
	}
}

func stageNamesOf(t Trace) []string {
	var out []string
	for _, st := range t.Stages {
		out = append(out, st.Name)
	}
	return out
}
