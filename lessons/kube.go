package lessons

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/kubewalk/kubewalk/server"
)

// KubeModule is the module whose source a kube: location names: kube-apiserver's own code,
// read from the module cache and never imported.
const KubeModule = "k8s.io/kubernetes"

// KubeVersion is the k8s.io/kubernetes release the kube: locations are written against: the
// release whose k8s.io/apiserver (v0.37.2) kubewalk is built on.
const KubeVersion = "v" + server.KubernetesVersion

// KubeDownloadSize is roughly what `go mod download k8s.io/kubernetes@v1.37.2` puts in the
// module cache (the extracted source; the zip it fetches is about 21 MB), for the offer to fetch
// it.
const KubeDownloadSize = "124 MB"

// KubeRef is a parsed kube: location: a Go file of k8s.io/kubernetes, slash-separated and
// relative to the module root, and a symbol declared in it, in anchor syntax.
type KubeRef struct {
	File   string
	Symbol string
}

// String renders the location as a lesson writes it: "pkg/x/config.go Config.New".
func (k KubeRef) String() string { return k.File + " " + k.Symbol }

// ParseKube parses a kube: location, "cmd/kube-apiserver/app/server.go Run": a .go file inside
// k8s.io/kubernetes (not a staging module: k8s.io/apiserver symbols go in upstream:), a space,
// and a func, a method (T.M or (*T).M), a type, a var or a const declared in that file.
func ParseKube(s string) (KubeRef, error) {
	fields := strings.Fields(s)
	if len(fields) != 2 {
		return KubeRef{}, fmt.Errorf("want a file and a symbol, like %q", "pkg/controlplane/apiserver/config.go BuildGenericConfig")
	}
	file, sym := fields[0], fields[1]
	if !strings.HasSuffix(file, ".go") || path.IsAbs(file) || path.Clean(file) != file || strings.HasPrefix(file, "../") {
		return KubeRef{}, fmt.Errorf("%q is not a Go file path inside %s (like pkg/controlplane/instance.go)", file, KubeModule)
	}
	if strings.HasPrefix(file, "staging/") {
		return KubeRef{}, fmt.Errorf("%s is in a staging module, not in %s: name it in upstream: instead", file, KubeModule)
	}
	if _, err := parseSymbol(sym); err != nil {
		return KubeRef{}, err
	}
	return KubeRef{File: file, Symbol: sym}, nil
}

// Kube resolves a kube: location in the k8s.io/kubernetes source at modDir: the symbol must be
// declared in the file the location names. Location.File is relative to modDir.
func (r *Resolver) Kube(modDir, location string) (Location, error) {
	ref, err := ParseKube(location)
	if err != nil {
		return Location{}, fmt.Errorf("kube %q: %w", location, err)
	}
	if modDir == "" {
		return Location{}, fmt.Errorf("kube %q: no %s module directory", location, KubeModule)
	}
	loc, err := r.find(os.DirFS(modDir), path.Dir(ref.File), ref.Symbol, "")
	if err != nil {
		return Location{}, fmt.Errorf("kube %q: %w", location, err)
	}
	if loc.File != ref.File {
		return Location{}, fmt.Errorf("kube %q: %w", location, &wrongFileError{sym: ref.Symbol, want: ref.File, got: loc.File})
	}
	return loc, nil
}

// wrongFileError says a kube: symbol is declared in another file of the package.
type wrongFileError struct{ sym, want, got string }

func (e *wrongFileError) Error() string {
	return fmt.Sprintf("%s is declared in %s, not in %s", e.sym, e.got, e.want)
}

// KubeModuleDir returns the directory of k8s.io/kubernetes KubeVersion in the Go module cache.
// The error wraps fs.ErrNotExist when the module has not been downloaded, and names the command
// that downloads it.
func KubeModuleDir() (string, error) {
	return cachedModuleDir(KubeModule, KubeVersion)
}

// cachedModuleDir returns where the module cache holds modPath at version, if it does.
func cachedModuleDir(modPath, version string) (string, error) {
	cache := moduleCache(goEnvGOMODCACHE, os.Getenv, os.UserHomeDir)
	if cache == "" {
		return "", errors.New("cannot find the Go module cache: set GOMODCACHE or GOPATH")
	}
	dir := moduleDir(cache, modPath, version)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s %s is not in the Go module cache (%s): run `go mod download %s@%s`: %w",
			modPath, version, dir, modPath, version, os.ErrNotExist)
	}
	return dir, nil
}
