package sshclass

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
)

// BenchmarkSessions is the classroom load test: N students connect at once over SSH (clients
// built on golang.org/x/crypto/ssh, each with a 120×40 pty answering the terminal queries a
// real terminal answers), each is driven through the real tour to serve, and the figures are
// reported: connect → first paused screen and connect → serving (p50, p95, max), the memory of
// each session's processes once all serve (RSS as ps counts it; PSS, which shares the binary's
// pages out among the processes that map them; USS, what only that session's processes map),
// what the system lost per session (MemAvailable from /proc/meminfo before the class started
// and with all N serving, divided by N: the honest "added" figure, whatever is shared), and how
// long the sessions took to be cleaned up after all the connections closed.
//
// "cold" starts each session's tour on arrival (--warm 0); "warm" keeps N tours started ahead
// (--warm N) and connects once they are all ready; it also reports an idle spare's USS and the
// MemAvailable the N waiting spares took, per spare.
//
//	go test ./runtime/sshclass -run XXX -bench Sessions -benchtime 1x
//
// In both, each student presses E as soon as their first screen is up, so the first students'
// servers start (~0.5 CPU-seconds each) while the last ones are still arriving. "warm-read/30"
// is warm/30 with students who read their first screen until all 30 have one: the arrivals'
// cost alone.
func BenchmarkSessions(b *testing.B) {
	for _, mode := range []string{"cold", "warm"} {
		for _, n := range []int{1, 30} {
			b.Run(mode+"/"+strconv.Itoa(n), func(b *testing.B) { benchSessions(b, n, mode == "warm", false) })
		}
	}
	b.Run("warm-read/30", func(b *testing.B) { benchSessions(b, 30, true, true) })
}

// sessionTimes are one simulated student's figures.
type sessionTimes struct {
	firstScreen, serving time.Duration
	err                  error
}

func benchSessions(b *testing.B, n int, warm, read bool) {
	bin := requireBinary(b)
	loadBefore, _ := os.ReadFile("/proc/loadavg")
	var first, serve, cleanup, fill []time.Duration
	var rss, pss, uss, added, spareUSS, spareAdded []float64
	for i := 0; i < b.N; i++ {
		before := memAvailableMB()
		cfg := Config{Executable: bin, MaxSessions: n}
		if warm {
			cfg.Warm = n
		}
		classStarted := time.Now()
		c := startClass(b, "", cfg)
		if warm {
			c.waitWarm(b, n)
			fill = append(fill, time.Since(classStarted))
			pids, _ := c.spares()
			for _, pid := range pids {
				_, _, u := groupMemory(pid)
				spareUSS = append(spareUSS, u)
			}
			spareAdded = append(spareAdded, (before-memAvailableMB())/float64(n))
		}
		var wg sync.WaitGroup
		times := make([]sessionTimes, n)
		clients := make([]*gossh.Client, n)
		var arrived *sync.WaitGroup // with read: every student's first screen is up
		if read {
			arrived = &sync.WaitGroup{}
			arrived.Add(n)
		}
		b.ResetTimer()
		for s := 0; s < n; s++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				clients[s], times[s] = driveStudent(c, fmt.Sprintf("student%02d", s), arrived)
			}()
		}
		wg.Wait()
		b.StopTimer()
		for s, t := range times {
			if t.err != nil {
				b.Fatalf("student%02d: %v\nclass log:\n%s\n%s", s, t.err, c.log, tourLog(c, fmt.Sprintf("student%02d", s)))
			}
			first, serve = append(first, t.firstScreen), append(serve, t.serving)
		}
		sessions := c.srv.Sessions()
		if len(sessions) != n {
			b.Fatalf("%d sessions running, want %d", len(sessions), n)
		}
		for _, si := range sessions {
			r, p, u := groupMemory(si.PID)
			rss, pss, uss = append(rss, r), append(pss, p), append(uss, u)
		}
		added = append(added, (before-memAvailableMB())/float64(n))
		closed := time.Now()
		for _, cl := range clients {
			cl.Close()
		}
		for _, si := range sessions {
			waitGone(b, si.PID, si.Dir, time.Minute)
			cleanup = append(cleanup, time.Since(closed))
		}
		c.close(b)
	}
	q := func(d []time.Duration, p float64) float64 { return quantile(d, p).Seconds() * 1000 }
	b.ReportMetric(q(first, 0.5), "first-p50-ms")
	b.ReportMetric(q(first, 0.95), "first-p95-ms")
	b.ReportMetric(q(serve, 0.5), "serve-p50-ms")
	b.ReportMetric(q(serve, 0.95), "serve-p95-ms")
	b.ReportMetric(mean(rss), "RSS-MB/session")
	b.ReportMetric(mean(pss), "PSS-MB/session")
	b.ReportMetric(mean(uss), "USS-MB/session")
	b.ReportMetric(mean(added), "added-MB/session")
	b.ReportMetric(q(cleanup, 1), "cleanup-max-ms")
	b.ReportMetric(0, "ns/op")
	spares := ""
	if warm {
		b.ReportMetric(mean(spareUSS), "spare-USS-MB")
		b.ReportMetric(mean(spareAdded), "spare-added-MB")
		spares = fmt.Sprintf("; %d spares ready %.1f s after the class started, idle spare USS %.0f MB, spares took %.0f MB each of MemAvailable",
			n, quantile(fill, 1).Seconds(), mean(spareUSS), mean(spareAdded))
	}
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("%d sessions (warm=%v, students read until all arrived=%v): first screen p50 %.0f ms p95 %.0f ms max %.0f ms; serving p50 %.0f ms p95 %.0f ms max %.0f ms; "+
		"RSS %.0f MB/session, PSS %.0f MB/session, USS %.0f MB/session, added %.0f MB/session (MemAvailable)%s; "+
		"all cleaned up %.0f ms after closing; load average before %s, after %s",
		n, warm, read, q(first, 0.5), q(first, 0.95), q(first, 1), q(serve, 0.5), q(serve, 0.95), q(serve, 1),
		mean(rss), mean(pss), mean(uss), mean(added), spares, q(cleanup, 1), strings.TrimSpace(string(loadBefore)), strings.TrimSpace(string(load)))
}

// memAvailableMB is the system's MemAvailable from /proc/meminfo, in MB.
func memAvailableMB() float64 {
	b, _ := os.ReadFile("/proc/meminfo")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// driveStudent connects as user, opens the tour on a 120×40 pty, waits for the first paused
// screen, dismisses the welcome, runs to the end (E) and waits for SERVING. With arrived, it
// waits after its first screen until every student has theirs (it counts itself done there,
// also when it fails before).
func driveStudent(c *testClass, user string, arrived *sync.WaitGroup) (*gossh.Client, sessionTimes) {
	var st sessionTimes
	var once sync.Once
	here := func() {
		if arrived != nil {
			once.Do(arrived.Done)
		}
	}
	defer here()
	start := time.Now()
	client, err := c.dial(user)
	if err != nil {
		st.err = err
		return nil, st
	}
	sess, err := client.NewSession()
	if err != nil {
		st.err = err
		return client, st
	}
	if err := sess.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		st.err = err
		return client, st
	}
	in, err := sess.StdinPipe()
	if err != nil {
		st.err = err
		return client, st
	}
	term := &fakeTerminal{answer: in, seen: make(chan struct{}, 1)}
	sess.Stdout, sess.Stderr = term, term
	if err := sess.Shell(); err != nil {
		st.err = err
		return client, st
	}
	if err := term.await("PAUSED at config/scheme", 5*time.Minute); err != nil {
		st.err = err
		return client, st
	}
	st.firstScreen = time.Since(start)
	if arrived != nil {
		here()
		arrived.Wait()
	}
	fmt.Fprint(in, "\r")
	if err := term.await("space next", 5*time.Minute); err != nil {
		st.err = err
		return client, st
	}
	fmt.Fprint(in, "E")
	if err := term.await("SERVING", benchWait()); err != nil {
		st.err = err
		return client, st
	}
	st.serving = time.Since(start)
	return client, st
}

// fakeTerminal takes a session's output, answers the queries a terminal answers (cursor
// position, background and foreground colour: lipgloss asks for the background and would wait
// seconds for an answer) and lets the caller wait for text on the screen.
type fakeTerminal struct {
	answer interface{ Write([]byte) (int, error) }
	mu     sync.Mutex
	raw    []byte
	seen   chan struct{} // a value after each write
}

func (f *fakeTerminal) Write(p []byte) (int, error) {
	f.mu.Lock()
	f.raw = append(f.raw, p...)
	f.mu.Unlock()
	if bytes.Contains(p, []byte("\x1b[6n")) {
		f.answer.Write([]byte("\x1b[1;1R"))
	}
	if bytes.Contains(p, []byte("\x1b]11;?")) {
		f.answer.Write([]byte("\x1b]11;rgb:0000/0000/0000\x1b\\"))
	}
	if bytes.Contains(p, []byte("\x1b]10;?")) {
		f.answer.Write([]byte("\x1b]10;rgb:ffff/ffff/ffff\x1b\\"))
	}
	select {
	case f.seen <- struct{}{}:
	default:
	}
	return len(p), nil
}

// await waits, within a bound, until text appears in the output (escape sequences removed).
func (f *fakeTerminal) await(text string, within time.Duration) error {
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	// Each look strips only what arrived since the last one (with an overlap for text split
	// across writes): the simulated students share the class host's 2 cores, and stripping the
	// whole tail at every write took CPU from the sessions being measured.
	f.mu.Lock()
	from := max(0, len(f.raw)-256*1024)
	f.mu.Unlock()
	for {
		f.mu.Lock()
		tail := f.raw[from:]
		found := strings.Contains(ansi.Strip(string(tail)), text)
		from = max(from, len(f.raw)-4096)
		f.mu.Unlock()
		if found {
			return nil
		}
		select {
		case <-f.seen:
		case <-deadline.C:
			f.mu.Lock()
			defer f.mu.Unlock()
			if out := os.Getenv("KW_BENCH_STUCK_SCREEN"); out != "" {
				_ = os.WriteFile(out, f.raw, 0o600)
			}
			return fmt.Errorf("no %q within %s; screen text:\n%s", text, within, ansi.Strip(string(f.raw[max(0, len(f.raw)-4096):])))
		}
	}
}

// groupMemory sums RSS, PSS and USS (the pages no other process maps: what ending the session
// frees), in MB, over the processes of process group pgid.
func groupMemory(pgid int) (rssMB, pssMB, ussMB float64) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the command's closing parenthesis: state ppid pgrp ...
		i := bytes.LastIndexByte(stat, ')')
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		roll, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(roll), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				continue
			}
			switch k {
			case "Rss":
				rssMB += kb / 1024
			case "Pss":
				pssMB += kb / 1024
			case "Private_Clean", "Private_Dirty":
				ussMB += kb / 1024
			}
		}
	}
	return rssMB, pssMB, ussMB
}

// quantile is the nearest-rank p-quantile of d (p = 1 is the maximum).
func quantile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s))*p+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

// tourLog is the end of a running session's tour log, for a failed student.
func tourLog(c *testClass, user string) string {
	for _, si := range c.srv.Sessions() {
		if si.User != user {
			continue
		}
		// A stuck tour: its goroutines (SIGQUIT makes Go write them to fd 2, the log file).
		path := filepath.Join(si.Dir, "kubewalk.log")
		_ = syscall.Kill(si.PID, syscall.SIGQUIT)
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("\ngoroutine ")) && groupGone(si.PID) {
				break
			}
			time.Sleep(50 * time.Millisecond) // polling for the dump, bounded above
		}
		b, err := os.ReadFile(path)
		if err != nil {
			kept, _ := filepath.Glob(filepath.Join(c.srv.cfg.StateDir, "logs", "*-"+user+".log"))
			if len(kept) == 0 {
				return fmt.Sprintf("%s's tour log: %v", user, err)
			}
			if b, err = os.ReadFile(kept[0]); err != nil {
				return fmt.Sprintf("%s's tour log: %v", user, err)
			}
		}
		if out := os.Getenv("KW_BENCH_STUCK_LOG"); out != "" {
			_ = os.WriteFile(out, b, 0o600)
		}
		return fmt.Sprintf("%s's tour log (end):\n%s", user, b[max(0, len(b)-6000):])
	}
	return user + ": no session running"
}

func groupGone(pid int) bool { return syscall.Kill(pid, 0) != nil }

func benchWait() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("KW_BENCH_WAIT")); err == nil {
		return d
	}
	return 5 * time.Minute
}
