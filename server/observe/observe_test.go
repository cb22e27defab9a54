package observe

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/request/anonymous"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/kubewalk/kubewalk/server/admit"
	"github.com/kubewalk/kubewalk/server/rbac"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name, before, after string
		want                string // "" for no change
	}{
		{"equal", `{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, ""},
		{"add key", `{"metadata":{"name":"x"}}`, `{"metadata":{"name":"x","annotations":{"k/v":"u"}}}`,
			`[{"op":"add","path":"/metadata/annotations","value":{"k/v":"u"}}]`},
		{"add escaped key", `{"a":{}}`, `{"a":{"x/y~z":1}}`, `[{"op":"add","path":"/a/x~1y~0z","value":1}]`},
		{"remove", `{"a":1,"b":2}`, `{"a":1}`, `[{"op":"remove","path":"/b"}]`},
		{"replace scalar", `{"a":1}`, `{"a":"1"}`, `[{"op":"replace","path":"/a","value":"1"}]`},
		{"replace type", `{"a":[1]}`, `{"a":{"0":1}}`, `[{"op":"replace","path":"/a","value":{"0":1}}]`},
		{"null value kept", `{"a":1}`, `{"a":null}`, `[{"op":"replace","path":"/a","value":null}]`},
		{"array grow", `{"a":[1]}`, `{"a":[1,2,3]}`, `[{"op":"add","path":"/a/1","value":2},{"op":"add","path":"/a/2","value":3}]`},
		{"array shrink", `{"a":[1,2,3]}`, `{"a":[9]}`,
			`[{"op":"replace","path":"/a/0","value":9},{"op":"remove","path":"/a/2"},{"op":"remove","path":"/a/1"}]`},
		{"big numbers exact", `{"n":12345678901234567890}`, `{"n":12345678901234567891}`,
			`[{"op":"replace","path":"/n","value":12345678901234567891}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Diff([]byte(tc.before), []byte(tc.after))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("patch = %s, want %s", got, tc.want)
			}
			if got == "" {
				return
			}
			// The patch must turn before into after.
			p, err := jsonpatch.DecodePatch([]byte(got))
			if err != nil {
				t.Fatal(err)
			}
			applied, err := p.Apply([]byte(tc.before))
			if err != nil {
				t.Fatal(err)
			}
			if !jsonpatch.Equal(applied, []byte(tc.after)) {
				t.Errorf("applied = %s, want %s", applied, tc.after)
			}
		})
	}
	if _, err := Diff([]byte(`{`), []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "diff: before") {
		t.Errorf("bad JSON: err = %v", err)
	}
}

func TestObjectJSONRedactsSecrets(t *testing.T) {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Data: map[string][]byte{"password": []byte("hunter22")}, StringData: map[string]string{"token": "abcdefgh"}}
	out := string(ObjectJSON(s))
	if strings.Contains(out, "hunter22") || strings.Contains(out, "abcdefgh") || strings.Contains(out, "aHVudGVyMjI") {
		t.Errorf("secret value in %s", out)
	}
	if !strings.Contains(out, `"password"`) || !strings.Contains(out, `"token":"\u003credacted\u003e"`) {
		t.Errorf("keys or redaction mark missing: %s", out)
	}
	if string(s.Data["password"]) != "hunter22" {
		t.Error("the object itself was changed")
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"k": "visible"}}
	if !strings.Contains(string(ObjectJSON(cm)), "visible") {
		t.Error("configmap data redacted")
	}
	if ObjectJSON(nil) != nil {
		t.Error("nil object")
	}
}

func TestRedactPatch(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{`[{"op":"add","path":"/metadata/annotations","value":{"a":"b"}}]`, `[{"op":"add","path":"/metadata/annotations","value":{"a":"b"}}]`},
		{`[{"op":"add","path":"/data/password","value":"aHVudGVy"}]`, `[{"op":"add","path":"/data/password","value":"\u003credacted\u003e"}]`},
		{`[{"op":"add","path":"/stringData","value":{"k":"v"}}]`, `[{"op":"add","path":"/stringData","value":{"k":"\u003credacted\u003e"}}]`},
		{`[{"op":"replace","path":"","value":{"data":{"k":"v"},"kind":"Secret"}}]`, `[{"op":"replace","path":"","value":{"data":{"k":"\u003credacted\u003e"},"kind":"Secret"}}]`},
		{`[{"op":"remove","path":"/data/k"}]`, `[{"op":"remove","path":"/data/k"}]`},
		{`not json`, Redacted},
	}
	for _, tc := range tests {
		if got := RedactPatch(tc.in); got != tc.want {
			t.Errorf("RedactPatch(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestWithoutAccessToken(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/api/v1/pods", "/api/v1/pods"},
		{"/api/v1/pods?limit=5", "/api/v1/pods?limit=5"},
		{"/api?access_token=s3cret", "/api"},
		{"/api?access_token=s3cret&limit=1", "/api?limit=1"},
	}
	for _, tc := range tests {
		if got := withoutAccessToken(tc.in); got != tc.want {
			t.Errorf("withoutAccessToken(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

type inner struct{}

func (inner) Foo()  {}
func (*inner) Ptr() {}

type outer struct{ inner }

func (outer) Bar() {}

type outerPtr struct{ *inner }

func TestMethodAnchor(t *testing.T) {
	tests := []struct {
		v      any
		method string
		want   string
	}{
		{authorizerfactory.NewPrivilegedGroups("x"), "Authorize", "k8s.io/apiserver/pkg/authorization/authorizerfactory.(*privilegedGroupAuthorizer).Authorize"},
		{bearertoken.New(nil), "AuthenticateRequest", "k8s.io/apiserver/pkg/authentication/request/bearertoken.(*Authenticator).AuthenticateRequest"},
		{anonymous.NewAuthenticator(nil), "AuthenticateRequest", "k8s.io/apiserver/pkg/authentication/request/anonymous.(*Authenticator).AuthenticateRequest"},
		{admit.NewCreatedBy(), "Admit", "admit.(*CreatedBy).Admit"},
		{&rbac.Authorizer{}, "Authorize", "rbac.(*Authorizer).Authorize"},
		{inner{}, "Foo", "observe.inner.Foo"},
		{&inner{}, "Foo", "observe.inner.Foo"},
		{outer{}, "Foo", "observe.inner.Foo"},
		{&outer{}, "Bar", "observe.outer.Bar"},
		{&outer{}, "Ptr", "observe.(*inner).Ptr"},
		{outerPtr{&inner{}}, "Ptr", "observe.(*inner).Ptr"},
	}
	for _, tc := range tests {
		if got := MethodAnchor(tc.v, tc.method); got != tc.want {
			t.Errorf("MethodAnchor(%T, %s) = %q, want %q", tc.v, tc.method, got, tc.want)
		}
	}
}

func TestPurpose(t *testing.T) {
	info := &request.RequestInfo{IsResourceRequest: true, Path: "/api/v1/namespaces/default/configmaps/x", Verb: "get",
		APIVersion: "v1", Resource: "configmaps", Namespace: "default", Name: "x"}
	ctx := request.WithRequestInfo(context.Background(), info)
	own := authorizer.AttributesRecord{User: &user.DefaultInfo{Name: "alice"}, Verb: "get", Namespace: "default",
		APIVersion: "v1", Resource: "configmaps", Name: "x", ResourceRequest: true, Path: info.Path}
	tests := []struct {
		name  string
		ctx   context.Context
		attrs authorizer.AttributesRecord
		want  string
	}{
		{"the request's own", ctx, own, PurposeAuthorization},
		{"legacy impersonate", ctx, authorizer.AttributesRecord{Verb: "impersonate", Resource: "users", Name: "alice", ResourceRequest: true}, PurposeImpersonation},
		{"constrained impersonate", ctx, authorizer.AttributesRecord{Verb: "impersonate:user-info", Resource: "users"}, PurposeImpersonation},
		{"impersonate-on", ctx, func() authorizer.AttributesRecord { a := own; a.Verb = "impersonate-on:user-info:get"; return a }(), PurposeImpersonation},
		{"access review: no path", ctx, func() authorizer.AttributesRecord { a := own; a.Path = ""; return a }(), PurposeHandler},
		{"escalation check: other verb", ctx, func() authorizer.AttributesRecord { a := own; a.Verb = "escalate"; return a }(), PurposeHandler},
		{"no request info", context.Background(), own, PurposeHandler},
	}
	for _, tc := range tests {
		if got := Purpose(tc.ctx, tc.attrs); got != tc.want {
			t.Errorf("%s: Purpose = %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestPatchOpJSON: remove carries no value; add and replace always do, null included.
func TestPatchOpJSON(t *testing.T) {
	out, err := json.Marshal([]PatchOp{{Op: "remove", Path: "/a"}, {Op: "add", Path: "/b"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `[{"op":"remove","path":"/a"},{"op":"add","path":"/b","value":null}]` {
		t.Errorf("json = %s", out)
	}
}

type records struct{ all []Record }

func (r *records) Record(x Record) { r.all = append(r.all, x) }

// TestTracerProvider: the provider records what a lane reads — a filter span's start, the
// server span's size and the storage spans' keys, with the request's audit ID — keeps itself
// in the context under the spans it does not record, and never keeps the request URI.
func TestTracerProvider(t *testing.T) {
	rec := &records{}
	tp := NewTracerProvider(rec)
	ctx := audit.WithAuditContext(context.Background())
	audit.WithAuditID(ctx, "id-1")
	tr := tp.Tracer("any")

	ctx1, authn := tr.Start(ctx, "authentication") // not recorded
	ctx2, authz := tr.Start(ctx1, "authorization")
	ctx3, server := tr.Start(ctx2, "GET /api/v1/namespaces/{:namespace}/configmaps/{:name}", trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.target", "/api?access_token=s3cret")))
	server.SetAttributes(attribute.String("audit-id", "id-1"))
	ctx4, handler := tr.Start(ctx3, "Get") // a handler's span: no-op, but nested spans still come here
	if got := trace.SpanFromContext(ctx4).TracerProvider(); got != tp {
		t.Fatalf("nested span's provider = %T, want ours", got)
	}
	_, etcd := trace.SpanFromContext(ctx4).TracerProvider().Tracer("etcd3").Start(ctx4, "Get etcd3",
		trace.WithAttributes(attribute.String("audit-id", "id-1"), attribute.String("key", "/configmaps/default/x")))
	etcd.AddEvent("Get call failed", trace.WithAttributes(attribute.String("err", "boom")))
	etcd.End()
	handler.End()
	server.SetAttributes(attribute.Int("http.response.body.size", 233))
	server.End()
	server.End() // once
	authz.End()
	authn.End()

	var names []string
	for _, r := range rec.all {
		s := r.(*Span)
		if s.ID != "id-1" {
			t.Errorf("span %s has ID %q", s.Name, s.ID)
		}
		names = append(names, s.Name)
		switch {
		case s.Name == "authorization":
			if !s.End.IsZero() || s.Start.IsZero() {
				t.Errorf("filter span recorded at end: %+v", s)
			}
		case s.Server:
			if s.Attributes["http.response.body.size"] != "233" || s.Attributes["http.target"] != "" || s.End.IsZero() {
				t.Errorf("server span = %+v", s)
			}
		case s.Name == "Get etcd3":
			if s.Attributes["key"] != "/configmaps/default/x" || s.Err != "Get call failed: boom" {
				t.Errorf("storage span = %+v", s)
			}
		}
	}
	want := []string{"authorization", "Get etcd3", "GET /api/v1/namespaces/{:namespace}/configmaps/{:name}"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("recorded %q, want %q", names, want)
	}
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
}

// TestRequestRecordCommand: the record of an arriving request names the kubectl command that
// sent it (its Kubectl-Command header), and nothing for another client.
func TestRequestRecordCommand(t *testing.T) {
	tests := []struct {
		name, header, want string
	}{
		{"kubectl explain", "kubectl explain", "kubectl explain"},
		{"a command with a subcommand", "kubectl create configmap", "kubectl create configmap"},
		{"curl sends none", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/openapi/v3/api/v1?hash=x", nil)
			if tt.header != "" {
				req.Header.Set(KubectlCommandHeader, tt.header)
			}
			req.Header.Set("User-Agent", "kubectl/v1.37.2")
			r := requestRecord("id", req, nil, nil)
			if r.Command != tt.want || r.UserAgent != "kubectl/v1.37.2" || r.Path != "/openapi/v3/api/v1" {
				t.Errorf("record %+v, want command %q", r, tt.want)
			}
		})
	}
}
