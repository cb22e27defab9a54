// Package common holds what every view of the TUI shares (see runtime/tui/view): the styles,
// the learner's strings, the scroll keys, the frame and text pane, and the render helpers
// (Fit, WrapLines, Box, JoinColumns, …), as soft-serve's pkg/ui/common does.
package common

import "github.com/kubewalk/kubewalk/runtime/i18n"

// Common is what the root hands every view when it makes it.
type Common struct {
	// Styles are the theme's styles, built once; read-only.
	Styles *Styles
	// Tr are the strings in the learner's language.
	Tr *i18n.Strings
	// Scroll are the bindings that scroll a pane (the learner's key map may change them).
	Scroll ScrollKeys
}
