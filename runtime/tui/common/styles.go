package common

import (
	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
)

// Styles holds every style the screen uses, built once. Colour is never the only signal:
// state is also carried by markers (✓ ▶ · in the chain, ▶ in the source gutter, thick borders
// on the focused pane), so the screen reads the same under NO_COLOR.
type Styles struct {
	// Chain is the phase chain at the top.
	Chain struct {
		Done, Current, Pending, Arrow, Time, Checkpoint, Title lipgloss.Style
	}
	// Markers are the chain's markers for a phase done, the current one and one pending.
	Markers struct {
		Done, Current, Pending string
	}
	// Status is the line under the chain.
	Status struct {
		Paused, Running, Served, Failed, Review, Note lipgloss.Style
	}
	// Pane is a pane's frame.
	Pane struct {
		Border, FocusedBorder, Title, FocusedTitle, Tab, ActiveTab lipgloss.Style
	}
	// Source is the code viewer.
	Source struct {
		LineNo, FocusLineNo, Marker, RangeMarker, Separator, Annotation, Match, Info, Prompt lipgloss.Style
		// Focus is applied to the whole emphasised line (its background).
		Focus lipgloss.Style
	}
	// State is the state tree.
	State struct {
		Label, Value, Type, Cursor, Added, Changed, Toggle, Note lipgloss.Style
	}
	// Lesson is the lesson text pane (the text itself is styled by glamour).
	Lesson struct {
		Title, Kube, Missing lipgloss.Style
	}
	// Served is the after-serve panel.
	Served struct {
		Heading, Label, Command, Comment, OK, Failing, Dim lipgloss.Style
	}
	// Lane is a request's lane: the picture of its stages and their details.
	Lane struct {
		Border, Selected, Label, Mark, OK, Stopped, Held, Dim, Arrow, Heading, Text lipgloss.Style
	}
	// List is a list with a cursor (the requests, the etcd keys, the kubectl requests).
	List struct {
		Header, Cursor, Held, Dim, Group lipgloss.Style
	}
	// Prompt is the : command line and its suggestions.
	Prompt struct {
		Colon, Cursor, Suggestion, Selected, Desc, Error lipgloss.Style
	}
	// Help styles the help bar and the ? overlay.
	Help help.Styles
	// Small is the "window too small" message.
	Small lipgloss.Style

	// tokens and focusTokens map chroma token types (and their categories) to styles; they are
	// read-only after DefaultStyles, so tokenising goroutines may read them.
	tokens      map[chroma.TokenType]lipgloss.Style
	focusTokens map[chroma.TokenType]lipgloss.Style
}

// palette colours, readable on dark and light backgrounds.
var (
	colAccent  = lipgloss.AdaptiveColor{Light: "#5A3FC0", Dark: "#B4A1FF"}
	colDone    = lipgloss.AdaptiveColor{Light: "#2E7D32", Dark: "#7BD88F"}
	colWarn    = lipgloss.AdaptiveColor{Light: "#9A6700", Dark: "#FFD866"}
	colError   = lipgloss.AdaptiveColor{Light: "#C62828", Dark: "#FF6188"}
	colDim     = lipgloss.AdaptiveColor{Light: "#8A8A8A", Dark: "#727072"}
	colFocusBg = lipgloss.AdaptiveColor{Light: "#FFF3C4", Dark: "#3B3548"}
	colMatchBg = lipgloss.AdaptiveColor{Light: "#FFD866", Dark: "#9A6700"}
	colKeyword = lipgloss.AdaptiveColor{Light: "#A626A4", Dark: "#FF6188"}
	colType    = lipgloss.AdaptiveColor{Light: "#0184BC", Dark: "#78DCE8"}
	colFunc    = lipgloss.AdaptiveColor{Light: "#4078F2", Dark: "#A9DC76"}
	colString  = lipgloss.AdaptiveColor{Light: "#50A14F", Dark: "#FFD866"}
	colNumber  = lipgloss.AdaptiveColor{Light: "#986801", Dark: "#AB9DF2"}
	colComment = lipgloss.AdaptiveColor{Light: "#A0A1A7", Dark: "#727072"}
)

// DefaultStyles returns kubewalk's styles.
func DefaultStyles() *Styles {
	s := &Styles{}
	ns := lipgloss.NewStyle

	s.Markers.Done, s.Markers.Current, s.Markers.Pending = "✓ ", "▶ ", "· "
	s.Chain.Done = ns().Foreground(colDone)
	s.Chain.Current = ns().Foreground(colAccent).Bold(true)
	s.Chain.Pending = ns().Foreground(colDim)
	s.Chain.Arrow = ns().Foreground(colDim)
	s.Chain.Time = ns().Foreground(colDim)
	s.Chain.Checkpoint = ns().Foreground(colAccent).Bold(true)
	s.Chain.Title = ns()

	s.Status.Paused = ns().Foreground(colWarn).Bold(true)
	s.Status.Running = ns().Foreground(colDim)
	s.Status.Served = ns().Foreground(colDone).Bold(true)
	s.Status.Failed = ns().Foreground(colError).Bold(true)
	s.Status.Review = ns().Reverse(true).Bold(true)
	s.Status.Note = ns().Foreground(colDim)

	s.Pane.Border = ns().Foreground(colDim)
	s.Pane.FocusedBorder = ns().Foreground(colAccent)
	s.Pane.Title = ns().Foreground(colDim)
	s.Pane.FocusedTitle = ns().Foreground(colAccent).Bold(true)
	s.Pane.Tab = ns().Foreground(colDim)
	s.Pane.ActiveTab = ns().Bold(true).Underline(true)

	s.Source.LineNo = ns().Foreground(colDim)
	s.Source.FocusLineNo = ns().Foreground(colAccent).Bold(true).Background(colFocusBg)
	s.Source.Marker = ns().Foreground(colAccent).Bold(true).Background(colFocusBg)
	s.Source.RangeMarker = ns().Foreground(colAccent)
	s.Source.Separator = ns().Foreground(colDim)
	s.Source.Annotation = ns().Foreground(colAccent).Italic(true)
	s.Source.Match = ns().Background(colMatchBg).Reverse(true)
	s.Source.Info = ns().Foreground(colDim)
	s.Source.Prompt = ns().Foreground(colAccent).Bold(true)
	s.Source.Focus = ns().Background(colFocusBg)

	s.State.Label = ns()
	s.State.Value = ns().Foreground(colDim)
	s.State.Type = ns().Foreground(colType)
	s.State.Cursor = ns().Reverse(true)
	s.State.Added = ns().Foreground(colDone).Bold(true)
	s.State.Changed = ns().Foreground(colWarn).Bold(true)
	s.State.Toggle = ns().Foreground(colAccent)
	s.State.Note = ns().Foreground(colDim).Italic(true)

	s.Lesson.Title = ns().Bold(true).Foreground(colAccent)
	s.Lesson.Kube = ns().Foreground(colType)
	s.Lesson.Missing = ns().Foreground(colDim).Italic(true)

	s.Served.Heading = ns().Bold(true).Foreground(colAccent)
	s.Served.Label = ns().Foreground(colDim)
	s.Served.Command = ns().Bold(true)
	s.Served.Comment = ns().Foreground(colDim)
	s.Served.OK = ns().Foreground(colDone).Bold(true)
	s.Served.Failing = ns().Foreground(colError).Bold(true)
	s.Served.Dim = ns().Foreground(colDim)

	s.Lane.Border = ns().Foreground(colDim)
	s.Lane.Selected = ns().Foreground(colAccent).Bold(true)
	s.Lane.Label = ns().Bold(true)
	s.Lane.Mark = ns().Bold(true).Reverse(true)
	s.Lane.OK = ns().Foreground(colDone)
	s.Lane.Stopped = ns().Foreground(colError).Bold(true)
	s.Lane.Held = ns().Foreground(colWarn).Bold(true)
	s.Lane.Dim = ns().Foreground(colDim)
	s.Lane.Arrow = ns().Foreground(colDim)
	s.Lane.Heading = ns().Foreground(colAccent).Bold(true)
	s.Lane.Text = ns()

	s.List.Header = ns().Foreground(colDim).Underline(true)
	s.List.Cursor = ns().Reverse(true)
	s.List.Held = ns().Foreground(colWarn).Bold(true)
	s.List.Dim = ns().Foreground(colDim)
	s.List.Group = ns().Foreground(colType).Bold(true)

	s.Prompt.Colon = ns().Foreground(colAccent).Bold(true)
	s.Prompt.Cursor = ns().Reverse(true)
	s.Prompt.Suggestion = ns()
	s.Prompt.Selected = ns().Reverse(true).Bold(true)
	s.Prompt.Desc = ns().Foreground(colDim)
	s.Prompt.Error = ns().Foreground(colError).Bold(true)

	keyStyle := ns().Foreground(colAccent).Bold(true)
	descStyle := ns().Foreground(colDim)
	s.Help = help.Styles{
		Ellipsis:       descStyle,
		ShortKey:       keyStyle,
		ShortDesc:      descStyle,
		ShortSeparator: descStyle,
		FullKey:        keyStyle,
		FullDesc:       ns(),
		FullSeparator:  descStyle,
	}
	s.Small = ns().Bold(true)

	base := map[chroma.TokenType]lipgloss.Style{
		chroma.Keyword:           ns().Foreground(colKeyword),
		chroma.KeywordType:       ns().Foreground(colType),
		chroma.KeywordConstant:   ns().Foreground(colNumber),
		chroma.NameFunction:      ns().Foreground(colFunc),
		chroma.NameBuiltin:       ns().Foreground(colType),
		chroma.NameOther:         ns(),
		chroma.LiteralString:     ns().Foreground(colString),
		chroma.LiteralNumber:     ns().Foreground(colNumber),
		chroma.Comment:           ns().Foreground(colComment).Italic(true),
		chroma.CommentPreproc:    ns().Foreground(colKeyword),
		chroma.Operator:          ns().Foreground(colKeyword),
		chroma.Punctuation:       ns(),
		chroma.GenericEmph:       ns().Italic(true),
		chroma.GenericStrong:     ns().Bold(true),
		chroma.Error:             ns().Foreground(colError),
		chroma.LiteralStringChar: ns().Foreground(colString),
	}
	s.tokens = base
	s.focusTokens = make(map[chroma.TokenType]lipgloss.Style, len(base))
	for t, st := range base {
		s.focusTokens[t] = st.Background(colFocusBg)
	}
	return s
}

// Themes are the names --theme takes.
var Themes = []string{"default", "projector"}

// ThemeStyles returns the styles of a theme named in Themes ("" is the default), and false
// for an unknown name.
func ThemeStyles(name string) (*Styles, bool) {
	switch name {
	case "", "default":
		return DefaultStyles(), true
	case "projector":
		return ProjectorStyles(), true
	}
	return nil, false
}

// projector colours: the terminal's own bright ANSI colours, which a projector's washed-out
// picture still tells apart, and no grey.
var (
	projAccent = lipgloss.AdaptiveColor{Light: "4", Dark: "14"}  // blue / bright cyan
	projDone   = lipgloss.AdaptiveColor{Light: "2", Dark: "10"}  // green / bright green
	projWarn   = lipgloss.AdaptiveColor{Light: "5", Dark: "11"}  // magenta / bright yellow
	projError  = lipgloss.AdaptiveColor{Light: "1", Dark: "9"}   // red / bright red
	projText   = lipgloss.AdaptiveColor{Light: "0", Dark: "15"}  // black / bright white
	projFocus  = lipgloss.AdaptiveColor{Light: "11", Dark: "18"} // the emphasised lines' background
)

// ProjectorStyles returns the projector theme, for a class reading one screen from the back
// of a room: high contrast (no dim grey text, bold where the default is coloured), larger
// markers in the chain ([✓] [▶] [ ]) with the current phase in reverse video, and no italics.
// As in the default theme every state also has a marker or a word (✓ ▶ ⏸ PAUSED, ⏸ HELD,
// ✗ STOPPED, ✓ SERVING), so it reads the same under NO_COLOR.
func ProjectorStyles() *Styles {
	s := DefaultStyles()
	ns := lipgloss.NewStyle
	txt := ns().Foreground(projText)

	s.Markers.Done, s.Markers.Current, s.Markers.Pending = "[✓] ", "[▶] ", "[ ] "
	s.Chain.Done = ns().Foreground(projDone).Bold(true)
	s.Chain.Current = ns().Reverse(true).Bold(true)
	s.Chain.Pending = txt
	s.Chain.Arrow = txt
	s.Chain.Time = txt
	s.Chain.Checkpoint = ns().Foreground(projAccent).Bold(true)
	s.Chain.Title = txt.Bold(true)

	s.Status.Paused = ns().Foreground(projWarn).Bold(true).Reverse(true)
	s.Status.Running = txt.Bold(true)
	s.Status.Served = ns().Foreground(projDone).Bold(true)
	s.Status.Failed = ns().Foreground(projError).Bold(true).Reverse(true)
	s.Status.Note = txt

	s.Pane.Border = txt
	s.Pane.FocusedBorder = ns().Foreground(projAccent).Bold(true)
	s.Pane.Title = txt
	s.Pane.FocusedTitle = ns().Foreground(projAccent).Bold(true).Reverse(true)
	s.Pane.Tab = txt

	s.Source.LineNo = txt
	s.Source.FocusLineNo = ns().Bold(true).Reverse(true)
	s.Source.Marker = ns().Bold(true).Reverse(true)
	s.Source.RangeMarker = ns().Foreground(projAccent).Bold(true)
	s.Source.Separator = txt
	s.Source.Annotation = ns().Foreground(projAccent).Bold(true)
	s.Source.Info = txt
	s.Source.Focus = ns().Background(projFocus)

	s.State.Value = txt
	s.State.Type = ns().Foreground(projAccent)
	s.State.Added = ns().Foreground(projDone).Bold(true)
	s.State.Changed = ns().Foreground(projWarn).Bold(true)
	s.State.Note = txt

	s.Lesson.Missing = txt
	s.Served.Label = txt
	s.Served.Comment = txt
	s.Served.Dim = txt
	s.Served.Failing = ns().Foreground(projError).Bold(true).Reverse(true)

	s.Lane.Border = txt
	s.Lane.OK = ns().Foreground(projDone).Bold(true)
	s.Lane.Stopped = ns().Foreground(projError).Bold(true).Reverse(true)
	s.Lane.Held = ns().Foreground(projWarn).Bold(true).Reverse(true)
	s.Lane.Dim = txt
	s.Lane.Arrow = txt

	s.List.Header = txt.Bold(true).Underline(true)
	s.List.Held = ns().Foreground(projWarn).Bold(true).Reverse(true)
	s.List.Dim = txt

	s.Prompt.Desc = txt
	s.Prompt.Error = ns().Foreground(projError).Bold(true).Reverse(true)

	s.Help.Ellipsis, s.Help.ShortDesc, s.Help.ShortSeparator, s.Help.FullSeparator = txt, txt, txt, txt
	s.Help.ShortKey = ns().Foreground(projAccent).Bold(true)
	s.Help.FullKey = s.Help.ShortKey

	// The code: the default's token colours, but comments neither grey nor italic.
	for _, m := range []map[chroma.TokenType]lipgloss.Style{s.tokens, s.focusTokens} {
		for t, st := range m {
			if t == chroma.Comment || t.Category() == chroma.Comment {
				m[t] = st.UnsetItalic().Foreground(projDone)
			}
		}
	}
	for t, st := range s.focusTokens {
		s.focusTokens[t] = st.Background(projFocus)
	}
	return s
}

// Token returns the style of a chroma token type: its own, else its sub-category's, else its
// category's, else plain. It only reads the maps built by DefaultStyles.
func (s *Styles) Token(t chroma.TokenType, focus bool) lipgloss.Style {
	m := s.tokens
	if focus {
		m = s.focusTokens
	}
	for _, c := range [...]chroma.TokenType{t, t.SubCategory(), t.Category()} {
		if st, ok := m[c]; ok {
			return st
		}
	}
	if focus {
		return s.Source.Focus
	}
	return lipgloss.NewStyle()
}
