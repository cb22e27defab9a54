package tracing_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server"
)

// chainRank orders stage names as the handler chain meets them
// (../shared/reference/handler-chain-v0.37.2.md: authentication, impersonation, flow control,
// authorization, in the aggregator; then the servers of the delegation chain the request fell
// through, or the proxy hop; then inside the handler mutating admission, the strategy's
// validation, validating admission and the store).
func chainRank(name string) int {
	switch {
	case name == tracing.StageAuthentication:
		return 0
	case name == tracing.StageImpersonation:
		return 1
	case name == tracing.StageFlowControl:
		return 2
	case name == tracing.StageAuthorization:
		return 3
	case name == tracing.StageAggregator:
		return 4
	case name == tracing.StageProxy:
		return 5
	case name == tracing.StageKube:
		return 5
	case name == tracing.StageAPIExtensions:
		return 6
	case name == tracing.StageNotFound:
		return 7
	case name == tracing.StageMutatingAdmission:
		return 8
	case strings.HasPrefix(name, tracing.StageMutatingPrefix):
		return 9
	case name == tracing.StageValidation:
		return 10
	case strings.HasPrefix(name, tracing.StageValidatingPrefix):
		return 11
	case name == tracing.StageStorage:
		return 12
	case name == tracing.StageResponse:
		return 13
	}
	return -1
}

// checkLane checks what every lane must satisfy: stages in chain order, at most one stopped
// stage and only the response after it, durations in microseconds.
func checkLane(t testing.TB, tr tracing.Trace) {
	t.Helper()
	prev, stopped := -1, false
	for _, st := range tr.Stages {
		r := chainRank(st.Name)
		if r < 0 || r < prev {
			t.Errorf("lane %s: stage %q out of chain order: %v", tr.ID, st.Name, stageNames(tr))
		}
		if stopped && st.Name != tracing.StageResponse {
			t.Errorf("lane %s: stage %q after the stopped one: %v", tr.ID, st.Name, stageNames(tr))
		}
		if st.Stopped {
			if stopped {
				t.Errorf("lane %s: two stopped stages", tr.ID)
			}
			stopped = true
		}
		if st.DurationMicros != st.Duration.Microseconds() {
			t.Errorf("lane %s: stage %s durationMicros %d for %s", tr.ID, st.Name, st.DurationMicros, st.Duration)
		}
		prev = r
	}
}

// TestLanes drives real requests through a real server (embedded etcd of the test's own, via
// --etcd-servers, so that the test can read the keys) and checks each one's lane.
func TestLanes(t *testing.T) {
	etcdURL := startTestEtcd(t)
	store := tracing.NewStore(0)
	s := startServer(t, store, nil, func(o *server.Options) { o.EtcdServers = []string{etcdURL} })
	ctx := context.Background()
	admin, adminIDs := client(t, s, "admin")
	alice, aliceIDs := client(t, s, "alice")
	createdRV := "0" // the resourceVersion "create" wrote "traced" at

	t.Run("401 bad token", func(t *testing.T) {
		c, ids := client(t, s, "", func(cfg *rest.Config) { cfg.BearerToken = "not-a-token-of-this-run" })
		_, err := c.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
		if !apierrors.IsUnauthorized(err) {
			t.Fatalf("err = %v, want 401", err)
		}
		tr := waitDone(t, store, ids.last(t))
		checkLane(t, tr)
		if got := stageNames(tr); !slices.Equal(got, []string{tracing.StageAuthentication, tracing.StageResponse}) {
			t.Fatalf("stages = %v", got)
		}
		st := tr.Stages[0]
		if st.Outcome != tracing.OutcomeFailed || !st.Stopped || !strings.Contains(st.Detail, "401") {
			t.Errorf("authentication = %+v", st)
		}
		if !slices.ContainsFunc(st.Fields, func(f tracing.Field) bool { return f.Label == "token" && strings.HasPrefix(f.Value, "refused") }) {
			t.Errorf("no refusal from the token authenticator: %+v", st.Fields)
		}
		if tr.Code != 401 || tr.User != "" || tr.Verb != "list" || tr.Resource != "configmaps" {
			t.Errorf("trace = %+v", tr)
		}
	})

	t.Run("403 bob", func(t *testing.T) {
		bob, ids := client(t, s, "bob")
		_, err := bob.CoreV1().ConfigMaps("default").Get(ctx, "anything", metav1.GetOptions{})
		if !apierrors.IsForbidden(err) {
			t.Fatalf("err = %v, want 403", err)
		}
		tr := waitDone(t, store, ids.last(t))
		checkLane(t, tr)
		want := []string{tracing.StageAuthentication, tracing.StageImpersonation, tracing.StageFlowControl, tracing.StageAuthorization, tracing.StageResponse}
		if got := stageNames(tr); !slices.Equal(got, want) {
			t.Fatalf("stages = %v, want %v", got, want)
		}
		if st := stage(t, tr, tracing.StageAuthentication); st.Detail != "token: bob (groups system:authenticated)" {
			t.Errorf("authentication detail = %q", st.Detail)
		}
		if st := stage(t, tr, tracing.StageImpersonation); st.Outcome != tracing.OutcomeSkipped {
			t.Errorf("impersonation = %+v", st)
		}
		az := stage(t, tr, tracing.StageAuthorization)
		if az.Outcome != tracing.OutcomeDenied || !az.Stopped ||
			!strings.Contains(az.Detail, "privileged-groups: no opinion") || !strings.Contains(az.Detail, "rbac: no opinion") {
			t.Errorf("authorization = %+v", az)
		}
		if got := []string{az.Fields[0].Label, az.Fields[1].Label}; !slices.Equal(got, []string{"privileged-groups", "rbac"}) {
			t.Errorf("authorizers asked = %v, want the chain's order", got)
		}
		if tr.User != "bob" || tr.Code != 403 || tr.Loopback {
			t.Errorf("trace = %+v", tr)
		}
	})

	t.Run("422 invalid name", func(t *testing.T) {
		_, err := admin.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Bad_Name"}}, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) {
			t.Fatalf("err = %v, want 422", err)
		}
		tr := waitDone(t, store, adminIDs.last(t))
		checkLane(t, tr)
		v := stage(t, tr, tracing.StageValidation)
		if v.Outcome != tracing.OutcomeRefused || !v.Stopped || v.Source.Anchor != "registry/core/configmap.strategy.Validate" {
			t.Fatalf("validation = %+v", v)
		}
		if !slices.ContainsFunc(v.Fields, func(f tracing.Field) bool {
			return f.Label == "metadata.name" && strings.Contains(f.Value, "Invalid value") && strings.Contains(f.Value, "Bad_Name")
		}) {
			t.Errorf("no metadata.name field error: %+v", v.Fields)
		}
		// The anchor opens our strategy's source, as the lessons' anchors do.
		if _, err := lessons.ResolveLocal(server.SourceFS, v.Source.Anchor, ""); err != nil {
			t.Errorf("anchor %q does not resolve: %v", v.Source.Anchor, err)
		}
		// Mutating admission ran before it; nothing after it but the response.
		if _, err := json.Marshal(tr); err != nil {
			t.Fatal(err)
		}
		if last := tr.Stages[len(tr.Stages)-1]; last.Name != tracing.StageResponse || tr.Code != 422 {
			t.Errorf("last stage %+v, code %d", last, tr.Code)
		}
	})

	t.Run("admission refusal", func(t *testing.T) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "latest"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:latest"}}}}
		_, err := admin.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
		if !apierrors.IsForbidden(err) {
			t.Fatalf("err = %v, want 403 from PinnedImages", err)
		}
		tr := waitDone(t, store, adminIDs.last(t))
		checkLane(t, tr)
		st := stage(t, tr, tracing.StageValidatingPrefix+"kubewalk.io/PinnedImages")
		if st.Outcome != tracing.OutcomeRefused || !st.Stopped || !strings.Contains(st.Detail, "latest") ||
			st.Source.Anchor != "admit.(*PinnedImages).Validate" {
			t.Errorf("PinnedImages = %+v", st)
		}
		if v := stage(t, tr, tracing.StageValidation); v.Outcome != tracing.OutcomeOK || v.Source.Anchor != "registry/core/pod.strategy.Validate" {
			t.Errorf("validation = %+v", v)
		}
	})

	t.Run("create", func(t *testing.T) {
		cm, err := alice.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "traced"},
			Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		createdRV = cm.ResourceVersion
		tr := waitDone(t, store, aliceIDs.last(t))
		checkLane(t, tr)
		want := []string{tracing.StageAuthentication, tracing.StageImpersonation, tracing.StageFlowControl, tracing.StageAuthorization,
			tracing.StageAggregator, tracing.StageKube,
			tracing.StageMutatingPrefix + "NamespaceLifecycle", tracing.StageMutatingPrefix + "kubewalk.io/CreatedBy",
			tracing.StageValidation, tracing.StageValidatingPrefix + "kubewalk.io/PinnedImages", tracing.StageStorage, tracing.StageResponse}
		if got := stageNames(tr); !slices.Equal(got, want) {
			t.Fatalf("stages = %v\nwant %v", got, want)
		}
		if az := stage(t, tr, tracing.StageAuthorization); az.Outcome != tracing.OutcomeAllowed ||
			!strings.HasPrefix(az.Detail, `rbac: allowed by RoleBinding "alice-configmaps/default" of Role "configmap-editor"`) ||
			az.Source.Anchor != "rbac.(*Authorizer).Authorize" {
			t.Errorf("authorization = %+v", az)
		}
		if st := stage(t, tr, tracing.StageMutatingPrefix+"NamespaceLifecycle"); st.Outcome != tracing.OutcomeNoChange {
			t.Errorf("NamespaceLifecycle = %+v", st)
		}
		cb := stage(t, tr, tracing.StageMutatingPrefix+"kubewalk.io/CreatedBy")
		if cb.Outcome != tracing.OutcomeChanged ||
			cb.Patch != `[{"op":"add","path":"/metadata/annotations","value":{"kubewalk.io/created-by":"alice"}}]` {
			t.Errorf("CreatedBy = %+v", cb)
		}
		st := stage(t, tr, tracing.StageStorage)
		key := "/registry/configmaps/default/traced"
		if st.Outcome != tracing.OutcomeEtcd || !strings.Contains(st.Detail, "CREATE "+key+" rev "+cm.ResourceVersion) {
			t.Errorf("storage = %+v (object rv %s)", st, cm.ResourceVersion)
		}
		// What etcd holds: the key, written at the revision the lane names.
		etcd, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdURL}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		defer etcd.Close()
		resp, err := etcd.Get(ctx, key)
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("etcd get %s: %v %v", key, resp, err)
		}
		if rev := fmt.Sprint(resp.Kvs[0].ModRevision); !hasField(st, "revision", rev) || !hasField(st, "key", key) {
			t.Errorf("etcd has %s at mod revision %s; storage fields %+v", key, rev, st.Fields)
		}
		if tr.Name != "traced" || tr.Code != 201 || tr.Bytes == 0 || tr.Duration <= 0 {
			t.Errorf("trace = %+v", tr)
		}
	})

	t.Run("reads: watch cache and etcd", func(t *testing.T) {
		cms := alice.CoreV1().ConfigMaps("default")
		// A GET with a resourceVersion is served from the watch cache once the cache has
		// caught up with it ("0" could find the cache a write behind and answer 404).
		if _, err := cms.Get(ctx, "traced", metav1.GetOptions{ResourceVersion: createdRV}); err != nil {
			t.Fatal(err)
		}
		cached := waitDone(t, store, aliceIDs.last(t))
		if _, err := cms.Get(ctx, "traced", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
		fresh := waitDone(t, store, aliceIDs.last(t))
		for _, c := range []struct {
			tr   tracing.Trace
			want tracing.Outcome
			up   string
		}{
			{cached, tracing.OutcomeCache, "k8s.io/apiserver/pkg/storage/cacher.(*Cacher).Get"},
			{fresh, tracing.OutcomeEtcd, "k8s.io/apiserver/pkg/storage/etcd3.(*store).Get"},
		} {
			checkLane(t, c.tr)
			st := stage(t, c.tr, tracing.StageStorage)
			if st.Outcome != c.want || st.Source.Upstream != c.up || !strings.Contains(st.Detail, "GET /registry/configmaps/default/traced") {
				t.Errorf("storage = %+v, want %s", st, c.want)
			}
		}
	})

	t.Run("watch", func(t *testing.T) {
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		w, err := alice.CoreV1().ConfigMaps("default").Watch(wctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		id := aliceIDs.last(t)
		var open tracing.Trace
		waitFor(t, store, nil, "the watch's lane while it is open", func() bool {
			tr, ok := store.Get(id)
			open = tr
			return ok && tr.Code == 200 && len(tr.Stages) > 0 && tr.Stages[len(tr.Stages)-1].Name == tracing.StageResponse
		})
		if open.Done || !open.LongRunning || open.Verb != "watch" {
			t.Errorf("open watch trace = %+v", open)
		}
		st := stage(t, open, tracing.StageStorage)
		if st.Outcome != tracing.OutcomeCache || !strings.Contains(st.Detail, "WATCH /registry/configmaps/default/") {
			t.Errorf("storage = %+v", st)
		}
		if fc := stage(t, open, tracing.StageFlowControl); !strings.Contains(fc.Detail, "long-running") {
			t.Errorf("flow control = %+v", fc)
		}
		w.Stop()
		cancel()
		tr := waitDone(t, store, id)
		checkLane(t, tr)
	})

	t.Run("impersonated", func(t *testing.T) {
		as, ids := client(t, s, "admin", func(cfg *rest.Config) { cfg.Impersonate = rest.ImpersonationConfig{UserName: "alice"} })
		if _, err := as.CoreV1().ConfigMaps("default").Get(ctx, "traced", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
		tr := waitDone(t, store, ids.last(t))
		checkLane(t, tr)
		im := stage(t, tr, tracing.StageImpersonation)
		if im.Outcome != tracing.OutcomeOK || !strings.HasPrefix(im.Detail, server.AdminUser+" acting as alice") || len(im.Fields) == 0 {
			t.Errorf("impersonation = %+v", im)
		}
		if tr.User != "alice" || tr.Impersonator != server.AdminUser {
			t.Errorf("user %q impersonator %q", tr.User, tr.Impersonator)
		}
		if az := stage(t, tr, tracing.StageAuthorization); !strings.HasPrefix(az.Detail, "rbac: allowed") {
			t.Errorf("authorization decided for alice = %+v", az)
		}
	})

	t.Run("non-resource anonymous", func(t *testing.T) {
		anon, ids := client(t, s, "")
		if err := anon.CoreV1().RESTClient().Get().AbsPath("/healthz").Do(ctx).Error(); err != nil {
			t.Fatal(err)
		}
		tr := waitDone(t, store, ids.last(t))
		checkLane(t, tr)
		if st := stage(t, tr, tracing.StageAuthentication); !strings.HasPrefix(st.Detail, "anonymous: system:anonymous") {
			t.Errorf("authentication = %+v", st)
		}
		if tr.Path != "/healthz" || tr.Code != 200 {
			t.Errorf("trace = %+v", tr)
		}
	})

	t.Run("secret redaction", func(t *testing.T) {
		const value = "s3cr3t-value-of-this-test"
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "traced"},
			Data: map[string][]byte{"password": []byte(value)}, StringData: map[string]string{"other": value + "-2"}}
		if _, err := admin.CoreV1().Secrets("default").Create(ctx, sec, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitDone(t, store, adminIDs.last(t))
		bad := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "bad-json"}, Type: corev1.SecretTypeDockerConfigJson,
			Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte(value + "{")}}
		if _, err := admin.CoreV1().Secrets("default").Create(ctx, bad, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
			t.Fatalf("err = %v, want 422", err)
		}
		waitDone(t, store, adminIDs.last(t))
		secrets := append(s.Secrets(), value, base64.StdEncoding.EncodeToString([]byte(value)))
		for _, tr := range store.List(tracing.Filter{Loopback: true}) {
			data, err := json.Marshal(tr)
			if err != nil {
				t.Fatal(err)
			}
			text := string(data) + tracing.LaneText(tr, "", nil) + tracing.LaneText(tr, "", zhStrings)
			for _, sf := range tr.Stages {
				text += fmt.Sprint(sf.Fields) + sf.DetailIn(zhStrings)
				for _, f := range sf.Fields {
					text += f.ValueIn(zhStrings)
				}
			}
			for _, sec := range secrets {
				if len(sec) >= 8 && strings.Contains(text, sec) {
					t.Errorf("trace %s (%s %s) holds a secret of the run", tr.ID, tr.Verb, tr.Path)
				}
			}
		}
	})

	t.Run("every text worded in both languages", func(t *testing.T) {
		seen := checkStoreWorded(t, store)
		if len(seen) < 25 {
			t.Errorf("the lanes used only %d catalogue keys: %v", len(seen), seen)
		}
		// Bob's 403, as a zh-CN learner reads it: kubewalk's words in Chinese, the user, the
		// authorizers' names and the groups as the server has them.
		bob := store.List(tracing.Filter{Text: "bob"})
		if len(bob) == 0 {
			t.Fatal("no lane of bob's")
		}
		for _, c := range []struct {
			stage string
			want  []string
			not   []string
		}{
			{tracing.StageAuthentication, []string{"token：bob（组：system:authenticated）"}, []string{"groups"}},
			{tracing.StageImpersonation, []string{"没有 Impersonate-User 头"}, []string{"acts as"}},
			{tracing.StageAuthorization, []string{"403 Forbidden：", "privileged-groups：不表态", "rbac：不表态"}, []string{"no opinion"}},
		} {
			zh := stage(t, bob[0], c.stage).DetailIn(zhStrings)
			for _, w := range c.want {
				if !strings.Contains(zh, w) {
					t.Errorf("%s in zh-CN = %q, want %q in it", c.stage, zh, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(zh, w) {
					t.Errorf("%s in zh-CN = %q: English %q left in it", c.stage, zh, w)
				}
			}
		}
		// Plain mode's text of the lane: the outcomes, the details and the stop in Chinese,
		// the stage names and the server's message as they are.
		plain := tracing.LaneText(bob[0], "", zhStrings)
		for _, w := range []string{"authorization", "拒绝", "403 Forbidden：privileged-groups：不表态", "鉴权链：没有鉴权器允许这个请求", "■ 请求在此终止"} {
			if !strings.Contains(plain, w) {
				t.Errorf("plain lane in zh-CN lacks %q:\n%s", w, plain)
			}
		}
		if en := tracing.LaneText(bob[0], "", nil); !strings.Contains(en, "■ stopped here") || !strings.Contains(en, "denied") {
			t.Errorf("plain lane in English:\n%s", en)
		}
	})

	t.Run("every response's Audit-Id is its trace's ID", func(t *testing.T) {
		for _, ids := range []*auditIDs{adminIDs, aliceIDs} {
			for _, id := range ids.all() {
				if _, ok := store.Get(id); !ok {
					t.Errorf("no trace for Audit-Id %s", id)
				}
			}
		}
	})

	t.Run("loopback traffic hidden by default", func(t *testing.T) {
		// The extension server's SubjectAccessReviews (aggregated.go) arrive in the background:
		// take the two lists from a moment when none came between them (bounded).
		var all, shown []tracing.Trace
		for deadline := time.Now().Add(30 * time.Second); ; {
			all = store.List(tracing.Filter{Loopback: true})
			shown = store.List(tracing.Filter{})
			if again := store.List(tracing.Filter{Loopback: true}); len(again) == len(all) || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		// Hidden are the loopback client's requests and kubewalk's own (a User-Agent starting
		// with HiddenAgentPrefix: e.g. the extension server's SubjectAccessReviews).
		loop, hidden := 0, 0
		for _, tr := range all {
			checkLane(t, tr)
			if tr.Loopback {
				loop++
				if tr.User != tracing.LoopbackUser {
					t.Errorf("loopback trace of %q", tr.User)
				}
			}
			if tr.Hidden {
				hidden++
				if !tr.Loopback && !strings.HasPrefix(tr.UserAgent, tracing.HiddenAgentPrefix) {
					t.Errorf("trace %s of %q (%q) hidden, neither loopback nor kubewalk's own", tr.ID, tr.User, tr.UserAgent)
				}
			}
		}
		if loop == 0 || len(shown) != len(all)-hidden {
			t.Errorf("%d traces, %d loopback, %d hidden, %d shown by default", len(all), loop, hidden, len(shown))
		}
		for _, tr := range shown {
			if tr.Loopback {
				t.Errorf("loopback trace %s shown by default", tr.ID)
			}
		}
		if got := store.List(tracing.Filter{Text: "bob"}); len(got) == 0 || got[0].User != "bob" {
			t.Errorf("filter bob: %d traces", len(got))
		}
	})
}
