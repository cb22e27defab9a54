package tui

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/server"
)

// LessonContent is the Content of kubewalk's lessons: their steps by checkpoint, anchors
// resolved in our server source, upstream symbols in k8s.io/apiserver in the module cache.
// It is safe for concurrent use.
type LessonContent struct {
	lang  string // the language the lessons were loaded in
	steps map[string]Step
	track []Step // the after-serve track's steps, in order
	src   fs.FS
	res   *lessons.Resolver

	mu   sync.Mutex
	mods map[string]moduleDir // modules found in the module cache, by path (only found ones)
}

// moduleDir is where a module's source is, and its version.
type moduleDir struct{ dir, version string }

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
	c := &LessonContent{steps: map[string]Step{}, src: src, res: lessons.NewResolver(), mods: map[string]moduleDir{}}
	for _, l := range ls {
		if c.lang == "" {
			c.lang = l.Lang
		}
		for _, s := range l.Steps {
			kube := s.Kube
			if kube == "" {
				kube = l.Kube
			}
			step := Step{
				ID: l.ID + "/" + s.ID, LessonID: l.ID, StepID: s.ID, Checkpoint: s.Checkpoint,
				Title: s.Title, Lesson: l.Title, Text: s.Text, Anchor: s.Anchor, Focus: s.Focus,
				Upstream: s.Upstream, Kube: kube, Live: s.Live,
			}
			if s.Checkpoint == "" {
				if l.Track == lessons.TrackAfterServe {
					c.track = append(c.track, step)
				}
				continue
			}
			if _, dup := c.steps[s.Checkpoint]; dup {
				continue
			}
			c.steps[s.Checkpoint] = step
		}
	}
	return c
}

// TrackSteps returns the steps of the after-serve track in order (lesson by lesson).
func (c *LessonContent) TrackSteps() []Step { return c.track }

// Language is the language the lessons were loaded in ("en" when unknown): the learner's
// choice, which the screen's strings follow.
func (c *LessonContent) Language() string {
	if c == nil || c.lang == "" {
		return lessons.DefaultLang
	}
	return c.lang
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
	return location(path.Join("server", loc.File), loc, focus != "", false), nil
}

// Upstream resolves a k8s.io/apiserver (or k8s.io/apimachinery) symbol in the module cache;
// the file is shown as <module>@<version>/<file>. A module the cache lacks is a
// *MissingModuleError (which FetchModule can fix).
func (c *LessonContent) Upstream(symbol string) (Location, error) {
	mod, ok := lessons.UpstreamModuleOf(symbol)
	if !ok {
		mod = lessons.UpstreamModule
	}
	md, err := c.module(mod, func() (string, string, error) { return lessons.ModuleDir(mod) })
	if err != nil {
		return Location{}, err
	}
	loc, err := c.res.Module(mod, md.dir, symbol)
	if err != nil {
		return Location{}, err
	}
	return location(mod+"@"+md.version+"/"+loc.File, loc, false, true), nil
}

// Kube resolves a kube: location ("pkg/controlplane/apiserver/config.go BuildGenericConfig")
// in k8s.io/kubernetes KubeVersion in the module cache; the file is shown as
// k8s.io/kubernetes@<version>/<file>. A missing module is a *MissingModuleError.
func (c *LessonContent) Kube(where string) (Location, error) {
	md, err := c.module(lessons.KubeModule, func() (string, string, error) {
		dir, err := lessons.KubeModuleDir()
		return dir, lessons.KubeVersion, err
	})
	if err != nil {
		return Location{}, err
	}
	loc, err := c.res.Kube(md.dir, where)
	if err != nil {
		return Location{}, err
	}
	return location(lessons.KubeModule+"@"+md.version+"/"+loc.File, loc, false, true), nil
}

// UpstreamMissing reports whether k8s.io/apiserver's source, which u reads, is missing from
// the module cache: the error then says so (nil when it is there).
func (c *LessonContent) UpstreamMissing() *MissingModuleError {
	_, err := c.module(lessons.UpstreamModule, func() (string, string, error) { return lessons.ModuleDir(lessons.UpstreamModule) })
	var mm *MissingModuleError
	if errors.As(err, &mm) {
		return mm
	}
	return nil
}

// module finds a module's directory with find, remembering it once found (a module missing
// now may be fetched later, so a failure is not remembered).
func (c *LessonContent) module(mod string, find func() (dir, version string, err error)) (moduleDir, error) {
	c.mu.Lock()
	md, ok := c.mods[mod]
	c.mu.Unlock()
	if ok {
		return md, nil
	}
	dir, version, err := find()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && version != "" {
			return moduleDir{}, &MissingModuleError{Module: mod, Version: version, Err: err}
		}
		return moduleDir{}, err
	}
	md = moduleDir{dir: dir, version: version}
	c.mu.Lock()
	c.mods[mod] = md
	c.mu.Unlock()
	return md, nil
}

// location converts a lessons.Location. With focus it emphasises the focus lines; with decl
// (upstream and kube-apiserver code, which have no focus) the line that declares the symbol,
// after its doc comment, so that the step's line is marked there too; else nothing (lessons
// sets the focus to the whole declaration then).
func location(file string, l lessons.Location, focus, decl bool) Location {
	out := Location{File: file, StartLine: l.StartLine, EndLine: l.EndLine, Source: l.Source}
	if focus {
		out.FocusStart, out.FocusEnd = l.FocusStart, l.FocusEnd
		return out
	}
	if n := declLine(l.Source, l.StartLine, l.EndLine); decl && n > 0 {
		out.FocusStart, out.FocusEnd = n, n
	}
	return out
}

// declLine is the first line in [start, end] of src that is not a comment or blank: the line
// that declares the symbol; 0 when there is none.
func declLine(src []byte, start, end int) int {
	lines := strings.Split(string(src), "\n")
	inBlock := false
	for n := start; n <= end && n <= len(lines); n++ {
		t := strings.TrimSpace(lines[n-1])
		switch {
		case inBlock:
			if strings.Contains(t, "*/") {
				inBlock = false
			}
		case t == "", strings.HasPrefix(t, "//"):
		case strings.HasPrefix(t, "/*") && !strings.Contains(t, "*/"):
			inBlock = true
		default:
			return n
		}
	}
	return 0
}

// noContent is the Content of a walkthrough without lessons.
type noContent struct{ tr *i18n.Strings }

func (noContent) Step(string) (Step, bool) { return Step{}, false }
func (c noContent) Local(string, string) (Location, error) {
	return Location{}, errors.New(c.tr.ErrNoLessons)
}
func (c noContent) Upstream(string) (Location, error) {
	return Location{}, errors.New(c.tr.ErrNoLessons)
}
