package lessons

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
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

// fileNamePattern is a startup lesson's file name: two digits, a dash, the phase.
var fileNamePattern = lazyRegexp(`^[0-9]{2}-([a-z0-9-]+)\.md$`)

// trackFileNamePattern is an after-serve lesson's file name: 2N, a dash, the lesson id.
var trackFileNamePattern = lazyRegexp(`^2[0-9]-([a-z0-9-]+)\.md$`)

// Known is what a lesson's metadata may name besides code.
type Known struct {
	// Checkpoints are the server's checkpoints (server.Checkpoints()), in the order the server
	// reaches them; every one must be covered by exactly one step of a startup lesson.
	Checkpoints []server.Checkpoint
	// Probes are the live probe ids a step of a track lesson may name (runtime/live.IDs()).
	Probes []string
}

// Sources is where the code a lesson names resolves.
type Sources struct {
	// Ours holds kubewalk's server/ source at its root (server.SourceFS): anchors resolve here.
	Ours fs.FS
	// Upstream maps each of UpstreamModules to its source directory (ModuleDirs): upstream
	// symbols resolve here. A module without an entry is not in the module cache, which is a
	// problem when a step names one of its symbols.
	Upstream map[string]string
	// Kube is the k8s.io/kubernetes KubeVersion source directory (KubeModuleDir): kube:
	// locations resolve here. "" checks only their form: the module is a large download that
	// building kubewalk does not fetch.
	Kube string
}

// Check validates lessons against what they may name (known) and the source they show (src).
// It returns every problem found, lesson by lesson in order, then the checkpoints no step
// covers; none means the content is sound.
func Check(lessons []Lesson, known Known, src Sources) []Problem {
	return check(lessons, known, src, NewResolver(), true)
}

// CheckContent loads the lessons of every language in content (English, then each
// translation; only English and langs when langs are given), checks them with Check and
// returns the problems of loading and checking, each reported once. When a file failed to
// load, the checkpoints its steps would cover are not reported as uncovered.
func CheckContent(content fs.FS, known Known, src Sources, langs ...string) []Problem {
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
		add(check(ls, known, src, res, err == nil))
	}
	return out
}

// check is Check with a shared resolver; coverage false skips the uncovered-checkpoint report.
func check(lessons []Lesson, known Known, src Sources, res *Resolver, coverage bool) []Problem {
	c := checker{
		src:        src,
		res:        res,
		probes:     known.Probes,
		cps:        map[string]int{},
		covered:    map[string]string{},
		lessonIDs:  map[string]string{},
		phases:     map[string]bool{},
		noUpstream: map[string]bool{},
	}
	for i, cp := range known.Checkpoints {
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
		if _, ok := phaseFile[l.Phase]; !ok && l.Phase != "" {
			phaseFile[l.Phase] = l.File
		}
	}
	for _, cp := range known.Checkpoints {
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
	src        Sources
	res        *Resolver
	probes     []string
	cps        map[string]int    // checkpoint ID → server order
	covered    map[string]string // checkpoint ID → "file step" covering it
	lessonIDs  map[string]string // lesson id → file
	phases     map[string]bool
	noUpstream map[string]bool // modules whose missing source was reported
	problems   []Problem
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
	case !idPattern().MatchString(l.ID):
		c.add(f, "", fmt.Sprintf("lesson id %q is not lowercase words joined by dashes", l.ID), "use an id like \"authn\"")
	case c.lessonIDs[l.ID] != "":
		c.add(f, "", fmt.Sprintf("duplicate lesson id %q, already used by %s", l.ID, c.lessonIDs[l.ID]), "give each lesson its own id")
	default:
		c.lessonIDs[l.ID] = f
	}
	if strings.TrimSpace(l.Title) == "" {
		c.add(f, "", "lesson has no title", "set title: in the front matter")
	}
	c.placement(l)
	if l.Kube != "" {
		c.kube(f, "", l.Kube)
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

// placement checks that a lesson belongs to a phase or to a track, and that its file is named
// accordingly.
func (c *checker) placement(l Lesson) {
	f := l.File
	switch {
	case l.Phase != "" && l.Track != "":
		c.add(f, "", fmt.Sprintf("lesson has both phase %q and track %q", l.Phase, l.Track),
			"keep phase: for a startup lesson or track: for an after-serve lesson, not both")
	case l.Track != "":
		if !slices.Contains(Tracks(), l.Track) {
			c.add(f, "", fmt.Sprintf("track %q is not a lesson track", l.Track), "set track: to one of "+strings.Join(Tracks(), ", "))
		} else if m := trackFileNamePattern().FindStringSubmatch(path.Base(f)); f != "" && (m == nil || m[1] != l.ID) {
			c.add(f, "", fmt.Sprintf("file name %s does not match the %s lesson %s", path.Base(f), l.Track, l.ID),
				fmt.Sprintf("name the file 2N-%s.md (2N: 21, 22, … in track order)", l.ID))
		}
	case l.Phase == "":
		c.add(f, "", "lesson has neither phase nor track",
			"set phase: to one of "+phaseList()+" for a startup lesson, or track: "+TrackAfterServe+" for a lesson that reads the running server")
	case !c.phases[l.Phase]:
		c.add(f, "", fmt.Sprintf("phase %q is not a server phase", l.Phase), "set phase: to one of "+phaseList())
	default:
		if m := fileNamePattern().FindStringSubmatch(path.Base(f)); f != "" && (m == nil || m[1] != l.Phase) {
			c.add(f, "", fmt.Sprintf("file name %s does not match the lesson's phase %s", path.Base(f), l.Phase),
				fmt.Sprintf("name the file NN-%s.md (NN: two digits that order the lessons)", l.Phase))
		}
	}
}

// step checks one step.
func (c *checker) step(l Lesson, s Step, ids map[string]bool) {
	f := l.File
	switch {
	case s.ID == "":
		c.add(f, "", "a step has no id", "set id: on every step")
	case !idPattern().MatchString(s.ID):
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
	// A lesson of neither kind was reported once; its steps' checkpoints and probes cannot be
	// judged without knowing which kind it was meant to be.
	placed := l.Phase != "" || l.Track != ""
	if placed {
		c.checkpoint(l, s)
	}
	c.anchor(f, s)
	c.upstream(f, s)
	if s.Kube != "" {
		c.kube(f, s.ID, s.Kube)
	}
	if placed {
		c.live(l, s)
	}
}

// live checks that a step's live probe is a known probe, in a track lesson.
func (c *checker) live(l Lesson, s Step) {
	if s.Live == "" {
		return
	}
	if l.Track == "" {
		c.add(l.File, s.ID, fmt.Sprintf("live probe %q in a startup lesson: there the state pane shows what the checkpoint built", s.Live),
			"drop live:, or move the step to an after-serve lesson (track: "+TrackAfterServe+")")
		return
	}
	if slices.Contains(c.probes, s.Live) {
		return
	}
	fix := "use one of the live probes: " + strings.Join(c.probes, ", ")
	if near := suggest(s.Live, c.probes); len(near) > 0 {
		fix = "did you mean " + quoteList(near) + "?"
	}
	c.add(l.File, s.ID, fmt.Sprintf("live probe %q is not a known probe", s.Live), fix)
}

// kube checks a kube: location's form, and that it resolves in k8s.io/kubernetes when its
// source is at hand.
func (c *checker) kube(f, step, loc string) {
	const fix = "write a file of " + KubeModule + " and a func, a method as T.M or (*T).M, or a type declared in it, like \"pkg/controlplane/apiserver/config.go BuildGenericConfig\""
	if _, err := ParseKube(loc); err != nil {
		c.add(f, step, fmt.Sprintf("kube %q: %v", loc, err), fix)
		return
	}
	if c.src.Kube == "" {
		return
	}
	_, err := c.res.Kube(c.src.Kube, loc)
	if err == nil {
		return
	}
	var nf *notFoundError
	var wf *wrongFileError
	switch {
	case errors.As(err, &wf):
		c.add(f, step, fmt.Sprintf("kube %q: %v", loc, wf), "name the file it is declared in")
	case errors.As(err, &nf) && len(nf.suggest) > 0:
		c.add(f, step, fmt.Sprintf("kube %q not found in %s %s", loc, KubeModule, KubeVersion), "did you mean "+quoteList(nf.suggest)+" in that package?")
	default:
		c.add(f, step, fmt.Sprintf("kube %q does not resolve in %s %s: %v", loc, KubeModule, KubeVersion, unwrapAll(err)), fix)
	}
}

// checkpoint checks that the step names a server checkpoint of its lesson's phase that no
// other step covers.
func (c *checker) checkpoint(l Lesson, s Step) {
	f := l.File
	if l.Track != "" {
		if s.Checkpoint != "" {
			c.add(f, s.ID, fmt.Sprintf("step of the %s lesson names checkpoint %s: its steps run once the server serves, after every checkpoint", l.Track, s.Checkpoint),
				"drop checkpoint: (checkpoints belong to the startup lessons)")
		}
		return
	}
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
	_, err := c.res.Local(c.src.Ours, s.Anchor, s.Focus)
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
	entries, err := fs.ReadDir(c.src.Ours, ".")
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

// upstream checks that the upstream symbol resolves in its module at the pinned version.
func (c *checker) upstream(f string, s Step) {
	if s.Upstream == "" {
		return
	}
	mods := strings.Join(UpstreamModules(), " or ")
	fix := fmt.Sprintf("write an import path inside %s, \".\", and a func, a method as (*T).M or T.M, or a type declared there", mods)
	mod, ok := UpstreamModuleOf(s.Upstream)
	if !ok {
		reason := fmt.Sprintf("its import path is not in %s", mods)
		if _, _, err := splitUpstream(s.Upstream); err != nil {
			reason = err.Error()
		}
		c.add(f, s.ID, fmt.Sprintf("upstream %q does not resolve: %s", s.Upstream, reason), fix)
		return
	}
	dir := c.src.Upstream[mod]
	if dir == "" {
		if !c.noUpstream[mod] {
			c.noUpstream[mod] = true
			c.add(f, s.ID, fmt.Sprintf("cannot check upstream %q: the %s source is not in the Go module cache", s.Upstream, mod),
				fmt.Sprintf("run `go mod download %s` (the build does it), then check again", mod))
		}
		return
	}
	_, err := c.res.Module(mod, dir, s.Upstream)
	if err == nil {
		return
	}
	var nf *notFoundError
	if errors.As(err, &nf) {
		if len(nf.suggest) > 0 {
			fix = "did you mean " + quoteList(nf.suggest) + " in that package?"
		}
		c.add(f, s.ID, fmt.Sprintf("upstream %q not found in %s", s.Upstream, moduleLabel(mod, dir)), fix)
		return
	}
	c.add(f, s.ID, fmt.Sprintf("upstream %q does not resolve in %s: %v", s.Upstream, moduleLabel(mod, dir), unwrapAll(err)), fix)
}

// moduleLabel names a module directory by its last element ("k8s.io/apiserver@v0.37.2"), or
// the module and the directory when that is not a module cache directory.
func moduleLabel(mod, dir string) string {
	base := path.Base(strings.ReplaceAll(dir, "\\", "/"))
	if strings.HasPrefix(base, path.Base(mod)+"@") {
		return path.Dir(mod) + "/" + base
	}
	return mod + " at " + dir
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
