package class

import "time"

// The class's backends: runtime/cli adapts runtime/classroom's Host and Student to Host and
// Follower; runtime/tui keeps the old names (tui.ClassHost, tui.ClassPlace, …) as aliases.

// Place is a place in the course a class follows: a startup checkpoint, the serving
// server past the last one, or a step of the after-serve track. Places are ordered along the
// course: every checkpoint, then serving, then the track's steps in order.
type Place struct {
	// Checkpoint is the startup checkpoint's ID ("phase/name"); once the server serves, the
	// last one. "" is no place yet.
	Checkpoint string
	// Served is set once the startup has run to its end and the server serves.
	Served bool
	// Step is the after-serve track step ("lesson/step"), "" outside the track.
	Step string
}

// IsZero reports whether p is no place yet.
func (p Place) IsZero() bool { return p.Checkpoint == "" && !p.Served }

// States of a student on the assigned exercise (Exercise.State), as the class channel
// carries them.
const (
	ExLocked = "locked" // the student's tour has not reached its lesson
	ExOpen   = "open"   // can be done; not tried yet
	ExTrying = "trying" // opened, a hint revealed or a wrong answer given
	ExDone   = "done"
)

// Exercise is a student's state on one exercise: its ID, one of the Ex states and
// how many hints the student has revealed. The zero value is nothing to report.
type Exercise struct {
	ID, State string
	Hints     int
}

// Host is the instructor's side of a follow-along class (runtime/classroom's Host, adapted
// by runtime/cli). The screen keeps the join line in view, publishes every live pause (and,
// once the server serves, every step of the after-serve track shown), shows the class board
// (:board), sends one-line messages (:msg) and assigns an exercise to the class (:assign). Its
// methods are called from tea.Cmds.
type Host interface {
	// JoinLine is the line students type: "kubewalk join ADDR --code CODE".
	JoinLine() string
	// LoopbackOnly reports whether only this machine can join (the default listen address).
	LoopbackOnly() bool
	// Reached publishes the instructor's place; a place that is not further on than one
	// published before is ignored, so followers never go back.
	Reached(p Place)
	// Board is a snapshot of the class.
	Board() Board
	// Changed is closed at the next change of the board.
	Changed() <-chan struct{}
	// Broadcast sends a one-line message to every student.
	Broadcast(text string) error
	// Assign assigns exercise id to the class ("" takes the assignment back). The screen has
	// checked that id names an exercise.
	Assign(id string) error
}

// Board is the class as the board shows it.
type Board struct {
	Title string
	// Place is the instructor's published place, zero before the first.
	Place Place
	// Message is the latest broadcast, "" when none.
	Message string
	// Assigned is the exercise assigned to the class, "" when none.
	Assigned string
	Students []Student
}

// Student is one row of the board.
type Student struct {
	Name string
	// Place is where the student's own tour is, zero before the first report.
	Place Place
	// Done counts the exercises the student has done.
	Done int
	// Exercise is the student's state on the assigned exercise (its ID is the assigned one's
	// once the student has reported on it).
	Exercise Exercise
	// Idle is the time since the student's progress last changed.
	Idle                        time.Duration
	Stuck, Following, Connected bool
}

// Follower is a student's side of a class (runtime/classroom's Student, adapted by
// runtime/cli): while it follows, the screen runs the student's own server forward to the
// instructor's place (never back) — through serve once the instructor's server serves, then
// step by step along the after-serve track — and reports where the student is. Its methods
// never block on the network.
type Follower interface {
	// State is a snapshot of the student's side of the class.
	State() FollowState
	// Changed is closed at the next change of State.
	Changed() <-chan struct{}
	// Detach stops following (free pace); Resync follows again.
	Detach()
	Resync()
	// SetStuck raises or lowers the student's stuck flag on the board.
	SetStuck(stuck bool)
	// Report says where the student's tour is and how many exercises are done.
	Report(p Place, done int)
	// ReportExercise says how the student stands on the assigned exercise.
	ReportExercise(ex Exercise)
}

// FollowState is a student's side of the class.
type FollowState struct {
	// Title is the class title, Name the name the host gave this student.
	Title, Name string
	// Connected is true while the channel to the host is up.
	Connected bool
	// Instructor is the instructor's place, zero before the first.
	Instructor Place
	// Following is false while the student goes at their own pace.
	Following bool
	Stuck     bool
	// Message is the instructor's latest message ("" none) and MessageSeq its number, which
	// changes with every new message.
	Message    string
	MessageSeq int
	// Assigned is the exercise the instructor assigned to the class ("" none) and AssignedSeq
	// its number, which changes with every assignment (the same exercise again included).
	Assigned    string
	AssignedSeq int
	// Ended is set when the instructor ended the class (until a class host admits the student
	// again).
	Ended bool
	// Problem is why the connection is down ("" while connected); Fatal, when set, says the
	// student has left the class for good (their tour goes on).
	Problem, Fatal string
}
