package lessons

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestResolveLocal(t *testing.T) {
	tests := []struct {
		anchor, focus          string
		wantFile               string
		wantStart, wantEnd     int
		wantFocusS, wantFocusE int
		wantErr                string
	}{
		{anchor: "(*Server).Authn", wantFile: "server.go", wantStart: 9, wantEnd: 19, wantFocusS: 9, wantFocusE: 19},
		{anchor: "Server.Authn", focus: "x509.NewDynamic", wantFile: "server.go", wantStart: 9, wantEnd: 19, wantFocusS: 12, wantFocusE: 12},
		{anchor: "(Server).Authn", focus: "tokenfile.New(\n\t\tnil,", wantFile: "server.go", wantStart: 9, wantEnd: 19, wantFocusS: 14, wantFocusE: 15},
		{anchor: "(*Server).Authn", focus: "builds the authenticators", wantFile: "server.go", wantStart: 9, wantEnd: 19, wantFocusS: 9, wantFocusE: 9},
		{anchor: "(*Server).Name", wantFile: "server.go", wantStart: 21, wantEnd: 22, wantFocusS: 21, wantFocusE: 22},
		{anchor: "New", wantFile: "server.go", wantStart: 24, wantEnd: 25, wantFocusS: 24, wantFocusE: 25},
		{anchor: "Server", wantFile: "server.go", wantStart: 6, wantEnd: 7, wantFocusS: 6, wantFocusE: 7},
		{anchor: "Hook", wantFile: "server.go", wantStart: 30, wantEnd: 31, wantFocusS: 30, wantFocusE: 31},
		{anchor: "defaultPort", wantFile: "server.go", wantStart: 34, wantEnd: 35, wantFocusS: 34, wantFocusE: 35},
		{anchor: "(*List).Len", wantFile: "server.go", wantStart: 40, wantEnd: 41, wantFocusS: 40, wantFocusE: 41},
		{anchor: "admit.(*CreatedBy).Admit", focus: "return nil", wantFile: "admit/createdby.go", wantStart: 7, wantEnd: 10, wantFocusS: 9, wantFocusE: 9},
		{anchor: "admit.CreatedBy", wantFile: "admit/createdby.go", wantStart: 4, wantEnd: 5, wantFocusS: 4, wantFocusE: 5},
		{anchor: "(*Server).Authnx", wantErr: `anchor "(*Server).Authnx": (*Server).Authnx is not declared in the package's source (did you mean "(*Server).Authn"?)`},
		{anchor: "(*Client).Authn", wantErr: `(did you mean "(*Server).Authn"?)`},
		{anchor: "admit.(*CreatedBy).Admitt", wantErr: `(*CreatedBy).Admitt is not declared in admit/ (did you mean "(*CreatedBy).Admit"?)`},
		{anchor: "TestOnly", wantErr: `TestOnly is not declared`},
		{anchor: "(*Server).Authn", focus: "nope", wantErr: `focus "nope" does not occur in lines 9-19 of server.go`},
		{anchor: "(*Server.Authn", wantErr: `is not a symbol`},
		{anchor: "", wantErr: `is not a symbol`},
		{anchor: "a.b.c", wantErr: `no package directory a/`},
		{anchor: "9lives", wantErr: `is not a symbol`},
		{anchor: "rbac.(*Authorizer).Authorize", wantErr: `no package directory rbac/ in the source to look up (*Authorizer).Authorize in`},
	}
	src := os.DirFS(fixtureSource)
	for _, tt := range tests {
		t.Run(tt.anchor+"@"+tt.focus, func(t *testing.T) {
			loc, err := ResolveLocal(src, tt.anchor, tt.focus)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if loc.File != tt.wantFile || loc.StartLine != tt.wantStart || loc.EndLine != tt.wantEnd ||
				loc.FocusStart != tt.wantFocusS || loc.FocusEnd != tt.wantFocusE {
				t.Errorf("got %s %d-%d focus %d-%d, want %s %d-%d focus %d-%d", loc.File, loc.StartLine, loc.EndLine,
					loc.FocusStart, loc.FocusEnd, tt.wantFile, tt.wantStart, tt.wantEnd, tt.wantFocusS, tt.wantFocusE)
			}
			want, _ := fs.ReadFile(src, tt.wantFile)
			if string(loc.Source) != string(want) {
				t.Errorf("Source is not the whole of %s", tt.wantFile)
			}
		})
	}
}

func TestResolverCachesParsedPackages(t *testing.T) {
	r := NewResolver()
	src := os.DirFS(fixtureSource)
	for _, a := range []string{"New", "(*Server).Authn", "admit.CreatedBy", "New"} {
		if _, err := r.Local(src, a, ""); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.pkgs) != 2 {
		t.Errorf("cached %d packages, want 2 (server and admit)", len(r.pkgs))
	}
	first := r.pkgs[pkgKey{fsys: src, dir: "."}]
	if _, err := r.Local(os.DirFS(fixtureSource), "Server", ""); err != nil {
		t.Fatal(err)
	}
	if again := r.pkgs[pkgKey{fsys: src, dir: "."}]; len(again) == 0 || again[0] != first[0] {
		t.Error("the package was parsed again")
	}
	loc, _ := r.Local(src, "New", "")
	loc.Source[0] = 'X'
	if loc2, _ := r.Local(src, "New", ""); loc2.Source[0] == 'X' {
		t.Error("Location.Source aliases the cache")
	}

	// A non-comparable fs.FS is resolved without caching.
	m := fstest.MapFS{"a.go": {Data: []byte("package a\n\nfunc F() {}\n")}}
	if _, err := r.Local(m, "F", ""); err != nil {
		t.Fatal(err)
	}
	if len(r.pkgs) != 2 {
		t.Errorf("cached %d packages, want 2", len(r.pkgs))
	}
}

func TestResolveUpstreamFixture(t *testing.T) {
	tests := []struct {
		symbol    string
		wantFile  string
		wantStart int
		wantErr   string
	}{
		{symbol: "k8s.io/apiserver/pkg/authentication/request/x509.NewDynamic", wantFile: "pkg/authentication/request/x509/x509.go", wantStart: 7},
		{symbol: "k8s.io/apiserver/pkg/authentication/request/x509.(*Authenticator).AuthenticateRequest", wantFile: "pkg/authentication/request/x509/x509.go", wantStart: 12},
		{symbol: "k8s.io/apiserver/pkg/authentication/request/x509.Authenticator", wantFile: "pkg/authentication/request/x509/x509.go", wantStart: 4},
		{symbol: "k8s.io/apiserver/pkg/authentication/request/x509.NewDynamc", wantErr: `did you mean "NewDynamic"?`},
		{symbol: "k8s.io/apiserver/pkg/nothere.New", wantErr: "read package directory pkg/nothere"},
		{symbol: "k8s.io/apimachinery/pkg/util/sets.New", wantErr: "is not in module k8s.io/apiserver"},
		{symbol: "NewDynamic", wantErr: "want an import path"},
		{symbol: "k8s.io/apiserver/pkg/server.", wantErr: "no symbol after the import path"},
	}
	for _, tt := range tests {
		t.Run(tt.symbol, func(t *testing.T) {
			loc, err := ResolveUpstream(fixtureUpstream, tt.symbol)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if loc.File != tt.wantFile || loc.StartLine != tt.wantStart {
				t.Errorf("got %s:%d, want %s:%d", loc.File, loc.StartLine, tt.wantFile, tt.wantStart)
			}
		})
	}
}

// TestUpstreamModuleDir resolves a real symbol in the pinned k8s.io/apiserver, which the
// module cache holds once the module has been built.
func TestUpstreamModuleDir(t *testing.T) {
	dir, version, err := UpstreamModuleDir()
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := goModRequire(gomod, UpstreamModule); version != want {
		t.Errorf("version = %s, go.mod requires %s", version, want)
	}
	if !strings.HasSuffix(filepath.ToSlash(dir), "/k8s.io/apiserver@"+version) {
		t.Errorf("dir = %s", dir)
	}
	loc, err := ResolveUpstream(dir, "k8s.io/apiserver/pkg/server.(*GenericAPIServer).PrepareRun")
	if err != nil {
		t.Fatal(err)
	}
	if loc.File != "pkg/server/genericapiserver.go" || !strings.Contains(lines(loc), "func (s *GenericAPIServer) PrepareRun(") {
		t.Errorf("PrepareRun resolved to %s:%d-%d", loc.File, loc.StartLine, loc.EndLine)
	}
}

// lines returns the source lines of loc.
func lines(loc Location) string {
	all := strings.Split(string(loc.Source), "\n")
	return strings.Join(all[loc.StartLine-1:loc.EndLine], "\n")
}

func TestGoModRequire(t *testing.T) {
	tests := []struct {
		gomod, want string
		ok          bool
	}{
		{"module x\n\nrequire (\n\tk8s.io/api v0.1.0\n\tk8s.io/apiserver v0.37.2 // indirect\n)\n", "v0.37.2", true},
		{"module x\nrequire k8s.io/apiserver v0.30.0\n", "v0.30.0", true},
		{"module x\nreplace k8s.io/apiserver v0.1.0 => ../apiserver\n", "", false},
		{"module x\n// require k8s.io/apiserver v1\n", "", false},
	}
	for _, tt := range tests {
		got, ok := goModRequire([]byte(tt.gomod), UpstreamModule)
		if got != tt.want || ok != tt.ok {
			t.Errorf("goModRequire(%q) = %q, %v; want %q, %v", tt.gomod, got, ok, tt.want, tt.ok)
		}
	}
}

func TestModuleCache(t *testing.T) {
	failing := func() (string, error) { return "", errors.New("no go") }
	mustNotRun := func() (string, error) {
		t.Error("go env was run although GOMODCACHE is set")
		return "/go-env", nil
	}
	home := func() (string, error) { return "/home/u", nil }
	tests := []struct {
		name  string
		goEnv func() (string, error)
		env   map[string]string
		want  string
	}{
		{"GOMODCACHE, without asking go", mustNotRun, map[string]string{"GOMODCACHE": "/env", "GOPATH": "/gp"}, "/env"},
		{"go env", func() (string, error) { return "/cache", nil }, map[string]string{"GOPATH": "/gp"}, "/cache"},
		{"GOPATH", failing, map[string]string{"GOPATH": "/gp" + string(filepath.ListSeparator) + "/other"}, filepath.Join("/gp", "pkg", "mod")},
		{"home", failing, nil, filepath.Join("/home/u", "go", "pkg", "mod")},
	}
	for _, tt := range tests {
		got := moduleCache(tt.goEnv, func(k string) string { return tt.env[k] }, home)
		if got != tt.want {
			t.Errorf("%s: moduleCache() = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got, want := moduleDir("/c", "github.com/BurntSushi/toml", "v1.0.0"), filepath.Join("/c", "github.com/!burnt!sushi/toml@v1.0.0"); got != want {
		t.Errorf("moduleDir() = %q, want %q", got, want)
	}
}

func TestResolverConcurrent(t *testing.T) {
	r := NewResolver()
	src := os.DirFS(fixtureSource)
	done := make(chan error)
	for i := 0; i < 8; i++ {
		go func() {
			_, err := r.Local(src, "admit.(*CreatedBy).Admit", "")
			if err == nil {
				_, err = r.Upstream(fixtureUpstream, "k8s.io/apiserver/pkg/authentication/request/x509.NewDynamic")
			}
			done <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
