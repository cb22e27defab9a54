package requests

import (
	"time"

	"github.com/kubewalk/kubewalk/runtime/tracing"
)

// The view reads the running server through the two small interfaces below, so it can be
// tested with fakes. Every method is called from a tea.Cmd, never from the update loop,
// possibly from several goroutines at once: implementations must be safe for concurrent use.
// A nil Requests turns the view into a short explanation; a nil Breakpoints says :break is not
// wired.

// Requests is the trace store the Requests view and the kubectl pane read
// (runtime/tracing.Store).
type Requests interface {
	// List returns the traces f selects, in any order (the view sorts them newest first).
	List(f tracing.Filter) []tracing.Trace
	// Get returns one trace by ID (the request's audit ID).
	Get(id string) (tracing.Trace, bool)
	// Subscribe returns a channel that receives an event whenever a trace changes (events may
	// be coalesced or dropped when the reader is slow: the view re-reads the store after any
	// event) and a function that ends the subscription.
	Subscribe() (<-chan tracing.Event, func())
	// Dropped is how many traces the bounded ring has let go so far.
	Dropped() uint64
}

// Breakpoints holds matching requests at a stage of the chain (runtime/tracing.Breakpoints).
// Which requests are held is re-read whenever Requests reports an event, so a Breakpoints
// needs a Requests beside it: a request being held or let go changes its trace.
type Breakpoints interface {
	// Add sets a breakpoint: STAGE[:user=NAME][,verb=V][,resource=R], STAGE one of
	// authentication, authorization, admission, storage. A bad spec is an error saying why.
	Add(spec string) error
	// Remove deletes a breakpoint given as Add got it (or as List shows it).
	Remove(spec string) error
	// List returns the breakpoints, as specs.
	List() []string
	// Held returns the requests held right now, oldest first.
	Held() []HeldRequest
	// Step lets a held request go on to its next breakpoint stage (it is held again there).
	Step(id string) error
	// Continue lets a held request run to the end without stopping again.
	Continue(id string) error
	// Abort fails a held request at the stage it is held at; the client sees the error.
	Abort(id string) error
}

// HeldRequest is a request a breakpoint holds.
type HeldRequest struct {
	// ID is the request's trace ID (its audit ID).
	ID string
	// Stage is where it is held: tracing.StageAuthentication, tracing.StageAuthorization,
	// tracing.StageMutatingAdmission or tracing.StageStorage.
	Stage string
	// Spec is the breakpoint that matched, as List shows it.
	Spec string
	// Since is when it was held.
	Since time.Time
	// Body is the request's object decoded as YAML, secrets redacted, once the handler has
	// decoded it (admission and storage stages of writes); "" otherwise.
	Body string
}
