package requests

import (
	"errors"
	"strings"

	"github.com/kubewalk/kubewalk/runtime/tui/source"
)

// stageCode resolves a stage's code for the stage-code pane: a tracing.SourceRef names
// kubewalk's function as "server/<anchor>", and the lessons' resolver returns a declaration
// without a focus, so the first line of the function is emphasised here: the pane marks it
// with ▶.
type stageCode struct{ r source.Resolver }

// errNoCode is the pane's error when the view was given no resolver.
var errNoCode = errors.New("no source resolver")

func (c stageCode) Local(anchor, focus string) (source.Location, error) {
	if c.r == nil {
		return source.Location{}, errNoCode
	}
	loc, err := c.r.Local(strings.TrimPrefix(anchor, "server/"), focus)
	return emphasiseStart(loc), err
}

func (c stageCode) Upstream(symbol string) (source.Location, error) {
	if c.r == nil {
		return source.Location{}, errNoCode
	}
	loc, err := c.r.Upstream(symbol)
	return emphasiseStart(loc), err
}

func emphasiseStart(loc source.Location) source.Location {
	if loc.FocusStart == 0 && loc.StartLine > 0 {
		loc.FocusStart, loc.FocusEnd = loc.StartLine, loc.StartLine
	}
	return loc
}
