package plain

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"
)

// DefaultWidth is the width a transcript is written for when it does not go to a terminal.
const DefaultWidth = 100

// minWidth is the narrowest width a transcript is wrapped to, however narrow the terminal.
const minWidth = 20

// TerminalWidth returns the width to write a transcript for on f: the terminal's, when f is
// one (so that nothing the transcript prints is wider than the screen and the terminal never
// splits a word); else $COLUMNS when it is a positive number, as ls and man read it (a pipe
// into a pager, `script`, an editor's terminal); else DefaultWidth (a file). getenv is
// os.Getenv.
func TerminalWidth(f *os.File, getenv func(string) string) int {
	if f != nil && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return max(w, minWidth)
		}
	}
	if getenv != nil {
		if w, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS"))); err == nil && w > 0 {
			return max(w, minWidth)
		}
	}
	return DefaultWidth
}

// promptRoom is the room a prompt leaves on its line for what is typed after it.
const promptRoom = 4

// foldWriter passes a transcript through, folding every complete line wider than width at
// its spaces (and between wide CJK characters), never inside a word: the lesson prose is
// wrapped already, but state trees, source excerpts, lanes and commands are written a line at
// a time. A continuation line is indented under the line's text (under the code, for a
// source line). A word longer than the width is left whole: a path or a command stays one
// piece to copy. What is written without a line ending (a prompt) goes out at once, folded to leave room
// for the answer; the rest of its line, once written, as is.
type foldWriter struct {
	mu      sync.Mutex
	out     io.Writer
	width   int
	buf     []byte
	emitted int // bytes of buf's last, unfinished line already written
}

func newFoldWriter(out io.Writer, width int) *foldWriter {
	return &foldWriter{out: out, width: width}
}

func (f *foldWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf = append(f.buf, p...)
	var out bytes.Buffer
	for {
		i := bytes.IndexByte(f.buf, '\n')
		if i < 0 {
			break
		}
		line := string(f.buf[:i])
		if f.emitted > 0 {
			out.WriteString(line[f.emitted:])
		} else {
			out.WriteString(fold(line, f.width))
		}
		out.WriteByte('\n')
		f.buf = f.buf[i+1:]
		f.emitted = 0
	}
	if len(f.buf) > f.emitted {
		if f.emitted == 0 {
			// A prompt: leave room on its line for the answer typed after it.
			out.WriteString(fold(string(f.buf), max(f.width-promptRoom, minWidth)))
		} else {
			out.Write(f.buf[f.emitted:])
		}
		f.emitted = len(f.buf)
	}
	if len(f.buf) == 0 {
		f.buf = nil // let the large buffer of a long write go
	}
	if _, err := f.out.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// fold breaks line into lines of at most width cells where it can (see foldWriter).
func fold(line string, width int) string {
	if width <= 0 || ansi.StringWidth(line) <= width {
		return line
	}
	if strings.Contains(line, "\x1b") {
		return ansi.Wordwrap(line, width, "")
	}
	indent := strings.Repeat(" ", hangingIndent(line, width))
	var out []string
	cur := line
	floor := 0 // no break before this byte: a continuation's indent
	for ansi.StringWidth(cur) > width {
		b := breakAt(cur, floor, width)
		if b < 0 {
			break
		}
		head := strings.TrimRight(cur[:b], " ")
		tail := strings.TrimLeft(cur[b:], " ")
		if tail == "" {
			break // only spaces overflow: keep them (a prompt ends in one)
		}
		out = append(out, head)
		cur = indent + tail
		floor = len(indent)
	}
	return strings.Join(append(out, cur), "\n")
}

// hangingIndent is the indent of line's continuation lines: under the code of a source
// excerpt line ("  76 │ code"); under the last column of a table row (a lane's stage, its
// outcome, its detail: columns are set apart by two spaces or more) that starts in the line's
// first half; else four more than the line's own indent (half the width at most).
func hangingIndent(line string, width int) int {
	if i := strings.Index(line, "│ "); i >= 0 && ansi.StringWidth(line[:i]) <= 12 {
		return ansi.StringWidth(line[:i]) + 2
	}
	text := strings.TrimLeft(line, " ")
	lead := len(line) - len(text)
	indent := min(lead+4, width/2)
	for rest, at := text, lead; ; {
		i := strings.Index(rest, "  ")
		if i < 0 {
			break
		}
		gap := len(rest[i:]) - len(strings.TrimLeft(rest[i:], " "))
		col := at + ansi.StringWidth(rest[:i]) + gap
		if col > width/2 {
			break
		}
		indent = max(indent, col)
		at, rest = col, rest[i+gap:]
	}
	return indent
}

// noLineStart are the characters a line must not start with: CJK closing punctuation.
const noLineStart = "，。、：；！？）》」』】"

// breakAt returns the byte offset to break s at so that its head fits width cells: the last
// place that fits, after floor, where a run of spaces starts or where one of two neighbouring
// characters is wide (CJK text has no spaces). When none fits it returns the first one after
// that, so an over-long word overflows whole; -1 when there is none at all.
func breakAt(s string, floor, width int) int {
	best, cells := -1, 0
	var prev rune
	for i, r := range s {
		w := ansi.StringWidth(string(r))
		chance := i > floor && prev != 0 && prev != ' ' && !strings.ContainsRune(noLineStart, r) &&
			(r == ' ' || w > 1 || ansi.StringWidth(string(prev)) > 1)
		switch {
		case chance && cells <= width:
			best = i
		case chance && best < 0:
			return i
		case cells > width && best >= 0:
			return best
		}
		cells += w
		prev = r
	}
	return best
}
