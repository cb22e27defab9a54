package main_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// BenchmarkClassMemory measures what `kubewalk class ssh` costs the machine, from outside, on
// the binary as users build it: the class is started on 127.0.0.1 with a throw-away key and
// `--warm 2 --max-sessions 2` (the sub-benchmark "lean" adds --lean-spares), and
//
//   - spare: once both spares are up and idle (no CPU used for a second), each spare's USS
//     (Private_Clean + Private_Dirty of /proc/PID/smaps_rollup), PSS and anonymous memory,
//     and the class server's own USS and anonymous memory (its USS counts the binary's pages
//     that only it maps: they grow when the spares map fewer);
//   - session: two students connect one after the other with the real OpenSSH client (`ssh
//     -tt`) on a 120×40 pseudo-terminal that answers a terminal's queries, each runs the tour
//     to serve as the tour's end-to-end tests do (the first paused screen, Enter, E, SERVING),
//     and, once both serve, the USS, PSS and anonymous memory of each session's process group
//     (the tour the class handed the session to). Two sessions, so that the pages of the
//     binary that only a serving tour touches (the server's and etcd's code) are shared, as
//     in a class, and not counted as one session's own;
//   - the time from the student's ssh started to the first paused screen, and from E to
//     SERVING: what a parked spare pays at the handover shows there.
//
// Each figure is the median over b.N classes (-benchtime 3x or more); with
// KUBEWALK_BENCH_BASELINE=/path/to/an/older/kubewalk the classes alternate with that binary and
// its medians and the ratios are reported beside (see BenchmarkLaunch).
//
//	go test ./cmd/kubewalk -run '^$' -bench ClassMemory -benchtime 3x
func BenchmarkClassMemory(b *testing.B) {
	for _, tool := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Fatalf("the OpenSSH client (%s) is required: %v", tool, err)
		}
	}
	cur := benchBinary(b)
	base := os.Getenv("KUBEWALK_BENCH_BASELINE")
	if base != "" {
		if _, err := os.Stat(base); err != nil {
			b.Fatalf("KUBEWALK_BENCH_BASELINE: %v", err)
		}
	}
	b.Run("initialised", func(b *testing.B) {
		compareLaunch(b, cur, base, func(t testing.TB, bin string) launchFigures { return classMemory(t, bin) })
	})
	// The baseline runs without --lean-spares, which an older binary may not know.
	b.Run("lean", func(b *testing.B) {
		compareLaunch(b, cur, base, func(t testing.TB, bin string) launchFigures {
			if bin == cur {
				return classMemory(t, bin, "--lean-spares")
			}
			return classMemory(t, bin)
		})
	})
}

// classMemory runs one class on bin, with extra flags, and measures it (see
// BenchmarkClassMemory).
func classMemory(t testing.TB, bin string, extra ...string) launchFigures {
	sb := newSandbox(t)
	bin = copyBinary(t, bin, sb.root)
	key := filepath.Join(sb.root, "id")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	class := exec.Command(bin, append([]string{"class", "ssh", "--listen", "127.0.0.1:0", "--authorized-keys", key + ".pub",
		"--warm", "2", "--max-sessions", "2"}, extra...)...)
	class.Env = sb.env()
	out := &syncBuffer{}
	class.Stdout, class.Stderr = out, out
	if err := class.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = class.Wait(); close(done) }()
	defer func() {
		_ = class.Process.Signal(syscall.SIGINT) // ends every session and spare
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Errorf("class ssh still running a minute after SIGINT:\n%s", out)
			_ = class.Process.Kill()
			<-done
		}
	}()
	port := ""
	for end := time.Now().Add(time.Minute); port == ""; {
		if m := regexp.MustCompile(`listening on 127\.0\.0\.1:(\d+)`).FindStringSubmatch(out.String()); m != nil {
			port = m[1]
			break
		}
		select {
		case <-done:
			t.Fatalf("class ssh exited:\n%s", out)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(end) {
			t.Fatalf("class ssh: no banner within a minute:\n%s", out)
		}
	}

	f := launchFigures{}
	spares := idleChildren(t, class.Process.Pid, 2, 2*time.Minute)
	for _, pid := range spares {
		m := memoryOf(pid)
		f["MB-uss-spare"] += m.uss / float64(len(spares))
		f["MB-pss-spare"] += m.pss / float64(len(spares))
		f["MB-anon-spare"] += m.anon / float64(len(spares))
	}
	cm := memoryOf(class.Process.Pid)
	f["MB-uss-class"], f["MB-anon-class"] = cm.uss, cm.anon

	var sessions []int
	for i, user := range []string{"ada", "grace"} {
		cmd := exec.Command("ssh", "-F", "/dev/null", "-tt", "-p", port, "-i", key, "-o", "IdentitiesOnly=yes",
			"-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
			"-o", "UserKnownHostsFile="+filepath.Join(sb.root, "known_hosts"), user+"@127.0.0.1")
		cmd.Env = sb.env("TERM=xterm-256color", "COLORTERM=truecolor", "LANG=C.UTF-8")
		start := time.Now()
		ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
		if err != nil {
			t.Fatal(err)
		}
		defer ptmx.Close()
		term := &ptyTerminal{answer: ptmx, seen: make(chan struct{}, 1)}
		go func() { _, _ = io.Copy(term, ptmx) }()
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		defer func() {
			_ = cmd.Process.Kill()
			<-exited
		}()
		if err := term.await("PAUSED at config/scheme", 2*time.Minute, exited); err != nil {
			t.Fatalf("%s: %v\nclass:\n%s", user, err, out)
		}
		first := time.Since(start)
		fmt.Fprint(ptmx, "\r") // the welcome of a first run
		if err := term.await("space next", 2*time.Minute, exited); err != nil {
			t.Fatalf("%s: %v", user, err)
		}
		serveStart := time.Now()
		fmt.Fprint(ptmx, "E")
		if err := term.await("SERVING", 2*time.Minute, exited); err != nil {
			t.Fatalf("%s: %v", user, err)
		}
		f["ms-first-screen"] += ms(first) / 2
		f["ms-E-to-serving"] += ms(time.Since(serveStart)) / 2
		m := regexp.MustCompile(`session \d+ ` + user + ` from \S+: started \(pid (\d+)`).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("session %d (%s): no pid in the class's output:\n%s", i+1, user, out)
		}
		pid, _ := strconv.Atoi(m[1])
		sessions = append(sessions, pid)
	}
	time.Sleep(time.Second) // the memory of servers that have settled, not of one mid-start
	for _, pgid := range sessions {
		var m memory
		for _, pid := range processGroup(pgid) {
			p := memoryOf(pid)
			m.uss += p.uss
			m.pss += p.pss
			m.anon += p.anon
		}
		f["MB-uss-session"] += m.uss / float64(len(sessions))
		f["MB-pss-session"] += m.pss / float64(len(sessions))
		f["MB-anon-session"] += m.anon / float64(len(sessions))
	}
	return f
}

// memory is one process's figures from /proc/PID/smaps_rollup, in MB.
type memory struct{ uss, pss, anon float64 }

// memoryOf reads pid's USS (Private_Clean + Private_Dirty), PSS and anonymous memory.
func memoryOf(pid int) memory {
	var m memory
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return m
	}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(l, ":")
		n, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
		switch k {
		case "Private_Clean", "Private_Dirty":
			m.uss += n / 1024
		case "Pss":
			m.pss += n / 1024
		case "Anonymous":
			m.anon += n / 1024
		}
	}
	return m
}

// procStat returns pid's parent, process group and CPU ticks (user + system) from /proc/PID/stat.
func procStat(pid int) (ppid, pgrp int, ticks int64, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the name may hold spaces
	if i < 0 {
		return 0, 0, 0, false
	}
	fields := strings.Fields(s[i+1:]) // state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
	if len(fields) < 13 {
		return 0, 0, 0, false
	}
	ppid, _ = strconv.Atoi(fields[1])
	pgrp, _ = strconv.Atoi(fields[2])
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return ppid, pgrp, ut + st, true
}

// processesWhere lists the pids whose /proc/PID/stat satisfies keep.
func processesWhere(keep func(ppid, pgrp int) bool) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, pgrp, _, ok := procStat(pid); ok && keep(ppid, pgrp) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// processGroup lists the processes of the process group pgid.
func processGroup(pgid int) []int {
	return processesWhere(func(_, pgrp int) bool { return pgrp == pgid })
}

// idleChildren waits, within a bound, until parent has n children that have used no CPU for a
// second (spares that are up and waiting), and returns them.
func idleChildren(t testing.TB, parent, n int, within time.Duration) []int {
	type seen struct {
		ticks int64
		since time.Time
	}
	last := map[int]seen{}
	for end := time.Now().Add(within); ; {
		var idle []int
		for _, pid := range processesWhere(func(ppid, _ int) bool { return ppid == parent }) {
			_, _, ticks, ok := procStat(pid)
			if !ok {
				continue
			}
			if s, known := last[pid]; !known || s.ticks != ticks {
				last[pid] = seen{ticks, time.Now()}
			} else if time.Since(s.since) >= time.Second {
				idle = append(idle, pid)
			}
		}
		if len(idle) >= n {
			return idle[:n]
		}
		if time.Now().After(end) {
			t.Fatalf("%d idle children of %d not there within %s (idle: %v)", n, parent, within, idle)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
