package server

// This file holds what the server says about its own version: GET /version answers from
// kubewalkVersion.Info, which reads what the Go toolchain recorded in the binary
// (debug.ReadBuildInfo) rather than the library's -ldflags placeholders, so that a plain
// `go build` or `go run ./cmd/kubewalk` reports the truth: the source's revision when the
// toolchain stamped it, "unknown" when it did not, never "$Format:%H$" or a 1970 date.

import (
	"runtime/debug"
	"strings"
	"time"

	apiversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/component-base/compatibility"
)

// Unknown is what version fields hold when the binary records nothing about them.
const Unknown = "unknown"

// Build is what the Go toolchain recorded about the kubewalk binary it built.
// `go build` and `go install` in a git checkout record the revision (vcs.revision), the
// commit's time (vcs.time) and whether the tree had uncommitted changes (vcs.modified);
// `go run`, `go test`, -buildvcs=false and a source tree without .git record none of them.
type Build struct {
	// Version is the main module's version: a tag or pseudo-version, "" when the toolchain
	// knew none ("(devel)").
	Version string
	// Revision is the commit the binary was built from, "" when not recorded.
	Revision string
	// Time is that commit's time, zero when not recorded.
	Time time.Time
	// Modified says the tree had uncommitted changes; meaningful only when Revision is set.
	Modified bool
	// GoVersion is the toolchain that built the binary.
	GoVersion string

	deps map[string]string
}

// ReadBuild returns what the binary records about its own build. Without build information
// (a binary built without module support) every field is empty.
func ReadBuild() Build {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Build{}
	}
	return BuildFrom(info)
}

// BuildFrom reads a Build out of the toolchain's build information.
func BuildFrom(info *debug.BuildInfo) Build {
	b := Build{GoVersion: info.GoVersion, deps: map[string]string{}}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				b.Time = t.UTC()
			}
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	for _, d := range info.Deps {
		v := d.Version
		if d.Replace != nil && d.Replace.Version != "" {
			v = d.Replace.Version
		}
		b.deps[d.Path] = v
	}
	return b
}

// Module returns the version of a module compiled into the binary ("v0.37.2"), or "".
func (b Build) Module(path string) string { return b.deps[path] }

// Commit returns the revision, or Unknown.
func (b Build) Commit() string {
	if b.Revision == "" {
		return Unknown
	}
	return b.Revision
}

// TreeState returns "clean" or "dirty" when the revision is recorded, else Unknown.
func (b Build) TreeState() string {
	switch {
	case b.Revision == "":
		return Unknown
	case b.Modified:
		return "dirty"
	default:
		return "clean"
	}
}

// Date returns the build date as /version reports it: the commit's time in ISO 8601 (UTC),
// as Kubernetes' own reproducible builds do (hack/lib/version.sh takes SOURCE_DATE_EPOCH, the
// commit time), or Unknown. A binary does not record when it was linked.
func (b Build) Date() string {
	if b.Time.IsZero() {
		return Unknown
	}
	return b.Time.Format("2006-01-02T15:04:05Z")
}

// KubernetesRelease maps a k8s.io staging module's version to the Kubernetes release it is
// tagged with: v0.37.2 → v1.37.2 (the staging repositories are tagged v0.N.P for
// Kubernetes v1.N.P). It returns "" for anything else, such as a pseudo-version.
func KubernetesRelease(module string) string {
	rest, ok := strings.CutPrefix(module, "v0.")
	if !ok || rest == "" {
		return ""
	}
	for _, r := range rest {
		if (r < '0' || r > '9') && r != '.' {
			return ""
		}
	}
	if strings.Count(rest, ".") != 1 {
		return ""
	}
	return "v1." + rest
}

// kubewalkVersion reports the server's version: a git version that names kubewalk (the
// library's default, "v0.0.0-master+$Format:%H$", confuses learners reading `kubectl
// version`), and kubewalk's own commit, tree state and build date from the binary's build
// information, or "unknown".
type kubewalkVersion struct {
	compatibility.EffectiveVersion
	build Build
}

// Info returns the version information GET /version answers with.
func (v kubewalkVersion) Info() *apiversion.Info {
	info := v.EffectiveVersion.Info()
	if info == nil {
		return nil
	}
	info.GitVersion = "v" + KubernetesVersion + "+kubewalk"
	info.GitCommit = v.build.Commit()
	info.GitTreeState = v.build.TreeState()
	info.BuildDate = v.build.Date()
	return info
}
