package tui

import (
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// The render helpers live in runtime/tui/common, shared by every view package. These short
// names keep the code that has not moved into a view package yet reading as before; a view
// package calls common directly. Remove them once the last caller has moved.

func fit(s string, w int) string                    { return common.Fit(s, w) }
func wrapLines(s string, w int) []string            { return common.WrapLines(s, w) }
func breakCells(plain string, w int) [][2]int       { return common.BreakCells(plain, w) }
func blank(w, h int) []string                       { return common.Blank(w, h) }
func joinColumns(blocks ...[]string) []string       { return common.JoinColumns(blocks...) }
func placeCenter(lines []string, w, h int) []string { return common.PlaceCenter(lines, w, h) }
func box(st *Styles, title string, body []string, w, h int, focused bool) []string {
	return common.Box(st, title, body, w, h, focused)
}

const (
	keepSpace  = common.KeepSpace
	gluedSpace = common.GluedSpace
)

var (
	unkeep      = common.Unkeep
	thinBorder  = common.ThinBorder
	thickBorder = common.ThickBorder
)

// textPane is the shared scrolling pane (common.TextPane).
type textPane = common.TextPane

func newTextPane(st *Styles, _ *i18n.Strings, name string) *textPane {
	return common.NewTextPane(st, name)
}
