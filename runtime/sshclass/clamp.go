package sshclass

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
)

// The largest terminal a tour is given. The tour draws every cell of its screen on each frame:
// a client that asked for 4000×4000 took one tour from 99 to 625 MB in 25 s and sent it 34 MB
// of output. 300×100 is more than a 4K screen shows at a readable font (about 240×67 at 16 px
// cells), and up to there a tour costs what it costs at 120×40: measured after running to serve,
// 120×40, 300×100 and 600×200 tours each held 177–178 MB RSS (81–83 MB anonymous).
const (
	maxCols = 300
	maxRows = 100
)

// winsize is the terminal size for a tour: the client's, clamped to maxCols×maxRows, and at
// least 1×1.
func winsize(w ssh.Window) *pty.Winsize {
	cols, rows, _ := clampWindow(w)
	return &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}
}

// clampWindow returns the tour's size for a client window and whether it was cut.
func clampWindow(w ssh.Window) (cols, rows int, clamped bool) {
	cols, rows = max(w.Width, 1), max(w.Height, 1)
	if cols > maxCols {
		cols, clamped = maxCols, true
	}
	if rows > maxRows {
		rows, clamped = maxRows, true
	}
	return cols, rows, clamped
}

// clampNote says on the student's screen, outside the tour's part of it, that their terminal
// is larger than the tour is drawn: below the tour when the window is taller than maxRows, else
// right of it. The tour never writes there, but clearing the screen (entering the full-screen
// mode, a repaint, erasing below the cursor) wipes the note, so it is written again after any
// output that erases the display — only where the output stream is between two escape
// sequences and two characters, and between saving and restoring the cursor (ESC 7 / ESC 8),
// so that the tour's drawing goes on exactly where it was.
type clampNote struct {
	format string // %d×%d: the client's window; then the tour's maximum

	mu      sync.Mutex
	client  ssh.Window
	active  bool // the window is clamped
	pending bool // the note is to be written at the next clean point
	st      escState
}

func newClampNote(format string, w ssh.Window) *clampNote {
	n := &clampNote{format: format}
	n.resized(w)
	return n
}

// resized records the client's window.
func (n *clampNote) resized(w ssh.Window) {
	n.mu.Lock()
	defer n.mu.Unlock()
	_, _, n.active = clampWindow(w)
	n.client = w
	n.pending = n.active
}

// after returns what to send after the tour's output p: the note, when one is due and p ends at
// a clean point, else nothing.
func (n *clampNote) after(p []byte) []byte {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.st.feed(p) {
		n.pending = n.active
	}
	if !n.pending || !n.st.clean() {
		return nil
	}
	n.pending = false
	text := fmt.Sprintf(n.format, n.client.Width, n.client.Height, maxCols, maxRows)
	row, col, width := maxRows+2, 1, n.client.Width
	if n.client.Height <= maxRows+1 {
		row, col, width = 1, maxCols+2, n.client.Width-maxCols-1
	}
	if row > n.client.Height || width < 8 {
		return nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "\x1b7\x1b[%d;%dH\x1b[0m%s\x1b8", row, col, ansi.Truncate(text, min(width, 200), "…"))
	return b.Bytes()
}

// escState follows a terminal output stream far enough to know whether it is in the middle of
// an escape sequence or a UTF-8 character, and whether it erased the display.
type escState struct {
	mode  byte // 0 ground, 'e' after ESC, '[' CSI, ']' OSC, 's' other string, 'x' ESC in one
	str   byte // the string mode an ESC interrupted (']' or 's')
	priv  bool // the CSI has a '?' parameter prefix
	utf8  int  // continuation bytes still expected
	param int  // CSI parameter bytes seen (bounded)
}

// feed advances over p and reports whether p erased the display (ED, entering or leaving the
// alternate screen, RIS).
func (s *escState) feed(p []byte) (erased bool) {
	for _, c := range p {
		switch s.mode {
		case 0:
			switch {
			case c == 0x1b:
				s.mode, s.utf8 = 'e', 0
			case c >= 0xC0:
				s.utf8 = 1
				if c >= 0xE0 {
					s.utf8 = 2
				}
				if c >= 0xF0 {
					s.utf8 = 3
				}
			case c >= 0x80 && s.utf8 > 0:
				s.utf8--
			default:
				s.utf8 = 0
			}
		case 'e':
			switch c {
			case '[':
				s.mode, s.priv, s.param = '[', false, 0
			case ']':
				s.mode = ']'
			case 'P', '_', '^', 'X':
				s.mode = 's'
			case 'c':
				erased, s.mode = true, 0
			default:
				s.mode = 0
			}
		case '[':
			switch {
			case c == '?' && s.param == 0:
				s.priv = true
			case c >= 0x40 && c <= 0x7e:
				if c == 'J' || (s.priv && (c == 'h' || c == 'l')) {
					erased = true
				}
				s.mode = 0
			default:
				s.param++
			}
		case ']', 's':
			switch c {
			case 0x07:
				if s.mode == ']' {
					s.mode = 0
				}
			case 0x1b:
				s.str, s.mode = s.mode, 'x'
			}
		case 'x':
			if c == '\\' {
				s.mode = 0
			} else {
				s.mode = s.str
			}
		}
	}
	return erased
}

// clean reports whether the stream is between sequences and characters.
func (s *escState) clean() bool { return s.mode == 0 && s.utf8 == 0 }
