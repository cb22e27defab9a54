package kubectl

import "strings"

// History is the command line's up/down history, as a shell keeps it: bounded (the oldest
// entry goes first), a line repeated right after itself is kept once, and browsing it keeps the
// line being typed so that going down past the newest entry gives it back. The zero value is
// not usable; use NewHistory. A History is not safe for concurrent use (the TUI's update loop
// owns it).
type History struct {
	max     int
	entries []string
	pos     int    // len(entries) when not browsing
	draft   string // the line being typed when browsing started
}

// NewHistory returns an empty history keeping at most max entries (at least 1).
func NewHistory(max int) *History {
	if max < 1 {
		max = 1
	}
	return &History{max: max}
}

// Add appends a line that was run and stops browsing. Blank lines are not kept; surrounding
// blanks are trimmed; a line equal to the newest entry is not added again.
func (h *History) Add(line string) {
	h.pos = len(h.entries)
	h.draft = ""
	line = strings.TrimSpace(line)
	if line == "" || (len(h.entries) > 0 && h.entries[len(h.entries)-1] == line) {
		return
	}
	if len(h.entries) == h.max {
		copy(h.entries, h.entries[1:])
		h.entries = h.entries[:len(h.entries)-1]
	}
	h.entries = append(h.entries, line)
	h.pos = len(h.entries)
}

// Prev moves one entry back (up) and returns it; current is the line as typed now, kept as
// the draft when browsing starts. At the oldest entry it stays there and returns it again;
// with no entries it returns current and false.
func (h *History) Prev(current string) (string, bool) {
	if len(h.entries) == 0 {
		return current, false
	}
	if h.pos == len(h.entries) {
		h.draft = current
	}
	if h.pos > 0 {
		h.pos--
	}
	return h.entries[h.pos], true
}

// Next moves one entry forward (down) and returns it; past the newest entry it returns the
// draft and stops browsing. When not browsing it returns current and false.
func (h *History) Next(current string) (string, bool) {
	if h.pos >= len(h.entries) {
		return current, false
	}
	h.pos++
	if h.pos == len(h.entries) {
		d := h.draft
		h.draft = ""
		return d, true
	}
	return h.entries[h.pos], true
}

// Entries returns the entries, oldest first.
func (h *History) Entries() []string { return append([]string(nil), h.entries...) }
