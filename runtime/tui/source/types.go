// Package source is the pane that shows a step's code: kubewalk's own server/ function with the
// step's lines emphasised, the upstream k8s.io/apiserver function (u), or, beside it, the
// kube-apiserver function (the side-by-side view); its search across the server's source (/);
// and the downloads (F) of a module the Go module cache lacks. The walkthrough, the
// side-by-side view and the Requests view's stage-code pane each hold a Pane; Fetches are the
// run's downloads, shared by the panes that may offer one.
package source

import "io/fs"

// Location is resolved source: a whole file and the lines to show and emphasise.
type Location struct {
	// File is the path shown in the pane title.
	File string
	// StartLine and EndLine bound the anchor (1-based, inclusive); FocusStart and FocusEnd
	// bound the emphasised lines (0 when there is no focus).
	StartLine, EndLine, FocusStart, FocusEnd int
	// Source is the whole file.
	Source []byte
}

// Resolver finds a step's code. Local and Upstream are called from background goroutines
// (tea.Cmds), possibly concurrently: they must only read. The walkthrough's Content is one.
type Resolver interface {
	// Local resolves an anchor (and optional focus) in kubewalk's own server source.
	Local(anchor, focus string) (Location, error)
	// Upstream resolves a k8s.io/apiserver symbol in the module cache.
	Upstream(symbol string) (Location, error)
}

// KubeSource is implemented by a Resolver that resolves kube: locations in kube-apiserver's
// source (k8s.io/kubernetes in the module cache), for the side-by-side view. Kube is called
// from tea.Cmds and must only read.
type KubeSource interface {
	Kube(location string) (Location, error)
}

// SourceBrowser is implemented by a Resolver that hands out kubewalk's server source, so that
// the pane's search covers every file of it (not only the one on screen) and can open the
// file a match is in.
type SourceBrowser interface {
	// ServerSource returns the server package's source: its files at the root (shown as
	// server/<path>), subpackages in their directories.
	ServerSource() fs.FS
}

// Code is what the pane needs of a step: where its code is, and the title its annotation
// names.
type Code struct {
	// Title is the step's title (the annotation under the focus says it).
	Title string
	// Anchor and Focus locate the code in kubewalk's server/ source.
	Anchor, Focus string
	// Upstream is the k8s.io/apiserver symbol (import path + "." + symbol), or "".
	Upstream string
	// Kube says where this lives in kube-apiserver, or "".
	Kube string
}
