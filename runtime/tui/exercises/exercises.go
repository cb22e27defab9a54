// Package exercises is the :exercises view: a list of the exercises (the current lesson's
// first, then the rest in lesson order, grouped by lesson) and the selected one's detail: its
// state, goal, how to answer, the last wrong try and the hints revealed so far. h reveals the
// next hint, a opens the answer line at the bottom of the screen (the view captures every key
// while it is open) and 1–9 answer a multiple choice.
//
// An exercise checked against the live server ticks by itself: the Backend signals Changed and
// the view re-reads the list off the update loop. One that ticks is handed to the root as a
// ToastMsg, which the root draws (ToastBox) over whatever view is on screen until the next key
// not typed into a line. After each snapshot and each hint or answer the view returns a
// ChangedMsg, on which the root's class code reports the student's state.
package exercises

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

// Env is what the view reads from the root, set once in New.
type Env struct {
	// Where is the lesson ID and phase of the walkthrough's step on screen (the lesson ""
	// when unknown); ok is false before the first stop. The view asks it on Sync and with
	// each snapshot, to put that lesson first.
	Where func() (lesson, phase string, ok bool)
	// Done returns a channel closed when the run ends; the view reads it when it starts
	// waiting for changes (Init), so the root may set it after New.
	Done func() <-chan struct{}
	// Stop is closed when the root shuts the views' background work down.
	Stop <-chan struct{}
}

// Messages of the view's commands, handled in its Update.
type (
	// loadedMsg is one snapshot of the exercises.
	loadedMsg struct {
		seq    uint64
		list   []Exercise
		waiter bool // from the Changed waiter: re-arm it
	}
	// resultMsg carries what RevealHint or Answer returned.
	resultMsg struct {
		id     string
		answer bool // Answer (else RevealHint)
		ex     Exercise
		err    error
	}
)

// ChangedMsg tells the root the exercises changed: a snapshot or a hint or answer's result was
// taken. The root's class code reports the student's state on it.
type ChangedMsg struct{}

// loader serialises List calls so that a higher sequence number is always a later snapshot.
type loader struct {
	mu  sync.Mutex
	seq uint64
}

// load reads a snapshot. It runs in a tea.Cmd.
func (l *loader) load(x Backend, waiter bool) loadedMsg {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	return loadedMsg{seq: l.seq, list: x.List(), waiter: waiter}
}

// row is a row of the list: a lesson's heading or an exercise.
type row struct {
	heading string // the lesson title; "" for an exercise row
	current bool   // the heading of the current lesson
	ex      int    // index into Model.all
}

// Model is the exercises view.
type Model struct {
	c    common.Common
	keys KeyMap
	x    Backend // nil: exercises are not wired into this run
	env  Env

	list   common.Frame
	detail *common.TextPane
	focus  int // 0 the list, 1 the detail
	wide   bool
	// listAt and detailAt are where the panes were last drawn (zoomed, the unseen one keeps
	// its place), for the mouse.
	listAt, detailAt rect

	loader  *loader
	ch      <-chan struct{}
	armed   bool        // the Changed waiter is running
	blocked view.Waiter // the Changed waiter is blocked on its channel
	loaded  bool
	seq     uint64
	all     []Exercise // as List returned them
	rows    []row
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

var (
	_ view.View     = (*Model)(nil)
	_ view.Capturer = (*Model)(nil)
	_ view.Zoomer   = (*Model)(nil)
)

// New makes the view over x (nil: not wired, which the view says).
func New(c common.Common, x Backend, env Env) *Model {
	v := &Model{c: c, keys: NewKeyMap(c.Tr), x: x, env: env, list: common.NewFrame(c.Styles),
		detail: common.NewTextPane(c.Styles, c.Tr.PaneExercise), loader: &loader{}, pending: map[string]bool{}}
	v.setFocus(0)
	return v
}

// Init reads the exercises and starts waiting for their changes.
func (v *Model) Init() tea.Cmd {
	if v.x == nil {
		return nil
	}
	v.ch, v.armed = v.x.Changed(), true
	x, l := v.x, v.loader
	return tea.Batch(func() tea.Msg { return l.load(x, false) }, v.wait())
}

// wait waits for the next change and reads the exercises again.
func (v *Model) wait() tea.Cmd {
	ch, x, l, stop, w := v.ch, v.x, v.loader, v.env.Stop, &v.blocked
	var done <-chan struct{}
	if v.env.Done != nil {
		done = v.env.Done()
	}
	return func() tea.Msg {
		w.Enter()
		select {
		case <-ch:
		case <-done:
			w.Leave()
			return nil
		case <-stop:
			w.Leave()
			return nil
		}
		w.Leave()
		return l.load(x, true)
	}
}

// Update handles the view's keys (the answer line's while it is open), the mouse, its
// snapshots and results.
func (v *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if v.typing {
			return v.answerKey(msg)
		}
		return v.key(msg)
	case tea.MouseMsg:
		v.mouse(msg)
	case loadedMsg:
		return v.snapshot(msg)
	case resultMsg:
		return v.result(msg)
	}
	return nil
}

// Capturing reports whether the answer line is open: the root then hands the view every key.
func (v *Model) Capturing() bool { return v.typing }

// Title is the header's name and hint.
func (v *Model) Title() (string, string) { return v.c.Tr.ViewExercisesTitle, v.c.Tr.ViewGlossaryHint }

// Keys are the help bar's bindings: the answer line's while it is open (then the whole bar),
// else the view's keys for the selected exercise (the root adds z after them: a view.Zoomer).
func (v *Model) Keys() []key.Binding {
	k, tr := v.keys, v.c.Tr
	if v.typing {
		return []key.Binding{k.Submit, k.Cancel}
	}
	out := []key.Binding{k.Hint}
	if e, ok := v.Selected(); ok && e.State != Done {
		switch e.Input {
		case InputText:
			out = append(out, k.Answer)
		case InputChoice:
			out = append(out, k.Choose)
		}
	}
	return append(out, bar("↑/↓", tr.BarSelect), k.FocusNext)
}

// note is a command that puts s in the root's status line.
func note(s string) tea.Cmd { return func() tea.Msg { return view.NoteMsg(s) } }

// changed is the command that tells the root the exercises changed.
func changed() tea.Msg { return ChangedMsg{} }

// key handles a key in the view.
func (v *Model) key(msg tea.KeyMsg) tea.Cmd {
	k := v.keys
	switch {
	case key.Matches(msg, k.FocusNext), key.Matches(msg, k.FocusPrev):
		v.setFocus(1 - v.focus)
		return nil
	case key.Matches(msg, k.Hint):
		return v.hint()
	case key.Matches(msg, k.Answer):
		return v.startAnswer()
	case key.Matches(msg, k.Choose):
		n, _ := strconv.Atoi(string(msg.Runes))
		return v.choose(n)
	case key.Matches(msg, k.Open):
		if v.focus == 0 {
			v.setFocus(1)
			return nil
		}
		return v.startAnswer()
	}
	if v.focus == 1 {
		v.detail.ScrollKey(msg, v.c.Scroll)
		return nil
	}
	// The list moves a cursor over exercises (headings are skipped), not a scroll position.
	s := v.c.Scroll
	page := max(v.visible()-1, 1)
	switch {
	case key.Matches(msg, s.Up):
		v.Move(-1)
	case key.Matches(msg, s.Down):
		v.Move(1)
	case key.Matches(msg, s.PageUp):
		v.Move(-page)
	case key.Matches(msg, s.PageDown):
		v.Move(page)
	case key.Matches(msg, s.Top):
		v.Move(-1 << 30)
	case key.Matches(msg, s.Bottom):
		v.Move(1 << 30)
	}
	return nil
}

// mouse handles the wheel and clicks (relative to the view's corner): a click or the wheel
// focuses the pane under it, the wheel then scrolls it.
func (v *Model) mouse(msg tea.MouseMsg) {
	list, detail := v.listAt, v.detailAt
	switch {
	case list.contains(msg.X, msg.Y):
		v.setFocus(0)
	case detail.contains(msg.X, msg.Y):
		v.setFocus(1)
	}
	n := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		n = -common.WheelStep
	case tea.MouseButtonWheelDown:
		n = common.WheelStep
	default:
		return
	}
	if v.focus == 0 {
		v.Move(n)
	} else {
		v.detail.ScrollMouse(msg)
	}
}

// actionable reports whether the selected exercise can take a hint or an answer now, and
// else a command saying why not in the status line.
func (v *Model) actionable(answering bool) (Exercise, tea.Cmd, bool) {
	tr := v.c.Tr
	if v.x == nil {
		return Exercise{}, note(tr.ExNotWired), false
	}
	e, ok := v.Selected()
	switch {
	case !ok:
		return e, nil, false
	case e.State == Locked:
		return e, note(fmt.Sprintf(tr.NoteExLocked, e.Phase)), false
	case answering && e.State == Done:
		return e, note(tr.NoteExDone), false
	case answering && e.Input == InputLive:
		return e, note(tr.NoteExNoAnswer), false
	}
	return e, nil, true
}

// hint reveals the next hint level of the selected exercise.
func (v *Model) hint() tea.Cmd {
	e, why, ok := v.actionable(false)
	if !ok {
		return why
	}
	if e.State == Done {
		// Solved: the hints it took are recorded as they were; asking for more counts none.
		return note(v.c.Tr.NoteExDoneHints)
	}
	if e.HintLevels > 0 && len(e.Hints) >= e.HintLevels {
		return note(v.c.Tr.NoteExAllHints)
	}
	x, id := v.x, e.ID
	return func() tea.Msg {
		ex, err := x.RevealHint(id)
		return resultMsg{id: id, ex: ex, err: err}
	}
}

// startAnswer opens the answer line for the selected exercise.
func (v *Model) startAnswer() tea.Cmd {
	_, why, ok := v.actionable(true)
	if ok {
		v.startTyping()
	}
	return why
}

// choose answers a multiple-choice exercise with option n; for a typed answer it opens the
// answer line with n in it.
func (v *Model) choose(n int) tea.Cmd {
	e, why, ok := v.actionable(true)
	if !ok {
		return why
	}
	if e.Input != InputChoice {
		v.startTyping()
		v.input, v.cur = []rune(strconv.Itoa(n)), len(strconv.Itoa(n))
		return nil
	}
	if n < 1 || n > len(e.Choices) {
		return note(fmt.Sprintf(v.c.Tr.NoteExNoChoice, n))
	}
	return v.answer(e.ID, strconv.Itoa(n))
}

// answer submits an answer off the update loop.
func (v *Model) answer(id, answer string) tea.Cmd {
	x := v.x
	v.pending[id] = true
	return func() tea.Msg {
		ex, err := x.Answer(id, answer)
		return resultMsg{id: id, answer: true, ex: ex, err: err}
	}
}

// answerKey handles a key while the answer line is open.
func (v *Model) answerKey(msg tea.KeyMsg) tea.Cmd {
	answer, submit := v.typeKey(msg)
	if !submit {
		return nil
	}
	e, ok := v.Selected()
	if !ok {
		return nil
	}
	return v.answer(e.ID, strings.TrimSpace(answer))
}

// result takes what RevealHint or Answer returned.
func (v *Model) result(msg resultMsg) tea.Cmd {
	tr := v.c.Tr
	if msg.answer {
		delete(v.pending, msg.id)
	}
	if msg.err != nil {
		f := tr.NoteExHintFailed
		if msg.answer {
			f = tr.NoteExAnswerFailed
		}
		return tea.Batch(note(fmt.Sprintf(f, strings.Join(strings.Fields(msg.err.Error()), " "))), changed)
	}
	v.replace(msg.ex)
	var n tea.Cmd
	switch {
	case !msg.answer:
		v.detail.Bottom() // the new hint is the last thing in the detail
	case msg.ex.State == Done:
		n = note(tr.NoteExRight)
	case msg.ex.LastTry != "":
		n = note(fmt.Sprintf(tr.NoteExWrong, msg.ex.LastTry))
	}
	return tea.Batch(n, changed)
}

// snapshot takes a snapshot: the list, and a toast for each exercise that ticked.
func (v *Model) snapshot(msg loadedMsg) tea.Cmd {
	var cmds []tea.Cmd
	if msg.waiter {
		cmds = append(cmds, v.wait())
	}
	v.Sync()
	if ticked := v.take(msg); len(ticked) > 0 {
		var ts ToastMsg
		for _, e := range ticked {
			ts = append(ts, Toast{ID: e.ID, Title: e.Title, Why: e.Why})
		}
		cmds = append(cmds, func() tea.Msg { return ts })
	}
	return tea.Batch(append(cmds, changed)...)
}

// Sync asks the root where the walkthrough is and puts that lesson first.
func (v *Model) Sync() {
	if v.env.Where == nil {
		return
	}
	if lesson, phase, ok := v.env.Where(); ok {
		v.SetCurrent(lesson, phase)
	}
}

// Done counts the exercises done, and all of them (0, 0 before the first snapshot or when
// not wired).
func (v *Model) Done() (done, all int) {
	for _, e := range v.all {
		if e.State == Done {
			done++
		}
	}
	return done, len(v.all)
}

// Loaded reports whether the first snapshot has arrived.
func (v *Model) Loaded() bool { return v.loaded }

// Watching reports whether the view's Changed waiter is running (a command the root's test
// harness counts as idle).
func (v *Model) Watching() bool { return v.armed }

// WaiterBlocked reports whether the Changed waiter is blocked on its channel right now (the
// root's test harness counts only a blocked waiter as idle; see view.Waiter).
func (v *Model) WaiterBlocked() bool { return v.blocked.Blocked() }

// All returns the exercises as the last snapshot listed them; the caller must not change them.
func (v *Model) All() []Exercise { return v.all }

// Find returns the exercise with ID id, if the last snapshot has it.
func (v *Model) Find(id string) (Exercise, bool) {
	for _, e := range v.all {
		if e.ID == id {
			return e, true
		}
	}
	return Exercise{}, false
}

// Select selects exercise id (as the class's A opens the assigned one), else the first.
func (v *Model) Select(id string) {
	v.sel = id
	v.rebuild()
}

// Order lists the exercises' IDs as the list shows them, top to bottom.
func (v *Model) Order() []string {
	var out []string
	for _, r := range v.rows {
		if r.heading == "" {
			out = append(out, v.all[r.ex].ID)
		}
	}
	return out
}
