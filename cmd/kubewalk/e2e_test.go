package main_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binary is the kubewalk binary built once for all end-to-end tests, with the kubewalk_e2e tag:
// that adds runtime/cli's test-only triggers (a panic, a hung shutdown), inert unless their
// environment variables are set.
var binary string

func TestMain(m *testing.M) {
	// These tests read kubewalk's English output: run kubewalk in an English locale, whatever
	// the machine's (kubewalk follows LANGUAGE, LC_ALL, LC_MESSAGES and LANG).
	for _, k := range []string{"LANGUAGE", "LC_ALL", "LC_MESSAGES"} {
		os.Unsetenv(k)
	}
	os.Setenv("LANG", "C.UTF-8")
	dir, err := os.MkdirTemp("", "kubewalk-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "kubewalk")
	build := exec.Command("go", "build", "-tags", "kubewalk_e2e", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build kubewalk:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// requireKubectl fails (never skips) when kubectl is missing: CI must run these tests.
func requireKubectl(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is not on PATH; the end-to-end tests need the real kubectl: %v", err)
	}
	return path
}

// served is a running `kubewalk serve`.
type served struct {
	cmd        *exec.Cmd
	kubeconfig string
	addr       string
	workDir    string
	out        *syncBuffer
	done       chan error
}

// syncBuffer is a bytes.Buffer safe for a writer goroutine and test readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var readyLine = regexp.MustCompile(`API server ready at (https://\S+)`)

// startServe runs the binary's serve command and waits until it prints that it is ready.
func startServe(t *testing.T, extra ...string) *served {
	t.Helper()
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	args := append([]string{"serve", "--kubeconfig", kc, "--log-file", filepath.Join(dir, "kubewalk.log")}, extra...)
	cmd := exec.Command(binary, args...)
	pr, pw := io.Pipe()
	out := &syncBuffer{}
	cmd.Stdout = io.MultiWriter(out, pw)
	cmd.Stderr = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{cmd: cmd, kubeconfig: kc, out: out, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait(); pw.Close() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-s.done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
			}
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := readyLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case addr := <-found:
		s.addr = strings.TrimPrefix(addr, "https://")
	case err := <-s.done:
		t.Fatalf("kubewalk serve exited before ready: %v\n%s", err, out)
	case <-time.After(2 * time.Minute):
		t.Fatalf("kubewalk serve not ready:\n%s", out)
	}
	return s
}

// kubectl runs kubectl against the served kubeconfig and returns combined output.
func (s *served) kubectl(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	return s.kubectlEnv(t, stdin, false, "", args...)
}

// TestKubectl runs the real kubectl through the command list the README promises.
func TestKubectl(t *testing.T) {
	requireKubectl(t)
	s := startServe(t)
	editor := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/edited: \"no\"/edited: \"yes\"/' \"$1\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	manifest := `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
data:
  color: blue
  edited: "no"
`
	pod := `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: web
    image: nginx:1.27
`
	steps := []struct {
		name    string
		stdin   string
		args    []string
		want    []string // substrings of the output
		wantErr bool
	}{
		{"get ns", "", []string{"get", "ns"}, []string{"default", "kube-system", "kube-public", "Active"}, false},
		{"create configmap", "", []string{"--context", "alice", "create", "configmap", "demo", "--from-literal=greeting=hello"}, []string{"configmap/demo created"}, false},
		{"get cm -o yaml", "", []string{"get", "cm", "demo", "-o", "yaml"}, []string{"greeting: hello", "kubewalk.io/created-by: alice"}, false},
		{"create it again", "", []string{"--context", "alice", "create", "configmap", "demo", "--from-literal=greeting=hello"}, []string{`configmaps "demo" already exists`}, true},
		{"get cm table", "", []string{"get", "cm"}, []string{"NAME", "DATA", "AGE", "demo"}, false},
		{"apply -f", manifest, []string{"apply", "-f", "-"}, []string{"configmap/applied created"}, false},
		{"diff", strings.Replace(manifest, "blue", "green", 1), []string{"diff", "-f", "-"}, []string{"-  color: blue", "+  color: green"}, true /* diff exits 1 when different */},
		{"apply --server-side", strings.Replace(manifest, "blue", "green", 1), []string{"apply", "--server-side", "--force-conflicts", "-f", "-"}, []string{"configmap/applied serverside-applied"}, false},
		{"explain", "", []string{"explain", "configmap.data"}, []string{"FIELD: data", "map[string]string"}, false},
		{"edit", "", []string{"edit", "configmap", "applied"}, []string{"configmap/applied edited"}, false},
		{"edited value", "", []string{"get", "cm", "applied", "-o", "jsonpath={.data.edited}"}, []string{"yes"}, false},
		{"label", "", []string{"label", "configmap", "demo", "tier=backend"}, []string{"configmap/demo labeled"}, false},
		{"label selector", "", []string{"get", "cm", "-l", "tier=backend", "-o", "name"}, []string{"configmap/demo"}, false},
		{"create pod", pod, []string{"apply", "-f", "-"}, []string{"pod/web created"}, false},
		{"patch status", "", []string{"patch", "pod", "web", "--subresource=status", "--type=merge", "-p", `{"status":{"phase":"Running"}}`}, []string{"pod/web patched"}, false},
		{"get pod", "", []string{"get", "pod", "web"}, []string{"NAME", "READY", "STATUS", "Running"}, false},
		{"describe pod", "", []string{"describe", "pod", "web"}, []string{"Name:", "web", "Image:", "nginx:1.27", "Events:"}, false},
		{"latest refused", strings.Replace(pod, "nginx:1.27", "nginx:latest", 1), []string{"apply", "-f", "-"}, []string{"kubewalk.io/PinnedImages"}, true},
		{"invalid object", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n", []string{"apply", "-f", "-"}, []string{"Invalid", "metadata.name"}, true},
		{"malformed yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: [\n", []string{"apply", "-f", "-"}, []string{"error"}, true},
		{"api-resources", "", []string{"api-resources"}, []string{"configmaps", "cm", "pods", "po", "rolebindings", "selfsubjectreviews"}, false},
		{"api-versions", "", []string{"api-versions"}, []string{"v1", "rbac.authorization.k8s.io/v1", "authorization.k8s.io/v1", "authentication.k8s.io/v1"}, false},
		{"auth whoami", "", []string{"auth", "whoami"}, []string{"kubewalk-admin", "system:masters"}, false},
		{"whoami alice", "", []string{"--context", "alice", "auth", "whoami"}, []string{"alice", "system:authenticated"}, false},
		{"can-i alice yes", "", []string{"--context", "alice", "auth", "can-i", "create", "configmaps"}, []string{"yes"}, false},
		{"can-i alice no", "", []string{"--context", "alice", "auth", "can-i", "get", "secrets"}, []string{"no"}, true},
		{"can-i --list", "", []string{"--context", "alice", "auth", "can-i", "--list"}, []string{"configmaps", "selfsubjectaccessreviews.authorization.k8s.io"}, false},
		{"can-i --as", "", []string{"auth", "can-i", "list", "configmaps", "--as", "bob"}, []string{"no"}, true},
		{"bob forbidden", "", []string{"--context", "bob", "get", "cm"}, []string{"Forbidden", `User "bob" cannot list resource "configmaps"`}, true},
		{"create rolebinding", "", []string{"create", "rolebinding", "bob-cm", "--role=configmap-editor", "--user=bob"}, []string{"rolebinding.rbac.authorization.k8s.io/bob-cm created"}, false},
		{"get rolebinding", "", []string{"get", "rolebinding", "bob-cm", "-o", "wide"}, []string{"Role/configmap-editor", "bob"}, false},
		{"delete", "", []string{"delete", "configmap", "demo"}, []string{`configmap "demo" deleted`}, false},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			args := st.args
			out, err := s.kubectlEnv(t, st.stdin, st.name == "edit", editor, args...)
			if (err != nil) != st.wantErr {
				t.Fatalf("kubectl %s: err = %v, want error %v\n%s", strings.Join(args, " "), err, st.wantErr, out)
			}
			for _, w := range st.want {
				if !strings.Contains(out, w) {
					t.Fatalf("kubectl %s: output lacks %q:\n%s", strings.Join(args, " "), w, out)
				}
			}
		})
	}

	t.Run("rbac change takes effect", func(t *testing.T) {
		// bob-cm was created above; the authorizer sees it through its informer within moments.
		deadline := time.Now().Add(10 * time.Second)
		for {
			out, err := s.kubectl(t, "", "--context", "bob", "get", "cm", "applied", "-o", "name")
			if err == nil && strings.Contains(out, "configmap/applied") {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("bob still denied after the rolebinding: %v\n%s", err, out)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("get -w", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w := exec.CommandContext(ctx, "kubectl", "--kubeconfig", s.kubeconfig, "get", "cm", "-w", "--output-watch-events")
		buf := &syncBuffer{}
		w.Stdout, w.Stderr = buf, buf
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cancel(); w.Wait() }()
		time.Sleep(500 * time.Millisecond)
		if out, err := s.kubectl(t, "", "create", "configmap", "watched"); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(buf.String(), "ADDED") || !strings.Contains(buf.String(), "watched") {
			if time.Now().After(deadline) {
				t.Fatalf("watch did not show the new configmap:\n%s", buf)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("sigterm shuts down cleanly", func(t *testing.T) {
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-s.done:
			if err != nil {
				t.Fatalf("exit: %v\n%s", err, s.out)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no exit after SIGTERM:\n%s", s.out)
		}
		if !strings.Contains(s.out.String(), "stopped cleanly") {
			t.Errorf("output lacks the clean-stop line:\n%s", s.out)
		}
		if c, err := net.DialTimeout("tcp", s.addr, time.Second); err == nil {
			c.Close()
			t.Errorf("port %s still open after exit", s.addr)
		}
	})
}

// kubectlEnv is kubectl with KUBE_EDITOR set for the edit step.
func (s *served) kubectlEnv(t *testing.T, stdin string, withEditor bool, editor string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", s.kubeconfig}, args...)...)
	cmd.Env = os.Environ()
	if withEditor {
		cmd.Env = append(cmd.Env, "KUBE_EDITOR="+editor)
	}
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestBadInvocations: every bad input gets one clear line and a non-zero exit, before anything
// else is printed, the terminal is touched or a server starts; a refused --log-file is left as
// it was.
func TestBadInvocations(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := fmt.Sprint(busy.Addr().(*net.TCPAddr).Port)
	files := t.TempDir()
	file := filepath.Join(files, "plain-file")
	os.WriteFile(file, nil, 0o600)
	precious := filepath.Join(files, "precious")
	os.WriteFile(precious, []byte("keep me"), 0o644)
	link := filepath.Join(files, "link.log")
	os.Symlink(precious, link)
	fifo := filepath.Join(files, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		want    string
		logFile string   // --log-file; "" gives one in the test's dir, "-" none
		env     []string // replaces HOME and XDG_STATE_HOME
	}{
		{"unknown flag", []string{"serve", "--no-such-flag"}, "unknown flag: --no-such-flag", "", nil},
		{"busy port", []string{"serve", "--secure-port", port}, "--secure-port " + port + ": address 127.0.0.1:" + port + " is already in use", "", nil},
		{"unwritable data dir", []string{"serve", "--data-dir", file + "/etcd"}, "--data-dir", "", nil},
		{"unreachable etcd", []string{"serve", "--etcd-servers", "http://127.0.0.1:1"}, "--etcd-servers", "", nil},
		{"bad bind address", []string{"serve", "--bind-address", "nowhere"}, "--bind-address", "", nil},
		{"two problems, one line", []string{"serve", "--bind-address", "nowhere", "--secure-port", "70000"}, `--bind-address "nowhere": not an IP address; --secure-port 70000`, "", nil},
		{"extra argument", []string{"serve", "extra"}, "unknown command", "", nil},
		{"tour: bad bind address", []string{"tour", "--bind-address", "nowhere"}, "--bind-address", "", nil},
		{"default command: bad port", []string{"--secure-port", "-1"}, "--secure-port -1", "", nil},
		{"tour: bad language", []string{"tour", "--lang", "xx"}, "--lang", "", nil},
		{"log file is a directory", []string{"serve"}, "--log-file " + files + ": is a directory", files, nil},
		{"log file is a symlink", []string{"serve"}, "is a symbolic link", link, nil},
		{"tour: log file is a symlink", []string{"tour"}, "is a symbolic link", link, nil},
		{"log file is a fifo", []string{"serve"}, "not a regular file", fifo, nil},
		{"log file is a device", []string{"tour"}, "not a regular file", os.DevNull, nil},
		{"log file in a file", []string{"serve"}, "--log-file " + file + "/log", file + "/log", nil},
		{"no home for the default log file", []string{"serve"}, "--log-file: no default location", "-", []string{"HOME=", "XDG_STATE_HOME="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSandbox(t)
			args := tt.args
			switch tt.logFile {
			case "":
				args = append(args, "--log-file", sb.log)
			case "-":
			default:
				args = append(args, "--log-file", tt.logFile)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, args...)
			cmd.Env = sb.env(tt.env...)
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("still running after a minute:\n%s", out)
			}
			if err == nil {
				t.Fatalf("want non-zero exit, got success:\n%s", out)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Fatalf("output lacks %q:\n%s", tt.want, out)
			}
			if lines := strings.Count(strings.TrimSpace(string(out)), "\n"); lines > 0 {
				t.Errorf("want one line, got %d:\n%s", lines+1, out)
			}
			sb.assertNothingLeft(t)
		})
	}
	if b, err := os.ReadFile(precious); err != nil || string(b) != "keep me" {
		t.Errorf("the symlinked --log-file's target changed: %q, %v", b, err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO changed: %v, %v", fi, err)
	}
}

// TestVersionAndCompletion checks the small commands.
func TestVersionAndCompletion(t *testing.T) {
	out, err := exec.Command(binary, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "k8s.io/apiserver") || !strings.Contains(string(out), "v0.37.2") {
		t.Fatalf("version: %v\n%s", err, out)
	}
	out, err = exec.Command(binary, "completion", "bash").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "kubewalk") {
		t.Fatalf("completion: %v\n%.200s", err, out)
	}
}
