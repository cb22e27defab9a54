package sshclass

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// probeEnv, in a session's environment, lists what the fake tour in mode "probe" tries once
// its sandbox is on: KIND:ARG items separated by ";". Kinds: exec PATH (fork and execve, with
// no file opened first), read PATH, write PATH, readenv and writeenv ENV/NAME (NAME under the
// directory $ENV names), bind PORT, connect PORT, signal PID (signal 0), and ownport (listen on
// the tour's --secure-port and connect to it).
const probeEnv = "SSHCLASS_PROBES"

// runProbes runs the probes and prints "probe KIND:ARG = OUTCOME" for each, OUTCOME being "ok"
// or the errno's name.
func runProbes(out io.Writer, args []string) {
	for _, p := range strings.Split(os.Getenv(probeEnv), ";") {
		if p == "" {
			continue
		}
		kind, arg, _ := strings.Cut(p, ":")
		fmt.Fprintf(out, "probe %s = %s\r\n", p, probeOutcome(probe(kind, arg, args)))
	}
	fmt.Fprint(out, "probes done\r\n")
}

func probe(kind, arg string, args []string) error {
	switch kind {
	case "exec":
		pid, err := syscall.ForkExec(arg, []string{arg, "-c", "exit 0"}, &syscall.ProcAttr{Files: []uintptr{0, 1, 2}})
		if err != nil {
			return err
		}
		var ws syscall.WaitStatus
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		return err
	case "read":
		_, err := os.ReadFile(arg)
		return err
	case "readenv", "writeenv": // ENV/NAME: NAME under the directory $ENV names
		env, name, _ := strings.Cut(arg, "/")
		path := os.Getenv(env) + "/" + name
		if kind == "readenv" {
			_, err := os.ReadFile(path)
			return err
		}
		return os.WriteFile(path, []byte("x"), 0o600)
	case "write":
		return os.WriteFile(arg, []byte("written by a student's tour\n"), 0o644)
	case "bind":
		l, err := net.Listen("tcp", "127.0.0.1:"+arg)
		if err == nil {
			l.Close()
		}
		return err
	case "connect":
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+arg, 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	case "signal":
		pid, _ := strconv.Atoi(arg)
		return unix.Kill(pid, 0)
	case "ownport":
		i := slices.Index(args, "--secure-port")
		if i < 0 || i+1 >= len(args) {
			return errors.New("no --secure-port")
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+args[i+1])
		if err != nil {
			return err
		}
		defer l.Close()
		c, err := net.DialTimeout("tcp", l.Addr().String(), 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	}
	return fmt.Errorf("unknown probe %q", kind)
}

func probeOutcome(err error) string {
	if err == nil {
		return "ok"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return unix.ErrnoName(errno)
	}
	return err.Error()
}
