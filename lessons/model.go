// Package lessons loads kubewalk's lesson content, resolves the source anchors the lessons
// point at (in kubewalk's own server/ code and in k8s.io/apiserver at the pinned version),
// validates the content against the server's checkpoints and keeps a learner's progress.
//
// A startup lesson is one Markdown file per phase, content/<lang>/NN-<phase>.md; a lesson of
// the after-serve track is content/<lang>/2N-<id>.md. Each file has YAML front matter with the
// lesson's metadata and one entry per step, then one "## <step id>" section per step. English
// (content/en) is the source of truth; another language's file of the same name overlays only
// the strings (lesson title, step titles, step texts), string by string.
package lessons

// DefaultLang is the language every lesson is written in first; its files carry the metadata.
const DefaultLang = "en"

// TrackAfterServe is the track of the lessons that read the running server: they open once
// startup has finished and the server serves, and their steps have no checkpoint.
const TrackAfterServe = "after-serve"

// Tracks lists the lesson tracks a lesson may name instead of a phase.
func Tracks() []string { return []string{TrackAfterServe} }

// Lesson is one phase's walkthrough.
type Lesson struct {
	// ID is the lesson's key, unique across lessons (progress is keyed by it).
	ID string
	// Phase is the server phase the lesson walks through; "" for a track lesson.
	Phase string
	// Track is the lesson track (TrackAfterServe) of a lesson that belongs to no phase; "" for
	// a startup lesson. A lesson has a phase or a track, never both.
	Track string
	// Title is the lesson's title in the requested language, or English.
	Title string
	// Kube optionally says where this lives in kube-apiserver, in the form of Step.Kube.
	Kube string
	// Steps are the lesson's steps in file order.
	Steps []Step
	// Lang is the language the lesson was loaded in (Load's lang): the language the learner
	// chose, for the screens around the lesson too, even where a string of the lesson is
	// still English.
	Lang string
	// File is the English file the metadata came from, as a path in the loaded fs.FS
	// (e.g. "en/02-authn.md").
	File string

	// notes are problems found while loading that do not stop the lesson from being used
	// (a translation naming an unknown step, text outside any step, ...); Check reports them.
	notes []Problem
}

// Step is one checkpoint's worth of lesson, or one step of a track lesson.
type Step struct {
	// ID is the step's key, unique within the lesson; its text is the "## <ID>" section.
	ID string
	// Checkpoint is the server checkpoint ID ("phase/name") the step explains; "" in a track
	// lesson.
	Checkpoint string
	// Title is the step's title in the requested language, or English.
	Title string
	// Anchor is the Go symbol in kubewalk's server/ source the step shows: a func, a method
	// ("(*T).M" or "T.M") or a type, optionally qualified by a subpackage ("admit.(*T).M").
	Anchor string
	// Focus is an optional substring of the anchor's source; the lines of its first match are
	// emphasised.
	Focus string
	// Upstream is an optional symbol in k8s.io/apiserver or k8s.io/apimachinery (see
	// UpstreamModules): import path + "." + symbol.
	Upstream string
	// Kube optionally says where this step lives in kube-apiserver: a file of k8s.io/kubernetes
	// and a symbol declared in it, "pkg/controlplane/apiserver/config.go BuildGenericConfig".
	Kube string
	// Live is an optional live probe id (runtime/live) whose tree the state pane shows for the
	// step; only track lessons have them.
	Live string
	// Text is the step's Markdown body in the requested language, or English.
	Text string
	// Lang is the language Text is actually in.
	Lang string
}
