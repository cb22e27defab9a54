package plain

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/server"
)

// Class is a follow-along class the transcript follows (kubewalk join without a terminal):
// after each checkpoint the walk waits until the instructor is further on, then runs there
// (never back) — to the end once the instructor's server serves — and prints the after-serve
// track step by step as the instructor shows it, printing the instructor's messages and the
// connection's ups and downs as lines.
type Class interface {
	// Changed returns a channel closed at the next change of State.
	Changed() <-chan struct{}
	// State is the class as the student sees it now.
	State() ClassState
	// Report tells the instructor's board where the student is and how many exercises it has
	// done; it must not block.
	Report(p Place, done int)
}

// Place is a place in the course: a startup checkpoint ("phase/name"; once the server serves,
// the last one), the serving server (Served), a step of the after-serve track (Step,
// "lesson/step"). It has the fields of the full-screen UI's tui.ClassPlace.
type Place struct {
	Checkpoint string
	Served     bool
	Step       string
}

// ClassState is what the transcript needs of a class.
type ClassState struct {
	// Title is the class's title ("" before the welcome).
	Title string
	// Connected is true while the channel to the instructor is up.
	Connected bool
	// Ended is set when the instructor ended the class.
	Ended bool
	// Instructor is the instructor's place, zero for none yet.
	Instructor Place
	// Messages are the instructor's recent messages, oldest first.
	Messages []ClassMessage
	// Problem says why the connection is down, while it is.
	Problem string
	// Fatal, when set, says why the student left the class for good.
	Fatal string
	// Assigned is the exercise the instructor assigned ("" none) and AssignedKey identifies
	// the assignment (it is printed once).
	Assigned, AssignedKey string
}

// ClassMessage is one of the instructor's messages; Key identifies it (it is printed once).
type ClassMessage struct {
	Key, Text string
}

// follower is the transcript's side of a class: what it has printed so far.
type follower struct {
	c       Class
	tr      *i18n.Strings
	printed map[string]bool // message keys
	conn    string          // the connection state last printed: "", "up", "down", "ended", "left"
	left    bool
	ended   bool // the instructor ended the class (until it starts again)
	// exercises are the walkthrough's, to name an assigned one; assigned is the assignment
	// printed last.
	exercises []lessons.Exercise
	assigned  string
}

func newFollower(c Class, tr *i18n.Strings, exs []lessons.Exercise) *follower {
	return &follower{c: c, tr: tr, printed: map[string]bool{}, exercises: exs}
}

// title is the class's title, or the screen's word for a class.
func (f *follower) title(st ClassState) string {
	if st.Title != "" {
		return st.Title
	}
	return f.tr.ClassDefaultTitle
}

// news prints what changed in st since the last call: the connection going down, coming back,
// or ending for good, and the instructor's new messages.
func (f *follower) news(o Options, st ClassState) {
	conn := "down"
	switch {
	case st.Fatal != "":
		conn = "left"
	case st.Connected:
		conn = "up"
	case st.Ended:
		conn = "ended"
	}
	f.ended = conn == "ended"
	if conn != f.conn && (conn != "down" || st.Problem != "") {
		switch conn {
		case "up":
			fmt.Fprintf(o.Out, "\n%s · %s\n", f.title(st), fmt.Sprintf(f.tr.ClassFollowing, placeText(f.tr, st.Instructor)))
		case "ended":
			fmt.Fprintf(o.Out, "\n%s\n", f.tr.PlainFollowEnded)
		case "down":
			fmt.Fprintf(o.Out, "\n%s\n", fmt.Sprintf(f.tr.ClassReconnecting, st.Problem))
		case "left":
			fmt.Fprintf(o.Out, "\n%s\n", fmt.Sprintf(f.tr.PlainFollowLeft, st.Fatal))
			f.left = true
		}
		f.conn = conn
	}
	keep := make(map[string]bool, len(st.Messages))
	for _, m := range st.Messages {
		keep[m.Key] = true
		if !f.printed[m.Key] {
			fmt.Fprintf(o.Out, "%s %s\n", f.tr.ClassMessage, m.Text)
		}
	}
	f.printed = keep // only the messages the class still holds: bounded
	if st.AssignedKey != f.assigned {
		f.assigned = st.AssignedKey
		if st.Assigned != "" {
			title, goal := st.Assigned, ""
			for _, e := range f.exercises {
				if e.ID == st.Assigned {
					title, goal = e.Title, e.Goal
				}
			}
			fmt.Fprintf(o.Out, "%s\n", wrap(fmt.Sprintf(f.tr.PlainAssigned, title, st.Assigned, goal), o.Width))
		}
	}
}

// next waits, after the stop at checkpoint cur, until the instructor is further on and
// returns the target that runs there: the instructor's checkpoint, or the last one once the
// instructor's server serves (the walk goes on to serve from there). It returns NextCheckpoint at the last checkpoint (the server
// goes on to serve) and once the student has left the class or the class has ended (the
// transcript runs on to the end), and ctx's error when ctx ends.
func (f *follower) next(ctx context.Context, o Options, cur string) (engine.Target, error) {
	all := server.Checkpoints()
	at := checkpointIndex(cur)
	if at == len(all)-1 {
		return engine.NextCheckpoint(), nil
	}
	waiting := false
	for {
		changed := f.c.Changed()
		st := f.c.State()
		f.news(o, st)
		if f.left || f.ended {
			return engine.NextCheckpoint(), nil
		}
		if st.Instructor.Served {
			// Through the last checkpoint, which the transcript prints like any other; from
			// there it goes on to serve.
			fmt.Fprintf(o.Out, "\n%s\n", f.tr.PlainFollowServing)
			return engine.ToCheckpoint(all[len(all)-1].ID()), nil
		}
		if to := checkpointIndex(st.Instructor.Checkpoint); to > at {
			fmt.Fprintf(o.Out, "\n%s\n", fmt.Sprintf(f.tr.PlainFollowTo, st.Instructor.Checkpoint))
			return engine.ToCheckpoint(st.Instructor.Checkpoint), nil
		}
		if !waiting {
			fmt.Fprintf(o.Out, "\n%s\n", fmt.Sprintf(f.tr.PlainFollowWaiting, f.title(st)))
			waiting = true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return engine.Target{}, ctx.Err()
		}
	}
}

// toStep waits, before the transcript prints step i of the track (steps are the track's
// "lesson/step" IDs), until the instructor has shown that step or one after it; not once the
// student has left the class or the class has ended (the rest prints at once). It returns
// ctx's error when ctx ends.
func (f *follower) toStep(ctx context.Context, o Options, i int, steps []string) error {
	waiting := false
	for {
		changed := f.c.Changed()
		st := f.c.State()
		f.news(o, st)
		if f.left || f.ended || slices.Index(steps, st.Instructor.Step) >= i {
			return nil
		}
		if !waiting {
			fmt.Fprintf(o.Out, "\n%s\n", fmt.Sprintf(f.tr.PlainFollowWaiting, f.title(st)))
			waiting = true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// listen prints the class's news until ctx ends (the walk is done; the student stays in the
// class), and returns ctx's error.
func (f *follower) listen(ctx context.Context, o Options) error {
	for {
		changed := f.c.Changed()
		f.news(o, f.c.State())
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// report tells the class where the walk is.
func (f *follower) report(w Walkthrough, p Place) {
	done := 0
	for _, e := range w.Exercises {
		if w.ExerciseDone != nil && w.ExerciseDone(e.ID) {
			done++
		}
	}
	f.c.Report(p, done)
}

// wait pauses d, or until ctx ends (its error).
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// checkpointIndex is a checkpoint's position in server.Checkpoints(), -1 for an unknown ID.
func checkpointIndex(id string) int {
	for i, c := range server.Checkpoints() {
		if c.ID() == id {
			return i
		}
	}
	return -1
}

// placeText is a place as the transcript names it: the track step, "serving", or the
// checkpoint; "—" for none.
func placeText(tr *i18n.Strings, p Place) string {
	switch {
	case p.Step != "":
		return p.Step
	case p.Served:
		return tr.ClassAtServing
	case p.Checkpoint != "":
		return p.Checkpoint
	}
	return "—"
}
