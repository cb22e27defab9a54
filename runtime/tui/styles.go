package tui

import "github.com/kubewalk/kubewalk/runtime/tui/common"

// Styles holds every style the screen uses; it lives in runtime/tui/common so that every view
// package shares it (see common.Styles).
type Styles = common.Styles

// DefaultStyles returns kubewalk's styles.
func DefaultStyles() *Styles { return common.DefaultStyles() }

// Themes are the names --theme takes.
var Themes = common.Themes

// ThemeStyles returns the styles of a theme named in Themes ("" is the default), and false
// for an unknown name.
func ThemeStyles(name string) (*Styles, bool) { return common.ThemeStyles(name) }

// ProjectorStyles returns the projector theme (see common.ProjectorStyles).
func ProjectorStyles() *Styles { return common.ProjectorStyles() }
