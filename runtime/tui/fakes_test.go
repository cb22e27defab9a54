package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"testing/fstest"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/server"
)

// fakeEngine plays a full startup, one stop per server checkpoint, following the same rules as
// the engine: Continue runs until the target is reached, then pauses (or serves).
type fakeEngine struct {
	mu        sync.Mutex
	plan      []engine.Stop
	reached   int // stops reached so far
	paused    bool
	served    bool
	failAt    string // checkpoint ID at which the startup fails, for tests
	events    chan engine.Event
	sent      atomic.Int64 // events sent, so a test harness knows when all were handled
	continued []engine.Target
}

// send delivers an event to the model's waiter.
func (e *fakeEngine) send(ev engine.Event) {
	e.sent.Add(1)
	e.events <- ev
}

func newFakeEngine() *fakeEngine {
	cps := server.Checkpoints()
	e := &fakeEngine{events: make(chan engine.Event, 1)}
	base := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	for i, cp := range cps {
		e.plan = append(e.plan, engine.Stop{
			Index:      i,
			Checkpoint: cp,
			State:      fakeState(i),
			Live:       fakeLive(i),
			Timings:    fakeTimings(cp.Phase),
			At:         base.Add(time.Duration(i) * time.Second),
		})
	}
	return e
}

// start pauses at the first checkpoint, like engine.Start(ctx, engine.NextCheckpoint()).
func (e *fakeEngine) start() *fakeEngine {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reached = 1
	e.paused = true
	e.send(engine.Event{Paused: &e.plan[0]})
	return e
}

func (e *fakeEngine) Events() <-chan engine.Event { return e.events }

func (e *fakeEngine) Stops() []engine.Stop {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]engine.Stop(nil), e.plan[:e.reached]...)
}

func (e *fakeEngine) Continue(t engine.Target) error {
	e.mu.Lock()
	if !e.paused {
		e.mu.Unlock()
		return errors.New("engine: server is not paused")
	}
	e.paused = false
	e.continued = append(e.continued, t)
	prev := e.plan[e.reached-1].Checkpoint
	for e.reached < len(e.plan) {
		cp := e.plan[e.reached].Checkpoint
		e.reached++
		if cp.ID() == e.failAt {
			e.mu.Unlock()
			e.send(engine.Event{Failed: fmt.Errorf("%s: etcd did not become ready in 30s", cp.ID())})
			return nil
		}
		if reachedTarget(t, cp, prev) {
			e.paused = true
			stop := e.plan[e.reached-1]
			e.mu.Unlock()
			e.send(engine.Event{Paused: &stop})
			return nil
		}
	}
	e.served = true
	e.mu.Unlock()
	e.send(engine.Event{Served: true})
	return nil
}

func (e *fakeEngine) targets() []engine.Target {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]engine.Target(nil), e.continued...)
}

// reachedTarget mirrors the engine's rule; Target's fields are private, so it compares with
// the constructors.
func reachedTarget(t engine.Target, cp, prev server.Checkpoint) bool {
	switch t {
	case engine.NextCheckpoint():
		return true
	case engine.NextPhase():
		return cp.Phase != prev.Phase
	case engine.ToEnd():
		return false
	}
	for i, c := range server.Checkpoints() {
		if t == engine.ToCheckpoint(c.ID()) {
			return checkpointIndex(cp.ID()) >= i
		}
	}
	for i, p := range server.Phases() {
		if t == engine.ToPhase(p) {
			return phaseIndex(cp.Phase) >= i
		}
	}
	panic("fakeEngine: unknown target")
}

// fakeTimings are the phases finished before phase p, with fixed durations.
func fakeTimings(p server.Phase) []server.PhaseTiming {
	durations := []time.Duration{41 * time.Millisecond, 3 * time.Millisecond, 12 * time.Millisecond,
		900 * time.Microsecond, 1400 * time.Millisecond, 230 * time.Millisecond, 2 * time.Second}
	var out []server.PhaseTiming
	for i, q := range server.Phases() {
		if q == p {
			break
		}
		out = append(out, server.PhaseTiming{Phase: q, Duration: durations[i]})
	}
	return out
}

// fakeState builds the state tree at checkpoint index upto, shaped like server.State's.
func fakeState(upto int) *server.Node {
	cps := server.Checkpoints()
	reached := func(phase server.Phase, name string) bool {
		for i := 0; i <= upto && i < len(cps); i++ {
			if cps[i].Phase == phase && (name == "" || cps[i].Name == name) {
				return true
			}
		}
		return false
	}
	// at reports whether the checkpoint at position k (0-based) of phase p was reached.
	at := func(p server.Phase, k int) bool {
		pc := server.PhaseCheckpoints(p)
		return k < len(pc) && reached(p, pc[k].Name)
	}
	root := &server.Node{Label: "kubewalk"}
	if reached(server.PhaseConfig, "") {
		c := root.Add(string(server.PhaseConfig), "")
		sch := c.Add("scheme", "")
		sch.Addf("core/v1", "%d kinds", 47)
		sch.Addf("rbac.authorization.k8s.io/v1", "%d kinds", 8)
		sch.Addf("authorization.k8s.io/v1", "%d kinds", 4)
		c.Add("codecs", "application/json, application/yaml, application/vnd.kubernetes.protobuf")
		if at(server.PhaseConfig, 1) {
			g := c.Add("genericConfig", "genericapiserver.RecommendedConfig")
			g.Add("RequestTimeout", "1m0s")
			g.Add("MaxRequestsInFlight", "400 (mutating 200)")
			g.Add("LegacyAPIGroupPrefixes", "/api")
			g.Add("ReadyzChecks", "ping, log, etcd")
		}
		if at(server.PhaseConfig, 2) {
			ss := c.Add("secureServing", "")
			ss.Add("bindAddress", "127.0.0.1")
			ss.Add("port", "6443")
			listening := "no (the serve phase opens the listener)"
			if reached(server.PhaseServe, "serving") {
				listening = "yes"
			}
			ss.Add("listening", listening)
			ss.Add("CA", "CN=kubewalk-ca, ECDSA P-256, valid until 2026-05-01T10:00:00Z")
		}
		if at(server.PhaseConfig, 3) {
			lb := c.Add("loopback", "")
			lb.Add("host", "https://127.0.0.1:6443")
			lb.Add("bearerToken", "3f9a1c… (64 hex chars)")
		}
	}
	if reached(server.PhaseAuthn, "") {
		a := root.Add(string(server.PhaseAuthn), "")
		chain := a.Add("authenticator", "union.NewFailOnError (a failing credential is a 401)")
		inner := chain.Add("group.NewAuthenticatedGroupAdder", "adds system:authenticated")
		u := inner.Add("union.New", "first yes wins")
		u.Add("x509.Authenticator", "client certs signed by the run's CA; CN → user, O → groups")
		if at(server.PhaseAuthn, 1) {
			u.Add("bearertoken → tokenfile.TokenAuthenticator", "3 tokens: kubewalk-admin, alice, bob")
		}
		if at(server.PhaseAuthn, 3) {
			chain.Add("anonymous.Authenticator", "system:anonymous on /healthz, /livez, /readyz, /version")
		}
		ids := a.Add("identities", "")
		ids.Add("admin", "user kubewalk-admin, groups [system:masters system:authenticated], client certificate")
		ids.Add("alice", "user alice, groups [developers system:authenticated], bearer token 9c2e4b… (64 hex chars)")
		ids.Add("bob", "user bob, groups [system:authenticated], bearer token 11d07a… (64 hex chars)")
	}
	if reached(server.PhaseAuthz, "") {
		z := root.Add(string(server.PhaseAuthz), "")
		inf := z.Add("informers", "SharedInformerFactory on the loopback client")
		inf.Add("*v1.Role", "not synced (informers start after serve)")
		inf.Add("*v1.RoleBinding", "not synced (informers start after serve)")
		if at(server.PhaseAuthz, 3) {
			c := z.Add("authorizer", "union: first Allow/Deny wins")
			c.Add("1. Privileged", "*authorizerfactory.privilegedGroupAuthorizer")
			c.Add("2. RBAC", "*rbac.RBACAuthorizer")
		}
	}
	if reached(server.PhaseAdmission, "") {
		ad := root.Add(string(server.PhaseAdmission), "")
		ch := ad.Add("chain", "mutating plugins in order, then validating plugins in order")
		ch.Add("1. NamespaceLifecycle", "validating, on create/update/delete")
		ch.Add("2. CreatedBy", "mutating, on create")
		ch.Add("3. PinnedImages", "validating, on create/update")
	}
	if reached(server.PhaseStorage, "") {
		s := root.Add(string(server.PhaseStorage), "")
		e := s.Add("etcd", "")
		e.Add("mode", "embedded (go.etcd.io/etcd/server/v3/embed)")
		e.Add("endpoints", "http://127.0.0.1:2379")
		if at(server.PhaseStorage, 2) {
			r := s.Add("restStores", "3")
			r.Add("configmaps", "key /registry/configmaps/…, encoded as v1 via application/vnd.kubernetes.protobuf")
			r.Add("namespaces", "key /registry/namespaces/…, encoded as v1 via application/vnd.kubernetes.protobuf")
			r.Add("namespaces/status", "subresource of namespaces, same etcd key")
		}
	}
	if reached(server.PhaseInstall, "") {
		in := root.Add(string(server.PhaseInstall), "")
		g := in.Add("groups", "")
		g.Add("core/v1", "/api/v1").Add("configmaps", "create delete deletecollection get list patch update watch")
		in.Add("routes", "74 go-restful routes")
	}
	if reached(server.PhaseServe, "") {
		sv := root.Add(string(server.PhaseServe), "")
		sv.Add("address", "https://127.0.0.1:6443")
		sv.Add("listening", "yes")
	}
	return root
}

// liveAuthn is a live object with the shapes the raw view must handle: unexported fields, a
// map, an interface, a func, a cycle back to its owner and a nil pointer.
type liveAuthn struct {
	name    string
	tokens  map[string]liveUser
	next    any
	owner   *liveServer
	verify  func(token string) bool
	missing *liveUser
	// kubeconfig is longer than a pane is wide.
	kubeconfig string
}

type liveUser struct {
	Name   string
	groups []string
}

type liveServer struct {
	authn   *liveAuthn
	port    int
	timeout time.Duration
}

func fakeLive(upto int) []server.LiveObject {
	s := &liveServer{port: 6443, timeout: time.Minute}
	a := &liveAuthn{
		name: "union",
		tokens: map[string]liveUser{
			"bob":   {Name: "bob"},
			"alice": {Name: "alice", groups: []string{"developers"}},
		},
		next:       errors.New("no next"),
		owner:      s,
		verify:     func(string) bool { return false },
		kubeconfig: "/home/learner/.local/state/kubewalk/run-0123456789abcdef/kubeconfig.yaml",
	}
	s.authn = a
	out := []server.LiveObject{{Name: "config.server", Value: s}}
	if upto >= len(server.PhaseCheckpoints(server.PhaseConfig)) {
		out = append(out, server.LiveObject{Name: "authn.authenticator", Value: a})
	}
	return out
}

// fakeContent serves one step per checkpoint with fixed text in English or Chinese, local
// source from a fake file, and upstream source for some steps only.
type fakeContent struct {
	zh   bool
	wrap bool // lessonText: inline code and words that must not be split
}

// Language is the learner's language: with zh the screen runs in Chinese, as it does for
// lessons loaded in zh-CN.
func (c fakeContent) Language() string {
	if c.zh {
		return i18n.SimplifiedChinese
	}
	return i18n.English
}

const fakeSource = `package server

import (
	"context"
	"fmt"

	"k8s.io/apiserver/pkg/authentication/request/union"
)

// authnState is what the authn phase builds.
type authnState struct {
	x509      any
	bearer    any
	anonymous any
	final     any
}

// Authn runs the authn phase: one authenticator per credential kind, then their union.
func (s *Server) Authn(ctx context.Context) error {
	return s.runPhase(ctx, PhaseAuthn, func(ctx context.Context, t *phaseTimer) error {
		a := &authnState{}
		s.an = a
		a.x509 = newX509(s.c.ca)
		if err := t.reach(ctx, PhaseAuthn, "x509"); err != nil {
			return err
		}
		a.bearer = newBearer(s.identities())
		if err := t.reach(ctx, PhaseAuthn, "token"); err != nil {
			return err
		}
		a.final = union.New(a.x509, a.bearer)
		if err := t.reach(ctx, PhaseAuthn, "union"); err != nil {
			return err
		}
		return t.reach(ctx, PhaseAuthn, "anonymous")
	})
}

// describe adds the authn subtree to the state tree, with a rather long comment line that does not fit a narrow pane at all.
func (a *authnState) describe(n *Node) {
	n.Add("authenticator", fmt.Sprintf("%T", a.final))
}
// padding line 1: more source below the anchors, so every pane size can scroll.
// padding line 2: more source below the anchors, so every pane size can scroll.
// padding line 3: more source below the anchors, so every pane size can scroll.
// padding line 4: more source below the anchors, so every pane size can scroll.
// padding line 5: more source below the anchors, so every pane size can scroll.
// padding line 6: more source below the anchors, so every pane size can scroll.
// padding line 7: more source below the anchors, so every pane size can scroll.
// padding line 8: more source below the anchors, so every pane size can scroll.
// padding line 9: more source below the anchors, so every pane size can scroll.
// padding line 10: more source below the anchors, so every pane size can scroll.
// padding line 11: more source below the anchors, so every pane size can scroll.
// padding line 12: more source below the anchors, so every pane size can scroll.
// padding line 13: more source below the anchors, so every pane size can scroll.
// padding line 14: more source below the anchors, so every pane size can scroll.
// padding line 15: more source below the anchors, so every pane size can scroll.
// padding line 16: more source below the anchors, so every pane size can scroll.
// padding line 17: more source below the anchors, so every pane size can scroll.
// padding line 18: more source below the anchors, so every pane size can scroll.
// padding line 19: more source below the anchors, so every pane size can scroll.
// padding line 20: more source below the anchors, so every pane size can scroll.
// padding line 21: more source below the anchors, so every pane size can scroll.
// padding line 22: more source below the anchors, so every pane size can scroll.
// padding line 23: more source below the anchors, so every pane size can scroll.
// padding line 24: more source below the anchors, so every pane size can scroll.
// padding line 25: more source below the anchors, so every pane size can scroll.
// padding line 26: more source below the anchors, so every pane size can scroll.
// padding line 27: more source below the anchors, so every pane size can scroll.
// padding line 28: more source below the anchors, so every pane size can scroll.
// padding line 29: more source below the anchors, so every pane size can scroll.
// padding line 30: more source below the anchors, so every pane size can scroll.
// padding line 31: more source below the anchors, so every pane size can scroll.
// padding line 32: more source below the anchors, so every pane size can scroll.
// padding line 33: more source below the anchors, so every pane size can scroll.
// padding line 34: more source below the anchors, so every pane size can scroll.
// padding line 35: more source below the anchors, so every pane size can scroll.
// padding line 36: more source below the anchors, so every pane size can scroll.
// padding line 37: more source below the anchors, so every pane size can scroll.
// padding line 38: more source below the anchors, so every pane size can scroll.
// padding line 39: more source below the anchors, so every pane size can scroll.
// padding line 40: more source below the anchors, so every pane size can scroll.
// padding line 41: more source below the anchors, so every pane size can scroll.
// padding line 42: more source below the anchors, so every pane size can scroll.
// padding line 43: more source below the anchors, so every pane size can scroll.
// padding line 44: more source below the anchors, so every pane size can scroll.
// padding line 45: more source below the anchors, so every pane size can scroll.
// padding line 46: more source below the anchors, so every pane size can scroll.
// padding line 47: more source below the anchors, so every pane size can scroll.
// padding line 48: more source below the anchors, so every pane size can scroll.
// padding line 49: more source below the anchors, so every pane size can scroll.
// padding line 50: more source below the anchors, so every pane size can scroll.
// padding line 51: more source below the anchors, so every pane size can scroll.
// padding line 52: more source below the anchors, so every pane size can scroll.
// padding line 53: more source below the anchors, so every pane size can scroll.
// padding line 54: more source below the anchors, so every pane size can scroll.
// padding line 55: more source below the anchors, so every pane size can scroll.
// padding line 56: more source below the anchors, so every pane size can scroll.
// padding line 57: more source below the anchors, so every pane size can scroll.
// padding line 58: more source below the anchors, so every pane size can scroll.
// padding line 59: more source below the anchors, so every pane size can scroll.
// padding line 60: more source below the anchors, so every pane size can scroll.
`

const fakeUpstream = `package server

// PrepareRun does post API installation setup steps. It calls recursively the same function of the delegates.
func (s *GenericAPIServer) PrepareRun() preparedGenericAPIServer {
	s.delegationTarget.PrepareRun()

	if s.openAPIConfig != nil && !s.skipOpenAPIInstallation {
		s.OpenAPIVersionedService, s.StaticOpenAPISpec = routes.OpenAPI{
			Config: s.openAPIConfig,
		}.InstallV2(s.Handler.GoRestfulContainer, s.Handler.NonGoRestfulMux)
	}

	s.installHealthz()
	s.installLivez()
	s.installReadyz()

	return preparedGenericAPIServer{s}
}
`

const (
	upstreamOK      = "k8s.io/apiserver/pkg/server.(*GenericAPIServer).PrepareRun"
	upstreamMissing = "k8s.io/apiserver/pkg/authentication/request/union.New"
)

var enText = "The server now **authenticates** every request before anything else looks at it.\n\n" +
	"- an x509 client certificate names the user in its CN and the groups in its O fields;\n" +
	"- a bearer token is looked up in a static token file;\n" +
	"- the union asks each authenticator in turn and the first that says yes wins.\n\n" +
	"```go\nu := union.New(x509Auth, tokenAuth)\n```\n\n" +
	"Try `kubectl --context bob get cm` after serve: bob is authenticated but not authorized, and `kubectl run web --image=nginx` " +
	"is refused by admission; kube-apiserver builds its chain from `--authorization-mode`, for example `Node,RBAC`. " +
	"Authentication answers who you are; authorization, the next phase, answers what you may do."

var zhText = "服务器在处理任何请求之前，首先进行**身份认证**：它要弄清楚请求来自谁，而不是判断请求能否执行。\n\n" +
	"- 客户端证书的通用名称字段给出用户名，组织字段给出用户所属的组；\n" +
	"- 持有者令牌在静态令牌表里查找，找到即认证成功；\n" +
	"- 联合认证器依次询问每个认证器，第一个给出肯定答复的认证器胜出，其余的不再询问。\n\n" +
	"身份认证回答“你是谁”，鉴权回答“你能做什么”。鉴权是下一个阶段：基于角色的访问控制根据角色和绑定关系判断一个已认证的用户能否对某个资源执行某个动作，判断失败时返回四百零三。"

func (c fakeContent) Step(id string) (Step, bool) {
	if id == "storage/etcd" {
		return Step{}, false // a checkpoint without a lesson
	}
	cp := strings.SplitN(id, "/", 2)
	st := Step{
		ID:         id,
		Checkpoint: id,
		Title:      "Step " + id,
		Lesson:     "The " + cp[0] + " phase",
		Text:       enText,
		Anchor:     "(*Server).Authn",
		Focus:      "union.New",
		Kube:       "pkg/kubeapiserver/authenticator.Config.New builds the same union",
	}
	if c.wrap {
		st.Text = lessonText
	}
	if c.zh {
		st.Title = "第一步：" + id + " 身份认证与鉴权的区别"
		st.Lesson = "身份认证"
		st.Text = zhText
		st.Kube = "kube-apiserver 在 pkg/kubeapiserver/authenticator 中以同样的方式组合认证器"
	}
	switch cp[0] {
	case "serve":
		st.Upstream = upstreamOK
	case "authn":
		st.Upstream = upstreamMissing
	}
	if id == "config/scheme" {
		st.Anchor, st.Focus = "(*authnState).describe", ""
	}
	return st, true
}

func (fakeContent) Local(anchor, focus string) (Location, error) {
	lines := strings.Split(fakeSource, "\n")
	find := func(sub string) int {
		for i, l := range lines {
			if strings.Contains(l, sub) {
				return i + 1
			}
		}
		return 0
	}
	loc := Location{File: "server/authn.go", Source: []byte(fakeSource)}
	switch anchor {
	case "(*Server).Authn":
		loc.StartLine, loc.EndLine = find("func (s *Server) Authn"), find("return t.reach(ctx, PhaseAuthn, \"anonymous\")")+2
	case "(*authnState).describe":
		loc.StartLine, loc.EndLine = find("func (a *authnState) describe"), find("func (a *authnState) describe")+2
	default:
		return Location{}, fmt.Errorf("anchor %q: no such symbol in server/", anchor)
	}
	if focus != "" {
		loc.FocusStart = find(focus)
		loc.FocusEnd = loc.FocusStart
	}
	return loc, nil
}

func (fakeContent) Upstream(symbol string) (Location, error) {
	if symbol != upstreamOK {
		return Location{}, errors.New("k8s.io/apiserver@v0.37.2 is not in the module cache")
	}
	return Location{
		File:      "/root/go/pkg/mod/k8s.io/apiserver@v0.37.2/pkg/server/genericapiserver.go",
		StartLine: 3, EndLine: 18, FocusStart: 13, FocusEnd: 15,
		Source: []byte(fakeUpstream),
	}, nil
}

// fakeServer is the ServerInfo of a served fake run.
type fakeServer struct {
	cfg *rest.Config // nil: RESTConfig fails
	// eng, when set (the harness sets it), says how far the run is: ServeStatus follows it as
	// the real server's does. Without it the run serves.
	eng *fakeEngine
}

// ServeStatus is what a client finds, from how far the fake engine has run: nothing listens
// before serve/serving, the kubeconfig is there from serve/kubeconfig on.
func (s fakeServer) ServeStatus() server.ServeStatus {
	if s.eng == nil {
		return server.Serving
	}
	s.eng.mu.Lock()
	reached, served := s.eng.reached, s.eng.served
	s.eng.mu.Unlock()
	switch {
	case served || reached >= checkpointIndex("serve/kubeconfig")+1:
		return server.Serving
	case reached >= checkpointIndex("serve/serving")+1:
		return server.Listening
	}
	return server.NotListening
}

func (fakeServer) Kubeconfig() string { return "/tmp/kubewalk-1234/kubeconfig" }
func (fakeServer) Address() string    { return "https://127.0.0.1:6443" }
func (fakeServer) Identities() []server.Identity {
	return []server.Identity{
		{Context: "admin", User: "kubewalk-admin", Groups: []string{"system:masters"}},
		{Context: "alice", User: "alice", Groups: []string{"developers"}},
		{Context: "bob", User: "bob"},
	}
}
func (s fakeServer) RESTConfig(string) (*rest.Config, error) {
	if s.cfg == nil {
		return nil, errors.New("RESTConfig: the config and authn phases have not run")
	}
	return s.cfg, nil
}

// browsingContent is fakeContent with a server source to search across files.
type browsingContent struct{ fakeContent }

const (
	storageSource = `package server

// Storage builds the REST stores.
func (s *Server) Storage() error {
	// Each store gets a Strategy: how objects of its kind are created and updated.
	return newStore(configMapStrategy{})
}
`
	escalationSource = `package rbac

// escalation checks every RoleBinding's Strategy.
func escalation() {}
`
)

func (browsingContent) ServerSource() fs.FS {
	return fstest.MapFS{
		"authn.go":           {Data: []byte(fakeSource)},
		"storage.go":         {Data: []byte(storageSource)},
		"rbac/escalation.go": {Data: []byte(escalationSource)},
		"storage_test.go":    {Data: []byte("package server\n\n// Strategy in a test file is not searched.\n")},
		"README.md":          {Data: []byte("Strategy in a non-Go file is not searched.\n")},
	}
}
