package lessons

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/kubewalk/kubewalk/server"
)

// frontMatter is the YAML block at the top of a lesson file. It is decoded strictly: a field
// not listed here is an error.
type frontMatter struct {
	ID    string       `json:"id"`
	Phase string       `json:"phase"`
	Track string       `json:"track,omitempty"`
	Title string       `json:"title"`
	Kube  string       `json:"kube,omitempty"`
	Steps []stepMatter `json:"steps"`
}

// stepMatter is one entry of the front matter's steps list.
type stepMatter struct {
	ID         string `json:"id"`
	Checkpoint string `json:"checkpoint"`
	Title      string `json:"title"`
	Anchor     string `json:"anchor"`
	Focus      string `json:"focus,omitempty"`
	Upstream   string `json:"upstream,omitempty"`
	Kube       string `json:"kube,omitempty"`
	Live       string `json:"live,omitempty"`
}

// lessonFile is one parsed file: its front matter and the text of each "## <step id>" section.
type lessonFile struct {
	path     string
	fm       frontMatter
	sections map[string]string
	notes    []Problem
}

// idPattern is what lesson and step ids look like: lowercase words joined by dashes, the
// shape of the server's checkpoint names. Headings matching it are taken for step headings.
var idPattern = lazyRegexp(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Languages lists the language directories of fsys ("en" first, then the others sorted).
func Languages(fsys fs.FS) ([]string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("list lesson languages: %w", err)
	}
	var langs []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != DefaultLang && !strings.HasPrefix(e.Name(), ".") {
			langs = append(langs, e.Name())
		}
	}
	sort.Strings(langs)
	return append([]string{DefaultLang}, langs...), nil
}

// Load reads the English lessons in fsys's "en" directory and, when lang is not English,
// overlays the strings of the same-named files in fsys's lang directory: the lesson title,
// step titles and step texts come from lang where present and non-empty, else from English.
// Metadata (phase, track, checkpoints, anchors, ...) always comes from English. README.md files
// are not lessons. The startup lessons come first, in phase order, then the track lessons by
// file name (see sortLessons).
//
// A file that cannot be parsed makes Load return a Problems error naming it; the lessons that
// could be read are returned alongside it (an unparsable translation leaves its lesson in
// English). Problems that do not stop a lesson from being shown, such as a translation naming
// a step English does not have, are kept with the lesson and reported by Check.
func Load(fsys fs.FS, lang string) ([]Lesson, error) {
	if lang == "" {
		lang = DefaultLang
	}
	var problems Problems
	enFiles, err := lessonFiles(fsys, DefaultLang)
	if err != nil {
		return nil, err
	}
	if len(enFiles) == 0 {
		return nil, fmt.Errorf("no lesson files (NN-<phase>.md, 2N-<id>.md) in %s/", DefaultLang)
	}
	var overlay map[string]bool
	if lang != DefaultLang {
		names, err := lessonFiles(fsys, lang)
		if err != nil {
			return nil, err
		}
		overlay = map[string]bool{}
		for _, n := range names {
			overlay[n] = true
			if !slices.Contains(enFiles, n) {
				problems = append(problems, Problem{
					File: path.Join(lang, n),
					Msg:  fmt.Sprintf("translates no English lesson: %s does not exist", path.Join(DefaultLang, n)),
					Fix:  "name the file exactly like the English lesson it translates, or delete it",
				})
			}
		}
	}

	var out []Lesson
	for _, name := range enFiles {
		en, err := readLessonFile(fsys, path.Join(DefaultLang, name), nil)
		if err != nil {
			problems = append(problems, asProblems(err)...)
			continue
		}
		l := en.lesson(DefaultLang)
		if overlay[name] {
			tr, err := readLessonFile(fsys, path.Join(lang, name), en)
			if err != nil {
				problems = append(problems, asProblems(err)...)
			} else {
				l = merge(l, en, tr, lang)
			}
		}
		l.Lang = lang
		out = append(out, l)
	}
	sortLessons(out)
	if len(problems) > 0 {
		return out, problems
	}
	return out, nil
}

// lessonFiles lists the lesson files (*.md but README.md) of directory dir in fsys, by name.
func lessonFiles(fsys fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no lessons in language %q: directory %s/ does not exist", dir, dir)
		}
		return nil, fmt.Errorf("list lessons in %s/: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".md") || strings.EqualFold(n, "README.md") {
			continue
		}
		names = append(names, n)
	}
	return names, nil // fs.ReadDir sorts by name
}

// sortLessons orders lessons by server phase, then the track lessons (in track order), then
// lessons of unknown phases or tracks; each group by file name.
func sortLessons(ls []Lesson) {
	rank := map[string]int{}
	for i, p := range server.Phases() {
		rank[string(p)] = i
	}
	tracks := Tracks()
	order := func(l Lesson) int {
		if l.Track != "" {
			if i := slices.Index(tracks, l.Track); i >= 0 {
				return len(rank) + i
			}
			return len(rank) + len(tracks)
		}
		if r, ok := rank[l.Phase]; ok {
			return r
		}
		return len(rank) + len(tracks)
	}
	sort.SliceStable(ls, func(i, j int) bool {
		ri, rj := order(ls[i]), order(ls[j])
		if ri != rj {
			return ri < rj
		}
		return path.Base(ls[i].File) < path.Base(ls[j].File)
	})
}

// readLessonFile parses one lesson file. en is nil for an English file; for a translation it
// is the English file, whose step ids are also recognised as section headings.
func readLessonFile(fsys fs.FS, name string, en *lessonFile) (*lessonFile, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, Problems{{File: name, Msg: fmt.Sprintf("cannot read: %v", err), Fix: "make the file readable"}}
	}
	return parseLessonFile(name, data, en)
}

// parseLessonFile splits data into front matter and step sections.
func parseLessonFile(name string, data []byte, en *lessonFile) (*lessonFile, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	fmText, body, bodyLine, ok := splitFrontMatter(text)
	if !ok {
		return nil, Problems{{File: name, Msg: "no front matter: the file must start with a line \"---\", the YAML metadata, and a closing line \"---\"",
			Fix: "add the front matter (id, phase or track, title, steps) between two \"---\" lines at the top"}}
	}
	f := &lessonFile{path: name, sections: map[string]string{}}
	if err := yaml.UnmarshalStrict([]byte(fmText), &f.fm); err != nil {
		return nil, Problems{{File: name, Msg: fmt.Sprintf("front matter: %v", err),
			Fix: "fields are id, phase or track, title, kube and steps; a step has id, checkpoint, title, anchor, focus, upstream, kube and live"}}
	}
	known := map[string]bool{}
	for _, s := range f.fm.Steps {
		known[s.ID] = true
	}
	if en != nil {
		for _, s := range en.fm.Steps {
			known[s.ID] = true
		}
	}
	f.splitSections(body, bodyLine, known)
	return f, nil
}

// splitFrontMatter returns the YAML between the leading "---" lines, the body after them and
// the body's first line number.
func splitFrontMatter(text string) (fm, body string, bodyLine int, ok bool) {
	rest, found := strings.CutPrefix(text, "---\n")
	if !found {
		return "", "", 0, false
	}
	line := 2
	for len(rest) > 0 {
		cur, after, _ := strings.Cut(rest, "\n")
		if strings.TrimRight(cur, " \t") == "---" {
			return fm, after, line + 1, true
		}
		fm += cur + "\n"
		rest = after
		line++
	}
	return "", "", 0, false
}

// splitSections assigns the body's lines to the step whose "## <id>" heading precedes them.
// Headings inside fenced code blocks do not count; "###" and deeper headings stay in the text.
func (f *lessonFile) splitSections(body string, firstLine int, known map[string]bool) {
	var (
		cur      = "" // step id of the current section; "" before the first one
		buf      strings.Builder
		preamble strings.Builder
		fence    string
		lineNo   = firstLine - 1
	)
	flush := func() {
		if cur != "" {
			f.sections[cur] = trimBlankLines(buf.String())
		}
		buf.Reset()
	}
	for line := range strings.SplitSeq(body, "\n") {
		lineNo++
		if fence != "" {
			if closesFence(line, fence) {
				fence = ""
			}
		} else if m := openFence(line); m != "" {
			fence = m
		} else if id, isHeading := stepHeading(line); isHeading {
			if known[id] {
				flush()
				if _, dup := f.sections[id]; dup {
					f.notes = append(f.notes, Problem{File: f.path, Step: id,
						Msg: fmt.Sprintf("line %d: second \"## %s\" section; the first one's text is lost", lineNo, id),
						Fix: "merge the two sections into one"})
				}
				f.sections[id] = ""
				cur = id
				continue
			}
			if idPattern().MatchString(id) {
				owner := "no step (it is before the first step section)"
				if cur != "" {
					owner = fmt.Sprintf("step %q", cur)
				}
				f.notes = append(f.notes, Problem{File: f.path, Step: cur,
					Msg: fmt.Sprintf("line %d: heading \"## %s\" names no step in the front matter; its text belongs to %s", lineNo, id, owner),
					Fix: "rename the heading to a step id from the front matter, or make it a \"###\" sub-heading"})
			}
		}
		if cur == "" {
			preamble.WriteString(line)
			preamble.WriteByte('\n')
			continue
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
	}
	flush()
	if strings.TrimSpace(preamble.String()) != "" {
		f.notes = append(f.notes, Problem{File: f.path,
			Msg: "text before the first \"## <step id>\" section is never shown",
			Fix: "move it into a step's section or delete it (the lesson title comes from the front matter)"})
	}
}

// stepHeading reports whether line is a level-2 ATX heading and returns its text.
func stepHeading(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "## ")
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if trimmed := strings.TrimRight(rest, "#"); trimmed != rest && strings.HasSuffix(trimmed, " ") {
		rest = strings.TrimSpace(trimmed) // closing sequence: "## x509 ##"
	}
	return rest, true
}

// openFence returns the fence marker (``` or ~~~, possibly longer) that line opens, or "".
func openFence(line string) string {
	l := strings.TrimLeft(line, " ")
	if len(line)-len(l) > 3 {
		return ""
	}
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(l) && l[n] == c {
			n++
		}
		if n >= 3 {
			return l[:n]
		}
	}
	return ""
}

// closesFence reports whether line closes a block opened with fence.
func closesFence(line, fence string) bool {
	l := strings.TrimLeft(line, " ")
	if len(line)-len(l) > 3 {
		return false
	}
	n := 0
	for n < len(l) && l[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimSpace(l[n:]) == ""
}

// trimBlankLines removes leading and trailing blank lines, keeping the first line's indentation.
func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// lesson builds the Lesson of an English file.
func (f *lessonFile) lesson(lang string) Lesson {
	l := Lesson{ID: f.fm.ID, Phase: f.fm.Phase, Track: f.fm.Track, Title: f.fm.Title, Kube: f.fm.Kube, File: f.path}
	for _, s := range f.fm.Steps {
		l.Steps = append(l.Steps, Step{ID: s.ID, Checkpoint: s.Checkpoint, Title: s.Title, Anchor: s.Anchor,
			Focus: s.Focus, Upstream: s.Upstream, Kube: s.Kube, Live: s.Live, Text: f.sections[s.ID], Lang: lang})
	}
	l.notes = append(l.notes, f.notes...)
	return l
}

// merge overlays translation tr of English file en onto l, string by string, and records
// what the translation gets wrong.
func merge(l Lesson, en, tr *lessonFile, lang string) Lesson {
	l.Steps = slices.Clone(l.Steps)
	l.notes = append(slices.Clone(l.notes), tr.notes...)
	note := func(step, msg, fix string) {
		l.notes = append(l.notes, Problem{File: tr.path, Step: step, Msg: msg, Fix: fix})
	}
	const metaFix = "metadata always comes from English: delete the field here or make it equal to English"
	if tr.fm.ID != "" && tr.fm.ID != en.fm.ID {
		note("", fmt.Sprintf("lesson id %q differs from English %q in %s", tr.fm.ID, en.fm.ID, en.path), metaFix)
	}
	if tr.fm.Phase != "" && tr.fm.Phase != en.fm.Phase {
		note("", fmt.Sprintf("phase %q differs from English %q in %s", tr.fm.Phase, en.fm.Phase, en.path), metaFix)
	}
	if tr.fm.Track != "" && tr.fm.Track != en.fm.Track {
		note("", fmt.Sprintf("track %q differs from English %q in %s", tr.fm.Track, en.fm.Track, en.path), metaFix)
	}
	if tr.fm.Kube != "" && tr.fm.Kube != en.fm.Kube {
		note("", fmt.Sprintf("kube %q differs from English %q in %s", tr.fm.Kube, en.fm.Kube, en.path), metaFix)
	}
	if tr.fm.Title != "" {
		l.Title = tr.fm.Title
	}

	enSteps := map[string]stepMatter{}
	for _, s := range en.fm.Steps {
		enSteps[s.ID] = s
	}
	unknown := map[string]bool{}
	trTitles := map[string]string{}
	for _, s := range tr.fm.Steps {
		e, ok := enSteps[s.ID]
		if !ok {
			unknown[s.ID] = true
			continue
		}
		trTitles[s.ID] = s.Title
		for _, d := range []struct{ field, tr, en string }{
			{"checkpoint", s.Checkpoint, e.Checkpoint},
			{"anchor", s.Anchor, e.Anchor},
			{"focus", s.Focus, e.Focus},
			{"upstream", s.Upstream, e.Upstream},
			{"kube", s.Kube, e.Kube},
			{"live", s.Live, e.Live},
		} {
			if d.tr != "" && d.tr != d.en {
				note(s.ID, fmt.Sprintf("%s %q differs from English %q in %s", d.field, d.tr, d.en, en.path), metaFix)
			}
		}
	}
	for id := range tr.sections {
		if _, ok := enSteps[id]; !ok {
			unknown[id] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(unknown)) {
		note(id, fmt.Sprintf("step %q is not in the English lesson %s", id, en.path),
			"use the English step ids (translate titles and texts, never ids), or add the step to English first")
	}
	for i, s := range l.Steps {
		if t := trTitles[s.ID]; t != "" {
			l.Steps[i].Title = t
		}
		if t := tr.sections[s.ID]; strings.TrimSpace(t) != "" {
			l.Steps[i].Text = t
			l.Steps[i].Lang = lang
		}
	}
	return l
}

// DetectLang picks the language of the lessons and of every screen: flag if set, else the
// environment as GNU gettext reads it (env is os.Getenv in production):
//
//   - the locale is the first set of LC_ALL, LC_MESSAGES and LANG;
//   - LANGUAGE, a colon-separated list ("fr:zh_CN:en"), comes first: its first entry kubewalk
//     has a catalogue for wins — unless the locale is unset, "C" or "POSIX", where gettext
//     ignores LANGUAGE (such a locale is plain ASCII, and a program's output there must not
//     depend on it); "C.UTF-8" is not "C", so LANGUAGE counts there;
//   - else the locale itself.
//
// Simplified Chinese ("zh_CN", "zh_SG", "zh-Hans", "zh", with any encoding or modifier) gives
// "zh-CN"; anything else — Traditional Chinese ("zh_TW", "zh_HK", "zh-Hant") included, since
// kubewalk has no Traditional text yet — and an unsupported flag value give "en".
func DetectLang(flag string, env func(string) string) string {
	if flag != "" {
		lang, _ := NormalizeLang(flag)
		return lang
	}
	if env == nil {
		return DefaultLang
	}
	locale := ""
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if locale = env(k); locale != "" {
			break
		}
	}
	if !isCLocale(locale) {
		for _, l := range strings.Split(env("LANGUAGE"), ":") {
			if lang, ok := NormalizeLang(l); ok {
				return lang
			}
		}
	}
	lang, _ := NormalizeLang(locale)
	return lang
}

// isCLocale reports whether a locale is the C (POSIX) locale, or unset, which setlocale also
// takes for "C".
func isCLocale(locale string) bool {
	return locale == "" || locale == "C" || locale == "POSIX"
}

// NormalizeLang maps a locale or language name to a lesson language directory and reports
// whether it is one kubewalk has: "zh", "zh-CN", "zh_CN.UTF-8", "zh_SG", "zh-Hans" give
// "zh-CN"; "en", "en_US.UTF-8", "C", "C.UTF-8" and "POSIX" give "en". Anything else —
// Traditional Chinese ("zh_TW", "zh-Hant") too — gives "en", false.
func NormalizeLang(s string) (string, bool) {
	s, _, _ = strings.Cut(s, ".") // encoding: zh_CN.UTF-8
	s, _, _ = strings.Cut(s, "@") // modifier: de_DE@euro
	s = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "_", "-"))
	switch s {
	case "zh", "zh-cn", "zh-sg", "zh-hans", "zh-hans-cn", "zh-hans-sg":
		return "zh-CN", true
	case "en", "c", "posix":
		return DefaultLang, true
	}
	if strings.HasPrefix(s, "en-") {
		return DefaultLang, true
	}
	return DefaultLang, false
}

// lazyRegexp compiles expr when it is first used rather than during package initialisation,
// which every kubewalk command pays.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
