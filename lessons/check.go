package lessons

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/kubewalk/kubewalk/server"
)

// Problem is one thing wrong with the lesson content.
type Problem struct {
	// File is the lesson file at fault, as a path in the content fs.FS ("en/02-authn.md").
	File string
	// Step is the step id at fault, or "" for the whole lesson.
	Step string
	// Msg says what is wrong.
	Msg string
	// Fix says how to put it right.
	Fix string
}

// Error renders the problem on one line: "file: step id: message — fix: how".
func (p Problem) Error() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File + ": ")
	}
	if p.Step != "" {
		b.WriteString("step " + p.Step + ": ")
	}
	b.WriteString(p.Msg)
	if p.Fix != "" {
		b.WriteString(" — fix: " + p.Fix)
	}
	return b.String()
}

// Problems is a list of problems used as one error, one problem per line.
type Problems []Problem

// Error renders one problem per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// asProblems turns err into problems: a Problems error's own, or one problem with its text.
func asProblems(err error) Problems {
	var ps Problems
	if errors.As(err, &ps) {
		return ps
	}
	var p Problem
	if errors.As(err, &p) {
		return Problems{p}
	}
	return Problems{{Msg: err.Error()}}
}

// fileNamePattern is a lesson file's name: two digits, a dash, the phase.
var fileNamePattern = regexp.MustCompile(`^[0-9]{2}-([a-z0-9-]+)\.md$`)

// Check validates lessons against the server's checkpoints, kubewalk's own source ours
// (server.SourceFS) and the k8s.io/apiserver source at upstreamDir (from UpstreamModuleDir;
// "" when it is not available, which is a problem when any step names an upstream symbol).
// It returns every problem found, lesson by lesson in order, then the checkpoints no step
// covers; none means the content is sound.
func Check(lessons []Lesson, checkpoints []server.Checkpoint, ours fs.FS, upstreamDir string) []Problem {
	return check(lessons, checkpoints, ours, upstreamDir, NewResolver(), true)
}

// CheckContent loads the lessons of every language in content (English, then each
// translation; only English and langs when langs are given), checks them with Check and
// returns the problems of loading and checking, each reported once. When a file failed to
// load, the checkpoints its steps would cover are not reported as uncovered.
func CheckContent(content fs.FS, checkpoints []server.Checkpoint, ours fs.FS, upstreamDir string, langs ...string) []Problem {
	if len(langs) == 0 {
		var err error
		if langs, err = Languages(content); err != nil {
			return []Problem{{Msg: err.Error(), Fix: "point the check at the content directory (with en/ inside)"}}
		}
	} else if !slices.Contains(langs, DefaultLang) {
		langs = append([]string{DefaultLang}, langs...)
	}
	res := NewResolver()
	seen := map[string]bool{}
	var out []Problem
	add := func(ps []Problem) {
		for _, p := range ps {
			if k := p.Error(); !seen[k] {
				seen[k] = true
				out = append(out, p)
			}
		}
	}
	for _, lang := range langs {
		ls, err := Load(content, lang)
		if err != nil {
			add(asProblems(err))
		}
		add(check(ls, checkpoints, ours, upstreamDir, res, err == nil))
	}
	return out
}

// check is Check with a shared resolver; coverage false skips the uncovered-checkpoint report.
func check(lessons []Lesson, checkpoints []server.Checkpoint, ours fs.FS, upstreamDir string, res *Resolver, coverage bool) []Problem {
	c := checker{
		ours:        ours,
		upstreamDir: upstreamDir,
		res:         res,
		cps:         map[string]int{},
		covered:     map[string]string{},
		lessonIDs:   map[string]string{},
		phases:      map[string]bool{},
	}
	for i, cp := range checkpoints {
		c.cps[cp.ID()] = i
	}
	for _, p := range server.Phases() {
		c.phases[string(p)] = true
	}
	for _, l := range lessons {
		c.lesson(l)
	}
	phaseFile := map[string]string{}
	for _, l := range lessons {
		if _, ok := phaseFile[l.Phase]; !ok {
			phaseFile[l.Phase] = l.File
		}
	}
	for _, cp := range checkpoints {
		if _, ok := c.covered[cp.ID()]; ok || !coverage {
			continue
		}
		file, fix := phaseFile[string(cp.Phase)], fmt.Sprintf("add a step with checkpoint: %s", cp.ID())
		if file == "" {
			file = DefaultLang + "/"
			fix = fmt.Sprintf("add a lesson with phase: %s and a step with checkpoint: %s", cp.Phase, cp.ID())
		}
		c.add(file, "", fmt.Sprintf("server checkpoint %s (%s) is covered by no step", cp.ID(), cp.Title), fix)
	}
	return c.problems
}

// checker accumulates problems across lessons.
type checker struct {
	ours        fs.FS
	upstreamDir string
	res         *Resolver
	cps         map[string]int    // checkpoint ID → server order
	covered     map[string]string // checkpoint ID → "file step" covering it
	lessonIDs   map[string]string // lesson id → file
	phases      map[string]bool
	noUpstream  bool // the missing upstream source was reported
	problems    []Problem
}

func (c *checker) add(file, step, msg, fix string) {
	c.problems = append(c.problems, Problem{File: file, Step: step, Msg: msg, Fix: fix})
}

// lesson checks one lesson's metadata and then its steps.
func (c *checker) lesson(l Lesson) {
	f := l.File
	switch {
	case l.ID == "":
		c.add(f, "", "lesson has no id", "set id: in the front matter")
	case !idPattern.MatchString(l.ID):
		c.add(f, "", fmt.Sprintf("lesson id %q is not lowercase words joined by dashes", l.ID), "use an id like \"authn\"")
	case c.lessonIDs[l.ID] != "":
		c.add(f, "", fmt.Sprintf("duplicate lesson id %q, already used by %s", l.ID, c.lessonIDs[l.ID]), "give each lesson its own id")
	default:
		c.lessonIDs[l.ID] = f
	}
	if strings.TrimSpace(l.Title) == "" {
		c.add(f, "", "lesson has no title", "set title: in the front matter")
	}
	if !c.phases[l.Phase] {
		c.add(f, "", fmt.Sprintf("phase %q is not a server phase", l.Phase), "set phase: to one of "+phaseList())
	} else if m := fileNamePattern.FindStringSubmatch(path.Base(f)); f != "" && (m == nil || m[1] != l.Phase) {
		c.add(f, "", fmt.Sprintf("file name %s does not match the lesson's phase %s", path.Base(f), l.Phase),
			fmt.Sprintf("name the file NN-%s.md (NN: two digits that order the lessons)", l.Phase))
	}
	if len(l.Steps) == 0 {
		c.add(f, "", "lesson has no steps", "list the steps under steps: in the front matter")
	}
	stepIDs := map[string]bool{}
	last, lastStep := -1, Step{}
	for _, s := range l.Steps {
		c.step(l, s, stepIDs)
		i, ok := c.cps[s.Checkpoint]
		if !ok {
			continue
		}
		if i < last {
			c.add(f, s.ID, fmt.Sprintf("step comes after step %s, but the server reaches its checkpoint %s before %s", lastStep.ID, s.Checkpoint, lastStep.Checkpoint),
				"order the steps as the server reaches their checkpoints")
			continue
		}
		last, lastStep = i, s
	}
	c.problems = append(c.problems, l.notes...)
}

// step checks one step.
func (c *checker) step(l Lesson, s Step, ids map[string]bool) {
	f := l.File
	switch {
	case s.ID == "":
		c.add(f, "", "a step has no id", "set id: on every step")
	case !idPattern.MatchString(s.ID):
		c.add(f, s.ID, fmt.Sprintf("step id %q is not lowercase words joined by dashes", s.ID), "use an id like \"x509\" (it is also the ## heading)")
	case ids[s.ID]:
		c.add(f, s.ID, fmt.Sprintf("duplicate step id %q", s.ID), "give each step of the lesson its own id")
	default:
		ids[s.ID] = true
	}
	if strings.TrimSpace(s.Title) == "" {
		c.add(f, s.ID, "step has no title", "set title: on the step")
	}
	if strings.TrimSpace(s.Text) == "" {
		c.add(f, s.ID, fmt.Sprintf("step has no text: no \"## %s\" section, or it is empty", s.ID),
			fmt.Sprintf("write the step's text under a line \"## %s\"", s.ID))
	}
	c.checkpoint(l, s)
	c.anchor(f, s)
	c.upstream(f, s)
}

// checkpoint checks that the step names a server checkpoint of its lesson's phase that no
// other step covers.
func (c *checker) checkpoint(l Lesson, s Step) {
	f := l.File
	if s.Checkpoint == "" {
		c.add(f, s.ID, "step has no checkpoint", "set checkpoint: to a server checkpoint id (phase/name)")
		return
	}
	if _, ok := c.cps[s.Checkpoint]; !ok {
		fix := "use one of the server's checkpoints: see server.Checkpoints()"
		var ids []string
		for id := range c.cps {
			ids = append(ids, id)
		}
		if near := suggest(s.Checkpoint, ids); len(near) > 0 {
			fix = "did you mean " + quoteList(near) + "?"
		}
		c.add(f, s.ID, fmt.Sprintf("checkpoint %q is not a server checkpoint", s.Checkpoint), fix)
		return
	}
	if phase, _, _ := strings.Cut(s.Checkpoint, "/"); phase != l.Phase {
		c.add(f, s.ID, fmt.Sprintf("checkpoint %s belongs to phase %s, not to the lesson's phase %s", s.Checkpoint, phase, l.Phase),
			fmt.Sprintf("move the step to the %s lesson", phase))
	}
	if prev, dup := c.covered[s.Checkpoint]; dup {
		c.add(f, s.ID, fmt.Sprintf("checkpoint %s is already covered by %s", s.Checkpoint, prev), "cover each checkpoint with exactly one step")
		return
	}
	c.covered[s.Checkpoint] = fmt.Sprintf("%s step %s", f, s.ID)
}

// anchor checks that the anchor and focus resolve in our source.
func (c *checker) anchor(f string, s Step) {
	if s.Anchor == "" {
		c.add(f, s.ID, "step has no anchor", "set anchor: to the func, method ((*T).M) or type in server/ the step explains")
		if s.Focus != "" {
			c.add(f, s.ID, fmt.Sprintf("focus %q without an anchor", s.Focus), "set anchor: or drop focus:")
		}
		return
	}
	_, err := c.res.Local(c.ours, s.Anchor, s.Focus)
	var nf *notFoundError
	var fe *focusError
	switch {
	case err == nil:
	case errors.As(err, &fe):
		c.add(f, s.ID, fmt.Sprintf("focus %q does not occur in anchor %s (server/%s lines %d-%d)", s.Focus, s.Anchor, fe.loc.File, fe.loc.StartLine, fe.loc.EndLine),
			"copy the focus verbatim from that code, or drop focus: to show the whole symbol")
	case errors.As(err, &nf):
		fix := "name a func, a method as (*T).M or T.M, or a type declared in server/" + c.subpackages()
		if len(nf.suggest) > 0 {
			fix = "did you mean " + quoteList(nf.suggest) + "?"
		}
		c.add(f, s.ID, fmt.Sprintf("anchor %q not found in server/", s.Anchor), fix)
	default:
		c.add(f, s.ID, fmt.Sprintf("anchor %q does not resolve: %v", s.Anchor, unwrapAll(err)),
			"name a func, a method as (*T).M or T.M, or a type declared in server/"+c.subpackages())
	}
}

// subpackages describes the subpackage directories of our source an anchor may qualify,
// e.g. ` (or pkg.Symbol for the subpackages embedded in server.SourceFS: admit)`.
func (c *checker) subpackages() string {
	entries, err := fs.ReadDir(c.ours, ".")
	if err != nil {
		return ""
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	if len(dirs) == 0 {
		return ""
	}
	return " (or pkg.Symbol for the subpackages embedded in server.SourceFS: " + strings.Join(dirs, ", ") + ")"
}

// upstream checks that the upstream symbol resolves in k8s.io/apiserver at the pinned version.
func (c *checker) upstream(f string, s Step) {
	if s.Upstream == "" {
		return
	}
	if c.upstreamDir == "" {
		if !c.noUpstream {
			c.noUpstream = true
			c.add(f, s.ID, fmt.Sprintf("cannot check upstream %q: the %s source is not in the Go module cache", s.Upstream, UpstreamModule),
				fmt.Sprintf("run `go mod download %s` (the build does it), then check again", UpstreamModule))
		}
		return
	}
	_, err := c.res.Upstream(c.upstreamDir, s.Upstream)
	if err == nil {
		return
	}
	fix := fmt.Sprintf("write the import path inside %s, \".\", and a func, a method as (*T).M or T.M, or a type declared there", UpstreamModule)
	var nf *notFoundError
	if errors.As(err, &nf) {
		if len(nf.suggest) > 0 {
			fix = "did you mean " + quoteList(nf.suggest) + " in that package?"
		}
		c.add(f, s.ID, fmt.Sprintf("upstream %q not found in %s", s.Upstream, upstreamLabel(c.upstreamDir)), fix)
		return
	}
	c.add(f, s.ID, fmt.Sprintf("upstream %q does not resolve in %s: %v", s.Upstream, upstreamLabel(c.upstreamDir), unwrapAll(err)), fix)
}

// upstreamLabel names the module directory by its last element ("k8s.io/apiserver@v0.37.2").
func upstreamLabel(dir string) string {
	base := path.Base(strings.ReplaceAll(dir, "\\", "/"))
	if strings.HasPrefix(base, "apiserver@") {
		return "k8s.io/" + base
	}
	return UpstreamModule + " at " + dir
}

// unwrapAll drops the "upstream %q:" prefix our resolver adds, keeping the reason.
func unwrapAll(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// phaseList renders the server phases for a fix message.
func phaseList() string {
	var ps []string
	for _, p := range server.Phases() {
		ps = append(ps, string(p))
	}
	return strings.Join(ps, ", ")
}
