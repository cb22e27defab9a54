package exercises

// Backend is what the exercises view needs (runtime/cli adapts runtime/exercises to it; the
// root package runtime/tui calls it Exercises). Implementations are safe for concurrent use and
// never block for long: the view calls them from a tea.Cmd, off the update loop.
type Backend interface {
	// List returns every exercise in lesson order with its current state.
	List() []Exercise
	// Changed is signalled whenever any exercise's state changes (coalesced; never closed while
	// the TUI runs).
	Changed() <-chan struct{}
	// RevealHint reveals the next hint level of exercise id (1 nudge, 2 pointer, 3 solution),
	// records that it was shown and returns the exercise updated.
	RevealHint(id string) (Exercise, error)
	// Answer submits a typed answer, or for a multiple-choice exercise the chosen option's
	// number ("1".."n"); it returns the exercise updated (State Done when right, else LastTry
	// says why not).
	Answer(id, answer string) (Exercise, error)
}

// State is where an exercise stands.
type State int

const (
	Locked     State = iota // its phase is not reached yet
	NeedsServe              // reached, but its check needs a serving server
	Open
	Done
)

// Input is how the learner answers.
type Input int

const (
	InputLive   Input = iota // checked against the live server; nothing to type
	InputText                // a typed answer
	InputChoice              // one of Choices
)

// Exercise is one exercise as the view shows it, in the learner's language.
type Exercise struct {
	ID, Lesson, Phase string // Lesson is the lesson id (e.g. "03-authz"), Phase its phase
	LessonTitle       string
	Title, Goal       string // Goal may hold inline markdown (code spans)
	Input             Input
	Choices           []string
	State             State
	Hints             []string // the levels revealed so far, in order
	HintLevels        int      // how many levels exist (3)
	Why               string   // when done: why it passed (e.g. "allowed by RoleBinding bob-cm")
	LastTry           string   // after a wrong answer: what was wrong, in a few words
}
