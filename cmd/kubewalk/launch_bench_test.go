package main_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// BenchmarkLaunch measures what a learner waits for and what a running kubewalk costs the
// machine, from outside the process, on the binary as users build it (no test tags):
//
//   - serve: `kubewalk serve` started → the first `/readyz` answered 200 on its port (polled
//     every millisecond over TLS, anonymously), and the PSS of every process of the run (the sum
//     of /proc/PID/smaps_rollup's Pss, so the binary's shared pages count once) one second after;
//   - tour: `kubewalk tour` started on a 120×40 pseudo-terminal that answers the queries a
//     terminal answers → the first frame showing "PAUSED at config/scheme", the PSS then, and
//     after Enter (the welcome) and E, the time to "SERVING" and the PSS once served;
//   - init: `kubewalk version` with GODEBUG=inittrace=1: the sum of every package's init
//     clock time before main, and the command's wall time;
//   - requests: `kubewalk serve`, then the p50 of configmap GETs and CREATEs through client-go
//     as admin (launchRequests).
//
// Each figure is the median over b.N runs (use -benchtime 7x or more). Before each run the
// binary is copied afresh, with small writes, into the run's directory: on this machine's
// kernel (6.18, ext4 with large folios) a page fault maps the whole page-cache folio it hits,
// and the folios' sizes depend on how the file got into the page cache (a binary the Go linker
// just wrote, or one read back after eviction, sits in folios of up to 2 MB; one written in
// 64 KB pieces, in 64 KB ones). The same binary then shows 50–100 MB more PSS in one state than
// in the other; copying puts every binary measured, old and new, in the same state, and PSS is
// also given without the binary's file pages (MB-pss-anon: heap, stacks, the runtime's
// mappings). With
// KUBEWALK_BENCH_BASELINE=/path/to/an/older/kubewalk the same runs alternate with that binary
// (which goes first alternates too) and the baseline's medians and the ratios new/baseline are
// reported beside: a before/after comparison from one run on one machine's load.
//
//	go test ./cmd/kubewalk -run '^$' -bench Launch -benchtime 7x
//
// Nothing here runs without -bench: `go test ./cmd/kubewalk` pays only for compiling it.
func BenchmarkLaunch(b *testing.B) {
	cur := benchBinary(b)
	base := os.Getenv("KUBEWALK_BENCH_BASELINE")
	if base != "" {
		if _, err := os.Stat(base); err != nil {
			b.Fatalf("KUBEWALK_BENCH_BASELINE: %v", err)
		}
	}
	b.Run("serve", func(b *testing.B) { compareLaunch(b, cur, base, launchServe) })
	b.Run("tour", func(b *testing.B) { compareLaunch(b, cur, base, launchTour) })
	b.Run("init", func(b *testing.B) { compareLaunch(b, cur, base, launchVersion) })
	b.Run("requests", func(b *testing.B) { compareLaunch(b, cur, base, launchRequests) })
}

// launchFigures are one run's figures, by unit (as b.ReportMetric names them).
type launchFigures map[string]float64

// compareLaunch runs measure b.N times on cur and, if base is set, as often on base,
// alternating, and reports the medians (and the ratios cur/base).
func compareLaunch(b *testing.B, cur, base string, measure func(testing.TB, string) launchFigures) {
	var curs, bases []launchFigures
	for i := 0; i < b.N; i++ {
		bins := []string{cur}
		if base != "" {
			bins = append(bins, base)
			if i%2 == 1 {
				bins[0], bins[1] = bins[1], bins[0]
			}
		}
		for _, bin := range bins {
			f := measure(b, bin)
			if bin == cur {
				curs = append(curs, f)
			} else {
				bases = append(bases, f)
			}
		}
	}
	b.StopTimer()
	mc := medians(curs)
	for unit, v := range mc {
		b.ReportMetric(v, unit)
	}
	if base == "" {
		return
	}
	mb := medians(bases)
	for unit, v := range mb {
		b.ReportMetric(v, "base-"+unit)
		if v > 0 {
			b.ReportMetric(mc[unit]/v, "ratio-"+unit)
		}
	}
}

// medians returns the median of each unit over runs.
func medians(runs []launchFigures) launchFigures {
	by := map[string][]float64{}
	for _, r := range runs {
		for unit, v := range r {
			by[unit] = append(by[unit], v)
		}
	}
	out := launchFigures{}
	for unit, vs := range by {
		sort.Float64s(vs)
		m := vs[len(vs)/2]
		if len(vs)%2 == 0 {
			m = (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
		}
		out[unit] = m
	}
	return out
}

var (
	benchBuild     sync.Once
	benchBuilt     string
	benchBuildFail error
)

// benchBinary builds kubewalk as users build it (no test tags), once per test binary.
func benchBinary(b *testing.B) string {
	benchBuild.Do(func() {
		dir, err := os.MkdirTemp("", "kubewalk-bench-")
		if err != nil {
			benchBuildFail = err
			return
		}
		benchBuilt = filepath.Join(dir, "kubewalk")
		out, err := exec.Command("go", "build", "-o", benchBuilt, ".").CombinedOutput()
		if err != nil {
			benchBuildFail = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if benchBuildFail != nil {
		b.Fatal(benchBuildFail)
	}
	return benchBuilt
}

// launchServe starts `serve` and measures launch → /readyz 200 and the run's PSS once served.
func launchServe(t testing.TB, bin string) launchFigures {
	sb := newSandbox(t)
	bin = copyBinary(t, bin, sb.root)
	port := freePort(t)
	cmd := exec.Command(bin, "serve", "--secure-port", port, "--kubeconfig", filepath.Join(sb.root, "kubeconfig"),
		"--log-file", sb.log)
	cmd.Env = sb.env()
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	client := &http.Client{
		Timeout:   time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, // a per-run CA: only the status matters
	}
	defer client.CloseIdleConnections()
	url := "https://127.0.0.1:" + port + "/readyz"
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	defer stopRun(t, cmd, done, sb)
	deadline := start.Add(2 * time.Minute)
	for {
		resp, err := client.Get(url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-done:
			t.Fatalf("%s serve exited before /readyz was 200:\n%s", bin, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s serve: /readyz not 200 within 2m:\n%s", bin, out)
		}
		time.Sleep(time.Millisecond)
	}
	ready := time.Since(start)
	time.Sleep(time.Second) // the memory of a server that has settled, not of one mid-start
	pss, anon := treePSS(sb)
	return launchFigures{"ms-ready": ms(ready), "MB-pss": pss, "MB-pss-anon": anon}
}

// launchTour starts the tour on a pseudo-terminal and measures launch → the first paused frame,
// then goes on to serve.
func launchTour(t testing.TB, bin string) launchFigures {
	sb := newSandbox(t)
	bin = copyBinary(t, bin, sb.root)
	cmd := exec.Command(bin, "tour", "--log-file", sb.log)
	cmd.Env = sb.env("TERM=xterm-256color", "COLORTERM=truecolor")
	start := time.Now()
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	term := &ptyTerminal{answer: ptmx, seen: make(chan struct{}, 1)}
	go func() { _, _ = io.Copy(term, ptmx) }()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	defer stopRun(t, cmd, done, sb)
	if err := term.await("PAUSED at config/scheme", 2*time.Minute, done); err != nil {
		t.Fatalf("%s tour: %v", bin, err)
	}
	paused := time.Since(start)
	pss, anon := treePSS(sb)
	f := launchFigures{"ms-paused": ms(paused), "MB-pss-paused": pss, "MB-pss-anon-paused": anon}
	fmt.Fprint(ptmx, "\r") // the welcome of a first run
	if err := term.await("space next", 2*time.Minute, done); err != nil {
		t.Fatalf("%s tour: %v", bin, err)
	}
	serveStart := time.Now()
	fmt.Fprint(ptmx, "E")
	if err := term.await("SERVING", 2*time.Minute, done); err != nil {
		t.Fatalf("%s tour: %v", bin, err)
	}
	f["ms-E-to-serving"] = ms(time.Since(serveStart))
	time.Sleep(time.Second)
	f["MB-pss-served"], f["MB-pss-anon-served"] = treePSS(sb)
	return f
}

// launchVersion runs `kubewalk version` with inittrace and sums the package inits.
func launchVersion(t testing.TB, bin string) launchFigures {
	bin = copyBinary(t, bin, t.TempDir())
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s version: %v\n%s", bin, err, stderr.String())
	}
	wall := time.Since(start)
	total, n := initTrace(stderr.String())
	return launchFigures{"ms-init": total, "ms-version": ms(wall), "inits": float64(n)}
}

// initTrace sums the clock time of the "init PKG @T ms, N ms clock, …" lines inittrace prints.
func initTrace(s string) (totalMS float64, n int) {
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 7 || f[0] != "init" || f[6] != "clock," {
			continue
		}
		if v, err := strconv.ParseFloat(f[4], 64); err == nil {
			totalMS += v
			n++
		}
	}
	return totalMS, n
}

// stopRun ends a run with SIGTERM, as a user's kill would, and waits (bounded) until it is gone;
// the sandbox's cleanup kills whatever is left.
func stopRun(t testing.TB, cmd *exec.Cmd, done chan struct{}, sb *sandbox) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Errorf("still running a minute after SIGTERM")
		sb.kill()
	}
	for end := time.Now().Add(30 * time.Second); len(sb.processes()) > 0 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
}

// treePSS sums the PSS, in MB, of every process of the sandbox's run, and the anonymous part
// of it (Pss_Anon: not the binary's file pages).
func treePSS(sb *sandbox) (pss, anon float64) {
	for _, pid := range sb.processes() {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(l, ":")
			n, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			switch k {
			case "Pss":
				pss += n / 1024
			case "Pss_Anon":
				anon += n / 1024
			}
		}
	}
	return pss, anon
}

// copyBinary copies bin into dir in 64 KB writes and returns the copy's path (see
// BenchmarkLaunch: the page cache's folios of every binary measured are then alike).
func copyBinary(t testing.TB, bin, dir string) string {
	in, err := os.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	path := filepath.Join(dir, "kubewalk")
	out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			if _, werr := out.Write(buf[:n]); werr != nil {
				t.Fatal(werr)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ptyTerminal takes a tour's output, answers the queries a terminal answers (cursor position,
// background and foreground colour, which lipgloss asks and would wait for) and lets the
// caller wait for text on the screen.
type ptyTerminal struct {
	answer io.Writer
	mu     sync.Mutex
	raw    []byte
	seen   chan struct{}
}

func (p *ptyTerminal) Write(b []byte) (int, error) {
	p.mu.Lock()
	p.raw = append(p.raw, b...)
	p.mu.Unlock()
	if bytes.Contains(b, []byte("\x1b[6n")) {
		_, _ = p.answer.Write([]byte("\x1b[1;1R"))
	}
	if bytes.Contains(b, []byte("\x1b]11;?")) {
		_, _ = p.answer.Write([]byte("\x1b]11;rgb:0000/0000/0000\x1b\\"))
	}
	if bytes.Contains(b, []byte("\x1b]10;?")) {
		_, _ = p.answer.Write([]byte("\x1b]10;rgb:ffff/ffff/ffff\x1b\\"))
	}
	select {
	case p.seen <- struct{}{}:
	default:
	}
	return len(b), nil
}

// await waits, within a bound, until text shows in the output (escape sequences removed). Each
// look strips only what arrived since the last one, with an overlap for text split across
// writes (as runtime/sshclass's benchmark does).
func (p *ptyTerminal) await(text string, within time.Duration, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	p.mu.Lock()
	from := max(0, len(p.raw)-256*1024)
	p.mu.Unlock()
	for {
		p.mu.Lock()
		found := strings.Contains(ansi.Strip(string(p.raw[from:])), text)
		from = max(from, len(p.raw)-4096)
		p.mu.Unlock()
		if found {
			return nil
		}
		select {
		case <-p.seen:
		case <-exited:
			exited = nil // the last output may still be on its way
		case <-ctx.Done():
			p.mu.Lock()
			defer p.mu.Unlock()
			return fmt.Errorf("no %q within %s; screen text:\n%s", text, within, ansi.Strip(string(p.raw[max(0, len(p.raw)-4096):])))
		}
	}
}

// requestsPerRun is how many GETs and CREATEs launchRequests times on each run.
const requestsPerRun = 300

// launchRequests starts `serve`, waits for the kubeconfig it writes once ready, and times
// requestsPerRun configmap GETs and as many CREATEs through client-go as admin, after a warm-up:
// the p50 of each, in µs. It is the in-process BenchmarkGet and BenchmarkCreate of server/,
// on the binary as users build it, so that two binaries can be compared in one run.
func launchRequests(t testing.TB, bin string) launchFigures {
	sb := newSandbox(t)
	bin = copyBinary(t, bin, sb.root)
	port := freePort(t)
	kubeconfig := filepath.Join(sb.root, "kubeconfig")
	cmd := exec.Command(bin, "serve", "--secure-port", port, "--kubeconfig", kubeconfig, "--log-file", sb.log)
	cmd.Env = sb.env()
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	defer stopRun(t, cmd, done, sb)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(kubeconfig); err == nil {
			break
		}
		select {
		case <-done:
			t.Fatalf("%s serve exited before writing its kubeconfig:\n%s", bin, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s serve: no kubeconfig within 2m:\n%s", bin, out)
		}
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: "admin"}).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = -1, 0 // no client-side throttling: the server's time is measured
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cms := cs.CoreV1().ConfigMaps("default")
	ctx := context.Background()
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p50 := func(op func(i int) error) float64 {
		for i := range 20 { // warm-up: connections, caches
			if err := op(-1 - i); err != nil {
				t.Fatal(err)
			}
		}
		ds := make([]float64, 0, requestsPerRun)
		for i := range requestsPerRun {
			began := time.Now()
			if err := op(i); err != nil {
				t.Fatal(err)
			}
			ds = append(ds, float64(time.Since(began))/float64(time.Microsecond))
		}
		sort.Float64s(ds)
		return ds[len(ds)/2]
	}
	get := p50(func(int) error { _, err := cms.Get(ctx, "bench", metav1.GetOptions{}); return err })
	create := p50(func(i int) error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d", i+100)}, Data: map[string]string{"k": "v"}}
		_, err := cms.Create(ctx, cm, metav1.CreateOptions{})
		return err
	})
	return launchFigures{"µs-get-p50": get, "µs-create-p50": create}
}
