package tui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// The :exercises view: a list of the exercises (the current lesson's first, then the rest in
// lesson order, grouped by lesson) and the selected one's detail: its state, goal, how to
// answer, the last wrong try and the hints revealed so far. An exercise checked against the
// live server ticks by itself; the Exercises backend signals Changed and the view re-reads
// the list off the update loop. One that ticks shows a toast with why it passed, in whatever
// view is on screen, until the next key.

// exLoader serialises List calls so that a higher sequence number is always a later snapshot.
type exLoader struct {
	mu  sync.Mutex
	seq uint64
}

// exLoadedMsg is one snapshot of the exercises.
type exLoadedMsg struct {
	seq    uint64
	list   []Exercise
	waiter bool // from the Changed waiter: re-arm it
}

// exResultMsg carries what RevealHint or Answer returned.
type exResultMsg struct {
	id     string
	answer bool // Answer (else RevealHint)
	ex     Exercise
	err    error
}

// load reads a snapshot. It runs in a tea.Cmd.
func (l *exLoader) load(x Exercises, waiter bool) exLoadedMsg {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	return exLoadedMsg{seq: l.seq, list: x.List(), waiter: waiter}
}

// exRow is a row of the list: a lesson's heading or an exercise.
type exRow struct {
	heading string // the lesson title; "" for an exercise row
	current bool   // the heading of the current lesson
	ex      int    // index into exView.all
}

// toast is one exercise that ticked while the learner was elsewhere.
type toast struct{ id, title, why string }

// exView is the exercises view's state.
type exView struct {
	st *Styles
	tr *i18n.Strings

	list   frame
	detail *textPane
	focus  int // 0 the list, 1 the detail
	wide   bool

	loader  *exLoader
	loaded  bool
	seq     uint64
	all     []Exercise // as List returned them
	rows    []exRow
	sel     string // the selected exercise's ID
	cursor  int    // index into rows
	offset  int
	shownID string // the exercise the detail shows (its scroll is reset when it changes)

	curLesson, curPhase string          // where the walkthrough is
	pending             map[string]bool // answers on their way: their tick is not toasted

	typing bool // the answer line is open
	input  []rune
	cur    int
}

func newExView(st *Styles, tr *i18n.Strings) *exView {
	return &exView{st: st, tr: tr, list: frame{st: st, tr: tr, dirty: true},
		detail: newTextPane(st, tr, tr.PaneExercise), loader: &exLoader{}, pending: map[string]bool{}}
}

// SetSize places the list and the detail.
func (v *exView) SetSize(wide bool, list, detail rect) {
	if v.list.w != list.w || v.list.h != list.h {
		v.list.w, v.list.h = list.w, list.h
		v.list.dirty = true
	}
	v.wide = wide
	v.detail.SetSize(detail.w, detail.h)
	v.keepVisible()
	v.relayoutDetail()
}

// SetFocus focuses the list (0) or the detail (1).
func (v *exView) SetFocus(f int) {
	v.focus = f
	v.list.SetFocused(f == 0)
	v.detail.SetFocused(f == 1)
}

// Done counts the exercises done, and all of them.
func (v *exView) Done() (done, all int) {
	for _, e := range v.all {
		if e.State == ExerciseDone {
			done++
		}
	}
	return done, len(v.all)
}

// Loaded takes a snapshot and returns the exercises that ticked since the last one (not
// those an answer typed here is deciding: the detail shows those). It ignores a snapshot
// older than the one shown.
func (v *exView) Loaded(msg exLoadedMsg) (ticked []Exercise) {
	if msg.seq <= v.seq {
		return nil
	}
	v.seq = msg.seq
	if v.loaded {
		was := map[string]ExerciseState{}
		for _, e := range v.all {
			was[e.ID] = e.State
		}
		for _, e := range msg.list {
			if s, ok := was[e.ID]; ok && s != ExerciseDone && e.State == ExerciseDone && !v.pending[e.ID] {
				ticked = append(ticked, e)
			}
		}
	}
	v.loaded = true
	v.all = msg.list
	v.rebuild()
	return ticked
}

// Update replaces one exercise with what the backend returned for it.
func (v *exView) Update(e Exercise) {
	for i := range v.all {
		if v.all[i].ID == e.ID {
			v.all[i] = e
		}
	}
	v.list.dirty = true
	v.relayoutDetail()
}

// SetCurrent says where the walkthrough is: lesson is the lesson ID of the step on screen
// ("" when unknown), phase its phase. The list puts that lesson first and, when it changed,
// selects its first exercise.
func (v *exView) SetCurrent(lesson, phase string) {
	if v.curLesson == lesson && v.curPhase == phase {
		return
	}
	v.curLesson, v.curPhase = lesson, phase
	v.sel = "" // the walkthrough moved on: select its lesson's first exercise
	v.rebuild()
}

// rebuild orders the rows: the current lesson's exercises first (by lesson ID, else, when
// no exercise names that lesson, by phase), then the other lessons in the order List gave.
func (v *exView) rebuild() {
	rank := func(e Exercise) int {
		switch {
		case v.curLesson != "" && e.Lesson == v.curLesson:
			return 0
		case v.curPhase != "" && e.Phase == v.curPhase:
			return 1
		}
		return 2
	}
	best := 2
	for _, e := range v.all {
		best = min(best, rank(e))
	}
	idx := make([]int, len(v.all))
	for i := range idx {
		idx[i] = i
	}
	// Lessons keep the order of their first exercise; the current one goes first.
	first := map[string]int{}
	for i, e := range v.all {
		if _, ok := first[e.Lesson]; !ok {
			first[e.Lesson] = i
		}
	}
	cur := func(e Exercise) bool { return best < 2 && rank(e) == best }
	sort.SliceStable(idx, func(a, b int) bool {
		ea, eb := v.all[idx[a]], v.all[idx[b]]
		if ca, cb := cur(ea), cur(eb); ca != cb {
			return ca
		}
		return first[ea.Lesson] < first[eb.Lesson]
	})
	v.rows = v.rows[:0]
	lesson := "\x00"
	for _, i := range idx {
		e := v.all[i]
		if e.Lesson != lesson {
			lesson = e.Lesson
			title := e.LessonTitle
			if title == "" {
				title = e.Lesson
			}
			v.rows = append(v.rows, exRow{heading: title, current: cur(e)})
		}
		v.rows = append(v.rows, exRow{ex: i})
	}
	// Keep the selection on the same exercise; else the first one.
	v.cursor = -1
	for i, r := range v.rows {
		if r.heading == "" && v.all[r.ex].ID == v.sel {
			v.cursor = i
		}
	}
	if v.cursor < 0 {
		v.sel = ""
		for i, r := range v.rows {
			if r.heading == "" {
				v.cursor, v.sel = i, v.all[r.ex].ID
				break
			}
		}
	}
	v.keepVisible()
	v.list.dirty = true
	v.relayoutDetail()
}

// selected is the selected exercise.
func (v *exView) selected() (Exercise, bool) {
	if v.cursor < 0 || v.cursor >= len(v.rows) || v.rows[v.cursor].heading != "" {
		return Exercise{}, false
	}
	return v.all[v.rows[v.cursor].ex], true
}

// Move moves the selection by n exercises (headings are skipped).
func (v *exView) Move(n int) {
	var exRows []int
	at := 0
	for i, r := range v.rows {
		if r.heading == "" {
			if i == v.cursor {
				at = len(exRows)
			}
			exRows = append(exRows, i)
		}
	}
	if len(exRows) == 0 {
		return
	}
	at = max(min(at+n, len(exRows)-1), 0)
	v.cursor = exRows[at]
	v.sel = v.all[v.rows[v.cursor].ex].ID
	v.keepVisible()
	v.list.dirty = true
	v.relayoutDetail()
}

func (v *exView) visible() int { return max(v.list.h-2, 1) }

// keepVisible scrolls the list so that the cursor shows, with its heading when it fits.
func (v *exView) keepVisible() {
	vis := v.visible()
	top := v.cursor
	if top > 0 && v.rows[top-1].heading != "" {
		top--
	}
	if top < v.offset {
		v.offset = max(top, 0)
	}
	if v.cursor >= v.offset+vis {
		v.offset = v.cursor - vis + 1
	}
	v.offset = max(min(v.offset, len(v.rows)-vis), 0)
}

// listView renders the list pane.
func (v *exView) listView(wired bool) []string {
	detail := ""
	if v.loaded && len(v.all) > 0 {
		d, n := v.Done()
		detail = fmt.Sprintf(v.tr.ViewExercisesDone, d, n)
	}
	return v.list.render(v.tr.PaneExercises, detail, "", func() []string { return v.listBody(wired) })
}

// marker is an exercise's state as one cell: it carries the state without colour.
func exMarker(s ExerciseState) string {
	switch s {
	case ExerciseDone:
		return "✓"
	case ExerciseOpen:
		return "○"
	case ExerciseNeedsServe:
		return "⏸"
	}
	return "·"
}

func (v *exView) listBody(wired bool) []string {
	w := v.list.w - 2
	st, tr := v.st, v.tr
	switch {
	case !wired:
		return wrapLines(st.List.Dim.Render(tr.ExNotWired), w)
	case !v.loaded:
		return []string{st.List.Dim.Render(tr.ExLoading)}
	case len(v.all) == 0:
		return []string{st.List.Dim.Render(tr.ExNone)}
	}
	var out []string
	end := min(v.offset+v.visible(), len(v.rows))
	for i := v.offset; i < end; i++ {
		r := v.rows[i]
		if r.heading != "" {
			h := r.heading
			if r.current {
				h = fmt.Sprintf(tr.ExCurrentLesson, h)
			}
			out = append(out, " "+st.List.Group.Render(fit(h, w-1)))
			continue
		}
		e := v.all[r.ex]
		mark := " "
		if i == v.cursor {
			mark = "›"
		}
		right := ""
		switch e.State {
		case ExerciseLocked:
			right = fmt.Sprintf(tr.ExRowLocked, e.Phase)
		case ExerciseNeedsServe:
			right = tr.ExRowNeedsServe
		}
		if len(e.Hints) > 0 {
			if right != "" {
				right += " · "
			}
			right += fmt.Sprintf(tr.ExRowHints, len(e.Hints), e.HintLevels)
		}
		left := mark + " " + exMarker(e.State) + " " + e.Title
		style := st.List.Dim
		switch e.State {
		case ExerciseDone:
			style = st.Lane.OK
		case ExerciseOpen:
			style = st.Lane.Text
		}
		var line string
		if rw := ansi.StringWidth(right); right != "" && w-rw-2 >= 12 {
			line = style.Render(fit(left, w-rw-2)) + "  " + st.List.Dim.Render(right)
		} else {
			line = style.Render(fit(left, w))
		}
		if i == v.cursor {
			line = st.List.Cursor.Render(fit(ansi.Strip(line), w))
		}
		out = append(out, line)
	}
	return out
}

// relayoutDetail writes the selected exercise into the detail pane.
func (v *exView) relayoutDetail() {
	w := v.detail.Inner() - 1
	e, ok := v.selected()
	if w <= 0 || !ok {
		v.detail.SetTitle(v.tr.PaneExercise, "", "")
		v.detail.SetLines(nil)
		return
	}
	st, tr := v.st, v.tr
	var lines []string
	add := func(s string, style lipgloss.Style) {
		for _, l := range wrapLines(inlineCode(s, st.Served.Command, style), w) {
			lines = append(lines, " "+unkeep.Replace(l))
		}
	}
	addStyled := func(s string) {
		for _, l := range wrapLines(s, w) {
			lines = append(lines, " "+unkeep.Replace(l))
		}
	}
	blank := func() { lines = append(lines, "") }
	title := e.LessonTitle
	if title == "" {
		title = e.Lesson
	}
	where := st.List.Dim.Render(" · " + fmt.Sprintf(tr.ExLesson, title, e.Phase))
	// The state, with why it passed or why the last answer did not, comes first: it is
	// what changes.
	switch e.State {
	case ExerciseDone:
		addStyled(st.Lane.OK.Render(tr.ExStateDone) + where)
		if e.Why != "" {
			add(fmt.Sprintf(tr.ExWhy, e.Why), st.Lane.OK)
		}
	case ExerciseOpen:
		addStyled(st.Lane.Heading.Render(tr.ExStateOpen) + where)
	case ExerciseNeedsServe:
		addStyled(st.Lane.Held.Render(tr.ExStateNeedsServe) + where)
	default:
		addStyled(st.List.Dim.Render(fmt.Sprintf(tr.ExStateLocked, e.Phase)) + where)
	}
	if e.State != ExerciseDone && e.LastTry != "" {
		add(fmt.Sprintf(tr.ExLastTry, e.LastTry), st.Lane.Stopped)
	}
	blank()
	add(e.Goal, st.Lane.Text)
	if len(e.Choices) > 0 {
		blank()
		for i, c := range e.Choices {
			add(fmt.Sprintf("%d. %s", i+1, c), st.Lane.Text)
		}
	}
	if e.State != ExerciseDone {
		blank()
		switch e.Input {
		case InputText:
			add(tr.ExTextHow, st.List.Dim)
		case InputChoice:
			add(fmt.Sprintf(tr.ExChoiceHow, len(e.Choices)), st.List.Dim)
		default:
			add(tr.ExLiveHow, st.List.Dim)
		}
	}
	blank()
	if e.HintLevels > 0 && len(e.Hints) >= e.HintLevels {
		add(fmt.Sprintf(tr.ExHintsAll, e.HintLevels), st.Lane.Heading)
	} else {
		add(fmt.Sprintf(tr.ExHints, len(e.Hints), e.HintLevels), st.Lane.Heading)
	}
	for i, h := range e.Hints {
		label := fmt.Sprintf(tr.ExHintLevel, i+1)
		switch i {
		case 0:
			label = tr.ExHintNudge
		case 1:
			label = tr.ExHintPointer
		case 2:
			label = tr.ExHintSolution
		}
		head := fmt.Sprintf(tr.ExHintHead, i+1, label)
		hl := strings.Split(h, "\n")
		addStyled("• " + st.Lane.Label.Render(head) + inlineCode(hl[0], st.Served.Command, st.Lane.Text))
		for _, more := range hl[1:] {
			addStyled("  " + inlineCode(more, st.Served.Command, st.Lane.Text))
		}
	}
	if v.shownID != e.ID {
		v.shownID = e.ID
		v.detail.Top()
	}
	v.detail.SetTitle(tr.PaneExercise, e.Title, "")
	v.detail.SetLines(lines)
}

// inlineCode styles text's inline code spans (`like this`) with code and the rest with text;
// spaces inside a span become keepSpace so that wrapLines keeps a span on one line when it
// can (the caller turns them back with unkeep).
func inlineCode(s string, code, text lipgloss.Style) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j < 0 {
			break
		}
		if i > 0 {
			b.WriteString(text.Render(s[:i]))
		}
		span := strings.ReplaceAll(s[i+1:i+1+j], " ", string(keepSpace))
		b.WriteString(code.Render(span))
		s = s[i+2+j:]
	}
	if s != "" {
		b.WriteString(text.Render(s))
	}
	return b.String()
}

// StartTyping opens the answer line.
func (v *exView) StartTyping() { v.typing, v.input, v.cur = true, nil, 0 }

// TypeKey edits the answer line. It reports submit when enter was pressed (with what is
// typed) and whether the line is still open.
func (v *exView) TypeKey(msg tea.KeyMsg) (answer string, submit bool) {
	switch msg.Type {
	case tea.KeyEsc:
		v.typing = false
	case tea.KeyEnter:
		if strings.TrimSpace(string(v.input)) == "" {
			return "", false
		}
		v.typing = false
		return string(v.input), true
	case tea.KeyLeft:
		v.cur = max(v.cur-1, 0)
	case tea.KeyRight:
		v.cur = min(v.cur+1, len(v.input))
	case tea.KeyHome, tea.KeyCtrlA:
		v.cur = 0
	case tea.KeyEnd, tea.KeyCtrlE:
		v.cur = len(v.input)
	case tea.KeyBackspace:
		if v.cur > 0 {
			v.input = append(v.input[:v.cur-1], v.input[v.cur:]...)
			v.cur--
		}
	case tea.KeyDelete:
		if v.cur < len(v.input) {
			v.input = append(v.input[:v.cur], v.input[v.cur+1:]...)
		}
	case tea.KeyCtrlU:
		v.input, v.cur = append([]rune{}, v.input[v.cur:]...), 0
	case tea.KeyRunes, tea.KeySpace:
		rs := msg.Runes
		if msg.Type == tea.KeySpace {
			rs = []rune{' '}
		}
		var clean []rune
		for _, r := range rs {
			switch {
			case r == '\n' || r == '\r' || r == '\t':
				clean = append(clean, ' ')
			case r >= ' ' && r != 0x7f:
				clean = append(clean, r)
			}
		}
		v.input = append(v.input[:v.cur], append(clean, v.input[v.cur:]...)...)
		v.cur += len(clean)
	}
	return "", false
}

// inputLine is the answer line as the bottom line shows it.
func (v *exView) inputLine(w int) string {
	st, tr := v.st, v.tr
	before := string(v.input[:v.cur])
	cursor, after := "█", ""
	if v.cur < len(v.input) {
		at := string(v.input[v.cur])
		after = string(v.input[v.cur+1:])
		if lipgloss.ColorProfile() == termenv.Ascii {
			cursor = "|" + at
		} else {
			cursor = st.Prompt.Cursor.Render(at)
		}
	}
	lead := st.Prompt.Colon.Render(tr.ExAnswerPrompt)
	text := before + cursor + after
	room := w - ansi.StringWidth(lead) - 1
	if over := ansi.StringWidth(text) - room; over > 0 {
		text = "…" + ansi.TruncateLeft(text, over+1, "")
	}
	line := lead + text
	if ansi.StringWidth(line)+ansi.StringWidth(tr.ExAnswerHint) <= w {
		line += st.Prompt.Desc.Render(tr.ExAnswerHint)
	}
	return fit(line, w)
}

// exercisesKey handles a key in the exercises view.
func (m *model) exercisesKey(msg tea.KeyMsg) tea.Cmd {
	k, v := m.keys, m.ex
	switch {
	case key.Matches(msg, k.FocusNext), key.Matches(msg, k.FocusPrev):
		v.SetFocus(1 - v.focus)
		return nil
	case key.Matches(msg, k.Hint):
		return m.exHint()
	case key.Matches(msg, k.Answer):
		return m.exStartAnswer()
	case key.Matches(msg, k.Choose):
		n, _ := strconv.Atoi(string(msg.Runes))
		return m.exChoose(n)
	case msg.Type == tea.KeyEnter:
		if v.focus == 0 {
			v.SetFocus(1)
			return nil
		}
		return m.exStartAnswer()
	}
	if v.focus == 1 {
		p := v.detail
		switch {
		case key.Matches(msg, k.Up):
			p.Scroll(-1)
		case key.Matches(msg, k.Down):
			p.Scroll(1)
		case key.Matches(msg, k.PageUp):
			p.Scroll(-p.Page())
		case key.Matches(msg, k.PageDown):
			p.Scroll(p.Page())
		case key.Matches(msg, k.Top):
			p.Top()
		case key.Matches(msg, k.Bottom):
			p.Scroll(1 << 30)
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Up):
		v.Move(-1)
	case key.Matches(msg, k.Down):
		v.Move(1)
	case key.Matches(msg, k.PageUp):
		v.Move(-max(v.visible()-1, 1))
	case key.Matches(msg, k.PageDown):
		v.Move(max(v.visible()-1, 1))
	case key.Matches(msg, k.Top):
		v.Move(-1 << 30)
	case key.Matches(msg, k.Bottom):
		v.Move(1 << 30)
	}
	return nil
}

// exActionable reports whether the selected exercise can take a hint or an answer now, and
// says why not in the status line.
func (m *model) exActionable(answering bool) (Exercise, bool) {
	if m.exs == nil {
		m.note = m.tr.ExNotWired
		return Exercise{}, false
	}
	e, ok := m.ex.selected()
	switch {
	case !ok:
		return e, false
	case e.State == ExerciseLocked:
		m.note = fmt.Sprintf(m.tr.NoteExLocked, e.Phase)
		return e, false
	case answering && e.State == ExerciseDone:
		m.note = m.tr.NoteExDone
		return e, false
	case answering && e.Input == InputLive:
		m.note = m.tr.NoteExNoAnswer
		return e, false
	}
	return e, true
}

// exHint reveals the next hint level of the selected exercise.
func (m *model) exHint() tea.Cmd {
	e, ok := m.exActionable(false)
	if !ok {
		return nil
	}
	if e.State == ExerciseDone {
		// Solved: the hints it took are recorded as they were; asking for more counts none.
		m.note = m.tr.NoteExDoneHints
		return nil
	}
	if e.HintLevels > 0 && len(e.Hints) >= e.HintLevels {
		m.note = m.tr.NoteExAllHints
		return nil
	}
	x, id := m.exs, e.ID
	return func() tea.Msg {
		ex, err := x.RevealHint(id)
		return exResultMsg{id: id, ex: ex, err: err}
	}
}

// exStartAnswer opens the answer line for the selected exercise.
func (m *model) exStartAnswer() tea.Cmd {
	if _, ok := m.exActionable(true); ok {
		m.ex.StartTyping()
	}
	return nil
}

// exChoose answers a multiple-choice exercise with option n.
func (m *model) exChoose(n int) tea.Cmd {
	e, ok := m.exActionable(true)
	if !ok {
		return nil
	}
	if e.Input != InputChoice {
		m.ex.StartTyping()
		m.ex.input, m.ex.cur = []rune(strconv.Itoa(n)), len(strconv.Itoa(n))
		return nil
	}
	if n < 1 || n > len(e.Choices) {
		m.note = fmt.Sprintf(m.tr.NoteExNoChoice, n)
		return nil
	}
	return m.exAnswer(e.ID, strconv.Itoa(n))
}

// exAnswer submits an answer off the update loop.
func (m *model) exAnswer(id, answer string) tea.Cmd {
	x := m.exs
	m.ex.pending[id] = true
	return func() tea.Msg {
		ex, err := x.Answer(id, answer)
		return exResultMsg{id: id, answer: true, ex: ex, err: err}
	}
}

// answerKey handles a key while the answer line is open.
func (m *model) answerKey(msg tea.KeyMsg) tea.Cmd {
	answer, submit := m.ex.TypeKey(msg)
	if !submit {
		return nil
	}
	e, ok := m.ex.selected()
	if !ok {
		return nil
	}
	return m.exAnswer(e.ID, strings.TrimSpace(answer))
}

// exResult takes what RevealHint or Answer returned.
func (m *model) exResult(msg exResultMsg) {
	tr := m.tr
	if msg.answer {
		delete(m.ex.pending, msg.id)
	}
	if msg.err != nil {
		f := tr.NoteExHintFailed
		if msg.answer {
			f = tr.NoteExAnswerFailed
		}
		m.note = fmt.Sprintf(f, oneLine(msg.err.Error()))
		return
	}
	m.ex.Update(msg.ex)
	switch {
	case !msg.answer:
		m.ex.detail.Scroll(1 << 30) // the new hint is the last thing in the detail
	case msg.ex.State == ExerciseDone:
		m.note = tr.NoteExRight
	case msg.ex.LastTry != "":
		m.note = fmt.Sprintf(tr.NoteExWrong, msg.ex.LastTry)
	}
}

// startExercises reads the exercises and waits for their changes; Init runs it.
func (m *model) startExercises() tea.Cmd {
	if m.exs == nil {
		return nil
	}
	m.exCh, m.exArmed = m.exs.Changed(), true
	x, l := m.exs, m.ex.loader
	return tea.Batch(func() tea.Msg { return l.load(x, false) }, m.waitExercises())
}

// waitExercises waits for the next change and reads the exercises again.
func (m *model) waitExercises() tea.Cmd {
	ch, x, l, done, stop := m.exCh, m.exs, m.ex.loader, m.done, m.ctx.Done()
	return func() tea.Msg {
		select {
		case <-ch:
		case <-done:
			return nil
		case <-stop:
			return nil
		}
		return l.load(x, true)
	}
}

// exercisesLoaded takes a snapshot: the list, and a toast for each exercise that ticked.
func (m *model) exercisesLoaded(msg exLoadedMsg) tea.Cmd {
	var cmd tea.Cmd
	if msg.waiter {
		cmd = m.waitExercises()
	}
	m.syncCurrent()
	for _, e := range m.ex.Loaded(msg) {
		m.toasts = append(m.toasts, toast{id: e.ID, title: e.Title, why: e.Why})
	}
	return tea.Batch(cmd, m.classReport())
}

// syncCurrent tells the exercises view which lesson and phase the walkthrough is at: the
// step on screen's (LessonContent's step IDs are "<lesson ID>/<step ID>").
func (m *model) syncCurrent() {
	stop := m.displayed()
	if stop == nil {
		return
	}
	lesson := ""
	if s, ok := m.content.Step(stop.Checkpoint.ID()); ok {
		lesson, _, _ = strings.Cut(s.ID, "/")
	}
	m.ex.SetCurrent(lesson, string(stop.Checkpoint.Phase))
}

// toastBox is the toast of the exercises that ticked, w cells wide, or nil.
func (m *model) toastBox(w int) []string {
	if len(m.toasts) == 0 {
		return nil
	}
	st, tr := m.st, m.tr
	bw := min(w, 64)
	inner := bw - 3
	var body []string
	shown := m.toasts
	if len(shown) > 2 {
		shown = shown[len(shown)-2:]
	}
	for _, t := range shown {
		for _, l := range wrapLines(st.Lane.OK.Render(fmt.Sprintf(tr.ToastDone, t.title)), inner) {
			body = append(body, " "+l)
		}
		if t.why != "" {
			for _, l := range wrapLines(inlineCode(t.why, st.Served.Command, st.Lane.Text), inner-2) {
				body = append(body, "   "+unkeep.Replace(l))
			}
		}
	}
	if n := len(m.toasts) - len(shown); n > 0 {
		body = append(body, " "+st.List.Dim.Render(fmt.Sprintf(tr.ToastMore, n)))
	}
	if len(body) > 8 {
		body = body[:8]
	}
	return box(st, tr.ToastTitle, body, bw, len(body)+2, true)
}

// overlayRight draws over at the bottom right of body (whose lines are w cells wide).
func overlayRight(body, over []string, w int) []string {
	if len(over) == 0 || len(body) == 0 {
		return body
	}
	if len(over) > len(body) {
		over = over[len(over)-len(body):]
	}
	ow := ansi.StringWidth(over[0])
	out := append([]string{}, body...)
	for i, o := range over {
		j := len(body) - len(over) + i
		left := ansi.Cut(body[j], 0, w-ow)
		if lipgloss.ColorProfile() != termenv.Ascii {
			left += "\x1b[0m" // a style cut open must not run into the toast
		}
		out[j] = fit(left, w-ow) + o
	}
	return out
}
