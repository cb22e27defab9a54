package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWatchSignals feeds signals as the process itself and the supervisor see them and checks
// when the run is cancelled and when the process exits at once.
func TestWatchSignals(t *testing.T) {
	type ev struct {
		forwarded bool // from the supervisor, else the process's own
		sig       syscall.Signal
		pressed   bool // Ctrl-C pressed in the full-screen UI
		closed    bool // the supervisor's end closed
	}
	own := func(s syscall.Signal) ev { return ev{sig: s} }
	fwd := func(s syscall.Signal) ev { return ev{forwarded: true, sig: s} }
	tests := []struct {
		name      string
		events    []ev
		wantCause syscall.Signal // the signal the run is cancelled with; 0: not cancelled
		wantHard  syscall.Signal // 0: no hard exit
	}{
		{"nothing", nil, 0, 0},
		{"one Ctrl-C, seen by both processes", []ev{own(syscall.SIGINT), fwd(syscall.SIGINT)}, syscall.SIGINT, 0},
		{"forwarded first, then its own copy", []ev{fwd(syscall.SIGINT), own(syscall.SIGINT)}, syscall.SIGINT, 0},
		{"two Ctrl-C", []ev{own(syscall.SIGINT), fwd(syscall.SIGINT), own(syscall.SIGINT)}, syscall.SIGINT, syscall.SIGINT},
		{"two kill -INT to the supervisor", []ev{fwd(syscall.SIGINT), fwd(syscall.SIGINT)}, syscall.SIGINT, syscall.SIGINT},
		{"two SIGTERM", []ev{own(syscall.SIGTERM), own(syscall.SIGTERM)}, syscall.SIGTERM, syscall.SIGTERM},
		{"SIGTERM then SIGINT", []ev{fwd(syscall.SIGTERM), fwd(syscall.SIGINT)}, syscall.SIGTERM, syscall.SIGINT},
		{"SIGHUP twice never forces", []ev{own(syscall.SIGHUP), fwd(syscall.SIGHUP), own(syscall.SIGHUP)}, syscall.SIGHUP, 0},
		{"SIGHUP then one Ctrl-C", []ev{own(syscall.SIGHUP), own(syscall.SIGINT), fwd(syscall.SIGINT)}, syscall.SIGHUP, 0},
		{"supervisor gone", []ev{{closed: true}}, syscall.SIGHUP, 0},
		{"Ctrl-C key in the UI, then a Ctrl-C signal", []ev{{pressed: true}, own(syscall.SIGINT)}, syscall.SIGINT, syscall.SIGINT},
		{"Ctrl-C key in the UI, then a forwarded one", []ev{{pressed: true}, fwd(syscall.SIGINT)}, syscall.SIGINT, syscall.SIGINT},
		{"Ctrl-C key in the UI only", []ev{{pressed: true}}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ownC, fwdC := make(chan os.Signal), make(chan os.Signal)
			pressed := make(chan struct{})
			cancelled := make(chan struct{})
			var cause os.Signal // written before cancelled is closed
			hard := make(chan os.Signal, 1)
			done := make(chan struct{})
			go func() {
				defer close(done)
				watchSignals(func(s os.Signal) { cause = s; close(cancelled) }, ownC, fwdC, pressed, func(s os.Signal) { hard <- s })
			}()
			for _, e := range tt.events {
				switch {
				case e.pressed:
					pressed <- struct{}{}
				case e.closed:
					close(fwdC)
				case e.forwarded:
					fwdC <- e.sig
				default:
					ownC <- e.sig
				}
			}
			// Each send above returns once watchSignals has taken the event; one more — signal
			// 0, which it ignores, and which nobody takes after a hard exit — makes sure the last
			// event was handled.
			select {
			case ownC <- syscall.Signal(0):
			case <-done:
			}
			select {
			case <-cancelled:
				if cause != tt.wantCause {
					t.Errorf("cancelled by %v, want %v", cause, tt.wantCause)
				}
			default:
				if tt.wantCause != 0 {
					t.Errorf("not cancelled, want cancelled by %v", tt.wantCause)
				}
			}
			select {
			case s := <-hard:
				if s != tt.wantHard {
					t.Errorf("hard exit on %v, want %v", s, tt.wantHard)
				}
			default:
				if tt.wantHard != 0 {
					t.Errorf("no hard exit, want one on %v", tt.wantHard)
				}
			}
		})
	}
}

// TestConclude checks the supervisor's verdict on how its child ended.
func TestConclude(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "kubewalk.log")
	trace := "I1203 some log line\npanic: boom in a goroutine\n\ngoroutine 7 [running]:\nmain.f()\n"
	if err := os.WriteFile(logPath, []byte(trace), 0o600); err != nil {
		t.Fatal(err)
	}
	exited := func(code int) syscall.WaitStatus { return syscall.WaitStatus(code << 8) }
	killed := func(s syscall.Signal) syscall.WaitStatus { return syscall.WaitStatus(s) }
	tests := []struct {
		name     string
		report   string // what the child sent
		ws       syscall.WaitStatus
		wantCode int
		want     []string // lines of the supervisor's output, in order; nil: none
	}{
		{"clean exit", "log %q\nexit \"0\"\n", exited(0), 0, nil},
		{"error exit", "log %q\nexit \"1\"\n", exited(1), 1, nil},
		{"interrupted", "log %q\ntui \"1\"\ntui \"0\"\nexit \"130\"\n", exited(130), 130, nil},
		{"hard exit note", "log %q\nnote \"kubewalk: interrupted again\"\nexit \"130\"\n", exited(130), 130, []string{"kubewalk: interrupted again"}},
		{"panic", "log %q\ntui \"1\"\n", exited(2), 2, []string{"kubewalk crashed (exit status 2); the log is at " + logPath, "  panic: boom in a goroutine"}},
		{"killed", "log %q\n", killed(syscall.SIGKILL), 137, []string{"kubewalk crashed (signal: killed); the log is at " + logPath}},
		{"crash before the log", "", exited(2), 2, []string{"kubewalk crashed (exit status 2) before it opened its log"}},
		{"SIGINT before the handler", "", killed(syscall.SIGINT), 130, []string{"kubewalk: interrupted"}},
		{"garbage is ignored", "nonsense\nlog unquoted\n", exited(2), 2, []string{"kubewalk crashed (exit status 2) before it opened its log"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &childReport{}
			report := tt.report
			if strings.Contains(report, "%q") {
				report = fmt.Sprintf(report, logPath)
			}
			r.read(strings.NewReader(report))
			var out strings.Builder
			if code := r.conclude(tt.ws, nil, &out); code != tt.wantCode {
				t.Errorf("code %d, want %d", code, tt.wantCode)
			}
			got := out.String()
			if tt.want == nil && got != "" {
				t.Errorf("printed %q, want nothing", got)
			}
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("output lacks %q (in order):\n%s", w, got)
					break
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	err := errors.Join(errors.New("--bind-address \"x\": not an IP address"), errors.New("--secure-port 70000: must be between 0 and 65535"))
	want := `--bind-address "x": not an IP address; --secure-port 70000: must be between 0 and 65535`
	if got := oneLine(err); got != want {
		t.Errorf("oneLine = %q, want %q", got, want)
	}
}

func TestStartsServer(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"--plain"}, true},
		{[]string{"tour", "--restart"}, true},
		{[]string{"serve", "--secure-port", "0"}, true},
		{[]string{"version"}, false},
		{[]string{"lessons", "check"}, false},
		{[]string{"completion", "bash"}, false},
		{[]string{"help", "serve"}, false},
		{[]string{"no-such-command"}, false},
	}
	for _, tt := range tests {
		if got := startsServer(tt.args); got != tt.want {
			t.Errorf("startsServer(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestSupervisorLink sends reports through a socket pair as the child does and reads forwarded
// signals; the link sees the supervisor's end close.
func TestSupervisorLink(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	sup := os.NewFile(uintptr(fds[0]), "supervisor")
	t.Setenv(supervisorEnv, fmt.Sprint(fds[1]))
	link, isChild := attachSupervisor()
	if !isChild || link == nil {
		t.Fatalf("attachSupervisor = %v, %v", link, isChild)
	}
	if _, ok := os.LookupEnv(supervisorEnv); ok {
		t.Errorf("%s still in the environment", supervisorEnv)
	}
	rep := &childReport{}
	readDone := make(chan struct{})
	go func() { rep.read(sup); close(readDone) }()

	link.report("log", "/a path/with \"quotes\"\nand a newline")
	link.report("tui", "1")
	fmt.Fprintf(sup, "signal %q\n", "15")
	select {
	case s := <-link.forwarded():
		if s != syscall.SIGTERM {
			t.Errorf("forwarded %v, want SIGTERM", s)
		}
	case <-time.After(time.Minute):
		t.Fatal("no forwarded signal")
	}
	link.exit(0)
	// As at the child's exit: its end closes. (Close would wait for readSignals' blocked read.)
	syscall.Shutdown(fds[1], syscall.SHUT_WR)
	select {
	case <-readDone:
	case <-time.After(time.Minute):
		t.Fatal("the supervisor's reader did not see the child's end close")
	}
	if rep.logPath != "/a path/with \"quotes\"\nand a newline" || !rep.tui || !rep.exited {
		t.Errorf("report = %+v", rep)
	}
	syscall.Shutdown(fds[0], syscall.SHUT_WR)
	select {
	case _, ok := <-link.forwarded():
		if ok {
			t.Error("a signal after the supervisor's end closed")
		}
	case <-time.After(time.Minute):
		t.Fatal("the link did not see the supervisor's end close")
	}

	t.Setenv(supervisorEnv, "0")
	if link, isChild := attachSupervisor(); !isChild || link != nil {
		t.Errorf("a bad descriptor: attachSupervisor = %v, %v; want nil, true", link, isChild)
	}
}

func TestLastPanicLine(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, log, want string }{
		{"panic", "x\npanic: first\n\ngoroutine 1\npanic: second [recovered]\n", "panic: second [recovered]"},
		{"fatal error", "fatal error: concurrent map read and map write\n", "fatal error: concurrent map read and map write"},
		{"none", "I1203 nothing to see\n", ""},
	}
	for _, tt := range tests {
		p := filepath.Join(dir, tt.name)
		os.WriteFile(p, []byte(tt.log), 0o600)
		if got := lastPanicLine(p); got != tt.want {
			t.Errorf("%s: lastPanicLine = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := lastPanicLine(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("missing log: %q", got)
	}
}
