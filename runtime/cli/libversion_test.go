package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/server"
)

// TestInProcessKubectlVersion runs `kubectl version -o json` in-process against a live server,
// as `:k version -o json` does: it exits 0, the client is v1.37.2 (k8s.io/kubectl v0.37.2), the
// server v1.37.2+kubewalk, and no field holds a build placeholder; the requests it sent carry a
// User-Agent with the same version.
func TestInProcessKubectlVersion(t *testing.T) {
	stampLibraryVersions()
	s, tt := liveServer(t)
	r, err := kubectl.New(kubectl.Options{Kubeconfig: s.Kubeconfig()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	res, err := r.Run(ctx, []string{"version", "-o", "json"}, &out)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("kubectl version -o json: exit %d, %v\n%s", res.ExitCode, err, out.String())
	}
	if strings.Contains(out.String(), "$Format") || strings.Contains(out.String(), "1970-01-01") {
		t.Errorf("a build placeholder in the output:\n%s", out.String())
	}
	var v struct {
		Client struct{ GitVersion, Major, Minor, GitCommit, BuildDate string } `json:"clientVersion"`
		Server struct{ GitVersion string }                                     `json:"serverVersion"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if v.Client.GitVersion != "v1.37.2" || v.Client.Major != "1" || v.Client.Minor != "37" {
		t.Errorf("client version %+v, want v1.37.2 (1.37)", v.Client)
	}
	if v.Client.GitCommit != "unknown" {
		t.Errorf("client gitCommit %q: Kubernetes' commit is recorded nowhere, so unknown", v.Client.GitCommit)
	}
	if v.Server.GitVersion != "v1.37.2+kubewalk" {
		t.Errorf("server version %q", v.Server.GitVersion)
	}
	ids := res.AuditIDs()
	if len(ids) == 0 {
		t.Fatal("kubectl version sent no request")
	}
	tr, ok := tt.Store.WaitDone(ctx, ids[len(ids)-1])
	if !ok {
		t.Fatalf("no trace for %s", ids[len(ids)-1])
	}
	if !strings.Contains(tr.UserAgent, "/v1.37.2 (") || !strings.HasSuffix(tr.UserAgent, " kubernetes/unknown") {
		t.Errorf("User-Agent %q, want <program>/v1.37.2 (os/arch) kubernetes/unknown", tr.UserAgent)
	}
	if ua := rest.DefaultKubernetesUserAgent(); strings.Contains(ua, "$Format") || strings.Contains(ua, "v0.0.0") {
		t.Errorf("client-go's default User-Agent %q", ua)
	}
}

func TestLibraryStamp(t *testing.T) {
	tests := []struct {
		name    string
		kubectl string
		vcsTime string
		want    stamp
	}{
		{"go run", "v0.37.2", "", stamp{"1", "37", "v1.37.2", "unknown", "unknown", "unknown"}},
		{"go build from a checkout", "v0.37.2", "2026-01-02T03:04:05Z", stamp{"1", "37", "v1.37.2", "unknown", "unknown", "2026-01-02T03:04:05Z"}},
		{"no kubectl module recorded", "", "", stamp{"1", "37", "v" + server.KubernetesVersion, "unknown", "unknown", "unknown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := &debug.BuildInfo{}
			if tt.kubectl != "" {
				info.Deps = []*debug.Module{{Path: "k8s.io/kubectl", Version: tt.kubectl}}
			}
			if tt.vcsTime != "" {
				info.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.time", Value: tt.vcsTime}}
			}
			if got := libraryStamp(server.BuildFrom(info)); got != tt.want {
				t.Errorf("libraryStamp = %+v, want %+v", got, tt.want)
			}
		})
	}
}
