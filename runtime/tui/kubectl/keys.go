package kubectl

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// KeyMap are the view's own keys; the scroll keys and tab come from the screen's key map
// (common.Common, Options), and ":", "?", "q", "z", "K" stay the screen's.
type KeyMap struct {
	// Stop stops the command in front, then the one beside.
	Stop key.Binding
	// Open shows the selected request's trace in the Requests view (requests pane).
	Open key.Binding
	// Scroll is the help bar's ↑/↓ (the keys are the screen's scroll keys).
	Scroll key.Binding

	// The text box of `-f -`: run the command with the manifest, put it away; ctrl+c still
	// quits (the screen's, shown because every other key is typed into the box).
	RunBox, PutAway, QuitAll key.Binding
}

// NewKeyMap returns the view's keys with help in tr's language.
func NewKeyMap(tr *i18n.Strings) KeyMap {
	return KeyMap{
		Stop:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.BarStop)),
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", tr.BarOpenLane)),
		Scroll:  key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", tr.BarScroll)),
		RunBox:  key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", tr.BarRunManifest)),
		PutAway: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.BarPutAway)),
		QuitAll: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", tr.BarQuitAll)),
	}
}
