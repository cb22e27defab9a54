package exercises_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/exercises"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server"
)

// requireKubectl fails (never skips) when kubectl is missing: CI must run the solver.
func requireKubectl(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is not on PATH; the solver runs the exercises' solutions with the real kubectl: %v", err)
	}
	return path
}

// englishExercises loads the embedded English exercises.
func englishExercises(t testing.TB) []lessons.Exercise {
	t.Helper()
	ls, err := lessons.Load(content.FS, lessons.DefaultLang)
	if err != nil {
		t.Fatalf("lessons: %v", err)
	}
	exs, err := lessons.LoadExercises(content.FS, lessons.DefaultLang, ls)
	if err != nil {
		t.Fatalf("exercises: %v", err)
	}
	return exs
}

// settle waits (bounded) until what a near miss did has reached every place a check reads, so
// that a Refresh then sees it: every request the store holds has finished, and — for an access
// check — the RBAC informers the authorizer reads hold a fence written after the near miss (a
// Role and RoleBinding, a ClusterRole and ClusterRoleBinding for the user solver-fence; each
// informer delivers in order, so once the authorizer allows the fence, it holds all that came
// before). Object and etcd-key checks read etcd (consistently) and need no fence.
func settle(t *testing.T, ctx context.Context, s *server.Server, store *tracing.Store, kind string, n int) {
	t.Helper()
	seen := store.Seen()
	deadline := time.Now().Add(30 * time.Second)
	for {
		busy := ""
		for _, tr := range store.List(tracing.Filter{}) {
			if tr.Seq <= seen && !tr.Done {
				busy = tr.Verb + " " + tr.Path
			}
		}
		if busy == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has not finished within 30s", busy)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if kind != lessons.CheckAccess {
		return
	}
	c := hiddenClient(t, s, "kubewalk-solver-fence")
	name := fmt.Sprintf("solver-fence-%d", n)
	// The Role grants one configmap name, the ClusterRole another: each answer below comes
	// from one pair of informers only.
	rule := func(object string) []rbacv1.PolicyRule {
		return []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}, ResourceNames: []string{object}}}
	}
	subjects := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "solver-fence"}}
	meta := metav1.ObjectMeta{Name: name}
	if _, err := c.RbacV1().Roles("default").Create(ctx, &rbacv1.Role{ObjectMeta: meta, Rules: rule(name + "-ns")}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: meta, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: meta, Rules: rule(name + "-cluster")}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: meta, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	allowed := func(ns, object string) bool {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "solver-fence",
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Resource: "configmaps", Namespace: ns, Name: object}}}
		got, err := c.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return got.Status.Allowed
	}
	for !allowed("default", name+"-ns") || !allowed("kube-public", name+"-cluster") {
		if time.Now().After(deadline) {
			t.Fatal("the RBAC informers never caught up with the fence")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSolver proves every exercise solvable both ways a learner runs kubectl, and not solved
// by what comes close. For each way (ways: the real kubectl in a second terminal, and the TUI's
// :kubectl as a class ssh student has it — the allow-list, `-f -` through the text box, a watch
// left running, no curl), against a fresh real server of its own (embedded etcd, serving), for
// each exercise in lesson order (subtest <way>/<id>), a tracker that runs as in a tour opens it;
// each of its near misses runs and must leave the check not passing, even when evaluated after
// all it did has reached the server's caches; then the exercise's reference solution runs, and
// the running tracker must tick it by itself (no evaluation forced). Typed exercises (answer,
// choice, etcd-revision) are typed, not run, the same way in both: their steps run each way and
// the answer goes to the tracker, but the content's answers are checked against the server
// (facts) and for how their why reads once, in the first way.
func TestSolver(t *testing.T) {
	exs := englishExercises(t)
	for i, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			s, store := freshServer(t)
			var n tally
			solveAll(t, w.make(t, s, store), s, store, exs, i == 0, &n)
			refused := ""
			if n.missesTUIRefused > 0 {
				refused = fmt.Sprintf(", %d of them with a step the TUI refuses", n.missesTUIRefused)
			}
			t.Logf("%s: %d exercises solved (%d ticked by what the steps did, %d typed), %d near misses refused (%d run%s; %d typed)",
				w.name, n.live+n.typed, n.live, n.typed, n.missesRun+n.missesTyped, n.missesRun, refused, n.missesTyped)
		})
	}
}

// tally counts what one way solved and refused.
type tally struct{ live, typed, missesRun, missesTUIRefused, missesTyped int }

// solveAll solves exercises one by one against s, way w (see TestSolver); checkContent also
// checks the content's typed answers against the server and the why of each accepted answer.
func solveAll(t *testing.T, w way, s *server.Server, store *tracing.Store, exs []lessons.Exercise, checkContent bool, n *tally) {
	ctx := t.Context()
	_, inTUI := w.(*tuiWay)
	fences := 0
	for _, e := range exs {
		t.Run(e.ID, func(t *testing.T) {
			tr := exercises.NewTracker(exercises.Options{Exercises: []lessons.Exercise{e}, Server: s, Store: store})
			tr.Refresh(ctx)
			st, _ := tr.Get(e.ID)
			if st.State != exercises.Open {
				t.Fatalf("on a serving server the exercise is %s, want open", st.State)
			}
			runTracker(t, tr)
			for i, nm := range e.NearMisses {
				answer, _, stop := runSteps(t, ctx, w, nm.Steps)
				stop()
				if e.Typed() {
					st, err := tr.Answer(ctx, e.ID, answer)
					if err != nil || st.State == exercises.Done {
						t.Fatalf("near miss %d (%s): answered %q, state %s, err %v; want not done", i+1, nm.Why, answer, st.State, err)
					}
					n.missesTyped++
					continue
				}
				fences++
				settle(t, ctx, s, store, e.Check.Kind, fences)
				tr.Refresh(ctx)
				if st, _ := tr.Get(e.ID); st.State == exercises.Done {
					t.Fatalf("near miss %d (%s) passed the check: %s", i+1, nm.Why, st.Why)
				}
				n.missesRun++
				if inTUI && slices.ContainsFunc(nm.Steps, func(s lessons.SolutionStep) bool { return s.TUIRefused }) {
					n.missesTUIRefused++
				}
			}
			if e.Typed() {
				// A wrong answer does not pass.
				if st, err := tr.Answer(ctx, e.ID, "not-the-answer"); err != nil || st.State == exercises.Done {
					t.Fatalf("a wrong answer: state %s, err %v; want not done", st.State, err)
				}
			}
			answer, commands, stop := runSteps(t, ctx, w, e.Solution)
			defer stop()
			if checkContent {
				checkAnswers(t, ctx, s, store, e)
			}
			if e.Typed() {
				st, err := tr.Answer(ctx, e.ID, answer)
				if err != nil {
					t.Fatalf("answer %q: %v", answer, err)
				}
				if st.State != exercises.Done {
					t.Fatalf("answer %q: not done (%s)", answer, st.LastTry)
				}
				whyReads(t, st.Why)
				n.typed++
				t.Logf("%-28s %-13s %d near miss(es) refused; %d command(s), answered %q; passed: %s", e.ID, e.Check.Kind, len(e.NearMisses), commands, answer, st.Why)
				return
			}
			st = waitDone(t, tr, e.ID)
			whyReads(t, st.Why)
			n.live++
			t.Logf("%-28s %-13s %d near miss(es) refused; %d command(s); passed: %s", e.ID, e.Check.Kind, len(e.NearMisses), commands, st.Why)
		})
	}
}

// checkAnswers checks a typed exercise's expected answer against the server its solution ran
// on (facts), and that the why reads well for every accepted answer.
func checkAnswers(t *testing.T, ctx context.Context, s *server.Server, store *tracing.Store, e lessons.Exercise) {
	t.Helper()
	if fact, ok := facts[e.ID]; ok {
		// The answer the content expects is what this server says.
		truth := fact(t, s, store)
		if !answerAccepts(e, truth) {
			t.Fatalf("the server says %q, which the exercise does not accept", truth)
		}
	} else if e.Check.Kind == lessons.CheckAnswer || e.Check.Kind == lessons.CheckChoice {
		t.Fatalf("no fact in the solver test checks this %s exercise's answer against the server: add one to facts", e.Check.Kind)
	}
	if e.Check.Kind == lessons.CheckAnswer {
		// Whichever accepted form the learner types, the why reads well.
		for _, a := range e.Check.Accept {
			res, err := exercises.NewChecker(s, nil).Answer(ctx, e, a)
			if err != nil || !res.Passed {
				t.Fatalf("accepted answer %q: %+v, %v", a, res, err)
			}
			whyReads(t, exercises.Why(e, res.Detail))
		}
	}
}

var _ exercises.Server = (*server.Server)(nil)

// whyReads fails the test when a why line is not prose a learner reads: a raw JSONPath
// ({.metadata...}), a placeholder left in, or a word said twice in a row ("RoleBinding
// RoleBinding alice-configmaps").
func whyReads(t *testing.T, why string) {
	t.Helper()
	for _, raw := range []string{"{.", "}=", "{detail}", `\.`} {
		if strings.Contains(why, raw) {
			t.Errorf("why %q holds %q", why, raw)
		}
	}
	words := strings.Fields(why)
	for i := 1; i < len(words); i++ {
		if strings.EqualFold(strings.Trim(words[i], ".,:;()"), strings.Trim(words[i-1], ".,:;()")) {
			t.Errorf("why %q says %q twice", why, words[i])
		}
	}
}

// answerAccepts reports whether truth is a right answer to typed exercise e.
func answerAccepts(e lessons.Exercise, truth string) bool {
	if e.Check.Kind == lessons.CheckChoice {
		return lessons.Choice(truth) == e.Check.Correct
	}
	return e.Check.Accepts(truth)
}

// facts reads, for each exercise answered by typing or choosing, the right answer from a real
// server, so that the content's expected answers are checked against the system they describe
// and not only against themselves.
var facts = map[string]func(t *testing.T, s *server.Server, store *tracing.Store) string{
	// Paused after the config phase, the port is reserved but nobody listens.
	"config-connection-refused": func(t *testing.T, _ *server.Server, _ *tracing.Store) string {
		paused, err := server.New(server.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer paused.Close()
		if err := paused.RunPhase(t.Context(), server.PhaseConfig); err != nil {
			t.Fatal(err)
		}
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(paused.Address(), "https://"), 5*time.Second)
		if err == nil {
			c.Close()
			t.Fatalf("%s accepts connections after the config phase", paused.Address())
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("dial after the config phase: %v, want connection refused", err)
		}
		return "1"
	},
	// The authentication stage of an admin request names the authenticator.
	"authn-admin-authenticator": func(t *testing.T, s *server.Server, store *tracing.Store) string {
		admin := clientAs(t, s, "admin")
		if _, err := admin.CoreV1().Namespaces().Get(t.Context(), "default", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			for _, tr := range store.List(tracing.Filter{}) {
				if tr.Done && tr.User == "kubewalk-admin" && tr.Resource == "namespaces" && tr.Name == "default" {
					for _, st := range tr.Stages {
						if st.Name == tracing.StageAuthentication {
							if !strings.HasPrefix(st.Detail, "x509: kubewalk-admin (groups system:masters, system:authenticated)") {
								t.Fatalf("admin's authentication stage: %q", st.Detail)
							}
							return "1"
						}
					}
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatal("admin's request never finished in the trace store")
		return ""
	},
	// The authorizer's reason for alice creating a configmap names the binding.
	"authz-alice-binding": func(t *testing.T, s *server.Server, _ *tracing.Store) string {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice",
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: "configmaps", Namespace: "default"}}}
		got, err := clientAs(t, s, "admin").AuthorizationV1().SubjectAccessReviews().Create(t.Context(), sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`RoleBinding "([^"/]+)/default"`).FindStringSubmatch(got.Status.Reason)
		if !got.Status.Allowed || m == nil {
			t.Fatalf("alice creating configmaps: allowed %v, reason %q", got.Status.Allowed, got.Status.Reason)
		}
		return m[1]
	},
	"admission-default-creator": func(t *testing.T, s *server.Server, _ *tracing.Store) string {
		ns, err := clientAs(t, s, "admin").CoreV1().Namespaces().Get(t.Context(), "default", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return ns.Annotations["kubewalk.io/created-by"]
	},
	"install-preferred-version": func(t *testing.T, s *server.Server, _ *tracing.Store) string {
		groups, err := clientAs(t, s, "admin").Discovery().ServerGroups()
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range groups.Groups {
			if g.Name == "learn.kubewalk.io" {
				if len(g.Versions) != 2 {
					t.Errorf("learn.kubewalk.io serves %d versions, the goal says two", len(g.Versions))
				}
				return g.PreferredVersion.Version
			}
		}
		t.Fatal("discovery does not list learn.kubewalk.io")
		return ""
	},
	// Which part of the chain answered each of three requests, from what the live server says:
	// the CRD's APIService is local (the aggregator hands it to its delegate) and kubewalk's own
	// server does not serve the CRD's group, which the established CRD gives the apiextensions
	// server; the extension's APIService names a service and the extension lists the caller it
	// saw; the unknown path gets the bare 404 of the NotFound handler, not a Status object.
	"install-which-server": func(t *testing.T, s *server.Server, _ *tracing.Store) string {
		ctx := t.Context()
		cfg, err := s.RESTConfig("admin")
		if err != nil {
			t.Fatal(err)
		}
		agg, err := apiregistrationclient.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		crdAPI, err := agg.APIServices().Get(ctx, "v1.stable.example.com", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if crdAPI.Spec.Service != nil {
			t.Fatalf("the CRD's APIService names service %v: the aggregator would proxy it", crdAPI.Spec.Service)
		}
		if kubewalk := s.State().Find("kubewalk-apiserver"); kubewalk == nil || !strings.Contains(kubewalk.Find("serves").Value, "learn.kubewalk.io") ||
			strings.Contains(kubewalk.Find("serves").Value, "stable.example.com") {
			t.Fatalf("the state's kubewalk-apiserver should serve its own groups and not stable.example.com: %+v", kubewalk)
		}
		ext, err := apiextensionsclient.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		crd, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "crontabs.stable.example.com", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !apiextensionshelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
			t.Fatal("the CRD is not established")
		}
		dyn, err := dynamic.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).
			Namespace("default").List(ctx, metav1.ListOptions{}); err != nil {
			t.Fatalf("listing crontabs: %v", err)
		}
		extAPI, err := agg.APIServices().Get(ctx, server.ExtensionAPIService, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if extAPI.Spec.Service == nil || extAPI.Spec.Service.Name != server.ExtensionService {
			t.Fatalf("the extension's APIService names service %v", extAPI.Spec.Service)
		}
		callers, err := dyn.Resource(schema.GroupVersionResource{Group: "extension.learn.kubewalk.io", Version: "v1alpha1", Resource: "callers"}).
			Get(ctx, "kubewalk-admin", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the extension server has not seen admin: %v", err)
		}
		if callers.Object["user"] != "kubewalk-admin" {
			t.Fatalf("caller kubewalk-admin: %v", callers.Object)
		}
		body, err := clientAs(t, s, "admin").Discovery().RESTClient().Get().AbsPath("/no/such/path").DoRaw(ctx)
		if !apierrors.IsNotFound(err) || strings.TrimSpace(string(body)) != "404 page not found" {
			t.Fatalf("/no/such/path: %v, body %q; want the NotFound handler's bare 404", err, body)
		}
		return "2"
	},
	// The key etcd holds the CronTab the solution created under.
	"install-cr-etcd-key": func(t *testing.T, s *server.Server, _ *tracing.Store) string {
		acc, err := s.Etcd()
		if err != nil {
			t.Fatal(err)
		}
		etcdValue(t, s, "stable.example.com/crontabs/default/nightly")
		return acc.KeyPrefix() + "stable.example.com/crontabs/default/nightly"
	},
	// /readyz?verbose lists the check by name.
	"serve-informer-sync": func(t *testing.T, s *server.Server, _ *tracing.Store) string {
		body, err := clientAs(t, s, "admin").Discovery().RESTClient().Get().AbsPath("/readyz").Param("verbose", "").DoRaw(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`\[\+\](informer-sync) ok`).FindStringSubmatch(string(body))
		if m == nil {
			t.Fatalf("/readyz?verbose has no informer-sync check:\n%s", body)
		}
		return m[1]
	},
	// kubectl's own RESTMapper, built from this server's discovery, maps the shortcut.
	"apimachinery-lesson-gvr": func(t *testing.T, s *server.Server, _ *tracing.Store) string {
		disc := clientAs(t, s, "admin").Discovery()
		groups, err := restmapper.GetAPIGroupResources(disc)
		if err != nil {
			t.Fatal(err)
		}
		mapper := restmapper.NewShortcutExpander(restmapper.NewDiscoveryRESTMapper(groups), disc, nil)
		gvr, err := mapper.ResourceFor(schema.GroupVersionResource{Resource: "lsn"})
		if err != nil {
			t.Fatal(err)
		}
		gvk, err := mapper.KindFor(gvr)
		if err != nil || gvk.Kind != "Lesson" {
			t.Fatalf("%s maps to kind %v (%v), want Lesson", gvr, gvk, err)
		}
		return gvr.Group + "/" + gvr.Version + "/" + gvr.Resource
	},
	// The bytes etcd holds for the configmap the solution created, escaped as the state pane
	// and the explorer show them (`\x00`).
	"apimachinery-protobuf-magic": func(t *testing.T, s *server.Server, _ *tracing.Store) string {
		q := strconv.Quote(string(etcdValue(t, s, "configmaps/default/demo")[:4]))
		return q[1 : len(q)-1]
	},
	// Nothing created pods for the deployment the scale exercise asked for.
	"deployments-no-pods": func(t *testing.T, s *server.Server, _ *tracing.Store) string {
		c := clientAs(t, s, "admin")
		d, err := c.AppsV1().Deployments("default").Get(t.Context(), "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
			t.Fatalf("deployment web wants %v replicas, the goal says 3", d.Spec.Replicas)
		}
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			t.Fatal(err)
		}
		pods, err := c.CoreV1().Pods("").List(t.Context(), metav1.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			t.Fatal(err)
		}
		if len(pods.Items) != 0 {
			t.Fatalf("%d pods match %s", len(pods.Items), sel)
		}
		return "2"
	},
	// The choices name the minor versions around 1.37.
	"version-skew-kubectl-range": func(t *testing.T, s *server.Server, _ *tracing.Store) string {
		v, err := clientAs(t, s, "admin").Discovery().ServerVersion()
		if err != nil {
			t.Fatal(err)
		}
		if v.Major != "1" || v.Minor != "37" {
			t.Fatalf("the server is %s.%s (%s); the choices are written for 1.37", v.Major, v.Minor, v.GitVersion)
		}
		return "1"
	},
	// The apiVersion the stored bytes of the lesson written as v1alpha1 declare.
	"version-skew-storage-version": func(t *testing.T, s *server.Server, _ *tracing.Store) string {
		acc, err := s.Etcd()
		if err != nil {
			t.Fatal(err)
		}
		so, err := acc.Decode(etcdValue(t, s, "lessons/default/hello"))
		if err != nil {
			t.Fatal(err)
		}
		return so.GVK.GroupVersion().String()
	},
	// The apps/v1 discovery document names the kind of deployments/scale.
	"article-scale-discovery": func(t *testing.T, s *server.Server, _ *tracing.Store) string {
		rl, err := clientAs(t, s, "admin").Discovery().ServerResourcesForGroupVersion("apps/v1")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rl.APIResources {
			if r.Name == "deployments/scale" {
				if r.Group != "autoscaling" || r.Version != "v1" {
					t.Errorf("deployments/scale is %s/%s %s, the why says autoscaling/v1", r.Group, r.Version, r.Kind)
				}
				return r.Kind
			}
		}
		t.Fatal("apps/v1 discovery lists no deployments/scale")
		return ""
	},
}

// etcdValue reads the value of key (below the server's prefix) from the server's etcd.
func etcdValue(t *testing.T, s *server.Server, key string) []byte {
	t.Helper()
	acc, err := s.Etcd()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := acc.Get(t.Context(), acc.KeyPrefix()+key)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) == 0 || len(resp.Kvs[0].Value) < 4 {
		t.Fatalf("etcd holds no value at %s%s", acc.KeyPrefix(), key)
	}
	return resp.Kvs[0].Value
}
