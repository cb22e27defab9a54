package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// fit cuts s (which may hold ANSI styling) to w cells, ending with "…" when it had to cut, and
// pads it with spaces to exactly w cells.
func fit(s string, w int) string {
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

// wrapLines wraps each line of s (which may hold ANSI styling) to at most w cells and returns
// the lines. Lines with wide (CJK) characters are broken anywhere, since such text has no
// spaces to break at; other lines break at spaces where they can. Continuation lines keep the
// line's indentation and hang under a list bullet ("• ", "1. ").
func wrapLines(s string, w int) []string {
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
		out = append(out, wrapLine(l, w)...)
	}
	return out
}

// wrapLine wraps one over-long line, keeping its styling: the breaks are computed on the
// plain text and the styled line is cut at the same cells.
func wrapLine(l string, w int) []string {
	plain := ansi.Strip(l)
	hang := hangingIndent(plain)
	if hang > w/2 {
		hang = 0
	}
	total := ansi.StringWidth(l)
	head, body := ansi.Cut(l, 0, hang), ansi.Cut(l, hang, total)
	pad := strings.Repeat(" ", hang)
	var out []string
	for i, r := range breakCells(ansi.Strip(body), w-hang) {
		seg := ansi.Cut(body, r[0], r[1])
		if i == 0 {
			out = append(out, head+seg)
		} else {
			out = append(out, pad+seg)
		}
	}
	return out
}

// breakCells splits a plain line into ranges of cells [start, end) no wider than w: at spaces
// (which are dropped), before and after any wide (CJK) character, and inside a word only when
// the word alone is wider than w.
func breakCells(plain string, w int) [][2]int {
	type unit struct {
		start, width int
		space, wide  bool
	}
	var units []unit
	col := 0
	for _, r := range plain {
		rw := ansi.StringWidth(string(r))
		sp, wide := r == ' ', rw > 1
		if n := len(units); n > 0 {
			last := &units[n-1]
			// Zero-width runes join the unit before; narrow letters and spaces join their run.
			if rw == 0 || (sp && last.space) || (!sp && !wide && !last.space && !last.wide) {
				last.width += rw
				col += rw
				continue
			}
		}
		units = append(units, unit{start: col, width: rw, space: sp, wide: wide})
		col += rw
	}
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
		// A word wider than the line is cut (words are narrow runes: one cell each).
		for u.start+u.width-start > w {
			end = start + w
			emit()
			start += w
		}
		cur = u.start + u.width - start
		end = u.start + u.width
	}
	emit()
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

// border is the set of runes for a pane frame.
type border struct{ tl, tr, bl, br, h, v string }

var (
	thinBorder  = border{"╭", "╮", "╰", "╯", "─", "│"}
	thickBorder = border{"┏", "┓", "┗", "┛", "━", "┃"}
)

// box frames body (lines no wider than w-2; they are cut and padded) in a w×h pane with title
// in the top border. A focused pane gets a thick border, so focus shows without colour. The
// result is exactly h lines of exactly w cells.
func box(st *Styles, title string, body []string, w, h int, focused bool) []string {
	if w < 2 || h < 2 {
		return blank(w, h)
	}
	b, bs, ts := thinBorder, st.Pane.Border, st.Pane.Title
	if focused {
		b, bs, ts = thickBorder, st.Pane.FocusedBorder, st.Pane.FocusedTitle
	}
	inner := w - 2
	out := make([]string, 0, h)

	// Top: ╭─ title ───╮, the title cut to fit.
	top := bs.Render(b.tl + b.h)
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
		top += bs.Render(strings.Repeat(b.h, rest))
	}
	top += bs.Render(b.tr)
	out = append(out, top)

	side := bs.Render(b.v)
	for i := range h - 2 {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		out = append(out, side+fit(line, inner)+side)
	}
	out = append(out, bs.Render(b.bl+strings.Repeat(b.h, inner)+b.br))
	return out
}

// blank returns h lines of w spaces.
func blank(w, h int) []string {
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

// joinColumns puts blocks of lines side by side; every block must have the same height and
// uniform line widths.
func joinColumns(blocks ...[]string) []string {
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

// placeCenter centres lines in a w×h area, cutting what does not fit.
func placeCenter(lines []string, w, h int) []string {
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
	out := blank(w, top)
	pad := strings.Repeat(" ", left)
	for _, l := range lines {
		out = append(out, fit(pad+fit(l, bw), w))
	}
	return append(out, blank(w, h-len(out))...)
}
