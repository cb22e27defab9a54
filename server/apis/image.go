package apis

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// ImageReference is a container image reference split into its parts. kube-apiserver splits
// images with k8s.io/kubernetes pkg/util/parsers.ParseImageName, which parses them with the
// docker reference library (github.com/distribution/reference); ParseImageReference follows
// the same grammar:
//
//	reference := name [ ":" tag ] [ "@" digest ]
//	name      := [ domain "/" ] path-component [ "/" path-component ]*
//	domain    := host [ ":" port ]
//
// A colon is a tag separator only after the last slash: in "localhost:5000/app" it separates
// a registry host from its port, and that image has no tag.
type ImageReference struct {
	// Name is the repository, with its registry host when one is given: "nginx",
	// "localhost:5000/team/app".
	Name string
	// Tag is the tag as written, "" when there is none.
	Tag string
	// Digest is "algorithm:hex" as written, "" when there is none.
	Digest string
}

// Parts of the reference grammar. Each is matched against one part already split off, so the
// expressions stay small; all are anchored.
var (
	pathComponentRE = lazyRegexp(`^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$`)
	hostRE          = lazyRegexp(`^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?$`)
	tagRE           = lazyRegexp(`^\w[\w.-]{0,127}$`)
	identifierRE    = lazyRegexp(`^[a-f0-9]{64}$`)
	lowerHexRE      = lazyRegexp(`^[a-f0-9]+$`)
)

// digestHexLen is the hex length of the digest algorithms Kubernetes accepts: the library
// knows only algorithms registered with crypto, and pkg/util/parsers registers these.
var digestHexLen = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// maxImagePath is the longest repository path (the name without its domain) the grammar
// allows.
const maxImagePath = 255

// ParseImageReference splits image into name, tag and digest, or says why it is not a valid
// image reference (empty, upper case in the repository path, a malformed host, tag or digest,
// a bare 64-hex-digit identifier).
func ParseImageReference(image string) (ImageReference, error) {
	if image == "" {
		return ImageReference{}, errors.New("image reference is empty")
	}
	if identifierRE().MatchString(image) {
		return ImageReference{}, fmt.Errorf("%q is an image ID, not a repository name", image)
	}
	var ref ImageReference
	rest, digest, hasDigest := strings.Cut(image, "@")
	if hasDigest {
		if err := checkDigest(digest); err != nil {
			return ImageReference{}, err
		}
		ref.Digest = digest
	}
	ref.Name = rest
	if i := strings.LastIndexByte(rest, ':'); i > strings.LastIndexByte(rest, '/') {
		ref.Name, ref.Tag = rest[:i], rest[i+1:]
		if !tagRE().MatchString(ref.Tag) {
			return ImageReference{}, fmt.Errorf("invalid tag %q: want a letter, digit or _, then up to 127 of those or . and -", ref.Tag)
		}
	}
	if err := checkImageName(ref.Name); err != nil {
		return ImageReference{}, err
	}
	return ref, nil
}

// checkImageName checks a reference's name. Its first component is a registry host when
// other components follow and it contains "." or ":", is "localhost", or has upper case
// letters (which a path may not have); otherwise every component is part of the path.
func checkImageName(name string) error {
	components := strings.Split(name, "/")
	if first := components[0]; len(components) > 1 &&
		(strings.ContainsAny(first, ".:") || first == "localhost" || strings.ToLower(first) != first) {
		if !hostRE().MatchString(first) {
			return fmt.Errorf("invalid registry host %q", first)
		}
		components = components[1:]
	}
	path := strings.Join(components, "/")
	if len(path) > maxImagePath {
		return fmt.Errorf("repository name %q is longer than %d characters", path, maxImagePath)
	}
	for _, c := range components {
		if pathComponentRE().MatchString(c) {
			continue
		}
		if strings.ToLower(c) != c {
			return fmt.Errorf("repository name %q must be lowercase", path)
		}
		return fmt.Errorf("invalid repository name %q: each part between slashes is lowercase letters and digits, joined by one . or _, two _, or dashes", path)
	}
	return nil
}

// checkDigest checks a digest: a supported algorithm, a colon and the hash in lowercase hex
// of the algorithm's length.
func checkDigest(digest string) error {
	algorithm, hex, ok := strings.Cut(digest, ":")
	want, known := digestHexLen[algorithm]
	switch {
	case !ok || algorithm == "" || hex == "":
		return fmt.Errorf("invalid digest %q: want algorithm:hex, e.g. sha256:<64 hex digits>", digest)
	case !known:
		return fmt.Errorf("invalid digest %q: unsupported algorithm %q (sha256, sha384 or sha512)", digest, algorithm)
	case len(hex) != want || !lowerHexRE().MatchString(hex):
		return fmt.Errorf("invalid digest %q: %s wants %d lowercase hex digits", digest, algorithm, want)
	}
	return nil
}

// pullAlways reports whether a container of image gets imagePullPolicy Always by default, as
// upstream's SetDefaults_Container decides: when the tag is "latest", written or implied by
// giving neither tag nor digest. An image that does not parse gets IfNotPresent, as upstream
// ignores the parse error (validation reports it elsewhere).
func pullAlways(image string) bool {
	ref, err := ParseImageReference(image)
	if err != nil {
		return false
	}
	return ref.Tag == "latest" || (ref.Tag == "" && ref.Digest == "")
}

// lazyRegexp compiles expr when it is first used rather than during package initialisation,
// which every kubewalk command pays.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
