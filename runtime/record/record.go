// Package record writes an asciicast v2 recording (https://docs.asciinema.org/manual/asciicast/v2/)
// of what a program writes to its terminal: a header line, then one "o" event per write and an
// "r" event per resize, each written to the file as it happens, so that a crash leaves a valid
// prefix that players replay.
//
// Only what the screen is sent is recorded: never the keys typed (no "i" events) and, in the
// header, no environment but TERM.
package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Header is the first line of an asciicast v2 file.
type Header struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp,omitempty"`
	Title     string            `json:"title,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// Options describe the recording's header.
type Options struct {
	// Width and Height are the terminal's size when the recording starts; 0 takes 80×24.
	Width, Height int
	// Term is the TERM recorded in the header's env, or "" for none.
	Term string
	// Title is the recording's title, or "".
	Title string
	// Now is the clock (time.Now when nil); events are timed from its first reading.
	Now func() time.Time
}

// Recorder writes the events of one recording. Its methods may be called from several
// goroutines (bubbletea's renderer writes, its event loop resizes).
type Recorder struct {
	mu      sync.Mutex
	w       io.Writer
	c       io.Closer // nil when the caller owns w
	now     func() time.Time
	start   time.Time
	pending []byte // the start of a UTF-8 sequence a write split, held for the next one
	err     error  // the first write error: recording stops, the program goes on
	closed  bool
}

// ErrExists is returned by Create when the file is already there: a recording never
// overwrites one.
var ErrExists = errors.New("the file already exists (kubewalk does not overwrite it; choose another name or remove it)")

// Create creates path (mode 0600: a recording is the learner's screen, not for every user of
// the machine), refusing to overwrite an existing file, and writes the header.
func Create(path string, o Options) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%s: %w", path, ErrExists)
		}
		return nil, err
	}
	r, err := New(f, o)
	if err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, err
	}
	r.c = f
	return r, nil
}

// New writes the header to w and returns a Recorder writing events to it. Close does not close
// w.
func New(w io.Writer, o Options) (*Recorder, error) {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	if o.Width <= 0 || o.Height <= 0 {
		o.Width, o.Height = 80, 24
	}
	r := &Recorder{w: w, now: now, start: now()}
	h := Header{Version: 2, Width: o.Width, Height: o.Height, Timestamp: r.start.Unix(), Title: o.Title}
	if o.Term != "" {
		h.Env = map[string]string{"TERM": o.Term}
	}
	line, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("writing the recording's header: %w", err)
	}
	return r, nil
}

// Output records b as written to the terminal. A UTF-8 sequence split across two writes is
// recorded whole, with the second.
func (r *Recorder) Output(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.err != nil || len(b) == 0 {
		return
	}
	data := append(r.pending, b...)
	cut := len(data)
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				cut = i
			}
			break
		}
	}
	r.pending = append([]byte(nil), data[cut:]...)
	if cut > 0 {
		r.event("o", string(data[:cut]))
	}
}

// Resize records that the terminal is now w×h.
func (r *Recorder) Resize(w, h int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.err != nil {
		return
	}
	r.event("r", strconv.Itoa(w)+"x"+strconv.Itoa(h))
}

// event writes one event line; r.mu is held.
func (r *Recorder) event(kind, data string) {
	t := math.Round(r.now().Sub(r.start).Seconds()*1e6) / 1e6
	line, err := json.Marshal([]any{t, kind, data})
	if err == nil {
		_, err = r.w.Write(append(line, '\n'))
	}
	if err != nil {
		r.err = fmt.Errorf("writing the recording: %w", err)
	}
}

// Close writes what a split UTF-8 sequence held back, closes the file Create opened and
// returns the first error the recording met (the program went on without it).
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.err
	}
	if len(r.pending) > 0 && r.err == nil {
		r.event("o", string(r.pending)) // invalid UTF-8 is recorded as U+FFFD
	}
	r.closed = true
	if r.c != nil {
		if err := r.c.Close(); err != nil && r.err == nil {
			r.err = fmt.Errorf("closing the recording: %w", err)
		}
	}
	return r.err
}

// Tee returns a writer that writes to out and records what out took. When out is a terminal
// file (it has Fd and Read, like *os.File), so is the writer: bubbletea then still finds the
// terminal's size and state through it.
func (r *Recorder) Tee(out io.Writer) io.Writer {
	t := teeWriter{out: out, r: r}
	if f, ok := out.(terminalFile); ok {
		return teeFile{teeWriter: t, f: f}
	}
	return t
}

// TeeCooked is Tee for line output to a terminal in cooked mode, which turns each "\n" into
// "\r\n" (stty onlcr): the recording gets "\r\n", so that it replays as the screen showed it.
func (r *Recorder) TeeCooked(out io.Writer) io.Writer {
	return teeWriter{out: out, r: r, cooked: true}
}

type teeWriter struct {
	out    io.Writer
	r      *Recorder
	cooked bool
}

func (t teeWriter) Write(p []byte) (int, error) {
	n, err := t.out.Write(p)
	if n > 0 {
		if t.cooked {
			t.r.Output(bytes.ReplaceAll(bytes.ReplaceAll(p[:n], []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n")))
		} else {
			t.r.Output(p[:n])
		}
	}
	return n, err
}

// terminalFile is what bubbletea (github.com/charmbracelet/x/term.File) looks for in its
// output to query the terminal.
type terminalFile interface {
	io.ReadWriteCloser
	Fd() uintptr
}

type teeFile struct {
	teeWriter
	f terminalFile
}

func (t teeFile) Read(p []byte) (int, error) { return t.f.Read(p) }
func (t teeFile) Close() error               { return t.f.Close() }
func (t teeFile) Fd() uintptr                { return t.f.Fd() }

// Event is one event of a recording read back by Parse.
type Event struct {
	Time float64
	Kind string
	Data string
}

// Parse reads an asciicast v2 recording: the header and its events, checking that every line
// is well formed and that time never goes back. A recording cut short after a line (a crash)
// parses.
func Parse(rd io.Reader) (Header, []Event, error) {
	dec := json.NewDecoder(rd)
	var h Header
	if err := dec.Decode(&h); err != nil {
		return h, nil, fmt.Errorf("header: %w", err)
	}
	if h.Version != 2 || h.Width <= 0 || h.Height <= 0 {
		return h, nil, fmt.Errorf("header: version %d, size %dx%d: not an asciicast v2 header", h.Version, h.Width, h.Height)
	}
	var evs []Event
	last := 0.0
	for {
		var raw []json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return h, evs, nil
		}
		if err != nil {
			return h, evs, fmt.Errorf("event %d: %w", len(evs)+1, err)
		}
		var ev Event
		if len(raw) != 3 {
			return h, evs, fmt.Errorf("event %d: %d fields, want 3", len(evs)+1, len(raw))
		}
		if err := errors.Join(json.Unmarshal(raw[0], &ev.Time), json.Unmarshal(raw[1], &ev.Kind), json.Unmarshal(raw[2], &ev.Data)); err != nil {
			return h, evs, fmt.Errorf("event %d: %w", len(evs)+1, err)
		}
		if ev.Time < last {
			return h, evs, fmt.Errorf("event %d: time %v goes back from %v", len(evs)+1, ev.Time, last)
		}
		last = ev.Time
		evs = append(evs, ev)
	}
}
