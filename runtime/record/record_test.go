package record

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock returns a fake clock that moves 250ms at every reading.
func clock() func() time.Time {
	t := time.Date(2025, 5, 1, 10, 30, 0, 0, time.UTC)
	return func() time.Time {
		now := t
		t = t.Add(250 * time.Millisecond)
		return now
	}
}

func TestRecordParsesBack(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		do     func(r *Recorder)
		header Header
		events []Event
	}{
		{
			name:   "header only",
			opts:   Options{Width: 120, Height: 40, Term: "xterm-256color", Title: "kubewalk tour"},
			do:     func(*Recorder) {},
			header: Header{Version: 2, Width: 120, Height: 40, Timestamp: 1746095400, Title: "kubewalk tour", Env: map[string]string{"TERM": "xterm-256color"}},
		},
		{
			name:   "no size takes 80x24, no TERM no env",
			do:     func(r *Recorder) { r.Output([]byte("\x1b[?1049hhello")) },
			header: Header{Version: 2, Width: 80, Height: 24, Timestamp: 1746095400},
			events: []Event{{0.25, "o", "\x1b[?1049hhello"}},
		},
		{
			name: "output and resize in order",
			opts: Options{Width: 80, Height: 24},
			do: func(r *Recorder) {
				r.Output([]byte("a"))
				r.Resize(120, 40)
				r.Output([]byte("b\r\n"))
			},
			header: Header{Version: 2, Width: 80, Height: 24, Timestamp: 1746095400},
			events: []Event{{0.25, "o", "a"}, {0.5, "r", "120x40"}, {0.75, "o", "b\r\n"}},
		},
		{
			name: "a rune split across writes is recorded whole",
			opts: Options{Width: 80, Height: 24},
			do: func(r *Recorder) {
				s := []byte("启动链") // 3 bytes a rune
				r.Output(s[:4])
				r.Output(s[4:8])
				r.Output(s[8:])
			},
			header: Header{Version: 2, Width: 80, Height: 24, Timestamp: 1746095400},
			events: []Event{{0.25, "o", "启"}, {0.5, "o", "动"}, {0.75, "o", "链"}},
		},
		{
			name:   "a split rune left at the end is flushed by Close",
			opts:   Options{Width: 80, Height: 24},
			do:     func(r *Recorder) { r.Output([]byte("x\xe5\x90")) },
			header: Header{Version: 2, Width: 80, Height: 24, Timestamp: 1746095400},
			events: []Event{{0.25, "o", "x"}, {0.5, "o", "\ufffd\ufffd"}}, // one U+FFFD a byte
		},
		{
			name:   "empty writes record nothing",
			opts:   Options{Width: 80, Height: 24},
			do:     func(r *Recorder) { r.Output(nil) },
			header: Header{Version: 2, Width: 80, Height: 24, Timestamp: 1746095400},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			tt.opts.Now = clock()
			r, err := New(&buf, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			tt.do(r)
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			r.Output([]byte("after close")) // ignored
			h, evs, err := Parse(&buf)
			if err != nil {
				t.Fatalf("parse: %v\n%s", err, buf.String())
			}
			if h.Version != tt.header.Version || h.Width != tt.header.Width || h.Height != tt.header.Height ||
				h.Timestamp != tt.header.Timestamp || h.Title != tt.header.Title || len(h.Env) != len(tt.header.Env) || h.Env["TERM"] != tt.header.Env["TERM"] {
				t.Errorf("header = %+v, want %+v", h, tt.header)
			}
			if len(evs) != len(tt.events) {
				t.Fatalf("events = %+v, want %+v", evs, tt.events)
			}
			for i := range evs {
				if evs[i] != tt.events[i] {
					t.Errorf("event %d = %+v, want %+v", i, evs[i], tt.events[i])
				}
			}
		})
	}
}

// TestCreate: the file is 0600, written as it goes (readable and valid before Close), and an
// existing file is never overwritten.
func TestCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.cast")
	r, err := Create(path, Options{Width: 100, Height: 30, Term: "xterm"})
	if err != nil {
		t.Fatal(err)
	}
	w := r.Tee(&bytes.Buffer{})
	if _, err := w.Write([]byte("kube-apiserver 启动")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("mode = %v, want 0600", m)
	}
	// Before Close: what a crash would leave.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	_, evs, err := Parse(f)
	f.Close()
	if err != nil || len(evs) != 1 || evs[0].Data != "kube-apiserver 启动" {
		t.Fatalf("before Close: events %+v, err %v", evs, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	before, _ := os.ReadFile(path)
	_, err = Create(path, Options{})
	if !errors.Is(err, ErrExists) {
		t.Fatalf("Create over an existing file: err = %v, want ErrExists", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the existing recording was changed")
	}
	if _, err := Create(filepath.Join(t.TempDir(), "no", "such", "dir.cast"), Options{}); err == nil {
		t.Error("Create in a missing directory: no error")
	}
}

// TestTeeFile: a terminal-like output stays one through the tee (bubbletea asks it for Fd).
func TestTeeFile(t *testing.T) {
	r, err := New(&bytes.Buffer{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := r.Tee(f)
	tf, ok := w.(terminalFile)
	if !ok {
		t.Fatalf("Tee(*os.File) is a %T, not a terminal file", w)
	}
	if tf.Fd() != f.Fd() {
		t.Errorf("Fd = %d, want %d", tf.Fd(), f.Fd())
	}
	if _, ok := r.Tee(&bytes.Buffer{}).(terminalFile); ok {
		t.Error("Tee(*bytes.Buffer) claims to be a terminal file")
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return len(p), nil
}

// TestWriteErrorStopsRecording: the screen goes on (Tee's writes succeed); Close reports it.
func TestWriteErrorStopsRecording(t *testing.T) {
	r, err := New(&failWriter{n: 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var screen bytes.Buffer
	w := r.Tee(&screen)
	for range 3 {
		if _, err := w.Write([]byte("frame")); err != nil {
			t.Fatalf("screen write: %v", err)
		}
	}
	if screen.String() != strings.Repeat("frame", 3) {
		t.Errorf("screen = %q", screen.String())
	}
	if err := r.Close(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Close = %v, want the write error", err)
	}
	if _, err := New(&failWriter{}, Options{}); err == nil {
		t.Error("New with a failing writer: no error")
	}
}

// TestConcurrent: the renderer writes while the event loop resizes; every line stays whole.
func TestConcurrent(t *testing.T) {
	var buf bytes.Buffer
	r, err := New(&buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if i%2 == 0 {
					r.Output([]byte("界面"))
				} else {
					r.Resize(80+i, 24)
				}
			}
		}()
	}
	wg.Wait()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	_, evs, err := Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 800 {
		t.Errorf("%d events, want 800", len(evs))
	}
}

func TestParseRejects(t *testing.T) {
	tests := map[string]string{
		"not json":          "hello\n",
		"wrong version":     `{"version":1,"width":80,"height":24}` + "\n",
		"no size":           `{"version":2}` + "\n",
		"short event":       `{"version":2,"width":80,"height":24}` + "\n" + `[0.1,"o"]` + "\n",
		"time goes back":    `{"version":2,"width":80,"height":24}` + "\n" + `[0.5,"o","a"]` + "\n" + `[0.1,"o","b"]` + "\n",
		"cut mid-line":      `{"version":2,"width":80,"height":24}` + "\n" + `[0.5,"o","a`,
		"data not a string": `{"version":2,"width":80,"height":24}` + "\n" + `[0.5,"o",3]` + "\n",
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			if _, _, err := Parse(strings.NewReader(in)); err == nil {
				t.Errorf("Parse(%q): no error", in)
			}
		})
	}
}

// TestTeeCooked: line output records "\n" as the "\r\n" a cooked terminal shows.
func TestTeeCooked(t *testing.T) {
	var file, screen bytes.Buffer
	r, err := New(&file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := r.TeeCooked(&screen)
	if _, err := w.Write([]byte("config/scheme\nalready\r\n")); err != nil {
		t.Fatal(err)
	}
	if screen.String() != "config/scheme\nalready\r\n" {
		t.Errorf("screen got %q", screen.String())
	}
	_, evs, err := Parse(&file)
	if err != nil || len(evs) != 1 || evs[0].Data != "config/scheme\r\nalready\r\n" {
		t.Errorf("events %+v, err %v", evs, err)
	}
}
