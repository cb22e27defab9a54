package class

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/exercises"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

func TestMain(m *testing.M) {
	// NO_COLOR, as the TUI's goldens: no colour, a dark background for adaptive colours.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// newModel is a class on a screen in lang, with a fake walkthrough live at authz/rbac.
func newModel(lang string, host Host, follow Follower, ex Exercises) (*Model, *fakeTour) {
	tr := i18n.For(lang)
	tour := &fakeTour{where: Where{Live: "authz/rbac", Place: Place{Checkpoint: "authz/rbac"}, TrackAt: -1},
		track: []string{"03-authz/rbac", "03-authz/can-i", "04-admission/chain"}}
	if ex == nil {
		ex = someExercises()
	}
	never := make(chan struct{})
	m := New(common.Common{Styles: common.DefaultStyles(), Tr: tr, Scroll: common.NewScrollKeys(tr)}, Options{
		Host: host, Follow: follow, Tour: tour, Exercises: ex,
		Keys: Keys{Follow: binding("D"), Stuck: binding("!"), Assigned: binding("A"), Board: binding("B")},
		Done: func() <-chan struct{} { return never }, Stop: never,
	})
	return m, tour
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// checkFrame fails unless lines are exactly h lines of exactly w cells without escapes.
func checkFrame(t *testing.T, lines []string, w, h int) {
	t.Helper()
	if h >= 0 && len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := lipgloss.Width(l); got != w {
			t.Errorf("line %d is %d cells, want %d: %q", i, got, w, l)
		}
		if strings.Contains(l, "\x1b[") {
			t.Errorf("line %d has escape sequences with NO_COLOR: %q", i, l)
		}
	}
}

// TestBoardGolden: the board alone at 80×24 (the join line as one line) and 120×40 (address
// and code in block letters, the line to copy under them), in English and Chinese, NO_COLOR:
// the stuck student first, the states in words, the assigned exercise's summary.
func TestBoardGolden(t *testing.T) {
	for _, lang := range i18n.Languages() {
		for _, sz := range []struct {
			w, h int
			big  bool
		}{{80, 24, false}, {120, 40, true}} {
			t.Run(fmt.Sprintf("%s_%dx%d", lang, sz.w, sz.h), func(t *testing.T) {
				m, _ := newModel(lang, newFakeHost(aBoard()), nil, nil)
				if cmd := m.Update(boardMsg{b: aBoard()}); cmd == nil {
					t.Error("a board read does not wait for the next")
				}
				lines := m.View(sz.w, sz.h)
				checkFrame(t, lines, sz.w, sz.h)
				frame := strings.Join(lines, "\n")
				for _, want := range []string{"kubewalk join 127.0.0.1:7443 --code 4F7K-Q2-8K3M-T9QX-2HVD-R4NA", "ana", "bob", "chen", "Who may list pods"} {
					if !strings.Contains(frame, want) {
						t.Errorf("the board lacks %q:\n%s", want, frame)
					}
				}
				if strings.Index(frame, "ana") > strings.Index(frame, "bob") {
					t.Errorf("the stuck student is not first:\n%s", frame)
				}
				code, _ := bigText("4F7K-Q2-8K3M-T9QX-2HVD-R4NA")
				addr, _ := bigText("127.0.0.1:7443")
				for _, rows := range [][3]string{addr, code} {
					for _, r := range rows {
						if got := strings.Contains(frame, r); got != sz.big {
							t.Errorf("block letters shown: %v, want %v:\n%s", got, sz.big, frame)
						}
					}
				}
				left, right := m.Title()
				golden.RequireEqual(t, []byte(left+" | "+right+"\n"+frame))
			})
		}
	}
}

// TestBoardNotHost: without a class the board says it is the instructor's, and fits.
func TestBoardNotHost(t *testing.T) {
	m, _ := newModel(i18n.English, nil, nil, nil)
	lines := m.View(80, 24)
	checkFrame(t, lines, 80, 24)
	if !strings.Contains(strings.Join(lines, "\n"), "instructor") {
		t.Errorf("no word on what the board is for:\n%s", strings.Join(lines, "\n"))
	}
	if m.IsHost() || m.LineCount(80) != 0 || m.Lines(80) != nil || m.Init() != nil {
		t.Error("a screen without a class has class lines or waiters")
	}
	if _, ok := m.Key(keyMsg("D")); ok {
		t.Error("D is taken without a class")
	}
}

// TestBoardScroll: with more students than room the header stays and the students scroll by
// line and by half a page, never past either end.
func TestBoardScroll(t *testing.T) {
	b := aBoard()
	for i := range 40 {
		b.Students = append(b.Students, Student{Name: fmt.Sprintf("s%02d", i), Connected: true})
	}
	m, _ := newModel(i18n.English, newFakeHost(b), nil, nil)
	m.Update(boardMsg{b: b})
	first := func() string {
		lines := m.View(80, 24)
		checkFrame(t, lines, 80, 24)
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), i18n.For(i18n.English).BoardColName+" ") {
				return strings.Fields(lines[i+1])[0]
			}
		}
		t.Fatalf("no header row:\n%s", strings.Join(lines, "\n"))
		return ""
	}
	tests := []struct {
		key, want string
	}{
		{"", "ana"}, {"up", "ana"}, {"down", "bob"}, {"pgdown", "s10"}, {"up", "s09"},
	}
	for _, tt := range tests {
		if tt.key != "" {
			if cmd := m.Update(keyMsg(tt.key)); cmd != nil {
				t.Errorf("%s returned a command", tt.key)
			}
		}
		if got := first(); got != tt.want {
			t.Errorf("after %q the first student is %q, want %q", tt.key, got, tt.want)
		}
	}
	for range 100 {
		m.Update(keyMsg("down"))
	}
	if got := first(); got == "s39" || got == "" {
		t.Errorf("scrolled past the end: first %q", got)
	}
}

// TestLinesGolden: the lines under the header on the instructor's screen and on a student's
// in each state, at 80 and 120 columns, in English and Chinese, NO_COLOR; each line exactly
// as wide as the screen and as many as LineCount says.
func TestLinesGolden(t *testing.T) {
	for _, lang := range i18n.Languages() {
		for _, w := range []int{80, 120} {
			t.Run(fmt.Sprintf("%s_%d", lang, w), func(t *testing.T) {
				var out []string
				host := newFakeHost(aBoard())
				m, _ := newModel(lang, host, nil, nil)
				m.Update(boardMsg{b: aBoard()})
				lines := m.Lines(w)
				checkFrame(t, lines, w, m.LineCount(w))
				out = append(append(out, "host:"), lines...)
				if !strings.Contains(strings.Join(strings.Fields(strings.Join(lines, " ")), " "), host.join) {
					t.Errorf("the join line is not whole:\n%s", strings.Join(lines, "\n"))
				}
				for _, st := range []struct {
					name   string
					loaded bool
					st     FollowState
				}{
					{"connecting", false, FollowState{}},
					{"following", true, FollowState{Title: "walk", Connected: true, Following: true, Instructor: Place{Checkpoint: "authz/rbac"}}},
					{"free_stuck_message", true, FollowState{Title: "walk", Connected: true, Stuck: true, Message: "look at the RBAC authorizer", MessageSeq: 1, Instructor: Place{Served: true}}},
					{"assigned", true, FollowState{Connected: true, Following: true, Instructor: Place{Step: "03-authz/rbac", Served: true}, Assigned: "authz-1", AssignedSeq: 1}},
					{"reconnecting", true, FollowState{Title: "walk", Problem: "connection refused"}},
					{"ended", true, FollowState{Title: "walk", Ended: true}},
					{"left", true, FollowState{Title: "walk", Fatal: "the host has changed"}},
				} {
					m, _ := newModel(lang, nil, newFakeFollower(st.st), nil)
					if st.loaded {
						m.Update(followMsg{st: st.st, changed: make(chan struct{})})
					}
					lines := m.Lines(w)
					checkFrame(t, lines, w, m.LineCount(w))
					out = append(append(out, "", st.name+":"), lines...)
				}
				golden.RequireEqual(t, []byte(strings.Join(out, "\n")))
			})
		}
	}
}

// TestStudentKeys: D detaches and re-syncs (catching up at once), ! raises and lowers the
// flag, A opens the assigned exercise; each says so in the status note. B is the root's (the
// view switch); an instructor's screen takes none of them.
func TestStudentKeys(t *testing.T) {
	tr := i18n.For(i18n.English)
	f := newFakeFollower(FollowState{Connected: true, Following: true, Instructor: Place{Checkpoint: "admission/chain"}})
	m, tour := newModel(i18n.English, nil, f, nil)
	tour.where.Running = true // the first read's catch-up is on its way
	m.Update(followMsg{st: f.State(), changed: make(chan struct{})})
	tour.where.Running = false
	tests := []struct {
		key      string
		handled  bool
		note     string
		call     string
		runs     int
		exercise string
	}{
		{key: "D", handled: true, note: tr.ClassNoteDetached, call: "detach"},
		{key: "D", handled: true, note: tr.ClassNoteResynced, call: "resync", runs: 1},
		{key: "!", handled: true, note: tr.ClassNoteStuck, call: "stuck", runs: 1},
		{key: "!", handled: true, note: tr.ClassNoteUnstuck, call: "unstuck", runs: 1},
		{key: "A", handled: false, runs: 1}, // nothing assigned
		{key: "B", handled: false, runs: 1},
		{key: "x", handled: false, runs: 1},
	}
	for i, tt := range tests {
		notes, calls := len(tour.notes), len(f.calls)
		_, ok := m.Key(keyMsg(tt.key))
		if ok != tt.handled {
			t.Errorf("%d %s: handled %v, want %v", i, tt.key, ok, tt.handled)
		}
		if tt.note != "" && (len(tour.notes) != notes+1 || tour.notes[len(tour.notes)-1] != tt.note) {
			t.Errorf("%d %s: notes %q, want %q last", i, tt.key, tour.notes, tt.note)
		}
		if tt.call != "" && (len(f.calls) != calls+1 || f.calls[len(f.calls)-1] != tt.call) {
			t.Errorf("%d %s: follower calls %q, want %q last", i, tt.key, f.calls, tt.call)
		}
		if len(tour.runs) != tt.runs {
			t.Errorf("%d %s: %d runs to the instructor, want %d", i, tt.key, len(tour.runs), tt.runs)
		}
	}
	st := f.State()
	st.Assigned, st.AssignedSeq = "authz-1", 1
	m.Update(followMsg{st: st, changed: make(chan struct{})})
	if _, ok := m.Key(keyMsg("A")); !ok || !slices.Equal(tour.exercise, []string{"authz-1"}) {
		t.Errorf("A with an assignment: handled %v, opened %q", ok, tour.exercise)
	}

	host, _ := newModel(i18n.English, newFakeHost(aBoard()), nil, nil)
	for _, k := range []string{"D", "!", "A", "B"} {
		if _, ok := host.Key(keyMsg(k)); ok {
			t.Errorf("the instructor's screen took %s", k)
		}
	}
}

// TestFollowStep: a following student's server runs forward to the instructor's place, never
// back, not while it runs or after it failed, and not for a detached student or one who left;
// once served, the screen goes along the track to the instructor's step unless the student
// reviews or went back on their own.
func TestFollowStep(t *testing.T) {
	tr := i18n.For(i18n.English)
	served := Place{Checkpoint: "serve/serving", Served: true}
	tests := []struct {
		name    string
		where   Where
		st      FollowState
		runs    []string
		opened  []int
		tracked int // the track step following took the student to before
	}{
		{name: "ahead", st: FollowState{Following: true, Instructor: Place{Checkpoint: "admission/chain"}},
			runs: []string{fmt.Sprintf(tr.ClassTargetInstructor, "admission/chain")}},
		{name: "behind", st: FollowState{Following: true, Instructor: Place{Checkpoint: "config/scheme"}}},
		{name: "same", st: FollowState{Following: true, Instructor: Place{Checkpoint: "authz/rbac"}}},
		{name: "unknown", st: FollowState{Following: true, Instructor: Place{Checkpoint: "no/such"}}},
		{name: "serving", st: FollowState{Following: true, Instructor: served}, runs: []string{tr.ClassTargetServing}},
		{name: "running", where: Where{Running: true}, st: FollowState{Following: true, Instructor: served}},
		{name: "failed", where: Where{Failed: true}, st: FollowState{Following: true, Instructor: served}},
		{name: "detached", st: FollowState{Instructor: served}},
		{name: "left", st: FollowState{Following: true, Instructor: served, Fatal: "gone"}},
		{name: "no place", st: FollowState{Following: true}},
		{name: "track", where: Where{Place: served}, st: FollowState{Following: true, Instructor: Place{Step: "03-authz/can-i", Served: true}}, opened: []int{1}},
		{name: "track reviewing", where: Where{Place: served, Reviewing: true}, st: FollowState{Following: true, Instructor: Place{Step: "03-authz/can-i", Served: true}}},
		{name: "track behind", where: Where{Place: served, TrackAt: 2}, st: FollowState{Following: true, Instructor: Place{Step: "03-authz/can-i", Served: true}}},
		{name: "track went back", where: Where{Place: served, TrackAt: 0}, tracked: 1, st: FollowState{Following: true, Instructor: Place{Step: "04-admission/chain", Served: true}}},
		{name: "track unknown", where: Where{Place: served}, st: FollowState{Following: true, Instructor: Place{Step: "nope", Served: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, tour := newModel(i18n.English, nil, newFakeFollower(tt.st), nil)
			w := tt.where
			w.Live = "authz/rbac"
			if w.Place.IsZero() {
				w.Place = Place{Checkpoint: "authz/rbac"}
			}
			if w.TrackAt == 0 && tt.tracked == 0 {
				w.TrackAt = -1
			}
			tour.where = w
			if tt.tracked > 0 {
				m.trackFollowed = tt.tracked
			}
			m.Update(followMsg{st: tt.st, changed: make(chan struct{})})
			if !slices.Equal(tour.runs, tt.runs) || !slices.Equal(tour.opened, tt.opened) {
				t.Errorf("runs %q, track steps opened %v; want %q, %v", tour.runs, tour.opened, tt.runs, tt.opened)
			}
			// The server's next move (view.ServerMsg) asks again: nothing twice.
			m.Update(view.ServerMsg{Paused: true})
			if len(tour.runs) != len(tt.runs) || len(tour.opened) != len(tt.opened) {
				t.Errorf("after the next event: runs %q, opened %v", tour.runs, tour.opened)
			}
		})
	}
}

// TestReportAndPublish: a student reports where they are and how they stand on the assigned
// exercise when it changed, never twice; an instructor's screen publishes each new place but
// not while the server runs to the next, nor a zero place.
func TestReportAndPublish(t *testing.T) {
	f := newFakeFollower(FollowState{Connected: true, Assigned: "authz-1", AssignedSeq: 1})
	m, tour := newModel(i18n.English, nil, f, nil)
	m.Update(followMsg{st: f.State(), changed: make(chan struct{})})
	if len(f.reports) != 1 || f.reports[0] != (Place{Checkpoint: "authz/rbac"}) {
		t.Errorf("reports %v, want authz/rbac once", f.reports)
	}
	if len(f.exs) != 1 || f.exs[0] != (Exercise{ID: "authz-1", State: ExOpen}) {
		t.Errorf("exercise reports %v, want authz-1 open", f.exs)
	}
	if tour.relayout != 1 || len(tour.notes) != 1 || !strings.Contains(tour.notes[0], "Who may list pods") {
		t.Errorf("the assignment: %d relayouts, notes %q", tour.relayout, tour.notes)
	}
	m.Seen("")
	m.Update(view.ServerMsg{Paused: true})
	if len(f.reports) != 1 || len(f.exs) != 1 {
		t.Errorf("reported again without a change: %v %v", f.reports, f.exs)
	}
	m.Seen("authz-1") // on screen: trying
	tour.where.Place = Place{Checkpoint: "admission/chain"}
	m.Update(view.ServerMsg{Paused: true})
	if len(f.exs) != 2 || f.exs[1].State != ExTrying || len(f.reports) != 2 || f.reports[1].Checkpoint != "admission/chain" {
		t.Errorf("after opening the exercise and moving on: %v %v", f.exs, f.reports)
	}

	h := newFakeHost(aBoard())
	hm, htour := newModel(i18n.English, h, nil, nil)
	steps := []struct {
		where Where
		n     int // places published so far
	}{
		{Where{}, 0},
		{Where{Place: Place{Checkpoint: "authz/rbac"}}, 1},
		{Where{Place: Place{Checkpoint: "authz/rbac"}}, 1},
		{Where{Place: Place{Checkpoint: "admission/chain"}, Running: true}, 1},
		{Where{Place: Place{Checkpoint: "serve/serving", Served: true}, Running: true}, 2},
		{Where{Place: Place{Checkpoint: "serve/serving", Served: true, Step: "03-authz/rbac"}}, 3},
	}
	for i, s := range steps {
		htour.where = s.where
		var cmd tea.Cmd
		if i == len(steps)-1 {
			cmd = hm.Moved()
		} else {
			cmd = hm.Update(view.ServerMsg{Paused: true})
		}
		if cmd != nil {
			cmd()
		}
		if len(h.places) != s.n {
			t.Errorf("%d: %d places published, want %d: %v", i, len(h.places), s.n, h.places)
		}
	}
}

// TestCommandLines: :msg and :assign on the instructor's screen; the reason a line cannot run
// is returned (it stays in the prompt), and a failure comes back as a view.NoteMsg.
func TestCommandLines(t *testing.T) {
	tr := i18n.For(i18n.English)
	tests := []struct {
		name     string
		host     bool
		ex       Exercises
		msg      bool // :msg, else :assign
		arg      string
		problem  string
		note     string
		sent     string
		assigned []string
		failed   bool
	}{
		{name: "msg no host", msg: true, arg: "hi", problem: tr.BoardNotHost},
		{name: "msg empty", host: true, msg: true, arg: "  ", problem: tr.CmdMsgWhat},
		{name: "msg", host: true, msg: true, arg: "look at RBAC", note: tr.NoteMsgSent, sent: "look at RBAC"},
		{name: "msg fails", host: true, msg: true, arg: "fail", note: tr.NoteMsgSent, failed: true},
		{name: "assign no host", arg: "authz-1", problem: tr.BoardNotHost},
		{name: "assign which", host: true, arg: "", note: fmt.Sprintf(tr.NoteAssignedNow, "Who may list pods", "authz-1")},
		{name: "assign unknown", host: true, arg: "nope", problem: fmt.Sprintf(tr.CmdAssignUnknown, "nope")},
		{name: "assign not loaded", host: true, ex: fakeExercises{}, arg: "authz-1", problem: tr.CmdAssignNoExercises},
		{name: "assign", host: true, arg: " authn-1 ", note: fmt.Sprintf(tr.NoteAssigned, "Which authenticator answered", "authn-1"), assigned: []string{"authn-1"}},
		{name: "take back", host: true, arg: "-", note: tr.NoteAssignTakenBack, assigned: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h *fakeHost
			var host Host
			if tt.host {
				h = newFakeHost(aBoard())
				host = h
			}
			m, tour := newModel(i18n.English, host, nil, tt.ex)
			m.Update(boardMsg{b: aBoard()})
			run := m.AssignLine
			if tt.msg {
				run = m.MsgLine
			}
			cmd, problem := run(tt.arg)
			if problem != tt.problem {
				t.Errorf("problem %q, want %q", problem, tt.problem)
			}
			var got tea.Msg
			if cmd != nil {
				got = cmd()
			}
			if _, isNote := got.(view.NoteMsg); isNote != tt.failed {
				t.Errorf("the command returned %#v", got)
			}
			if tt.note != "" && (len(tour.notes) != 1 || tour.notes[0] != tt.note) {
				t.Errorf("notes %q, want %q", tour.notes, tt.note)
			}
			if h != nil {
				if tt.sent != "" && !slices.Equal(h.sent, []string{tt.sent}) {
					t.Errorf("sent %q", h.sent)
				}
				if !slices.Equal(h.assigned, tt.assigned) {
					t.Errorf("assigned %q, want %q", h.assigned, tt.assigned)
				}
			}
		})
	}
}

// TestWaiters: Init reads the board and the student's state at once; the state waiter
// delivers the next state when it changes, and the waiters end with the views' work.
func TestWaiters(t *testing.T) {
	f := newFakeFollower(FollowState{Title: "walk"})
	tr := i18n.For(i18n.English)
	stop := make(chan struct{})
	m := New(common.Common{Styles: common.DefaultStyles(), Tr: tr, Scroll: common.NewScrollKeys(tr)}, Options{
		Follow: f, Tour: &fakeTour{where: Where{TrackAt: -1}}, Exercises: someExercises(),
		Done: func() <-chan struct{} { return nil }, Stop: stop,
	})
	if n, delivering := m.Waiters(); n != 1 || !delivering {
		t.Errorf("before the first read: %d waiters, delivering %v", n, delivering)
	}
	msg, ok := m.Init()().(followMsg)
	if !ok || msg.st.Title != "walk" {
		t.Fatalf("Init read %#v", msg)
	}
	next := m.Update(msg)
	if n, delivering := m.Waiters(); n != 1 || delivering {
		t.Errorf("after the first read: %d waiters, delivering %v", n, delivering)
	}
	f.mu.Lock()
	f.st.Title = "walk 2"
	close(f.ch)
	f.ch = make(chan struct{})
	f.mu.Unlock()
	if _, delivering := m.Waiters(); !delivering {
		t.Error("a change is not seen as on its way")
	}
	got := runBatch(next)
	if len(got) != 1 || got[0].(followMsg).st.Title != "walk 2" {
		t.Fatalf("the waiter delivered %#v", got)
	}
	close(stop)
	if got := runBatch(m.waitFollow(make(chan struct{}))); len(got) != 0 {
		t.Errorf("a waiter after the stop delivered %#v", got)
	}
}

// runBatch runs cmd (and a batch's commands) and returns the messages that are not nil.
func runBatch(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, runBatch(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

// binding is a binding of one key.
func binding(k string) key.Binding { return key.NewBinding(key.WithKeys(k)) }

var _ Exercises = (*exercises.Model)(nil)
