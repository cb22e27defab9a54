package lessons

import (
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kubewalk/kubewalk/server"
)

// fixtureCheckpoints are the checkpoints the testdata lessons are written against.
var fixtureCheckpoints = []server.Checkpoint{
	{Phase: server.PhaseAuthn, Name: "x509", Title: "x509 authenticator"},
	{Phase: server.PhaseAuthn, Name: "token", Title: "token authenticator"},
	{Phase: server.PhaseAuthz, Name: "rbac", Title: "RBAC authorizer"},
}

const (
	fixtureSource       = "testdata/src"
	fixtureUpstream     = "testdata/upstream"
	fixtureApimachinery = "testdata/apimachinery"
	fixtureKube         = "testdata/kube"
)

// fixtureKnown is what the testdata lessons may name: the fixture checkpoints and two probes.
var fixtureKnown = Known{Checkpoints: fixtureCheckpoints, Probes: []string{"object-meta", "scheme-gvks"}}

// fixtureSources resolves the testdata lessons' code in the fixture trees.
func fixtureSources() Sources {
	return Sources{
		Ours:     os.DirFS(fixtureSource),
		Upstream: map[string]string{UpstreamModule: fixtureUpstream, "k8s.io/apimachinery": fixtureApimachinery},
		Kube:     fixtureKube,
	}
}

// fixtureContent is testdata/good with the files of testdata/broken/<kind> laid over it and
// the drop paths removed.
func fixtureContent(t *testing.T, kind string, drop ...string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	copyTree := func(root string) {
		err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path.Join(root, p))
			m[p] = &fstest.MapFile{Data: data, Mode: 0o644}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	copyTree("testdata/good")
	if kind != "" {
		copyTree(path.Join("testdata/broken", kind))
	}
	for _, d := range drop {
		if _, ok := m[d]; !ok {
			t.Fatalf("drop %s: not in the fixture", d)
		}
		delete(m, d)
	}
	return m
}

func TestCheckContent(t *testing.T) {
	const (
		authn = "en/02-authn.md"
		authz = "en/03-authz.md"
		am    = "en/21-apimachinery.md"
		zh    = "zh-CN/02-authn.md"
	)
	tests := []struct {
		kind        string   // directory under testdata/broken; "" is the good content alone
		drop        []string // good files the case removes
		upstreamDir string   // default fixtureUpstream
		want        []string // Problem.Error() of every problem, in order
		contains    bool     // want holds substrings (for messages worded by a library)
	}{
		{kind: "", want: nil},
		{kind: "unknown-checkpoint", want: []string{
			authn + `: step token: checkpoint "authn/tokn" is not a server checkpoint — fix: did you mean "authn/token"?`,
			authn + `: server checkpoint authn/token (token authenticator) is covered by no step — fix: add a step with checkpoint: authn/token`,
		}},
		{kind: "uncovered-checkpoint", want: []string{
			authn + `: server checkpoint authn/token (token authenticator) is covered by no step — fix: add a step with checkpoint: authn/token`,
		}},
		{kind: "", drop: []string{authz}, want: []string{
			`en/: server checkpoint authz/rbac (RBAC authorizer) is covered by no step — fix: add a lesson with phase: authz and a step with checkpoint: authz/rbac`,
		}},
		{kind: "anchor-not-found", want: []string{
			authn + `: step x509: anchor "(*Server).Authnx" not found in server/ — fix: did you mean "(*Server).Authn"?`,
		}},
		{kind: "anchor-unembedded-package", want: []string{
			authz + `: step rbac: anchor "rbac.(*Authorizer).Authorize" not found in server/ — fix: name a func, a method as (*T).M or T.M, or a type declared in server/ (or pkg.Symbol for the subpackages embedded in server.SourceFS: admit)`,
		}},
		{kind: "focus-not-found", want: []string{
			authn + `: step x509: focus "x509.NewDynamik" does not occur in anchor (*Server).Authn (server/server.go lines 9-19) — fix: copy the focus verbatim from that code, or drop focus: to show the whole symbol`,
		}},
		{kind: "upstream-not-found", want: []string{
			authn + `: step x509: upstream "k8s.io/apiserver/pkg/authentication/request/x509.NewDynamc" not found in k8s.io/apiserver at testdata/upstream — fix: did you mean "NewDynamic" in that package?`,
		}},
		{kind: "upstream-outside-module", want: []string{
			authn + `: step x509: upstream "k8s.io/client-go/rest.Config" does not resolve: its import path is not in k8s.io/apiserver or k8s.io/apimachinery or k8s.io/apiextensions-apiserver or k8s.io/kube-aggregator — fix: write an import path inside k8s.io/apiserver or k8s.io/apimachinery or k8s.io/apiextensions-apiserver or k8s.io/kube-aggregator, ".", and a func, a method as (*T).M or T.M, or a type declared there`,
		}},
		{kind: "upstream-apimachinery-not-found", want: []string{
			am + `: step typemeta: upstream "k8s.io/apimachinery/pkg/runtime.(*Scheme).AllKnownType" not found in k8s.io/apimachinery at testdata/apimachinery — fix: did you mean "(*Scheme).AllKnownTypes" in that package?`,
		}},
		{kind: "", upstreamDir: "-", want: []string{
			authn + `: step x509: cannot check upstream "k8s.io/apiserver/pkg/authentication/request/x509.NewDynamic": the k8s.io/apiserver source is not in the Go module cache — fix: run ` + "`go mod download k8s.io/apiserver`" + ` (the build does it), then check again`,
			am + `: step typemeta: cannot check upstream "k8s.io/apimachinery/pkg/runtime.(*Scheme).AllKnownTypes": the k8s.io/apimachinery source is not in the Go module cache — fix: run ` + "`go mod download k8s.io/apimachinery`" + ` (the build does it), then check again`,
		}},
		{kind: "track-and-phase", want: []string{
			am + `: lesson has both phase "serve" and track "after-serve" — fix: keep phase: for a startup lesson or track: for an after-serve lesson, not both`,
		}},
		{kind: "track-unknown", want: []string{
			am + `: track "after-start" is not a lesson track — fix: set track: to one of after-serve`,
		}},
		{kind: "track-file-name", drop: []string{am}, want: []string{
			`en/21-machinery.md: file name 21-machinery.md does not match the after-serve lesson apimachinery — fix: name the file 2N-apimachinery.md (2N: 21, 22, … in track order)`,
		}},
		{kind: "no-phase-no-track", want: []string{
			am + `: lesson has neither phase nor track — fix: set phase: to one of config, authn, authz, admission, storage, install, serve for a startup lesson, or track: after-serve for a lesson that reads the running server`,
		}},
		{kind: "track-checkpoint", want: []string{
			am + `: step scheme: step of the after-serve lesson names checkpoint authn/x509: its steps run once the server serves, after every checkpoint — fix: drop checkpoint: (checkpoints belong to the startup lessons)`,
		}},
		{kind: "live-unknown", want: []string{
			am + `: step typemeta: live probe "object-mta" is not a known probe — fix: did you mean "object-meta"?`,
		}},
		{kind: "live-in-startup-lesson", want: []string{
			authz + `: step rbac: live probe "object-meta" in a startup lesson: there the state pane shows what the checkpoint built — fix: drop live:, or move the step to an after-serve lesson (track: after-serve)`,
		}},
		{kind: "kube-form", want: []string{
			am + `: kube "pkg/kubeapiserver/authenticator/config.go": want a file and a symbol, like "pkg/controlplane/apiserver/config.go BuildGenericConfig" — fix: write a file of k8s.io/kubernetes and a func, a method as T.M or (*T).M, or a type declared in it, like "pkg/controlplane/apiserver/config.go BuildGenericConfig"`,
		}},
		{kind: "kube-not-found", want: []string{
			am + `: kube "pkg/kubeapiserver/authenticator/config.go Config.Nwe" not found in k8s.io/kubernetes v1.37.2 — fix: did you mean "Config.New" in that package?`,
		}},
		{kind: "kube-wrong-file", want: []string{
			am + `: kube "pkg/kubeapiserver/authenticator/config.go Other": Other is declared in pkg/kubeapiserver/authenticator/other.go, not in pkg/kubeapiserver/authenticator/config.go — fix: name the file it is declared in`,
		}},
		{kind: "zh-live-differs", want: []string{
			`zh-CN/21-apimachinery.md: step typemeta: live "scheme-gvks" differs from English "object-meta" in en/21-apimachinery.md — fix: metadata always comes from English: delete the field here or make it equal to English`,
		}},
		{kind: "duplicate-lesson-id", want: []string{
			authz + `: duplicate lesson id "authn", already used by en/02-authn.md — fix: give each lesson its own id`,
		}},
		{kind: "duplicate-step-id", want: []string{
			authn + `: step x509: duplicate step id "x509" — fix: give each step of the lesson its own id`,
		}},
		{kind: "empty-lesson-title", want: []string{
			authz + `: lesson has no title — fix: set title: in the front matter`,
		}},
		{kind: "empty-step-title", want: []string{
			authz + `: step rbac: step has no title — fix: set title: on the step`,
		}},
		{kind: "empty-text", want: []string{
			authz + `: step rbac: step has no text: no "## rbac" section, or it is empty — fix: write the step's text under a line "## rbac"`,
		}},
		{kind: "missing-anchor", want: []string{
			authz + `: step rbac: step has no anchor — fix: set anchor: to the func, method ((*T).M) or type in server/ the step explains`,
		}},
		{kind: "bad-step-id", want: []string{
			authz + `: step RBAC: step id "RBAC" is not lowercase words joined by dashes — fix: use an id like "x509" (it is also the ## heading)`,
		}},
		{kind: "bad-phase", want: []string{
			authz + `: phase "authorisation" is not a server phase — fix: set phase: to one of config, authn, authz, admission, storage, install, serve`,
			authz + `: step rbac: checkpoint authz/rbac belongs to phase authz, not to the lesson's phase authorisation — fix: move the step to the authz lesson`,
		}},
		{kind: "file-name", drop: []string{authz}, want: []string{
			`en/03-authorization.md: file name 03-authorization.md does not match the lesson's phase authz — fix: name the file NN-authz.md (NN: two digits that order the lessons)`,
		}},
		{kind: "wrong-checkpoint-phase", want: []string{
			authz + `: step rbac: checkpoint authn/token belongs to phase authn, not to the lesson's phase authz — fix: move the step to the authn lesson`,
			authz + `: step rbac: checkpoint authn/token is already covered by en/02-authn.md step token — fix: cover each checkpoint with exactly one step`,
			authz + `: server checkpoint authz/rbac (RBAC authorizer) is covered by no step — fix: add a step with checkpoint: authz/rbac`,
		}},
		{kind: "duplicate-checkpoint", want: []string{
			authn + `: step token: checkpoint authn/x509 is already covered by en/02-authn.md step x509 — fix: cover each checkpoint with exactly one step`,
			authn + `: server checkpoint authn/token (token authenticator) is covered by no step — fix: add a step with checkpoint: authn/token`,
		}},
		{kind: "step-order", want: []string{
			authn + `: step x509: step comes after step token, but the server reaches its checkpoint authn/x509 before authn/token — fix: order the steps as the server reaches their checkpoints`,
		}},
		{kind: "preamble", want: []string{
			authz + `: text before the first "## <step id>" section is never shown — fix: move it into a step's section or delete it (the lesson title comes from the front matter)`,
		}},
		{kind: "stray-heading", want: []string{
			authn + `: step x509: line 24: heading "## tokn" names no step in the front matter; its text belongs to step "x509" — fix: rename the heading to a step id from the front matter, or make it a "###" sub-heading`,
		}},
		{kind: "duplicate-section", want: []string{
			authz + `: step rbac: line 15: second "## rbac" section; the first one's text is lost — fix: merge the two sections into one`,
		}},
		{kind: "unknown-field", contains: true, want: []string{
			authz + `: front matter: `, `unknown field "anchr"`,
		}},
		{kind: "no-front-matter", want: []string{
			authz + `: no front matter: the file must start with a line "---", the YAML metadata, and a closing line "---" — fix: add the front matter (id, phase or track, title, steps) between two "---" lines at the top`,
		}},
		{kind: "zh-unknown-step", want: []string{
			zh + `: step x590: step "x590" is not in the English lesson en/02-authn.md — fix: use the English step ids (translate titles and texts, never ids), or add the step to English first`,
		}},
		{kind: "zh-orphan", want: []string{
			`zh-CN/09-extra.md: translates no English lesson: en/09-extra.md does not exist — fix: name the file exactly like the English lesson it translates, or delete it`,
		}},
		{kind: "zh-metadata-differs", want: []string{
			zh + `: step x509: anchor "New" differs from English "(*Server).Authn" in en/02-authn.md — fix: metadata always comes from English: delete the field here or make it equal to English`,
		}},
		{kind: "zh-lesson-id-differs", want: []string{
			zh + `: lesson id "authentication" differs from English "authn" in en/02-authn.md — fix: metadata always comes from English: delete the field here or make it equal to English`,
		}},
	}
	for _, tt := range tests {
		name := tt.kind
		if name == "" {
			name = "good"
		}
		if len(tt.drop) > 0 {
			name += "-without-" + path.Base(tt.drop[0])
		}
		if tt.upstreamDir == "-" {
			name += "-no-upstream"
		}
		t.Run(name, func(t *testing.T) {
			src := fixtureSources()
			if tt.upstreamDir == "-" {
				src.Upstream = nil
			}
			problems := CheckContent(fixtureContent(t, tt.kind, tt.drop...), fixtureKnown, src)
			var got []string
			for _, p := range problems {
				got = append(got, p.Error())
			}
			if tt.contains {
				all := strings.Join(got, "\n")
				for _, w := range tt.want {
					if !strings.Contains(all, w) {
						t.Errorf("problems do not mention %q; got:\n%s", w, all)
					}
				}
				if len(got) != 1 {
					t.Errorf("got %d problems, want 1:\n%s", len(got), all)
				}
				return
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestCheckEveryBrokenKindIsTested(t *testing.T) {
	entries, err := os.ReadDir("testdata/broken")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("check_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.Contains(string(src), `kind: "`+e.Name()+`"`) {
			t.Errorf("testdata/broken/%s has no case in TestCheckContent", e.Name())
		}
	}
}

func TestProblemError(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "en/02-authn.md", Step: "x509", Msg: "m", Fix: "f"}, "en/02-authn.md: step x509: m — fix: f"},
		{Problem{File: "en/02-authn.md", Msg: "m", Fix: "f"}, "en/02-authn.md: m — fix: f"},
		{Problem{Msg: "m"}, "m"},
	}
	for _, tt := range tests {
		if got := tt.p.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestCheckContentLanguages(t *testing.T) {
	content := fixtureContent(t, "zh-orphan")
	src := fixtureSources()
	if ps := CheckContent(content, fixtureKnown, src, "en"); len(ps) != 0 {
		t.Errorf("English only: %v", Problems(ps))
	}
	if ps := CheckContent(content, fixtureKnown, src, "zh-CN"); len(ps) != 1 {
		t.Errorf("zh-CN: got %d problems, want the orphan: %v", len(ps), Problems(ps))
	}
	if ps := CheckContent(fstest.MapFS{}, fixtureKnown, src); len(ps) != 1 || !strings.Contains(ps[0].Msg, "no lessons in language \"en\"") {
		t.Errorf("empty content: %v", Problems(ps))
	}
}

func TestCheckTakesLessonsBuiltByHand(t *testing.T) {
	ls := []Lesson{{ID: "authn", Phase: "authn", Title: "A", File: "en/02-authn.md", Steps: []Step{
		{ID: "x509", Checkpoint: "authn/x509", Title: "X", Anchor: "New", Text: "t"},
		{ID: "token", Checkpoint: "authn/token", Title: "T", Anchor: "(*Server).Authn", Focus: "tokenfile", Text: "t"},
	}}}
	got := Check(ls, Known{Checkpoints: fixtureCheckpoints[:2]}, Sources{Ours: os.DirFS(fixtureSource)})
	if len(got) != 0 {
		t.Errorf("Check() = %v", Problems(got))
	}
}
