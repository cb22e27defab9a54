package main_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEnvFindsTheRunningServer: `kubewalk env` in another terminal says when no kubewalk runs,
// and once `kubewalk serve` is ready prints the export line for its kubeconfig, which the real
// kubectl uses through eval "$(kubewalk env)"; after the run stops it says so again. Chinese
// too.
func TestEnvFindsTheRunningServer(t *testing.T) {
	requireKubectl(t)
	sb := newSandbox(t)
	env := func(lang string) (string, int) {
		t.Helper()
		cmd := exec.Command(binary, "env", "--lang", lang)
		cmd.Env = sb.env()
		out, err := cmd.CombinedOutput()
		return string(out), exitStatus(err)
	}
	if out, code := env("en"); code != 1 || !strings.Contains(out, "no kubewalk is running: there is no kubeconfig at "+filepath.Join(sb.runtime, "kubewalk", "kubeconfig")) {
		t.Errorf("before any run: exit %d\n%s", code, out)
	}
	if out, code := env("zh-CN"); code != 1 || !strings.Contains(out, "没有正在运行的 kubewalk") {
		t.Errorf("before any run, in Chinese: exit %d\n%s", code, out)
	}

	r := startRun(t, sb, nil, "serve", "--log-file", sb.log)
	r.waitOutput(t, "API server ready at", 2*time.Minute)
	out, code := env("en")
	kc := filepath.Join(sb.runtime, "kubewalk", "kubeconfig")
	if code != 0 || !strings.HasPrefix(out, "export KUBECONFIG="+kc+"\n") ||
		!regexp.MustCompile(`\n# kubewalk \(pid \d+\) serves https://127\.0\.0\.1:\d+; `).MatchString(out) {
		t.Fatalf("while serving: exit %d\n%s", code, out)
	}
	for _, script := range []string{`eval "$(kubewalk env)"; kubectl get ns default -o name`, `eval $(kubewalk env); kubectl get ns default -o name`} {
		sh := exec.Command("sh", "-c", script)
		sh.Env = append(sb.env(), "PATH="+filepath.Dir(binary)+":"+pathEnv())
		got, err := sh.CombinedOutput()
		if err != nil || strings.TrimSpace(string(got)) != "namespace/default" {
			t.Errorf("%s: %v\n%s", script, err, got)
		}
	}

	r.cmd.Process.Signal(syscall.SIGTERM)
	if code, _ := r.wait(t, time.Minute); code != 0 {
		t.Errorf("serve exit %d:\n%s", code, r.out)
	}
	if out, code := env("en"); code != 1 || !strings.Contains(out, "no kubewalk is running") {
		t.Errorf("after the run: exit %d\n%s", code, out)
	}
	sb.assertNothingLeft(t)
}

// pathEnv is the test's PATH (kubectl is on it).
func pathEnv() string {
	p, _ := exec.LookPath("kubectl")
	return filepath.Dir(p) + ":/usr/bin:/bin"
}
