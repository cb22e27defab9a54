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
// and how long the sessions took to be
// cleaned up after all the connections closed.
//
//	go test ./runtime/sshclass -run XXX -bench Sessions -benchtime 1x
func BenchmarkSessions(b *testing.B) {
	for _, n := range []int{1, 30} {
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchSessions(b, n) })
	}
}

// sessionTimes are one simulated student's figures.
type sessionTimes struct {
	firstScreen, serving time.Duration
	err                  error
}

func benchSessions(b *testing.B, n int) {
	bin := requireBinary(b)
	var first, serve, cleanup []time.Duration
	var rss, pss, uss []float64
	for i := 0; i < b.N; i++ {
		c := startClass(b, "", Config{Executable: bin, MaxSessions: n})
		var wg sync.WaitGroup
		times := make([]sessionTimes, n)
		clients := make([]*gossh.Client, n)
		b.ResetTimer()
		for s := 0; s < n; s++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				clients[s], times[s] = driveStudent(c, fmt.Sprintf("student%02d", s))
			}()
		}
		wg.Wait()
		b.StopTimer()
		for s, t := range times {
			if t.err != nil {
				b.Fatalf("student%02d: %v\nclass log:\n%s", s, t.err, c.log)
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
	b.ReportMetric(q(cleanup, 1), "cleanup-max-ms")
	b.ReportMetric(0, "ns/op")
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("%d sessions: first screen p50 %.0f ms p95 %.0f ms max %.0f ms; serving p50 %.0f ms p95 %.0f ms max %.0f ms; "+
		"RSS %.0f MB/session, PSS %.0f MB/session, USS %.0f MB/session; all cleaned up %.0f ms after closing; load average %s",
		n, q(first, 0.5), q(first, 0.95), q(first, 1), q(serve, 0.5), q(serve, 0.95), q(serve, 1),
		mean(rss), mean(pss), mean(uss), q(cleanup, 1), strings.TrimSpace(string(load)))
}

// driveStudent connects as user, opens the tour on a 120×40 pty, waits for the first paused
// screen, dismisses the welcome, runs to the end (E) and waits for SERVING.
func driveStudent(c *testClass, user string) (*gossh.Client, sessionTimes) {
	var st sessionTimes
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
	fmt.Fprint(in, "\r")
	if err := term.await("space next", 5*time.Minute); err != nil {
		st.err = err
		return client, st
	}
	fmt.Fprint(in, "E")
	if err := term.await("SERVING", 5*time.Minute); err != nil {
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
	for {
		f.mu.Lock()
		tail := f.raw[max(0, len(f.raw)-256*1024):]
		found := strings.Contains(ansi.Strip(string(tail)), text)
		f.mu.Unlock()
		if found {
			return nil
		}
		select {
		case <-f.seen:
		case <-deadline.C:
			f.mu.Lock()
			defer f.mu.Unlock()
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
