package tui

import (
	"io/fs"
	"path"
	"sync"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/server"
)

// LessonContent is the Content of kubewalk's lessons: their steps by checkpoint, anchors
// resolved in our server source, upstream symbols in k8s.io/apiserver in the module cache.
// It is safe for concurrent use.
type LessonContent struct {
	lang  string // the language the lessons were loaded in
	steps map[string]Step
	src   fs.FS
	res   *lessons.Resolver

	modOnce sync.Once
	modDir  string // k8s.io/apiserver in the module cache
	modVer  string
	modErr  error
}

// LoadLessonContent loads the embedded lessons in lang (English where a translation is
// missing) with the embedded server source. A lessons.Problems error comes with the lessons
// that could be read: the walkthrough can still run on them.
func LoadLessonContent(lang string) (*LessonContent, error) {
	ls, err := lessons.Load(content.FS, lang)
	if len(ls) == 0 && err != nil {
		return nil, err
	}
	return NewLessonContent(ls, server.SourceFS), err
}

// NewLessonContent adapts loaded lessons; src holds the server package's source at its root.
// When several steps name the same checkpoint, the first one is shown. The screen speaks the
// language the lessons were loaded in (see Language).
func NewLessonContent(ls []lessons.Lesson, src fs.FS) *LessonContent {
	c := &LessonContent{steps: map[string]Step{}, src: src, res: lessons.NewResolver()}
	for _, l := range ls {
		if c.lang == "" {
			c.lang = l.Lang
		}
		for _, s := range l.Steps {
			if s.Checkpoint == "" {
				continue // a step of the after-serve track: the full screen does not show it yet
			}
			if _, dup := c.steps[s.Checkpoint]; dup {
				continue
			}
			kube := s.Kube
			if kube == "" {
				kube = l.Kube
			}
			c.steps[s.Checkpoint] = Step{
				ID: l.ID + "/" + s.ID, Checkpoint: s.Checkpoint, Title: s.Title, Lesson: l.Title,
				Text: s.Text, Anchor: s.Anchor, Focus: s.Focus, Upstream: s.Upstream, Kube: kube,
			}
		}
	}
	return c
}

// Language is the language the lessons were loaded in ("en" when unknown): the learner's
// choice, which the screen's strings follow.
func (c *LessonContent) Language() string {
	if c == nil || c.lang == "" {
		return lessons.DefaultLang
	}
	return c.lang
}

// SourceBrowser is implemented by a Content that hands out kubewalk's server source, so that
// the source pane's search covers every file of it (not only the one on screen) and can open
// the file a match is in. LessonContent implements it.
type SourceBrowser interface {
	// ServerSource returns the server package's source: its files at the root (shown as
	// server/<path>), subpackages in their directories.
	ServerSource() fs.FS
}

// ServerSource returns the server source the lessons' anchors resolve in.
func (c *LessonContent) ServerSource() fs.FS { return c.src }

// Step returns the step for a checkpoint ID.
func (c *LessonContent) Step(checkpointID string) (Step, bool) {
	s, ok := c.steps[checkpointID]
	return s, ok
}

// Local resolves an anchor in the server source; the file is shown as server/<file>.
func (c *LessonContent) Local(anchor, focus string) (Location, error) {
	loc, err := c.res.Local(c.src, anchor, focus)
	if err != nil {
		return Location{}, err
	}
	return location(path.Join("server", loc.File), loc, focus != ""), nil
}

// Upstream resolves a k8s.io/apiserver symbol in the module cache, which it finds on first
// use; the file is shown as k8s.io/apiserver@<version>/<file>.
func (c *LessonContent) Upstream(symbol string) (Location, error) {
	c.modOnce.Do(func() { c.modDir, c.modVer, c.modErr = lessons.UpstreamModuleDir() })
	if c.modErr != nil {
		return Location{}, c.modErr
	}
	loc, err := c.res.Upstream(c.modDir, symbol)
	if err != nil {
		return Location{}, err
	}
	return location(lessons.UpstreamModule+"@"+c.modVer+"/"+loc.File, loc, false), nil
}

// location converts a lessons.Location; without a focus nothing is emphasised (lessons sets
// the focus to the whole declaration then).
func location(file string, l lessons.Location, focus bool) Location {
	out := Location{File: file, StartLine: l.StartLine, EndLine: l.EndLine, Source: l.Source}
	if focus {
		out.FocusStart, out.FocusEnd = l.FocusStart, l.FocusEnd
	}
	return out
}
