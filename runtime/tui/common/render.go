package common

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Fit cuts s (which may hold ANSI styling) to w cells, ending with "…" when it had to cut, and
// pads it with spaces to exactly w cells.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// WrapLines wraps each line of s (which may hold ANSI styling) to at most w cells and returns
// the lines. Lines with wide (CJK) characters are broken anywhere, since such text has no
// spaces to break at; other lines break at spaces where they can. Continuation lines keep the
// line's indentation and hang under a list bullet ("• ", "1. ").
func WrapLines(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, " ")
		if ansi.StringWidth(l) <= w {
			out = append(out, l)
			continue
		}
		out = append(out, WrapLine(l, w)...)
	}
	return out
}

// WrapLine wraps one over-long line, keeping its styling: the breaks are computed on the
// plain text and the styled line is cut at the same cells.
func WrapLine(l string, w int) []string {
	plain := ansi.Strip(l)
	hang := hangingIndent(plain)
	if hang > w/2 {
		hang = 0
	}
	total := ansi.StringWidth(l)
	head, body := ansi.Cut(l, 0, hang), ansi.Cut(l, hang, total)
	pad := strings.Repeat(" ", hang)
	var out []string
	for i, r := range BreakCells(ansi.Strip(body), w-hang) {
		seg := ansi.Cut(body, r[0], r[1])
		if i == 0 {
			out = append(out, head+seg)
		} else {
			out = append(out, pad+seg)
		}
	}
	return out
}

// KeepSpace and GluedSpace stand for spaces that do not break a line: KeepSpace for the spaces
// inside inline code (where a code span wider than the whole line may still break), GluedSpace
// for the padding around it (never). Both are one cell wide (private-use runes) and become
// spaces again once the text is wrapped.
const (
	KeepSpace  = '\uE000'
	GluedSpace = '\uE001'
)

// Unkeep turns KeepSpace and GluedSpace back into spaces.
var Unkeep = strings.NewReplacer(string(KeepSpace), " ", string(GluedSpace), " ")

// Punctuation that must not start a line (it stays with the text before it) or end one (it
// goes with the text after it): CJK, and the ASCII kind, which after a CJK character
// ("监视缓存)") would otherwise be a word of its own.
const (
	noBreakBefore = "，。、；：？！）》」』】〉〕…％)]},.;:!?"
	noBreakAfter  = "（《「『【〈〔([{"
)

// unit is a piece of a line that BreakCells never breaks: a run of spaces, a word of narrow
// runes (inline code included), or a wide rune with the punctuation that sticks to it.
type unit struct {
	start, width int
	space, wide  bool
	glue         bool // the next unit joins this one (opening punctuation)
	narrowEnd    bool // it ends in a narrow rune that is not a space: a narrow rune next continues the word
}

// BreakCells splits a plain line into ranges of cells [start, end) no wider than w: at spaces
// (which are dropped), before and after any wide (CJK) character (but not before closing or
// after opening CJK punctuation), and inside a word only when the word alone is wider than w:
// first at its keepSpaces (inline code), then anywhere.
func BreakCells(plain string, w int) [][2]int {
	var units []unit
	col := 0
	for _, r := range plain {
		rw := ansi.StringWidth(string(r))
		sp, wide := r == ' ', rw > 1
		if n := len(units); n > 0 {
			last := &units[n-1]
			// Zero-width runes join the unit before; narrow letters and spaces join their
			// run (also a word begun after opening punctuation: "（watch）"); closing
			// punctuation joins what it closes; anything joins opening punctuation.
			join := rw == 0 || (sp && last.space) || (!sp && !wide && last.narrowEnd) ||
				(!sp && !last.space && strings.ContainsRune(noBreakBefore, r)) || (!sp && last.glue)
			if join {
				last.width += rw
				last.wide = last.wide || wide
				last.glue = strings.ContainsRune(noBreakAfter, r)
				if rw > 0 {
					last.narrowEnd = !sp && !wide
				}
				col += rw
				continue
			}
		}
		units = append(units, unit{start: col, width: rw, space: sp, wide: wide,
			glue: strings.ContainsRune(noBreakAfter, r), narrowEnd: !sp && !wide})
		col += rw
	}
	units = splitWideUnits(plain, units, w)
	var out [][2]int
	// start is where the line being filled starts, cur its width so far, end where its last
	// non-space unit ends (trailing spaces are not kept).
	start, cur, end := 0, 0, 0
	emit := func() {
		out = append(out, [2]int{start, max(end, start)})
	}
	for _, u := range units {
		if cur+u.width <= w {
			cur += u.width
			if !u.space {
				end = u.start + u.width
			}
			continue
		}
		if u.space {
			emit()
			start, cur, end = u.start+u.width, 0, 0
			continue
		}
		if cur > 0 {
			emit()
			start, cur = u.start, 0
		}
		// A word wider than the line is cut between runes, after a slash (a path) when there
		// is one in the second half of the line.
		for u.start+u.width-start > w {
			end = start + w
			for u.wide && end > start+1 && !runeStarts(plain, end) {
				end--
			}
			if !u.wide {
				if c := lastSlash(plain, start+w/2, end); c > 0 {
					end = c
				}
			}
			emit()
			start = end
		}
		cur = u.start + u.width - start
		end = u.start + u.width
	}
	emit()
	return out
}

// lastSlash returns the cell after the last '/' of plain within cells (from, to), or -1.
func lastSlash(plain string, from, to int) int {
	col, at := 0, -1
	for _, r := range plain {
		if col >= to-1 {
			break
		}
		if r == '/' && col+1 > from {
			at = col + 1
		}
		col += ansi.StringWidth(string(r))
	}
	return at
}

// runeStarts reports whether a rune of plain starts at cell c (or c is its end).
func runeStarts(plain string, c int) bool {
	col := 0
	for _, r := range plain {
		if col >= c {
			return col == c
		}
		col += ansi.StringWidth(string(r))
	}
	return col == c
}

// splitWideUnits breaks every word wider than w at its keepSpaces, which then act as spaces.
func splitWideUnits(plain string, units []unit, w int) []unit {
	if !strings.ContainsRune(plain, KeepSpace) {
		return units
	}
	// Cell offsets of the keepSpaces (one cell each).
	keeps := map[int]bool{}
	col := 0
	for _, r := range plain {
		if r == KeepSpace {
			keeps[col] = true
		}
		col += ansi.StringWidth(string(r))
	}
	var out []unit
	for _, u := range units {
		if u.space || u.width <= w {
			out = append(out, u)
			continue
		}
		from := u.start
		for c := u.start; c < u.start+u.width; c++ {
			if !keeps[c] {
				continue
			}
			if c > from {
				out = append(out, unit{start: from, width: c - from})
			}
			out = append(out, unit{start: c, width: 1, space: true})
			from = c + 1
		}
		if from < u.start+u.width {
			out = append(out, unit{start: from, width: u.start + u.width - from, wide: u.wide})
		}
	}
	return out
}

// hangingIndent is where continuation lines of a plain line start: after its leading spaces
// and a list marker, if any.
func hangingIndent(plain string) int {
	rest := strings.TrimLeft(plain, " ")
	n := len(plain) - len(rest)
	for _, b := range []string{"• ", "- ", "* ", "│ ", "| "} {
		if strings.HasPrefix(rest, b) {
			return n + ansi.StringWidth(b)
		}
	}
	digits := 0
	for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
		digits++
	}
	if digits > 0 && strings.HasPrefix(rest[digits:], ". ") {
		return n + digits + 2
	}
	return n
}

// Border is the set of runes for a pane frame.
type Border struct{ TL, TR, BL, BR, H, V string }

var (
	ThinBorder  = Border{"╭", "╮", "╰", "╯", "─", "│"}
	ThickBorder = Border{"┏", "┓", "┗", "┛", "━", "┃"}
)

// Box frames body (lines no wider than w-2; they are cut and padded) in a w×h pane with title
// in the top Border. A focused pane gets a thick Border, so focus shows without colour. The
// result is exactly h lines of exactly w cells.
func Box(st *Styles, title string, body []string, w, h int, focused bool) []string {
	if w < 2 || h < 2 {
		return Blank(w, h)
	}
	b, bs, ts := ThinBorder, st.Pane.Border, st.Pane.Title
	if focused {
		b, bs, ts = ThickBorder, st.Pane.FocusedBorder, st.Pane.FocusedTitle
	}
	inner := w - 2
	out := make([]string, 0, h)

	// Top: ╭─ title ───╮, the title cut to fit.
	top := bs.Render(b.TL + b.H)
	used := 2
	if title != "" && inner > 4 {
		t := " " + title + " "
		if ansi.StringWidth(t) > inner-2 {
			t = ansi.Truncate(t, inner-2, "… ")
		}
		top += ts.Render(t)
		used += ansi.StringWidth(t)
	}
	if rest := w - used - 1; rest > 0 {
		top += bs.Render(strings.Repeat(b.H, rest))
	}
	top += bs.Render(b.TR)
	out = append(out, top)

	side := bs.Render(b.V)
	for i := range h - 2 {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		out = append(out, side+Fit(line, inner)+side)
	}
	out = append(out, bs.Render(b.BL+strings.Repeat(b.H, inner)+b.BR))
	return out
}

// Blank returns h lines of w spaces.
func Blank(w, h int) []string {
	if h <= 0 {
		return nil
	}
	out := make([]string, h)
	line := strings.Repeat(" ", max(w, 0))
	for i := range out {
		out[i] = line
	}
	return out
}

// JoinColumns puts blocks of lines side by side; every block must have the same height and
// uniform line widths.
func JoinColumns(blocks ...[]string) []string {
	if len(blocks) == 0 {
		return nil
	}
	out := make([]string, len(blocks[0]))
	for i := range out {
		var b strings.Builder
		for _, bl := range blocks {
			if i < len(bl) {
				b.WriteString(bl[i])
			}
		}
		out[i] = b.String()
	}
	return out
}

// PlaceCenter centres lines in a w×h area, cutting what does not fit.
func PlaceCenter(lines []string, w, h int) []string {
	bw := 0
	for _, l := range lines {
		bw = max(bw, ansi.StringWidth(l))
	}
	bw = min(bw, w)
	if len(lines) > h {
		lines = lines[:h]
	}
	top := (h - len(lines)) / 2
	left := (w - bw) / 2
	out := Blank(w, top)
	pad := strings.Repeat(" ", left)
	for _, l := range lines {
		out = append(out, Fit(pad+Fit(l, bw), w))
	}
	return append(out, Blank(w, h-len(out))...)
}
