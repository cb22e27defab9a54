package etcd

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// keyMap is the view's own bindings; the scroll keys (common.Common.Scroll) move the tree's
// cursor or scroll the value pane.
type keyMap struct {
	// Move is the help bar's ↑/↓ (the scroll keys do the moving).
	Move key.Binding
	// Toggle opens or closes the resource or namespace under the cursor (or reads the next
	// page again after an error).
	Toggle key.Binding
	// Open and Close open a node, close it (on a key: go to its parent).
	Open, Close key.Binding
	// Focus switches between the tree and the value pane.
	Focus key.Binding
}

func newKeyMap(c common.Common) keyMap {
	tr := c.Tr
	return keyMap{
		Move:   key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", tr.BarMove)),
		Toggle: key.NewBinding(key.WithKeys("enter", " "), key.WithHelp("enter", tr.BarOpenClose)),
		Open:   key.NewBinding(key.WithKeys("right", "l")),
		Close:  key.NewBinding(key.WithKeys("left", "h")),
		Focus:  key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", tr.KeyFocusNext)),
	}
}
