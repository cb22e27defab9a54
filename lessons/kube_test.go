package lessons

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// kubeSource returns the k8s.io/kubernetes KubeVersion source directory, downloading the module
// into the module cache when it is not there yet (go test already needs the module proxy on a
// fresh machine, for kubewalk's own dependencies). It skips the test, saying why, only when the
// download itself fails: then no kube: location can be checked.
func kubeSource(t *testing.T) string {
	t.Helper()
	if dir, err := KubeModuleDir(); err == nil {
		return dir
	}
	t.Logf("%s %s is not in the module cache; downloading it (about %s)", KubeModule, KubeVersion, KubeDownloadSize)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir, err := FetchModule(ctx, KubeModule, KubeVersion, nil)
	if err != nil {
		t.Skipf("cannot check kube: locations: %v", err)
	}
	return dir
}

// TestKubeResolves resolves kube: locations of every form in the real k8s.io/kubernetes
// source, and reports the two ways one can be wrong.
func TestKubeResolves(t *testing.T) {
	dir := kubeSource(t)
	res := NewResolver()
	tests := []struct {
		loc, wantErr, wantLine string
	}{
		{loc: "pkg/controlplane/apiserver/config.go BuildGenericConfig", wantLine: "func BuildGenericConfig("},
		{loc: "cmd/kube-apiserver/app/server.go CreateServerChain", wantLine: "func CreateServerChain("},
		{loc: "pkg/controlplane/apiserver/apis.go (*Server).InstallAPIs", wantLine: "func (s *Server) InstallAPIs("},
		{loc: "pkg/controlplane/instance.go CompletedConfig.New", wantLine: "func (c CompletedConfig) New("},
		{loc: "pkg/controlplane/apiserver/config.go BuildGenericConfg", wantErr: `did you mean "BuildGenericConfig"`},
		{loc: "pkg/controlplane/apiserver/server.go BuildGenericConfig", wantErr: "is declared in pkg/controlplane/apiserver/config.go"},
	}
	for _, tt := range tests {
		loc, err := res.Kube(dir, tt.loc)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Kube(%q) error = %v, want %q", tt.loc, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Kube(%q): %v", tt.loc, err)
			continue
		}
		if got := lines(loc); !strings.Contains(got, tt.wantLine) {
			t.Errorf("Kube(%q) resolved to %s:%d-%d, which lacks %q", tt.loc, loc.File, loc.StartLine, loc.EndLine, tt.wantLine)
		}
	}
}

func TestParseKube(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{in: "pkg/controlplane/instance.go CompletedConfig.New"},
		{in: "pkg/controlplane/instance.go", wantErr: "want a file and a symbol"},
		{in: "/pkg/controlplane/instance.go New", wantErr: "not a Go file path"},
		{in: "../x.go New", wantErr: "not a Go file path"},
		{in: "pkg/controlplane/README.md New", wantErr: "not a Go file path"},
		{in: "staging/src/k8s.io/apiserver/pkg/server/config.go NewConfig", wantErr: "staging module"},
	}
	for _, tt := range tests {
		_, err := ParseKube(tt.in)
		if (err != nil) != (tt.wantErr != "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("ParseKube(%q) error = %v, want %q", tt.in, err, tt.wantErr)
		}
	}
}

// TestFetchModuleOffline asks the go command for a version that does not exist with the
// proxy off: FetchModule must fail with a message naming the manual command, not hang.
func TestFetchModuleOffline(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := FetchModule(ctx, KubeModule, "v1.0.0-kubewalk-absent", func(int64) {})
	if err == nil || !errors.Is(err, errFetch) || !strings.Contains(err.Error(), "go mod download k8s.io/kubernetes@v1.0.0-kubewalk-absent") {
		t.Errorf("FetchModule offline error = %v", err)
	}
}
