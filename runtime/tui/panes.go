package tui

import (
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/runtime/tui/walk"
)

// The walkthrough's panes live in their own packages (runtime/tui/source, runtime/tui/walk); these aliases keep
// the names runtime/cli and the lessons' Content use.

type (
	// Location is resolved source (source.Location).
	Location = source.Location
	// KubeSource is a Content that resolves kube: locations (source.KubeSource).
	KubeSource = source.KubeSource
	// SourceBrowser is a Content that hands out kubewalk's server source (source.SourceBrowser).
	SourceBrowser = source.SourceBrowser
	// MissingModuleError says a module is not in the Go module cache (source.MissingModuleError).
	MissingModuleError = source.MissingModuleError
	// Fetch downloads a module into the Go module cache (source.Fetch).
	Fetch = source.Fetch
	// Step is what the screen shows for one checkpoint (walk.Step).
	Step = walk.Step
)

// PrewarmSource lexes kubewalk's own server files into the process's cache
// (source.PrewarmSource).
func PrewarmSource() { source.PrewarmSource() }

// stripANSI removes styling, for tests of emptiness.
func stripANSI(s string) string { return ansi.Strip(s) }

// CreateDemo creates the configmap the lessons read from serve on (walk.CreateDemo).
const CreateDemo = walk.CreateDemo
