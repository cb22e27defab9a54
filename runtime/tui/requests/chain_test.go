package requests

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server/observe"
)

// chainRequest is a request through the server chain, as the server records it: the records
// are fed to a real tracing.Store, so the lane is the one the assembler builds (in the
// learner's language), not one written by hand.
type chainRequest struct {
	id, path, verb, group, resource, name string
	code                                  int
	hops                                  []string
	remote                                *observe.RemoteAPIService
	proxied                               bool // the proxy made its hop (an otelhttp client span)
	storage                               string
}

// chainTraces assembles the lanes of a custom resource GET (apiextensions), a GET of
// /apis/nope (the NotFound handler), a callers list proxied to the extension server, and one
// the aggregator answered 503 with the extension stopped; the last is the newest.
func chainTraces(t *testing.T) []tracing.Trace {
	t.Helper()
	ext := &observe.RemoteAPIService{Name: "v1alpha1.extension.learn.kubewalk.io", Service: "kube-system/kubewalk-extension:443", Available: true}
	down := &observe.RemoteAPIService{Name: ext.Name, Service: ext.Service, Reason: "MissingEndpoints",
		Message: "endpoints for service/kubewalk-extension in \"kube-system\" have no addresses with port name \"https\""}
	reqs := []chainRequest{
		{id: "cr-1", path: "/apis/lanes.kubewalk.io/v1/namespaces/default/gadgets/g1", verb: "get", group: "lanes.kubewalk.io", resource: "gadgets", name: "g1",
			code: 200, hops: []string{observe.ServerAggregator, observe.ServerKube, observe.ServerAPIExtensions}, storage: "/registry/lanes.kubewalk.io/gadgets/default/g1"},
		{id: "nf-1", path: "/apis/nope", verb: "get", code: 404,
			hops: []string{observe.ServerAggregator, observe.ServerKube, observe.ServerAPIExtensions, observe.ServerNotFound}},
		{id: "px-1", path: "/apis/extension.learn.kubewalk.io/v1alpha1/callers", verb: "list", group: "extension.learn.kubewalk.io", resource: "callers",
			code: 200, hops: []string{observe.ServerAggregator}, remote: ext, proxied: true},
		{id: "px-2", path: "/apis/extension.learn.kubewalk.io/v1alpha1/callers", verb: "list", group: "extension.learn.kubewalk.io", resource: "callers",
			code: 503, hops: []string{observe.ServerAggregator}, remote: down},
	}
	store := tracing.NewStore(0)
	for i, r := range reqs {
		at := traceBase.Add(time.Duration(10+i) * time.Second)
		ms := func(n float64) time.Time { return at.Add(time.Duration(n * float64(time.Millisecond))) }
		gv := ""
		if r.group != "" {
			gv = "v1"
			if r.group == "extension.learn.kubewalk.io" {
				gv = "v1alpha1"
			}
		}
		admin := []string{"system:masters", "system:authenticated"}
		records := []observe.Record{
			&observe.Request{ID: r.id, Received: at, Method: "GET", Path: r.path, IsResource: r.resource != "", Verb: r.verb,
				APIGroup: r.group, APIVersion: gv, Resource: r.resource, Namespace: map[bool]string{true: "default"}[r.name != ""], Name: r.name,
				UserAgent: "kubectl/v1.37.2"},
			&observe.Authn{ID: r.id, Authenticator: "x509", Start: ms(0.05), Duration: 60 * time.Microsecond, OK: true, User: "kubewalk-admin", Groups: admin},
			&observe.Authn{ID: r.id, Chain: true, Start: ms(0.05), Duration: 70 * time.Microsecond, OK: true, User: "kubewalk-admin", Groups: admin},
			&observe.Span{ID: r.id, Name: "authorization", Start: ms(0.2)},
			&observe.Authz{ID: r.id, Purpose: observe.PurposeAuthorization, Authorizer: "privileged-groups", Start: ms(0.2), Duration: 5 * time.Microsecond,
				User: "kubewalk-admin", Verb: r.verb, Resource: r.resource, Path: r.path, Decision: observe.DecisionAllow, Reason: "system:masters"},
		}
		for j, h := range r.hops {
			hop := &observe.Hop{ID: r.id, Server: h, Start: ms(0.3 + 0.05*float64(j))}
			if j == 0 {
				hop.Remote = r.remote
			}
			records = append(records, hop)
		}
		if r.storage != "" {
			records = append(records, &observe.Storage{ID: r.id, Op: observe.OpGet, Key: r.storage, Revision: "812", Start: ms(0.5), Duration: 400 * time.Microsecond},
				&observe.Span{ID: r.id, Name: "Get etcd3", Start: ms(0.55), End: ms(0.85)})
		}
		if r.proxied {
			records = append(records, &observe.Span{ID: r.id, Name: "HTTP GET", Client: true, Start: ms(0.4), End: ms(1.6),
				Attributes: map[string]string{"server.address": "127.0.0.1", "server.port": "40123", "http.response.status_code": "200"}})
		}
		records = append(records,
			&observe.Audit{ID: r.id, Stage: observe.AuditResponseComplete, Received: at, StageTime: ms(2.1), Verb: r.verb, RequestURI: r.path,
				UserAgent: "kubectl/v1.37.2", User: "kubewalk-admin", Groups: admin, APIGroup: r.group, APIVersion: gv, Resource: r.resource,
				Code: r.code, Decision: "allow"},
			&observe.Span{ID: r.id, Name: "GET", Server: true, Start: at, End: ms(2.2), Attributes: map[string]string{"http.response.body.size": "389"}})
		for _, rec := range records {
			store.Record(rec)
		}
	}
	var out []tracing.Trace
	for _, r := range reqs {
		tr, ok := store.Get(r.id)
		if !ok || !tr.Done {
			t.Fatalf("trace %s: found %v, done %v", r.id, ok, tr.Done)
		}
		out = append(out, tr)
	}
	return out
}

// TestChainGolden: the lanes of requests through the server chain, in the list and with the
// lane pane focused (its boxes: the filters, then each server reached or the proxy hop), at
// 80×24 and 120×40, in English and Chinese, NO_COLOR. -update rewrites the files.
func TestChainGolden(t *testing.T) {
	cases := []struct {
		name      string
		id, stage string // the request and the stage selected
		keys      []string
	}{
		{"crd", "cr-1", tracing.StageAPIExtensions, []string{"tab"}},
		{"notfound", "nf-1", tracing.StageNotFound, []string{"tab"}},
		{"proxy", "px-1", tracing.StageProxy, []string{"tab"}},
		{"unavailable", "px-2", "", nil},
		{"aggregator_details", "px-2", tracing.StageAggregator, []string{"tab", "tab"}},
	}
	for _, lang := range i18n.Languages() {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			for _, tt := range cases {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", lang, tt.name, sz.w, sz.h), func(t *testing.T) {
					f := newFixture(t, lang, newFakeStore(chainTraces(t)...))
					f.v.Layout(sz.w, sz.h)
					f.send(ReloadMsg{})
					f.v.Select(tt.id, tt.stage)
					f.keys(tt.keys...)
					frame := f.frame(sz.w, sz.h)
					if strings.Contains(frame, "\x1b[") {
						t.Error("NO_COLOR frame has escape sequences")
					}
					golden.RequireEqual(t, []byte(frame))
				})
			}
		}
	}
}

// TestChainPath: the request pane's servers row and the one-line lane name the servers a
// request went through.
func TestChainPath(t *testing.T) {
	tr := i18n.For(i18n.English)
	want := map[string]struct{ path, summary string }{
		"cr-1": {"aggregator → kube → apiextensions", "✓agg ✓kube ✓apiext ✓storage → 200 2.1ms"},
		"nf-1": {"aggregator → kube → apiextensions → notfound", "✓agg ✓kube ✓apiext ✗notfound(" + tr.OutcomeNotFound + ") → 404 2.1ms"},
		"px-1": {"aggregator → proxy", "✓agg ✓proxy → 200 2.1ms"},
		"px-2": {"aggregator → proxy", "✓agg ✗proxy(" + tr.OutcomeFailed + ") → 503 2.1ms"},
	}
	for _, trace := range chainTraces(t) {
		w := want[trace.ID]
		if got := ChainPath(trace); got != w.path {
			t.Errorf("%s: ChainPath = %q, want %q", trace.ID, got, w.path)
		}
		if got, front := LaneSummary(tr, trace), "✓authn –imp ✓flow ✓authz "; got != front+w.summary {
			t.Errorf("%s: LaneSummary = %q, want %q", trace.ID, got, front+w.summary)
		}
	}
}
