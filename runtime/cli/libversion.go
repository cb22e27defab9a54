package cli

// This file stamps the Kubernetes libraries' build variables, which their release builds set
// with -ldflags -X and a plain `go build` or `go run` leaves at placeholders
// ("v0.0.0-master+$Format:%H$", "$Format:%H$", 1970). The in-process kubectl (`:k`) reads
// them: `kubectl version` prints component-base's as its client version (and with -o json
// fails to parse the placeholder), and client-go builds every request's User-Agent from its
// own copy. kubewalk compiles k8s.io/kubectl v0.37.2, that is Kubernetes v1.37.2's kubectl;
// the module versions in the binary's build information say so without -ldflags.
//
// The variables are unexported and have no setter for the version itself
// (component-base's SetDynamicVersion accepts only the placeholder's v0.0.0), so they are
// reached with go:linkname, as -ldflags -X would reach them at link time.

import (
	"strconv"
	"sync"
	_ "unsafe" // go:linkname

	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/version"

	"github.com/kubewalk/kubewalk/server"
)

//go:linkname baseGitMajor k8s.io/component-base/version.gitMajor
var baseGitMajor string

//go:linkname baseGitMinor k8s.io/component-base/version.gitMinor
var baseGitMinor string

//go:linkname baseGitVersion k8s.io/component-base/version.gitVersion
var baseGitVersion string

//go:linkname baseGitCommit k8s.io/component-base/version.gitCommit
var baseGitCommit string

//go:linkname baseGitTreeState k8s.io/component-base/version.gitTreeState
var baseGitTreeState string

//go:linkname baseBuildDate k8s.io/component-base/version.buildDate
var baseBuildDate string

//go:linkname clientGitMajor k8s.io/client-go/pkg/version.gitMajor
var clientGitMajor string

//go:linkname clientGitMinor k8s.io/client-go/pkg/version.gitMinor
var clientGitMinor string

//go:linkname clientGitVersion k8s.io/client-go/pkg/version.gitVersion
var clientGitVersion string

//go:linkname clientGitCommit k8s.io/client-go/pkg/version.gitCommit
var clientGitCommit string

//go:linkname clientGitTreeState k8s.io/client-go/pkg/version.gitTreeState
var clientGitTreeState string

//go:linkname clientBuildDate k8s.io/client-go/pkg/version.buildDate
var clientBuildDate string

var stampOnce sync.Once

// stampLibraryVersions sets the libraries' build variables once per process, before any
// command runs.
func stampLibraryVersions() {
	stampOnce.Do(func() {
		s := libraryStamp(server.ReadBuild())
		baseGitMajor, baseGitMinor, baseGitVersion = s.major, s.minor, s.gitVersion
		baseGitCommit, baseGitTreeState, baseBuildDate = s.commit, s.treeState, s.buildDate
		clientGitMajor, clientGitMinor, clientGitVersion = s.major, s.minor, s.gitVersion
		clientGitCommit, clientGitTreeState, clientBuildDate = s.commit, s.treeState, s.buildDate
		// component-base copied gitVersion at init; its setter accepts the value it now
		// holds as a no-op change.
		if err := version.SetDynamicVersion(s.gitVersion); err != nil {
			panic("stamp component-base version: " + err.Error())
		}
	})
}

// stamp is what the libraries' build variables are set to.
type stamp struct {
	major, minor, gitVersion, commit, treeState, buildDate string
}

// libraryStamp derives the stamp from the binary's build information: the Kubernetes release
// of the k8s.io/kubectl module compiled in (v0.37.2 → v1.37.2; server.KubernetesVersion if
// the binary records none) and the build date of kubewalk itself, which the library was
// compiled into. Kubernetes' commit for that release is not recorded anywhere: "unknown".
func libraryStamp(b server.Build) stamp {
	gv := server.KubernetesRelease(b.Module("k8s.io/kubectl"))
	if gv == "" {
		gv = "v" + server.KubernetesVersion
	}
	s := stamp{gitVersion: gv, commit: server.Unknown, treeState: server.Unknown, buildDate: b.Date()}
	if v, err := utilversion.ParseSemantic(gv); err == nil {
		s.major, s.minor = strconv.FormatUint(uint64(v.Major()), 10), strconv.FormatUint(uint64(v.Minor()), 10)
	}
	return s
}
