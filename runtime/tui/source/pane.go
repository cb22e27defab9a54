package source

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/server"
)

// locResult is a resolved (or failed) location.
type locResult struct {
	loc Location
	err error
}

// ResolvedMsg delivers a resolution made in a tea.Cmd, with the tokenised file when it was
// asked for, to the pane that asked (Update).
type ResolvedMsg struct {
	pane *Pane // the pane that asked
	key  string
	res  locResult
	file *srcFile
}

// match is one search hit: the file it is in (as shown, "server/storage.go"), a line (0-based)
// and a byte range in its plain text.
type match struct {
	file             string
	line, start, end int
}

// search is the source pane's search state.
type search struct {
	typing  bool
	input   []rune
	query   string
	matches []match
	cur     int
}

// active reports whether n/N move between matches.
func (s *search) active() bool { return !s.typing && s.query != "" }

// row is one display row of the source: a code line (line ≥ 0; part > 0 for the continuation
// rows of a wrapped line, which shows cells [from, to) of it; to is 0 for a whole line) or the
// annotation (line -1).
type row struct{ line, part, from, to int }

// Pane shows a step's code, ours or upstream (or, as the side-by-side view's kube pane,
// kube-apiserver's): the walkthrough's source pane, the side-by-side view's two panes and the
// Requests view's stage-code pane are each one.
type Pane struct {
	common.Frame
	st *common.Styles
	tr *i18n.Strings

	w, h    int
	tabs    string // the tab bar, as SetTabs last set it (the title's room depends on it)
	content Resolver

	upstream bool
	kube     bool     // the side-by-side pane: the step's kube: location in kube-apiserver
	fetch    *Fetches // the model's downloads, for what a missing module's message says
	wrap     bool     // long lines wrap over several rows instead of being cut
	step     Code
	hasStep  bool
	cp       server.Checkpoint

	locs    map[string]locResult
	pending map[string]bool
	files   map[string]*srcFile

	// browse is a server/ file shown instead of the step's code: a search match's file, or
	// the file enter opened from it; "" shows the step's code.
	browse string
	srcFS  fs.FS               // kubewalk's server/ source, for search; nil searches the shown file only
	corpus map[string][]string // srcFS's plain lines by shown path, read on the first search

	key    string         // location key shown
	rows   []row          // display rows of the shown location
	emph   map[int]string // emphasised renderings of focus lines, for the shown location
	scroll int
	search search
	// empty is what the pane says before it is given a step ("" for the walkthrough's
	// "Starting the server…").
	empty string
}

// Options are how a pane differs from the walkthrough's source pane.
type Options struct {
	// Kube makes the side-by-side view's pane: it shows the step's kube: location in
	// kube-apiserver's source (content must be a KubeSource).
	Kube bool
	// Fetches are the run's downloads, for what a missing module's message says (nil: the
	// pane offers no download).
	Fetches *Fetches
	// Empty is what the pane says before it is given a step ("": "Starting the server…").
	Empty string
}

// New returns a pane that resolves locations through content (a SourceBrowser's server
// source is what its search covers).
func New(c common.Common, content Resolver, opts Options) *Pane {
	p := &Pane{
		Frame: common.NewFrame(c.Styles), st: c.Styles, tr: c.Tr, content: content,
		kube: opts.Kube, fetch: opts.Fetches, empty: opts.Empty,
		locs: map[string]locResult{}, pending: map[string]bool{}, files: map[string]*srcFile{},
	}
	if sb, ok := content.(SourceBrowser); ok {
		p.srcFS = sb.ServerSource()
	}
	return p
}

// SetSize sets the pane's outer size.
func (p *Pane) SetSize(w, h int) {
	if p.w != w || p.h != h {
		widthChanged := p.w != w
		p.w, p.h = w, h
		p.Frame.SetSize(w, h)
		if widthChanged && p.key != "" {
			p.layoutRows(false)
		}
		p.clampScroll()
	}
}

// SetTabs sets the tab bar drawn in the title (it names the pane, and takes the title's room).
func (p *Pane) SetTabs(s string) {
	p.tabs = s
	p.Frame.SetTabs(s)
}

// SetStep shows a new step, starting scrolled to its focus. It returns a command when the
// location (or its file's tokens) must be computed first.
func (p *Pane) SetStep(step Code, ok bool, cp server.Checkpoint) tea.Cmd {
	p.step, p.hasStep, p.cp = step, ok, cp
	p.search = search{}
	p.browse, p.key = "", ""
	return p.load()
}

// ToggleUpstream switches between our source and the upstream function.
func (p *Pane) ToggleUpstream() tea.Cmd {
	p.upstream = !p.upstream
	p.search = search{}
	p.browse, p.key = "", ""
	return p.load()
}

// locKey names what the pane should show now, "" when there is nothing to resolve.
func (p *Pane) locKey() string {
	if p.browse != "" {
		return "F\x00" + p.browse
	}
	if !p.hasStep {
		return ""
	}
	if p.kube {
		if p.step.Kube == "" {
			return ""
		}
		return "K\x00" + p.step.Kube
	}
	if p.upstream {
		if p.step.Upstream == "" {
			return ""
		}
		return "U\x00" + p.step.Upstream
	}
	if p.step.Anchor == "" {
		return ""
	}
	return "L\x00" + p.step.Anchor + "\x00" + p.step.Focus
}

// load shows the wanted location if it is known, else asks for it.
func (p *Pane) load() tea.Cmd {
	p.Invalidate()
	key := p.locKey()
	if key == "" {
		p.rows = nil
		return nil
	}
	if res, ok := p.locs[key]; ok {
		if res.err != nil || p.files[res.loc.File] != nil {
			p.show(key)
			return nil
		}
	}
	if p.pending[key] {
		return nil
	}
	p.pending[key] = true
	res, known := p.locs[key]
	content, st, tr, step, upstream, browse, srcFS := p.content, p.st, p.tr, p.step, p.upstream, p.browse, p.srcFS
	kube := p.kube
	return func() tea.Msg {
		if !known {
			switch {
			case browse != "":
				res.loc, res.err = browseLocation(tr, srcFS, browse)
			case kube:
				res.err = errKubeNotWired
				if ks, ok := content.(KubeSource); ok {
					res.loc, res.err = ks.Kube(step.Kube)
				}
			case upstream:
				res.loc, res.err = content.Upstream(step.Upstream)
			default:
				res.loc, res.err = content.Local(step.Anchor, step.Focus)
			}
		}
		var f *srcFile
		if res.err == nil {
			f = tokenise(res.loc.Source, st)
		}
		return ResolvedMsg{pane: p, key: key, res: res, file: f}
	}
}

// Update takes the pane's own resolutions (a ResolvedMsg another pane asked for is left
// alone); it returns no command today, and is a method so the pane reads like a component.
func (p *Pane) Update(msg tea.Msg) tea.Cmd {
	if r, ok := msg.(ResolvedMsg); ok && r.pane == p {
		p.resolved(r)
	}
	return nil
}

// resolved stores a resolution and shows it if it is still wanted.
func (p *Pane) resolved(msg ResolvedMsg) {
	delete(p.pending, msg.key)
	p.locs[msg.key] = msg.res
	if msg.file != nil {
		if _, ok := p.files[msg.res.loc.File]; !ok {
			p.files[msg.res.loc.File] = msg.file
		}
	}
	if msg.key == p.locKey() && p.key != msg.key {
		p.show(msg.key)
	}
}

// show lays out the rows of a resolved location and scrolls to its focus, or to the current
// search match when it is in this file.
func (p *Pane) show(key string) {
	p.key = key
	p.Invalidate()
	p.emph = map[int]string{}
	p.layoutRows(true)
	if s := p.search; s.active() && len(s.matches) > 0 {
		if _, loc, ok := p.file(); ok && s.matches[s.cur].file == loc.File {
			p.revealMatch()
		}
	}
}

// browseLocation reads a whole server/ file to show it without an anchor.
func browseLocation(tr *i18n.Strings, srcFS fs.FS, shown string) (Location, error) {
	if srcFS == nil {
		return Location{}, fmt.Errorf(tr.SourceNoServerSource, shown)
	}
	data, err := fs.ReadFile(srcFS, strings.TrimPrefix(shown, "server/"))
	if err != nil {
		return Location{}, fmt.Errorf("open %s: %w", shown, err)
	}
	return Location{File: shown, Source: data}, nil
}

// ToggleWrap switches between cutting long lines at the edge and wrapping them.
func (p *Pane) ToggleWrap() {
	p.wrap = !p.wrap
	p.Invalidate()
	if p.key != "" {
		p.layoutRows(false)
	}
}

// layoutRows computes the display rows: every line once, focus lines (they are the point of the
// step: never cut) and with wrap every line wrapped over as many rows as they need, the
// annotation after the focus.
// With toFocus it scrolls the focus to the upper third; otherwise it keeps the top line.
func (p *Pane) layoutRows(toFocus bool) {
	top := p.topLine()
	p.rows = p.rows[:0]
	f, loc, ok := p.file()
	if !ok {
		return
	}
	after := loc.FocusEnd
	if loc.FocusStart == 0 {
		after = loc.StartLine
	}
	_, codeW := p.gutter(len(f.plain))
	target := 0
	for i, text := range f.plain {
		if i+1 == loc.FocusStart || (loc.FocusStart == 0 && i+1 == loc.StartLine) {
			target = len(p.rows)
		}
		if (p.wrap || isFocus(loc, i+1)) && ansi.StringWidth(text) > codeW {
			// Wrapped at spaces where it can, like the lesson text.
			for part, r := range common.BreakCells(text, codeW) {
				p.rows = append(p.rows, row{line: i, part: part, from: r[0], to: r[1]})
			}
		} else {
			p.rows = append(p.rows, row{line: i})
		}
		if i+1 == after {
			p.rows = append(p.rows, row{line: -1})
		}
	}
	if toFocus {
		p.scroll = target - p.visible()/3
	} else {
		for i, r := range p.rows {
			if r.line == top {
				p.scroll = i
				break
			}
		}
	}
	p.clampScroll()
}

// isFocus reports whether line n (1-based) is emphasised.
func isFocus(loc Location, n int) bool {
	return loc.FocusStart > 0 && n >= loc.FocusStart && n <= loc.FocusEnd
}

// gutter returns the width of the line-number gutter for a file of n lines and the width left
// for code.
func (p *Pane) gutter(n int) (digits, codeW int) {
	digits = len(strconv.Itoa(n))
	return digits, max(p.w-2-(digits+4), 1) // marker, number, " │ "
}

// visible is how many rows of code fit.
func (p *Pane) visible() int {
	v := p.h - 2
	if p.search.typing || p.search.query != "" {
		v--
	}
	return max(v, 0)
}

func (p *Pane) clampScroll() {
	p.scroll = min(p.scroll, len(p.rows)-p.visible())
	p.scroll = max(p.scroll, 0)
}

// Scroll moves the view by n rows.
func (p *Pane) Scroll(n int) {
	p.scroll += n
	p.clampScroll()
	p.Invalidate()
}

// Top and Bottom jump to either end.
func (p *Pane) Top()    { p.Scroll(-len(p.rows)) }
func (p *Pane) Bottom() { p.Scroll(len(p.rows)) }

// Page is the scroll step of pgup/pgdn.
func (p *Pane) Page() int { return max(p.visible()-2, 1) }

// file returns the shown file and location, if resolved.
func (p *Pane) file() (*srcFile, Location, bool) {
	res, ok := p.locs[p.key]
	if !ok || res.err != nil || p.key == "" {
		return nil, Location{}, false
	}
	f := p.files[res.loc.File]
	return f, res.loc, f != nil
}

// StartSearch opens the search prompt.
func (p *Pane) StartSearch() {
	p.search = search{typing: true}
	p.Invalidate()
	p.clampScroll()
}

// SearchKey edits the search prompt: runes type, backspace deletes, enter searches, esc
// cancels. It returns a command when the first match is in a file still to be loaded.
func (p *Pane) SearchKey(msg tea.KeyMsg) tea.Cmd {
	s := &p.search
	p.Invalidate()
	switch msg.Type {
	case tea.KeyEsc:
		p.search = search{}
		p.clampScroll()
	case tea.KeyEnter:
		s.typing = false
		s.query = string(s.input)
		p.findMatches()
		if len(s.matches) > 0 {
			// The first match at or after the top of the view in the shown file, else the
			// first match (the shown file's come first).
			s.cur = 0
			_, loc, _ := p.file()
			top := p.topLine()
			for i, m := range s.matches {
				if m.file == loc.File && m.line >= top {
					s.cur = i
					break
				}
			}
			return p.goToMatch()
		}
	case tea.KeyBackspace:
		if len(s.input) > 0 {
			s.input = s.input[:len(s.input)-1]
		}
	case tea.KeyRunes, tea.KeySpace:
		s.input = append(s.input, msg.Runes...)
	}
	return nil
}

// ClearSearch ends an active search and goes back to the step's code.
func (p *Pane) ClearSearch() tea.Cmd {
	p.search = search{}
	p.Invalidate()
	p.clampScroll()
	return p.CloseFile()
}

// NextMatch moves to the next (d=1) or previous (d=-1) match, in whichever file it is.
func (p *Pane) NextMatch(d int) tea.Cmd {
	s := &p.search
	if len(s.matches) == 0 {
		return nil
	}
	s.cur = (s.cur + d + len(s.matches)) % len(s.matches)
	p.Invalidate()
	return p.goToMatch()
}

// goToMatch shows the current match: in the step's own code when it is in that file, else in
// its file (loaded first if need be).
func (p *Pane) goToMatch() tea.Cmd {
	m := p.search.matches[p.search.cur]
	want := m.file
	if step, ok := p.stepFile(); ok && step == m.file {
		want = ""
	}
	if want == p.browse && p.key != "" {
		if _, loc, ok := p.file(); ok && loc.File == m.file {
			p.revealMatch()
			return nil
		}
	}
	p.browse, p.key = want, ""
	return p.load()
}

// stepFile is the file of the step's code (ours or upstream), when it is resolved.
func (p *Pane) stepFile() (string, bool) {
	browse := p.browse
	p.browse = ""
	key := p.locKey()
	p.browse = browse
	res, ok := p.locs[key]
	if !ok || res.err != nil {
		return "", false
	}
	return res.loc.File, true
}

// OpenMatch ends the search but keeps the current match's file open (esc closes it).
func (p *Pane) OpenMatch() {
	p.search = search{}
	p.Invalidate()
	p.clampScroll()
}

// Browsing reports whether a file other than the step's code is shown.
func (p *Pane) Browsing() bool { return p.browse != "" }

// CloseFile goes back from an opened file to the step's code.
func (p *Pane) CloseFile() tea.Cmd {
	if p.browse == "" {
		return nil
	}
	p.browse, p.key = "", ""
	return p.load()
}

// topLine is the first code line in view.
func (p *Pane) topLine() int {
	for i := p.scroll; i < len(p.rows); i++ {
		if p.rows[i].line >= 0 {
			return p.rows[i].line
		}
	}
	return 0
}

// revealMatch scrolls the current match (in the shown file) into the middle third of the view
// if it is outside.
func (p *Pane) revealMatch() {
	m := p.search.matches[p.search.cur]
	if _, loc, ok := p.file(); !ok || loc.File != m.file {
		return
	}
	for i, r := range p.rows {
		if r.line == m.line {
			if i < p.scroll || i >= p.scroll+p.visible() {
				p.scroll = i - p.visible()/3
				p.clampScroll()
			}
			return
		}
	}
}

// findMatches searches the shown file, then every file of kubewalk's server/ source in path
// order.
func (p *Pane) findMatches() {
	s := &p.search
	s.matches = nil
	if s.query == "" {
		return
	}
	shown := ""
	if f, loc, ok := p.file(); ok {
		shown = loc.File
		s.matches = findIn(shown, f.plain, s.query)
	}
	paths := p.searchCorpus()
	for _, path := range paths {
		if path != shown {
			s.matches = append(s.matches, findIn(path, p.corpus[path], s.query)...)
		}
	}
}

// findIn finds query in the lines of one file, ignoring case (exactly, on the rare line where
// lower-casing changes byte offsets).
func findIn(file string, lines []string, query string) []match {
	var out []match
	lowQ := strings.ToLower(query)
	for i, l := range lines {
		text, q := strings.ToLower(l), lowQ
		if len(text) != len(l) || len(q) != len(query) {
			text, q = l, query
		}
		for from := 0; ; {
			j := strings.Index(text[from:], q)
			if j < 0 {
				break
			}
			out = append(out, match{file: file, line: i, start: from + j, end: from + j + len(q)})
			from += j + len(q)
		}
	}
	return out
}

// searchCorpus reads the server/ source's Go files (not tests) once, as plain lines like the
// pane shows them, and returns their shown paths in order.
func (p *Pane) searchCorpus() []string {
	if p.srcFS == nil {
		return nil
	}
	if p.corpus == nil {
		p.corpus = map[string][]string{}
		_ = fs.WalkDir(p.srcFS, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			data, err := fs.ReadFile(p.srcFS, path)
			if err == nil {
				p.corpus["server/"+path] = plainLines(data)
			}
			return nil
		})
	}
	paths := make([]string, 0, len(p.corpus))
	for path := range p.corpus {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	return paths
}

// errKubeNotWired is the kube pane's error when the Resolver cannot read kube-apiserver's source.
var errKubeNotWired = errors.New("no kube-apiserver source")

// name says whose source is shown.
func (p *Pane) name() string {
	if p.kube {
		return fmt.Sprintf(p.tr.PaneKube, lessons.KubeVersion)
	}
	if p.upstream {
		return p.tr.PaneUpstream
	}
	return p.tr.PaneSource
}

// detail is the file and lines shown, cut from the left when the title has no room.
func (p *Pane) detail() string {
	_, loc, ok := p.file()
	if !ok {
		return ""
	}
	lines := fmt.Sprintf("%d-%d", loc.StartLine, loc.EndLine)
	if loc.StartLine == loc.EndLine {
		lines = fmt.Sprint(loc.StartLine)
	}
	d := displayPath(loc.File) + ":" + lines
	if p.browse != "" {
		d = displayPath(loc.File)
	}
	name := p.name()
	if p.tabs != "" {
		name = p.tabs
	}
	// box keeps "─ " + " name · detail · figure " + "─" inside the borders.
	room := p.w - 9 - ansi.StringWidth(name)
	if f := p.figure(); f != "" {
		room -= ansi.StringWidth(" · " + f)
	}
	if over := ansi.StringWidth(d) - room; over > 0 && room > 10 {
		d = ansi.TruncateLeft(d, over+1, "…")
	}
	return d
}

// figure says how the pane shows the file: opened from a search, wrapped.
func (p *Pane) figure() string {
	var parts []string
	if p.browse != "" {
		parts = append(parts, p.tr.SourceBackToStep)
	}
	if p.wrap {
		parts = append(parts, p.tr.SourceWrapped)
	}
	return strings.Join(parts, " · ")
}

// displayPath shortens a module-cache path to start at the module ("k8s.io/apiserver@v…/…").
func displayPath(file string) string {
	if i := strings.Index(file, "k8s.io/"); i > 0 {
		return file[i:]
	}
	return file
}

// View renders the pane: exactly h lines of exactly w cells.
func (p *Pane) View() []string {
	return p.Render(p.name(), p.detail(), p.figure(), p.body)
}

// body renders the rows in view (or a message), and the search prompt.
func (p *Pane) body() []string {
	inner := p.w - 2
	if inner <= 0 {
		return nil
	}
	var lines []string
	f, loc, ok := p.file()
	switch {
	case ok:
		lines = p.codeRows(f, loc, inner)
	default:
		lines = p.message(inner)
	}
	if p.search.typing || p.search.query != "" {
		for len(lines) < p.visible() {
			lines = append(lines, "")
		}
		lines = append(lines[:min(len(lines), p.visible())], p.prompt())
	}
	return lines
}

// prompt is the search line at the bottom of the pane.
func (p *Pane) prompt() string {
	s, tr := p.search, p.tr
	if s.typing {
		return p.st.Source.Prompt.Render("/") + string(s.input) + "█" + p.st.Source.Info.Render(tr.SourceSearchTyping)
	}
	info := tr.SourceNoMatch
	if len(s.matches) > 0 {
		info = fmt.Sprintf(tr.SourceMatchOf, s.cur+1, len(s.matches))
	}
	if len(s.matches) > 0 {
		m := s.matches[s.cur]
		info += fmt.Sprintf(" · %s:%d", m.file, m.line+1)
	}
	return p.st.Source.Prompt.Render("/") + s.query + p.st.Source.Info.Render("  "+info+tr.SourceMatchKeys)
}

// message explains why there is no code to show.
func (p *Pane) message(w int) []string {
	note, tr := p.st.Source.Info, p.tr
	var text string
	switch {
	case !p.hasStep && p.empty != "":
		text = p.empty
	case !p.hasStep && p.cp.Name == "":
		text = tr.StartingServer
	case !p.hasStep:
		text = fmt.Sprintf(tr.SourceNoStep, p.cp.ID())
	case p.kube:
		text = p.kubeMessage()
	case p.upstream && p.step.Upstream == "":
		text = tr.SourceNoUpstream
	case !p.upstream && p.step.Anchor == "":
		text = tr.SourceNoAnchor
	default:
		res, ok := p.locs[p.locKey()]
		switch {
		case !ok || res.err == nil:
			what := p.step.Anchor
			if p.upstream {
				what = p.step.Upstream
			}
			text = fmt.Sprintf(tr.SourceLoading, what)
		case p.upstream && p.Missing() != nil:
			path, sym := splitSymbol(p.step.Upstream)
			text = p.MissingText(p.Missing()) + "\n\n" + fmt.Sprintf(tr.UpstreamLocation, path, sym) + "\n\n" + tr.UpstreamBack
		case p.upstream:
			path, sym := splitSymbol(p.step.Upstream)
			text = fmt.Sprintf(tr.SourceUnavailable, res.err, path, sym)
		default:
			text = fmt.Sprintf(tr.SourceCannotShow, p.step.Anchor, res.err)
		}
	}
	var out []string
	for _, l := range common.WrapLines(text, w) {
		out = append(out, note.Render(l))
	}
	return out
}

// kubeMessage explains why the kube pane shows no code: no location, loading, a module to
// fetch, or an error; the location is always given as text.
func (p *Pane) kubeMessage() string {
	tr := p.tr
	if p.step.Kube == "" {
		return tr.KubeNone
	}
	where := fmt.Sprintf(tr.KubeLocation, p.step.Kube)
	res, ok := p.locs[p.locKey()]
	switch {
	case !ok || res.err == nil:
		return fmt.Sprintf(tr.SourceLoading, p.step.Kube)
	case p.Missing() != nil:
		return p.MissingText(p.Missing()) + "\n\n" + where + "\n\n" + tr.KubeBack
	case errors.Is(res.err, errKubeNotWired):
		return fmt.Sprintf(tr.KubeNotWired, p.step.Kube)
	}
	return fmt.Sprintf(tr.KubeCannotShow, p.step.Kube, res.err) + "\n\n" + tr.KubeBack
}

// splitSymbol splits "k8s.io/apiserver/pkg/server.(*Config).Complete" into the import path
// and the symbol.
func splitSymbol(s string) (path, sym string) {
	slash := strings.LastIndex(s, "/")
	dot := strings.Index(s[slash+1:], ".")
	if dot < 0 {
		return s, ""
	}
	return s[:slash+1+dot], s[slash+1+dot+1:]
}

// codeRows renders the rows in view.
func (p *Pane) codeRows(f *srcFile, loc Location, w int) []string {
	digits, codeW := p.gutter(len(f.plain))
	gutter := digits + 4
	st := p.st.Source
	sep := st.Separator.Render(" │ ")
	rangeSep := st.RangeMarker.Render(" ┃ ")
	matchesOn := map[int][]match{}
	if p.search.query != "" {
		for _, m := range p.search.matches {
			if m.file == loc.File {
				matchesOn[m.line] = append(matchesOn[m.line], m)
			}
		}
	}
	end := min(p.scroll+p.visible(), len(p.rows))
	out := make([]string, 0, end-p.scroll)
	for _, r := range p.rows[p.scroll:end] {
		if r.line < 0 {
			title := p.step.Title
			switch {
			case p.kube:
				title = fmt.Sprintf(p.tr.KubeIn, p.step.Kube)
			case p.upstream:
				path, sym := splitSymbol(p.step.Upstream)
				title = fmt.Sprintf(p.tr.SourceUpstreamIn, sym, path)
			}
			ann := strings.Repeat(" ", gutter) + st.Annotation.Render("└─ "+title)
			out = append(out, common.Fit(ann, w))
			continue
		}
		n := r.line + 1
		focus := isFocus(loc, n)
		inRange := n >= loc.StartLine && n <= loc.EndLine
		// The gutter: ▶ on focus lines, a thick rule beside the anchor's lines.
		num := fmt.Sprintf("%*d", digits, n)
		if r.part > 0 {
			num = strings.Repeat(" ", digits)
		}
		var g string
		switch {
		case focus:
			g = st.Marker.Render("▶") + st.FocusLineNo.Render(num) + rangeSep
		case inRange:
			g = " " + st.LineNo.Render(num) + rangeSep
		default:
			g = " " + st.LineNo.Render(num) + sep
		}
		var code string
		switch {
		case len(matchesOn[r.line]) > 0:
			code = p.highlightMatches(f.plain[r.line], matchesOn[r.line], focus)
		case focus:
			code = p.emphasised(f, r.line)
		default:
			code = f.styled[r.line]
		}
		switch {
		case r.to > 0:
			// A wrapped line (a focus line, or any with wrap on): this row shows its part.
			code = ansi.Cut(code, r.from, r.to)
		case ansi.StringWidth(code) > codeW:
			code = ansi.Truncate(code, codeW, "…")
		}
		if focus {
			if pad := codeW - ansi.StringWidth(code); pad > 0 {
				code += st.Focus.Render(strings.Repeat(" ", pad))
			}
		}
		out = append(out, g+code)
	}
	return out
}

// emphasised renders a focus line with the emphasis background, cached per location.
func (p *Pane) emphasised(f *srcFile, line int) string {
	if s, ok := p.emph[line]; ok {
		return s
	}
	s := renderTokens(f.tokens[line], p.st, true)
	p.emph[line] = s
	return s
}

// highlightMatches renders a line plainly with its matches marked (reverse video survives
// NO_COLOR).
func (p *Pane) highlightMatches(text string, ms []match, focus bool) string {
	plain := p.st.Source.Focus
	if !focus {
		plain = plain.UnsetBackground()
	}
	var b strings.Builder
	at := 0
	for _, m := range ms {
		if m.start < at || m.end > len(text) || !utf8.ValidString(text[m.start:m.end]) {
			continue
		}
		b.WriteString(plain.Render(text[at:m.start]))
		b.WriteString(p.st.Source.Match.Render(text[m.start:m.end]))
		at = m.end
	}
	b.WriteString(plain.Render(text[at:]))
	return b.String()
}

// Typing reports whether the search prompt takes the keys.
func (p *Pane) Typing() bool { return p.search.typing }

// Searching reports whether a search is done and n/N move between its matches.
func (p *Pane) Searching() bool { return p.search.active() }

// Upstream reports whether the pane shows the upstream function (u).
func (p *Pane) Upstream() bool { return p.upstream }

// SetUpstream shows the upstream function (or ours) from the next SetStep on.
func (p *Pane) SetUpstream(on bool) { p.upstream = on }

// HasStep reports whether the pane was given a step.
func (p *Pane) HasStep() bool { return p.hasStep }

// Loading reports whether a location (or its file's tokens) is being computed.
func (p *Pane) Loading() bool { return len(p.pending) > 0 }

// Point gives the pane a step without resolving it (a pane not on screen); Load resolves it
// when the pane is shown.
func (p *Pane) Point(step Code, ok bool, cp server.Checkpoint) {
	p.step, p.hasStep, p.cp = step, ok, cp
	p.browse, p.key, p.rows = "", "", nil
}

// Load shows the step's location again, resolving it if it is not known yet.
func (p *Pane) Load() tea.Cmd {
	p.key = ""
	return p.load()
}

// Shown is the location on screen and the number of display rows it takes, if one is.
func (p *Pane) Shown() (loc Location, rows int, ok bool) {
	_, loc, ok = p.file()
	return loc, len(p.rows), ok
}

// Result is the resolution of what the pane wants to show: its location or why it has none;
// ok is false while it is unresolved.
func (p *Pane) Result() (Location, error, bool) {
	res, ok := p.locs[p.locKey()]
	return res.loc, res.err, ok
}

// Match is one search hit: the file it is in (as shown, "server/storage.go"), a line (0-based)
// and a byte range in its plain text.
type Match struct {
	File             string
	Line, Start, End int
}

// Matches are the search's hits, and the index of the current one.
func (p *Pane) Matches() ([]Match, int) {
	out := make([]Match, len(p.search.matches))
	for i, m := range p.search.matches {
		out[i] = Match{File: m.file, Line: m.line, Start: m.start, End: m.end}
	}
	return out, p.search.cur
}

// Step is the code the pane was last given, and whether it was given one.
func (p *Pane) Step() (Code, bool) { return p.step, p.hasStep }

// Wrapped reports whether long lines wrap (w) instead of being cut.
func (p *Pane) Wrapped() bool { return p.wrap }

// Offset is the first display row in view.
func (p *Pane) Offset() int { return p.scroll }
