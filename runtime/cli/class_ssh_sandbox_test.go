package cli

import (
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/sandbox"
	"github.com/kubewalk/kubewalk/runtime/sshclass"
)

// TestSandboxLines: the class ssh banner says which layers confine the tours, what auto mode
// goes without on a kernel that lacks it, that --sandbox off is off, and who the tours run as.
func TestSandboxLines(t *testing.T) {
	full := sandbox.Support{OS: true, LandlockABI: 7, Seccomp: true}
	for _, tt := range []struct {
		name string
		info sshclass.SandboxInfo
		root bool
		want []string
	}{
		{"everything", sshclass.SandboxInfo{Mode: sandbox.Auto, Support: full, Layers: sshclass.AllLayers(), Landlock: true, Seccomp: true, RunAs: "nobody", ModCache: "/root/go/pkg/mod"}, true,
			[]string{"  sandbox     kubectl guard, no programs (seccomp), own files and ports (Landlock ABI 7)",
				"  run as      every tour runs as nobody (--run-as), with no supplementary group",
				"  source      the tours read the Go module cache /root/go/pkg/mod (u, s)"}},
		{"old kernel", sshclass.SandboxInfo{Mode: sandbox.Auto, Support: sandbox.Support{OS: true, LandlockABI: 3, Seccomp: true}, Layers: sshclass.AllLayers(),
			Landlock: true, Seccomp: true, Missing: "Landlock network rules (ABI 3 < 4)"}, false,
			[]string{"  sandbox     kubectl guard, no programs (seccomp), own files (Landlock ABI 3)",
				"              --sandbox auto: this kernel has no Landlock network rules (ABI 3 < 4); the tours run without it (--sandbox require refuses to start then)"}},
		{"off as root without run-as", sshclass.SandboxInfo{Mode: sandbox.Off, Support: full, Layers: sshclass.AllLayers()}, true,
			[]string{"  sandbox     kubectl guard, no editor or exec plugin",
				"              --sandbox off: no Landlock, no seccomp",
				"  run as      root: every tour runs as root",
				"  source      no Go module cache found"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(sandboxLines(tt.info, tt.root), "\n")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("lines lack %q:\n%s", w, got)
				}
			}
		})
	}
}
