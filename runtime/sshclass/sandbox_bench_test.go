package sshclass

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/runtime/sandbox"
)

// BenchmarkSandboxHandover measures what confining a student's tour costs its first screen:
// one student at a time takes a warm spare and is timed from connecting to the first paused
// screen, with the sandbox off (the tour as the class's user, no Landlock, no seccomp) and on
// (as nobody when run as root, Landlock and seccomp applied at the handover). It also reports
// the time the spare itself spent in sandbox.Apply (from its report to the class).
//
//	go test ./runtime/sshclass -run XXX -bench SandboxHandover -benchtime 10x
func BenchmarkSandboxHandover(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "sandbox=off"
		if on {
			name = "sandbox=on"
		}
		b.Run(name, func(b *testing.B) { benchSandboxHandover(b, on) })
	}
}

func benchSandboxHandover(b *testing.B, on bool) {
	bin := requireBinary(b)
	cfg := Config{Executable: bin, MaxSessions: 1, Warm: 1}
	if on {
		cfg.RunAs = nobody(b)
	} else {
		cfg.Sandbox = sandbox.Off
	}
	c := startClass(b, "", cfg)
	var first []time.Duration
	var spareUSS []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c.waitWarm(b, 1)
		pids, _ := c.spares()
		_, _, u := groupMemory(pids[0])
		spareUSS = append(spareUSS, u)
		b.StartTimer()
		start := time.Now()
		client, st := firstScreen(c, "student")
		b.StopTimer()
		if st != nil {
			b.Fatalf("first screen: %v\nclass log:\n%s", st, c.log)
		}
		first = append(first, time.Since(start))
		ss := c.srv.Sessions()
		client.Close()
		for _, si := range ss {
			waitGone(b, si.PID, si.Dir, time.Minute)
		}
		b.StartTimer()
	}
	b.StopTimer()
	var applied []time.Duration
	for _, m := range regexp.MustCompile(`applied in ([0-9.]+) ms`).FindAllStringSubmatch(c.log.String(), -1) {
		ms, _ := strconv.ParseFloat(m[1], 64)
		applied = append(applied, time.Duration(ms*float64(time.Millisecond)))
	}
	q := func(d []time.Duration, p float64) float64 { return quantile(d, p).Seconds() * 1000 }
	b.ReportMetric(q(first, 0.5), "first-p50-ms")
	b.ReportMetric(q(first, 1), "first-max-ms")
	b.ReportMetric(q(applied, 0.5), "apply-p50-ms")
	b.ReportMetric(q(applied, 1), "apply-max-ms")
	b.ReportMetric(mean(spareUSS), "spare-USS-MB")
	b.ReportMetric(0, "ns/op")
}

// firstScreen connects as user and waits for the tour's first paused screen.
func firstScreen(c *testClass, user string) (interface{ Close() error }, error) {
	client, err := c.dial(user)
	if err != nil {
		return nil, err
	}
	sess, err := client.NewSession()
	if err != nil {
		client.Close()
		return nil, err
	}
	if err := sess.RequestPty("xterm-256color", 40, 120, nil); err != nil {
		client.Close()
		return nil, err
	}
	in, err := sess.StdinPipe()
	if err != nil {
		client.Close()
		return nil, err
	}
	term := &fakeTerminal{answer: in, seen: make(chan struct{}, 1)}
	sess.Stdout, sess.Stderr = term, term
	if err := sess.Shell(); err != nil {
		client.Close()
		return nil, err
	}
	if err := term.await("PAUSED at config/scheme", 5*time.Minute); err != nil {
		client.Close()
		return nil, err
	}
	return client, nil
}
