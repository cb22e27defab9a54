package common

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// TabWidth is how many columns a tab takes (source code, a command's output).
const TabWidth = 4

// ExpandTabs replaces tabs by spaces up to the next tab stop.
func ExpandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := TabWidth - col%TabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// WrapCommand breaks a shell command into lines of at most w cells that paste as one
// command: at spaces, with " \" continuations and the next line indented; a word longer than
// a line (a kubeconfig path) is split inside with a bare "\" and goes on at the start of the
// next line, since the shell drops a backslash-newline, indentation would not be dropped. It
// splits such a word after a "/" when one is near the end of the line.
func WrapCommand(cmd string, w int) []string {
	const indent = "  "
	if w < 8 {
		return []string{ansi.Truncate(cmd, max(w, 1), "…")}
	}
	var out []string
	line := ""
	for _, word := range strings.Fields(cmd) {
		next := word
		if line != "" && line != indent {
			next = line + " " + word
		} else if line == indent {
			next = indent + word
		}
		if ansi.StringWidth(next)+2 <= w || (line == "" && ansi.StringWidth(next) <= w) {
			line = next
			continue
		}
		// The word does not fit on this line. If it fits on a line of its own, break before
		// it; else split it, starting on this line when that leaves it room.
		if line != "" && line != indent && ansi.StringWidth(indent+word)+2 <= w {
			out = append(out, line+" \\")
			line = indent + word
			continue
		}
		if line != "" && line != indent {
			next = line + " "
		} else {
			next = line
		}
		rest := word
		for ansi.StringWidth(next+rest)+2 > w {
			room := w - 1 - ansi.StringWidth(next) // leaves a cell for the "\\"
			if room < 4 {
				out = append(out, strings.TrimRight(next, " ")+" \\")
				next = ""
				continue
			}
			cut := cutAt(rest, room)
			out = append(out, next+rest[:cut]+"\\")
			next, rest = "", rest[cut:]
		}
		line = next + rest
	}
	return append(out, line)
}

// cutAt returns where to split word so that its head is at most room cells: after the last
// "/" in the head's second half, else at room.
func cutAt(word string, room int) int {
	cut, cells := 0, 0
	for i, r := range word {
		cw := ansi.StringWidth(string(r))
		if cells+cw > room {
			break
		}
		cells += cw
		cut = i + len(string(r))
	}
	if i := strings.LastIndex(word[:cut], "/"); i >= 0 && i+1 > cut/2 && i+1 < len(word) {
		return i + 1
	}
	return max(cut, 1)
}
