package cli

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/kubewalk/kubewalk/runtime/cli/supervisor"
)

// tour and serve run in a child process watched by a supervisor, the first process of the run,
// which puts the terminal back and says where the log is if the child crashes: see
// runtime/cli/supervisor. This is the child's side of it.

// supervisorLink is the child's end of the socket. A nil *supervisorLink does nothing.
type supervisorLink struct {
	mu      sync.Mutex
	conn    *os.File
	signals chan os.Signal
}

// attachSupervisor connects to the supervisor named by supervisor.Env. isChild is true when
// the variable was set, even if its descriptor is unusable (link is nil then): a child never
// starts a supervisor of its own.
func attachSupervisor() (link *supervisorLink, isChild bool) {
	v, isChild := os.LookupEnv(supervisor.Env)
	if !isChild {
		return nil, false
	}
	os.Unsetenv(supervisor.Env)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil, true
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return nil, true
	}
	unix.CloseOnExec(fd)
	l := &supervisorLink{conn: os.NewFile(uintptr(fd), "kubewalk-supervisor"), signals: make(chan os.Signal, 8)}
	go l.readSignals()
	return l, true
}

// readSignals turns the supervisor's forwarded signals into l.signals, closed when the
// supervisor's end closes.
func (l *supervisorLink) readSignals() {
	defer close(l.signals)
	sc := bufio.NewScanner(l.conn)
	for sc.Scan() {
		kind, arg, ok := supervisor.ParseReport(sc.Text())
		if !ok || kind != "signal" {
			continue
		}
		if n, err := strconv.Atoi(arg); err == nil {
			l.signals <- syscall.Signal(n)
		}
	}
}

// forwarded delivers the signals the supervisor forwards; nil (never) without a supervisor.
func (l *supervisorLink) forwarded() <-chan os.Signal {
	if l == nil {
		return nil
	}
	return l.signals
}

// report sends one message to the supervisor.
func (l *supervisorLink) report(kind, arg string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.conn, "%s %q\n", kind, arg)
}

// exit tells the supervisor that the process is about to exit with code on purpose.
func (l *supervisorLink) exit(code int) { l.report("exit", strconv.Itoa(code)) }
