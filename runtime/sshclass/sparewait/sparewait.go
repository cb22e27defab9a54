// Package sparewait is a class's spare's side of the handover (runtime/sshclass/pool.go): the
// checks on the socket the class server gave it, "ready", and the handover line with the
// directories sent along. It imports only standard packages that Go initialises first, so
// that kubewalk can run it from runtime/cli/supervisor's Boot, before the libraries
// initialise, for a class with lean spares (sshclass.Config.LeanSpares): a process that has
// run kubewalk's package initialisation (the apiserver's and client-go's schemes, kubectl's
// options, etcd, glamour: ~6 MB live, ~11 MB of heap and runtime pages) holds all of it as
// memory of its own while it waits, which a class multiplies by its spares. Parked there, a
// waiting spare holds the Go runtime and the first fifty packages (~1.5 MB); it pays the
// initialisation after the handover, once, as a tour started on arrival does (~0.1–0.2
// CPU-seconds: 30 students arriving at once wait about three times as long for their first
// screen, docs/performance.md).
//
// Only the receiving is done here. The handover line is parsed, the session's environment set
// and the sandbox applied by runtime/sshclass's AwaitHandover, in main, before the tour runs
// and before any key of the student is read; the libraries initialise in between with the
// spare's own neutral environment, as they did when the spare initialised first.
package sparewait

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
)

// Env names a spare's end of its socket pair (a descriptor number); runtime/sshclass sets it
// (sshclass.SpareEnv).
const Env = "KUBEWALK_SPARE_FD"

// ParkEnv, set to 1 on a spare, asks it to park (Park): a class with lean spares
// (sshclass.Config.LeanSpares) sets it.
const ParkEnv = "KUBEWALK_SPARE_PARK"

// ExeEnv names the descriptor of the binary a spare was executed through (when it runs as
// another user, who may not reach the binary by its path); Receive closes it.
const ExeEnv = "KUBEWALK_SPARE_EXE_FD"

// MaxHandover bounds the handover line a spare reads; MaxHandedDirs the descriptors sent with it.
const (
	MaxHandover   = 1 << 20
	MaxHandedDirs = 8
)

// Handover is what a class's spare received from the class server: the handover line
// (`start "json"`) and the directory descriptors sent with it (close-on-exec), and the socket
// to speak the supervisor protocol on from then on.
type Handover struct {
	Conn *os.File
	Line string
	FDs  []int
}

// parked is what Park received, once the spare is handed over (nil before, and in any
// process that did not park).
var parked struct {
	done bool
	h    *Handover
	err  error
}

// Parked reports whether this process parked as a spare (Park) and was handed its session.
func Parked() bool { return parked.done }

// Park receives the spare's handover now, for Receive to return later, if the class asked
// for it (ParkEnv is 1); otherwise it does nothing. Call it from an init function, before the
// libraries initialise, in a process started as a spare (Env is set). A class that ends the
// spare before any session (it closes its end) ends the process here, exit 0, without
// initialising the rest.
func Park() {
	if os.Getenv(ParkEnv) != "1" {
		return
	}
	h, err := receiveHandover()
	if h == nil && err == nil {
		os.Exit(0)
	}
	parked.done, parked.h, parked.err = true, h, err
}

// Receive is a spare's side of the handover up to its line. If Env is not set it returns
// isSpare false and does nothing. A spare that parked (Park) gets what it received then;
// another (a test binary) says "ready" on the socket now and blocks until the class server
// hands a session over. A nil handover with no error means the class ended the spare before
// any session came.
func Receive() (h *Handover, isSpare bool, err error) {
	if parked.done {
		return parked.h, true, parked.err
	}
	if _, isSpare = os.LookupEnv(Env); !isSpare {
		return nil, false, nil
	}
	h, err = receiveHandover()
	return h, true, err
}

// receiveHandover checks that the socket Env names comes from this process's parent, says
// "ready" on it and reads the handover. It uses only what Go initialises first (syscall, os).
func receiveHandover() (*Handover, error) {
	if exe, ok := os.LookupEnv(ExeEnv); ok {
		if n, err := strconv.Atoi(exe); err == nil && n > 2 {
			syscall.Close(n)
		}
		// Executed as /proc/self/fd/4, the process is named "4" (ps, top): give it its name.
		name := os.Args[0]
		for i := len(name) - 1; i >= 0; i-- {
			if name[i] == '/' {
				name = name[i+1:]
				break
			}
		}
		if f, err := os.OpenFile("/proc/self/comm", os.O_WRONLY, 0); err == nil {
			_, _ = f.WriteString(name[:min(len(name), 15)])
			f.Close()
		}
	}
	v := os.Getenv(Env)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("%s=%q: not an inherited descriptor", Env, v)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return nil, fmt.Errorf("%s=%d: not a socket", Env, fd)
	}
	// The socket pair was made by the class server, which is this process's parent (running as
	// this user, or as root when the tours run as another user): its peer credentials say so.
	// Anything else is not a class server's handover.
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil || int(cred.Pid) != os.Getppid() || (int(cred.Uid) != os.Getuid() && cred.Uid != 0) {
		return nil, fmt.Errorf("%s=%d: the socket's peer is not this process's parent", Env, fd)
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, false); err != nil {
		return nil, fmt.Errorf("%s=%d: %w", Env, fd, err)
	}
	conn := os.NewFile(uintptr(fd), "kubewalk-class")
	if _, err := fmt.Fprintf(conn, "ready %q\n", strconv.Itoa(os.Getpid())); err != nil {
		conn.Close()
		return nil, fmt.Errorf("spare: tell the class server it is ready: %w", err)
	}
	fds, first, err := recvFirst(fd)
	if err != nil {
		conn.Close()
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, fmt.Errorf("spare: read the handover: %w", err)
	}
	line, err := readLine(conn, MaxHandover-1)
	if err != nil {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		conn.Close()
		return nil, fmt.Errorf("spare: read the handover: %w", err)
	}
	return &Handover{Conn: conn, Line: string(first) + line, FDs: fds}, nil
}

// recvFirst reads the first byte of the handover with the descriptors sent along with it
// (received close-on-exec); a plain read would drop them. The socket is a blocking one (the
// class server makes it so), read before Go's poller is of any use to it.
func recvFirst(fd int) (fds []int, first []byte, err error) {
	buf := make([]byte, 1)
	oob := make([]byte, syscall.CmsgSpace(4*MaxHandedDirs))
	var n, oobn int
	for {
		n, oobn, _, _, err = syscall.Recvmsg(fd, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err != syscall.EINTR {
			break
		}
	}
	if err == nil && oobn > 0 {
		msgs, perr := syscall.ParseSocketControlMessage(oob[:oobn])
		if perr != nil {
			return nil, nil, perr
		}
		for _, m := range msgs {
			rights, perr := syscall.ParseUnixRights(&m)
			if perr == nil {
				fds = append(fds, rights...)
			}
		}
	}
	if err != nil {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		return nil, nil, err
	}
	if n == 0 {
		return nil, nil, io.EOF
	}
	return fds, buf[:n], nil
}

// readLine reads one line, a byte at a time: whatever follows it on the socket (the supervisor
// protocol) is left for the next reader.
func readLine(r io.Reader, limit int) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for len(b) < limit {
		n, err := r.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				return string(b), nil
			}
			b = append(b, one[0])
			continue
		}
		if err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("line longer than %d bytes", limit)
}
