package tracing

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/server/observe"
)

// request records what a finished GET by user produces, with the minimum of records a lane
// needs: the request, the chain's authentication, the audit events and the server span.
func request(s *Store, id, user string, code int) {
	now := time.Now()
	s.Record(&observe.Request{ID: id, Received: now, Method: "GET", Path: "/api/v1/namespaces/default/configmaps/x",
		IsResource: true, Verb: "get", APIVersion: "v1", Resource: "configmaps", Namespace: "default", Name: "x"})
	s.Record(&observe.Authn{ID: id, Chain: true, OK: true, User: user, Groups: []string{"system:authenticated"}})
	s.Record(&observe.Audit{ID: id, Stage: observe.AuditRequestReceived, Received: now, User: user})
	s.Record(&observe.Audit{ID: id, Stage: observe.AuditResponseComplete, Received: now, StageTime: now.Add(time.Millisecond), User: user, Code: code})
	s.Record(&observe.Span{ID: id, Name: "GET", Server: true, End: now})
}

func TestRingBound(t *testing.T) {
	s := NewStore(3)
	for i := 1; i <= 5; i++ {
		request(s, fmt.Sprint("id", i), "alice", 200)
	}
	if s.Len() != 3 || s.Dropped() != 2 || s.Seen() != 5 {
		t.Fatalf("len %d dropped %d seen %d, want 3 2 5", s.Len(), s.Dropped(), s.Seen())
	}
	for _, gone := range []string{"id1", "id2"} {
		if _, ok := s.Get(gone); ok {
			t.Errorf("%s still held", gone)
		}
	}
	got := s.List(Filter{})
	if len(got) != 3 || got[0].ID != "id5" || got[2].ID != "id3" {
		t.Errorf("list = %v, want id5 id4 id3 (newest first)", ids(got))
	}
	// A late record of a dropped request opens nothing.
	s.Record(&observe.Audit{ID: "id1", Stage: observe.AuditResponseComplete, Code: 200})
	s.Record(&observe.Storage{ID: "id2", Op: observe.OpGet})
	if s.Len() != 3 || s.Seen() != 5 {
		t.Errorf("a late record opened a trace: len %d seen %d", s.Len(), s.Seen())
	}
	if NewStore(0).capacity != DefaultCapacity {
		t.Error("default capacity")
	}
}

func ids(ts []Trace) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.ID)
	}
	return out
}

func TestDone(t *testing.T) {
	s := NewStore(10)
	now := time.Now()
	s.Record(&observe.Request{ID: "a", Received: now, Verb: "get"})
	s.Record(&observe.Audit{ID: "a", Stage: observe.AuditResponseComplete, Code: 200, User: "alice", StageTime: now.Add(2 * time.Millisecond), Received: now})
	if tr, _ := s.Get("a"); tr.Done {
		t.Error("done before the server span ended (it carries the size)")
	}
	s.Record(&observe.Span{ID: "a", Server: true, End: now, Attributes: map[string]string{"http.response.body.size": "42"}})
	tr, _ := s.Get("a")
	if !tr.Done || tr.Bytes != 42 || tr.Duration != 2*time.Millisecond || tr.Code != 200 {
		t.Errorf("trace = %+v", tr)
	}
	// A request refused by authentication never reaches WithTracing: its one audit event ends it.
	s.Record(&observe.Request{ID: "b", Received: now})
	s.Record(&observe.Audit{ID: "b", Stage: observe.AuditResponseStarted, Code: 401})
	if tr, _ := s.Get("b"); !tr.Done {
		t.Error("401 not done")
	}
}

func TestSubscribeCoalesces(t *testing.T) {
	s := NewStore(100)
	events, cancel := s.Subscribe()
	defer cancel()
	next := func(what string) Event {
		t.Helper()
		select {
		case ev := <-events:
			return ev
		case <-time.After(time.Minute):
			t.Fatalf("no event for %s", what)
			return Event{}
		}
	}
	// Nobody reads: recording must not block. The first change is sent at once, the others
	// together once the interval is over, replacing it if it is still unread: "several".
	for i := range 50 {
		request(s, fmt.Sprint("r", i), "alice", 200)
	}
	got := 0
	for ev := next("50 new traces"); ; ev = next("the trailing notification") {
		got++
		if ev.ID == "" {
			break
		}
		if ev.ID != "r0" || got > 1 {
			t.Fatalf("event %d = %+v, want r0 then several", got, ev)
		}
	}
	// A change views show, for one trace, names it; one they do not show sends nothing.
	s.Record(&observe.Request{ID: "fresh", Verb: "get"})
	if ev := next("a new trace"); ev.ID != "fresh" {
		t.Errorf("event = %+v, want fresh", ev)
	}
	s.Record(&observe.Storage{ID: "fresh", Op: observe.OpGet})
	select {
	case ev := <-events:
		t.Errorf("event %+v for a storage record", ev)
	default:
	}
	cancel()
	request(s, "after", "alice", 200)
	select {
	case ev := <-events:
		t.Errorf("event %+v after cancel", ev)
	default:
	}
}

// TestConcurrentRecording records from many goroutines while views read; run with -race.
func TestConcurrentRecording(t *testing.T) {
	s := NewStore(64)
	events, cancel := s.Subscribe()
	defer cancel()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				request(s, fmt.Sprintf("g%d-%d", g, i), "alice", 200)
			}
		}()
	}
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			select {
			case <-events:
				for _, tr := range s.List(Filter{Text: "alice"}) {
					_ = tr.Stages
				}
			case <-stop:
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-readerDone
	if got := uint64(s.Len()) + s.Dropped(); got != 1600 || s.Len() != 64 {
		t.Errorf("len %d + dropped %d = %d, want 1600 with 64 held", s.Len(), s.Dropped(), got)
	}
}

func TestFilter(t *testing.T) {
	s := NewStore(10)
	request(s, "a", "alice", 200)
	request(s, "b", "bob", 403)
	request(s, "l", LoopbackUser, 200)
	tests := []struct {
		f    Filter
		want []string
	}{
		{Filter{}, []string{"b", "a"}},
		{Filter{Loopback: true}, []string{"l", "b", "a"}},
		{Filter{Text: "BOB"}, []string{"b"}},
		{Filter{Text: "403"}, []string{"b"}},
		{Filter{Text: "configmaps"}, []string{"b", "a"}},
		{Filter{Text: "nothing"}, nil},
	}
	for _, tc := range tests {
		if got := ids(s.List(tc.f)); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("List(%+v) = %v, want %v", tc.f, got, tc.want)
		}
	}
}

func TestWaitDone(t *testing.T) {
	s := NewStore(10)
	s.Record(&observe.Request{ID: "w", Verb: "get"})
	got := make(chan Trace)
	go func() {
		tr, _ := s.WaitDone(context.Background(), "w")
		got <- tr
	}()
	s.Record(&observe.Audit{ID: "w", Stage: observe.AuditResponseComplete, Code: 200})
	s.Record(&observe.Span{ID: "w", Server: true})
	select {
	case tr := <-got:
		if !tr.Done {
			t.Errorf("trace = %+v", tr)
		}
	case <-time.After(time.Minute):
		t.Fatal("WaitDone did not return")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := s.WaitDone(ctx, "unknown"); ok {
		t.Error("unknown trace found")
	}
}

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in      string
		want    Spec
		wantErr string
	}{
		{in: "authorization", want: Spec{Stage: "authorization"}},
		{in: " Authorization:user=bob ", want: Spec{Stage: "authorization", User: "bob"}},
		{in: "storage:user=alice,verb=GET,resource=ConfigMaps", want: Spec{Stage: "storage", User: "alice", Verb: "get", Resource: "configmaps"}},
		{in: "admission:resource=pods/status", want: Spec{Stage: "admission", Resource: "pods/status"}},
		{in: "admission/mutating:verb=create", want: Spec{Stage: "admission", Verb: "create"}},
		{in: "authentication:user=system:apiserver", want: Spec{Stage: "authentication", User: "system:apiserver"}},
		{in: "", wantErr: `breakpoint "": empty; want STAGE[:user=NAME][,verb=V][,resource=R]`},
		{in: "authz:user=bob", wantErr: `unknown stage "authz"; want one of authentication, authorization, admission, storage`},
		{in: "storage:", wantErr: `nothing after "storage:"`},
		{in: "storage:user", wantErr: `"user" needs a value`},
		{in: "storage:user=", wantErr: `"user=" needs a value`},
		{in: "storage:usr=bob", wantErr: `unknown key "usr"; want user, verb or resource`},
		{in: "storage:verb=fetch", wantErr: `unknown verb "fetch"`},
		{in: "storage:user=a,user=b", wantErr: "user given twice"},
	}
	for _, tc := range tests {
		got, err := ParseSpec(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseSpec(%q) err = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		if again, err := ParseSpec(got.String()); err != nil || again != got {
			t.Errorf("round trip of %q: %+v, %v", got.String(), again, err)
		}
	}
}

func TestSpecMatches(t *testing.T) {
	p := observe.Point{Stage: "authorization", User: "bob", Verb: "get", Resource: "configmaps"}
	tests := []struct {
		spec string
		p    observe.Point
		want bool
	}{
		{"authorization", p, true},
		{"authentication", p, false},
		{"authorization:user=bob", p, true},
		{"authorization:user=alice", p, false},
		{"authorization:verb=list", p, false},
		{"authorization:resource=configmaps,verb=get", p, true},
		{"authorization:resource=pods/status", observe.Point{Stage: "authorization", Resource: "pods", Subresource: "status"}, true},
		{"authorization", observe.Point{Stage: "authorization", User: LoopbackUser, Resource: "configmaps"}, false},
		{"authorization:user=system:apiserver", observe.Point{Stage: "authorization", User: LoopbackUser, Resource: "configmaps"}, true},
		{"authorization:user=bob", observe.Point{Stage: "authorization", User: "bob", Path: "/api"}, false}, // discovery
	}
	for _, tc := range tests {
		sp, err := ParseSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := sp.Matches(tc.p); got != tc.want {
			t.Errorf("%s matches %+v = %v, want %v", tc.spec, tc.p, got, tc.want)
		}
	}
}

func TestMarshalLogLine(t *testing.T) {
	s := NewStore(10)
	request(s, "j", "alice", 200)
	tr, _ := s.Get("j")
	line, err := MarshalLogLine(tr)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(line, []byte("\n")) {
		t.Error("newline in a JSON line")
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"auditID", "time", "durationMicros", "user", "groups", "verb", "path", "resource", "namespace", "name", "code", "stages"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, line)
		}
	}
	st := m["stages"].([]any)[0].(map[string]any)
	for _, k := range []string{"stage", "outcome", "detail", "durationMicros"} {
		if _, ok := st[k]; !ok {
			t.Errorf("stage has no %q: %v", k, st)
		}
	}
}

// requestAs records a finished GET by user sent with User-Agent agent.
func requestAs(s *Store, id, user, agent string) {
	now := time.Now()
	s.Record(&observe.Request{ID: id, Received: now, Method: "GET", Path: "/readyz", UserAgent: agent})
	s.Record(&observe.Authn{ID: id, Chain: true, OK: true, User: user})
	s.Record(&observe.Audit{ID: id, Stage: observe.AuditResponseComplete, Received: now, StageTime: now, User: user, UserAgent: agent, Code: 200})
	s.Record(&observe.Span{ID: id, Server: true, End: now})
}

// TestHiddenRingKeepsLearnerLanes: 10,000 requests of kubewalk's own (the loopback client, the
// exercise checks, the health polls) pass through a store holding the learner's 5 requests:
// the learner's stay, Dropped (what the Requests view reports) counts none of them, and the
// hidden ring holds the newest of its own and counts the rest apart.
func TestHiddenRingKeepsLearnerLanes(t *testing.T) {
	const capacity = 100
	s := NewStore(capacity)
	for i := range 5 {
		requestAs(s, fmt.Sprint("learner", i), "alice", "kubectl/v1.37.2 (linux/amd64) kubernetes/abc")
	}
	agents := []struct{ user, agent string }{
		{LoopbackUser, "kubewalk-loopback"},
		{"kubewalk-admin", "kubewalk-exercises"},
		{"kubewalk-admin", "kubewalk-self-check"},
		{"kubewalk-admin", "kubewalk-live-probe"},
	}
	for i := range 10000 {
		a := agents[i%len(agents)]
		requestAs(s, fmt.Sprint("hidden", i), a.user, a.agent)
	}
	if got := ids(s.List(Filter{})); fmt.Sprint(got) != "[learner4 learner3 learner2 learner1 learner0]" {
		t.Errorf("the learner's lanes: %v", got)
	}
	if s.Dropped() != 0 || s.Len() != 5 {
		t.Errorf("learner: dropped %d, held %d; want 0, 5", s.Dropped(), s.Len())
	}
	if s.HiddenLen() != capacity || s.HiddenDropped() != 10000-capacity {
		t.Errorf("hidden: held %d, dropped %d; want %d, %d", s.HiddenLen(), s.HiddenDropped(), capacity, 10000-capacity)
	}
	all := s.List(Filter{Loopback: true})
	if len(all) != 5+capacity || all[0].ID != "hidden9999" || all[len(all)-1].ID != "learner0" {
		t.Fatalf("with the hidden traffic: %d traces, newest %s, oldest %s", len(all), all[0].ID, all[len(all)-1].ID)
	}
	for _, tr := range all {
		if want := strings.HasPrefix(tr.ID, "hidden"); tr.Hidden != want {
			t.Errorf("%s: Hidden %v", tr.ID, tr.Hidden)
		}
	}
	if s.Seen() != 10005 {
		t.Errorf("seen %d, want 10005", s.Seen())
	}
}

// TestSince: traces after a sequence number, oldest first, from both rings when asked.
func TestSince(t *testing.T) {
	s := NewStore(10)
	requestAs(s, "a", "alice", "kubectl")
	requestAs(s, "h", "kubewalk-admin", "kubewalk-exercises")
	requestAs(s, "b", "bob", "kubectl")
	tests := []struct {
		after uint64
		f     Filter
		want  string
	}{
		{0, Filter{}, "[a b]"},
		{1, Filter{}, "[b]"},
		{3, Filter{}, "[]"},
		{0, Filter{Loopback: true}, "[a h b]"},
		{2, Filter{Loopback: true}, "[b]"},
		{0, Filter{Text: "bob"}, "[b]"},
	}
	for _, tc := range tests {
		if got := fmt.Sprint(ids(s.Since(tc.after, tc.f))); got != tc.want {
			t.Errorf("Since(%d, %+v) = %s, want %s", tc.after, tc.f, got, tc.want)
		}
	}
}

// TestSubscribeLearner: the hidden traffic wakes no learner subscriber; a learner's request
// does.
func TestSubscribeLearner(t *testing.T) {
	s := NewStore(10)
	learner, cancel := s.SubscribeLearner()
	defer cancel()
	all, cancelAll := s.Subscribe()
	defer cancelAll()
	requestAs(s, "h", "kubewalk-admin", "kubewalk-exercises")
	select {
	case ev := <-all:
		if ev.ID != "h" {
			t.Errorf("Subscribe: %+v, want h", ev)
		}
	case <-time.After(time.Minute):
		t.Fatal("Subscribe heard nothing of a hidden request")
	}
	requestAs(s, "a", "alice", "kubectl")
	select {
	case ev := <-learner:
		if ev.ID != "a" {
			t.Errorf("SubscribeLearner: %+v, want a (never h)", ev)
		}
	case <-time.After(time.Minute):
		t.Fatal("SubscribeLearner heard nothing of the learner's request")
	}
	// The trailing notification of the hidden request's interval, if any, is not for it.
	requestAs(s, "h2", "kubewalk-admin", "kubewalk-exercises")
	s.mu.Lock()
	pending := s.pendingLearner
	s.mu.Unlock()
	if pending {
		t.Error("a hidden request left a notification pending for the learner's subscribers")
	}
}
