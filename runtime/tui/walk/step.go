package walk

import (
	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/server"
)

// Step is what the screen shows for one checkpoint: the lesson text and where its code is.
type Step struct {
	// ID identifies the step (for caching rendered text); unique across lessons.
	ID string
	// Checkpoint is the server checkpoint ID ("phase/name") the step explains.
	Checkpoint string
	// Title is the step's title.
	Title string
	// Lesson is the title of the lesson (phase) the step belongs to.
	Lesson string
	// Text is the step's Markdown body.
	Text string
	// Anchor and Focus locate the step's code in kubewalk's server/ source.
	Anchor, Focus string
	// Upstream is the k8s.io/apiserver symbol (import path + "." + symbol), or "".
	Upstream string
	// Kube says where this lives in kube-apiserver (the step's, else the lesson's), or "".
	Kube string
	// Live is the live probe (runtime/live) whose tree the state pane shows for a step of the
	// after-serve track, or "".
	Live string
	// LessonID and StepID identify the step in its lesson (for progress).
	LessonID, StepID string
}

// Code is what the source pane needs of the step: where its code is.
func (s Step) Code() source.Code {
	return source.Code{Title: s.Title, Anchor: s.Anchor, Focus: s.Focus, Upstream: s.Upstream, Kube: s.Kube}
}

// Probe is a live probe's last result, with the one before it (for change marks): what the
// state pane shows for a step of the after-serve track.
type Probe struct {
	Tree, Prev *server.Node
	Err        error
}
