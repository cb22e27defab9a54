package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kubewalk/kubewalk/runtime/cli/supervisor"
	"github.com/kubewalk/kubewalk/runtime/sshclass"
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
		{[]string{"--lang", "zh-CN", "serve"}, false}, // serve has no --lang
		{[]string{"--log-file", "x", "serve"}, true},
		{[]string{"--log-file", "serve"}, true}, // the tour, logging to ./serve
		{[]string{"class", "host", "--listen", ":0"}, true},
		{[]string{"join", "10.0.0.1:7070", "--code", "x"}, true},
		{[]string{"join"}, false},
		{[]string{"class", "ssh"}, false},
		{[]string{"version"}, false},
		{[]string{"lessons", "check"}, false},
		{[]string{"glossary", "--lang", "zh-CN"}, false},
		{[]string{"completion", "bash"}, false},
		{[]string{"help", "serve"}, false},
		{[]string{"serve", "--help"}, false},
		{[]string{"-h"}, false},
		{[]string{"no-such-command"}, false},
		{[]string{"serve", "--no-such-flag"}, false},
	}
	for _, tt := range tests {
		if got := startsServer(tt.args); got != tt.want {
			t.Errorf("startsServer(%q) = %v, want %v", tt.args, got, tt.want)
		}
		if got := supervisor.Starts(tt.args); got != tt.want {
			t.Errorf("supervisor.Starts(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestStartsAsCobra holds supervisor.Starts, which decides without kubewalk's command tree
// whether a command line is supervised, to startsServer, which asks the tree, over every flag
// of the commands that start a server and every command line of up to three words of a
// vocabulary that trips cobra's parsing. Starts may say true where startsServer says false (a
// value the flag's type refuses: the child reports it), never the reverse: that run would have
// no crash guard.
func TestStartsAsCobra(t *testing.T) {
	root := NewRootCommand(io.Discard, io.Discard)
	var lines [][]string
	for _, path := range [][]string{nil, {"tour"}, {"serve"}, {"class", "host"}, {"join", "ADDR"}} {
		cmd, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			value := map[string]string{"int": "0", "duration": "1m", "bool": "true"}[f.Value.Type()]
			if value == "" {
				value = "x"
			}
			with := func(extra ...string) {
				lines = append(lines, append(append([]string{}, path...), extra...))
				lines = append(lines, append(append([]string{}, extra...), path...))
			}
			with("--" + f.Name + "=" + value)
			if f.NoOptDefVal == "" {
				with("--"+f.Name, value)
				with("--"+f.Name, value, "extra")
				with("--" + f.Name)
			} else {
				with("--" + f.Name)
				with("--"+f.Name, "extra")
			}
			if f.Shorthand != "" {
				with("-"+f.Shorthand, value)
				with("-" + f.Shorthand + value)
				with("-" + f.Shorthand + "=" + value)
			}
		})
	}
	words := []string{"", "tour", "serve", "class", "host", "ssh", "join", "ADDR", "version", "help",
		"--", "-", "-h", "--help", "--plain", "--lang", "zh", "--log-file", "--secure-port", "0",
		"-v", "--bogus", "--auto", "-test.v"}
	lines = append(lines, nil)
	for _, a := range words {
		lines = append(lines, []string{a})
		for _, b := range words {
			lines = append(lines, []string{a, b})
			for _, c := range words {
				lines = append(lines, []string{a, b, c})
			}
		}
	}
	extra := 0
	for _, args := range lines {
		cobra, light := startsServer(args), supervisor.Starts(args)
		switch {
		case cobra && !light:
			t.Errorf("%q starts a server, but supervisor.Starts says it does not: it would run unsupervised", args)
		case light && !cobra:
			extra++
		}
	}
	t.Logf("%d command lines; %d supervised only to report an error", len(lines), extra)
}

// TestSupervisorLink sends reports through a socket pair as the child does and reads forwarded
// signals; the link sees the supervisor's end close.
func TestSupervisorLink(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	sup := os.NewFile(uintptr(fds[0]), "supervisor")
	t.Setenv(supervisor.Env, fmt.Sprint(fds[1]))
	link, isChild := attachSupervisor()
	if !isChild || link == nil {
		t.Fatalf("attachSupervisor = %v, %v", link, isChild)
	}
	if _, ok := os.LookupEnv(supervisor.Env); ok {
		t.Errorf("%s still in the environment", supervisor.Env)
	}
	var reports []string
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(sup)
		for sc.Scan() {
			kind, arg, ok := supervisor.ParseReport(sc.Text())
			if !ok {
				t.Errorf("not a report: %q", sc.Text())
			}
			reports = append(reports, kind+"="+arg)
		}
	}()

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
	if want := []string{"log=/a path/with \"quotes\"\nand a newline", "tui=1", "exit=0"}; !slices.Equal(reports, want) {
		t.Errorf("reports = %q, want %q", reports, want)
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

	t.Setenv(supervisor.Env, "0")
	if link, isChild := attachSupervisor(); !isChild || link != nil {
		t.Errorf("a bad descriptor: attachSupervisor = %v, %v; want nil, true", link, isChild)
	}
}

// TestSpareEnv: the supervisor leaves a class's spare to the class server.
func TestSpareEnv(t *testing.T) {
	if supervisor.SpareEnv != sshclass.SpareEnv {
		t.Errorf("supervisor.SpareEnv = %q, sshclass.SpareEnv = %q", supervisor.SpareEnv, sshclass.SpareEnv)
	}
}
