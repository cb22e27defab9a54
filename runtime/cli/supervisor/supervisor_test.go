package supervisor

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestConclude checks the supervisor's verdict on how its child ended.
func TestConclude(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "kubewalk.log")
	trace := "I1203 some log line\npanic: boom in a goroutine\n\ngoroutine 7 [running]:\nmain.f()\n"
	if err := os.WriteFile(logPath, []byte(trace), 0o600); err != nil {
		t.Fatal(err)
	}
	exited := func(code int) syscall.WaitStatus { return syscall.WaitStatus(code << 8) }
	killed := func(s syscall.Signal) syscall.WaitStatus { return syscall.WaitStatus(s) }
	tests := []struct {
		name     string
		report   string // what the child sent
		ws       syscall.WaitStatus
		wantCode int
		want     []string // lines of the supervisor's output, in order; nil: none
	}{
		{"clean exit", "log %q\nexit \"0\"\n", exited(0), 0, nil},
		{"error exit", "log %q\nexit \"1\"\n", exited(1), 1, nil},
		{"interrupted", "log %q\ntui \"1\"\ntui \"0\"\nexit \"130\"\n", exited(130), 130, nil},
		{"hard exit note", "log %q\nnote \"kubewalk: interrupted again\"\nexit \"130\"\n", exited(130), 130, []string{"kubewalk: interrupted again"}},
		{"panic", "log %q\ntui \"1\"\n", exited(2), 2, []string{"kubewalk crashed (exit status 2); the log is at " + logPath, "  panic: boom in a goroutine"}},
		{"killed", "log %q\n", killed(syscall.SIGKILL), 137, []string{"kubewalk crashed (signal: killed); the log is at " + logPath}},
		{"crash before the log", "", exited(2), 2, []string{"kubewalk crashed (exit status 2) before it opened its log"}},
		{"SIGINT before the handler", "", killed(syscall.SIGINT), 130, []string{"kubewalk: interrupted"}},
		{"garbage is ignored", "nonsense\nlog unquoted\n", exited(2), 2, []string{"kubewalk crashed (exit status 2) before it opened its log"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &childReport{}
			report := tt.report
			if strings.Contains(report, "%q") {
				report = fmt.Sprintf(report, logPath)
			}
			r.read(strings.NewReader(report))
			var out strings.Builder
			if code := r.conclude(tt.ws, nil, &out); code != tt.wantCode {
				t.Errorf("code %d, want %d", code, tt.wantCode)
			}
			got := out.String()
			if tt.want == nil && got != "" {
				t.Errorf("printed %q, want nothing", got)
			}
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("output lacks %q (in order):\n%s", w, got)
					break
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestLastPanicLine(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, log, want string }{
		{"panic", "x\npanic: first\n\ngoroutine 1\npanic: second [recovered]\n", "panic: second [recovered]"},
		{"fatal error", "fatal error: concurrent map read and map write\n", "fatal error: concurrent map read and map write"},
		{"none", "I1203 nothing to see\n", ""},
	}
	for _, tt := range tests {
		p := filepath.Join(dir, tt.name)
		os.WriteFile(p, []byte(tt.log), 0o600)
		if got := lastPanicLine(p); got != tt.want {
			t.Errorf("%s: lastPanicLine = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := lastPanicLine(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("missing log: %q", got)
	}
}

// TestReadLines: lines split across reads are joined, an unterminated last line counts, and a
// line longer than maxLine is skipped whole without losing the next one.
func TestReadLines(t *testing.T) {
	long := strings.Repeat("x", maxLine+10)
	tests := []struct {
		name   string
		chunks []string
		want   []string
	}{
		{"lines", []string{"a\nb\n"}, []string{"a", "b"}},
		{"split", []string{"lo", "g \"x\"\nti", "ui \"1\"\n"}, []string{`log "x"`, `tiui "1"`}},
		{"unterminated", []string{"a\nexit \"0\""}, []string{"a", `exit "0"`}},
		{"empty", nil, nil},
		{"too long", []string{"a\n", long[:5000], long[5000:], "\nb\n"}, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			readLines(&chunkReader{chunks: tt.chunks}, func(l []byte) { got = append(got, string(l)) })
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("lines %q, want %q", got, tt.want)
			}
		})
	}
}

// chunkReader returns its chunks one Read at a time.
type chunkReader struct{ chunks []string }

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	if c.chunks[0] = c.chunks[0][n:]; c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

func TestParseReport(t *testing.T) {
	tests := []struct {
		line, kind, arg string
		ok              bool
	}{
		{`log "/tmp/a b"`, "log", "/tmp/a b", true},
		{`note "line\none"`, "note", "line\none", true},
		{`exit 0`, "", "", false},
		{`exit`, "", "", false},
		{``, "", "", false},
	}
	for _, tt := range tests {
		kind, arg, ok := ParseReport(tt.line)
		if kind != tt.kind || arg != tt.arg || ok != tt.ok {
			t.Errorf("ParseReport(%q) = %q, %q, %v", tt.line, kind, arg, ok)
		}
	}
}

func TestTestBinary(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"/tmp/go-build1/b001/kubewalk.test", "-test.paniconexit0"}, true},
		{[]string{"./kubewalk.test"}, true},
		{[]string{"kubewalk", "-test.v"}, true},
		{[]string{"kubewalk", "serve"}, false},
		{[]string{"kubewalk"}, false},
		{[]string{".test"}, false},
	}
	for _, tt := range tests {
		if got := testBinary(tt.args); got != tt.want {
			t.Errorf("testBinary(%q) = %v", tt.args, got)
		}
	}
}
