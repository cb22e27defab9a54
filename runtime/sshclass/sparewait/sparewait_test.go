package sparewait

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestReceiveRefuses: a process that is not a spare does nothing; one whose Env names no
// socket, or a socket that does not come from its parent (the class server), is refused
// before it says anything on it.
func TestReceiveRefuses(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	// A socket pair of this process's own: its peer is this process, not its parent.
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	mine, peer := os.NewFile(uintptr(fds[0]), "mine"), os.NewFile(uintptr(fds[1]), "peer")
	defer mine.Close()
	defer peer.Close()
	tests := []struct {
		name, env string // "" leaves Env unset
		want      string // "" for not a spare
	}{
		{"not a spare", "", ""},
		{"not a number", "three", `KUBEWALK_SPARE_FD="three": not an inherited descriptor`},
		{"standard descriptor", "1", `KUBEWALK_SPARE_FD="1": not an inherited descriptor`},
		{"a pipe", strconv.Itoa(int(w.Fd())), "not a socket"},
		{"a closed descriptor", "999", "KUBEWALK_SPARE_FD=999: not a socket"},
		{"not the parent's socket", strconv.Itoa(fds[0]), "the socket's peer is not this process's parent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env == "" {
				os.Unsetenv(Env) // t.Setenv cannot unset; the test binary has no Env
			} else {
				t.Setenv(Env, tt.env)
			}
			h, isSpare, err := Receive()
			if tt.want == "" {
				if isSpare || h != nil || err != nil {
					t.Fatalf("Receive = %v, %v, %v; want nothing done", h, isSpare, err)
				}
				return
			}
			if !isSpare || h != nil || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Receive = %v, %v, %v; want an error with %q", h, isSpare, err, tt.want)
			}
		})
	}
	// Nothing was said on the refused socket.
	if err := syscall.SetNonblock(fds[1], true); err != nil {
		t.Fatal(err)
	}
	if n, err := syscall.Read(fds[1], make([]byte, 64)); n > 0 || err != syscall.EAGAIN {
		t.Errorf("the refused socket carried %d bytes (%v)", n, err)
	}
	if Parked() {
		t.Error("Parked is true in a process that never parked")
	}
}

// TestRecvFirst: the first byte of a handover comes with the directories sent along (received
// close-on-exec), and the line after it is read to its end and no further, leaving the
// supervisor protocol that follows for the next reader. A closed end is io.EOF.
func TestRecvFirst(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	class, spare := fds[0], fds[1]
	conn := os.NewFile(uintptr(spare), "spare")
	defer conn.Close()
	dir, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	msg := "start \"{}\"\nsignal \"15\"\n"
	if err := syscall.Sendmsg(class, []byte(msg[:1]), syscall.UnixRights(int(dir.Fd())), nil, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := syscall.Write(class, []byte(msg[1:])); err != nil {
		t.Fatal(err)
	}
	got, first, err := recvFirst(spare)
	if err != nil || string(first) != "s" || len(got) != 1 {
		t.Fatalf("recvFirst = %v, %q, %v; want one descriptor and %q", got, first, err, "s")
	}
	defer syscall.Close(got[0])
	if flags, err := fcntl(got[0], syscall.F_GETFD); err != nil || flags&syscall.FD_CLOEXEC == 0 {
		t.Errorf("the received descriptor is not close-on-exec (flags %#x, %v)", flags, err)
	}
	line, err := readLine(conn, MaxHandover-1)
	if err != nil || string(first)+line != `start "{}"` {
		t.Fatalf("readLine = %q, %v", line, err)
	}
	rest, err := readLine(conn, 64)
	if err != nil || rest != `signal "15"` {
		t.Fatalf("what follows the handover = %q, %v", rest, err)
	}
	if _, err := readLine(strings.NewReader("no end of line in sight"), 8); err == nil {
		t.Error("readLine read past its limit")
	}
	syscall.Close(class)
	if _, _, err := recvFirst(spare); err == nil || err.Error() != "EOF" {
		t.Errorf("recvFirst on a closed end: %v, want EOF", err)
	}
}

func fcntl(fd, cmd int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(cmd), 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
