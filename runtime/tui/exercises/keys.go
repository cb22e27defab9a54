package exercises

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// KeyMap is the exercises view's own keys (scrolling is common.Common.Scroll's). The root's
// KeyMap takes Hint, Answer and Choose from here for its ? overlay.
type KeyMap struct {
	// Hint reveals the selected exercise's next hint level; Answer opens the answer line;
	// Choose answers a multiple choice with option 1–9.
	Hint, Answer, Choose key.Binding
	// FocusNext and FocusPrev switch between the list and the detail; Open focuses the detail
	// from the list, and in the detail opens the answer line.
	FocusNext, FocusPrev, Open key.Binding
	// Submit and Cancel are the open answer line's help (it takes enter and esc by key type;
	// every other key is typed into it).
	Submit, Cancel key.Binding
}

// NewKeyMap returns the view's keys with help in tr's language; the keys are the same in every
// language.
func NewKeyMap(tr *i18n.Strings) KeyMap {
	return KeyMap{
		Hint:      key.NewBinding(key.WithKeys("h"), key.WithHelp("h", tr.KeyHint)),
		Answer:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", tr.KeyAnswer)),
		Choose:    key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", tr.KeyChoose)),
		FocusNext: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", tr.KeyFocusNext)),
		FocusPrev: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", tr.KeyFocusPrev)),
		Open:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", tr.KeyAnswer)),
		Submit:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", tr.KeyAnswer)),
		Cancel:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.BarCancel)),
	}
}

// bar is a help-bar entry that names keys it does not bind (the arrows, which the scroll keys
// bind).
func bar(keys, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
}
