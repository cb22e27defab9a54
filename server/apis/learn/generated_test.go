package learn_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	// The generators the test runs, imported (and never called) so that building this test
	// puts their modules in the module cache: the test then runs them with GOPROXY=off.
	_ "k8s.io/code-generator/cmd/client-gen/args"
	_ "k8s.io/code-generator/cmd/client-gen/generators"
	_ "k8s.io/code-generator/cmd/conversion-gen/args"
	_ "k8s.io/code-generator/cmd/conversion-gen/generators"
	_ "k8s.io/code-generator/cmd/deepcopy-gen/args"
	_ "k8s.io/code-generator/cmd/deepcopy-gen/generators"
	_ "k8s.io/code-generator/cmd/defaulter-gen/args"
	_ "k8s.io/code-generator/cmd/defaulter-gen/generators"
	_ "k8s.io/code-generator/cmd/informer-gen/args"
	_ "k8s.io/code-generator/cmd/informer-gen/generators"
	_ "k8s.io/code-generator/cmd/lister-gen/args"
	_ "k8s.io/code-generator/cmd/lister-gen/generators"
	_ "k8s.io/gengo/v2"
	_ "k8s.io/kube-openapi/cmd/openapi-gen/args"
	_ "k8s.io/kube-openapi/pkg/generators"
)

// generatedFiles are the files the regeneration commands write, relative to the module root:
// `go generate ./server/apis/learn/...` (deepcopy-gen, conversion-gen, defaulter-gen) and
// `go generate ./server/openapi` (openapi-gen, which also writes our packages' model names).
// The third command, `go generate ./server/generated` (client-gen, lister-gen, informer-gen),
// writes whole trees: generatedTrees.
var generatedFiles = []string{
	"server/apis/learn/zz_generated.deepcopy.go",
	"server/apis/learn/v1/zz_generated.deepcopy.go",
	"server/apis/learn/v1/zz_generated.conversion.go",
	"server/apis/learn/v1/zz_generated.defaults.go",
	"server/apis/learn/v1/zz_generated.model_name.go",
	"server/apis/learn/v1alpha1/zz_generated.deepcopy.go",
	"server/apis/learn/v1alpha1/zz_generated.conversion.go",
	"server/apis/learn/v1alpha1/zz_generated.defaults.go",
	"server/apis/learn/v1alpha1/zz_generated.model_name.go",
	"server/openapi/zz_generated.openapi.go",
	"server/openapi/violation_exceptions.list",
}

// generatedTrees are the directories `go generate ./server/generated` empties and fills: every
// file in them is generated, and a file the generators no longer write (a kind removed, a tag
// that drops a verb's file) is as stale as a changed one.
var generatedTrees = []string{
	"server/generated/clientset",
	"server/generated/listers",
	"server/generated/informers",
}

// generateCommands are the regeneration commands, in the order they must run: the client
// generators read the versioned packages, which the first command completes.
var generateCommands = []string{"./server/apis/learn/...", "./server/openapi", "./server/generated"}

// TestGeneratedFilesUpToDate regenerates every generated file of the group (deepcopy,
// conversion, defaults, and the typed clientset, listers and informers), and the server's
// OpenAPI definitions, in a copy of the module and compares them with the checked-in ones: a
// types.go edited without `go generate` fails here. It runs the generators pinned in go.mod
// through `go tool`, offline (GOPROXY=off): they and their dependencies come from the module
// cache that building this test filled (see the blank imports).
func TestGeneratedFilesUpToDate(t *testing.T) {
	root := moduleRoot(t)
	work := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum"} {
		copyFile(t, filepath.Join(root, f), filepath.Join(work, f))
	}
	generated := map[string]bool{}
	for _, f := range generatedFiles {
		generated[filepath.FromSlash(f)] = true
	}
	inTree := func(rel string) bool {
		for _, tree := range generatedTrees {
			if strings.HasPrefix(rel, filepath.FromSlash(tree)+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	for _, dir := range []string{"server/apis/learn", "server/openapi", "server/generated"} {
		copyTree(t, root, work, filepath.FromSlash(dir), func(rel string) bool {
			return !generated[rel] && !inTree(rel) && !strings.HasSuffix(rel, "_test.go")
		})
	}

	for _, pkgs := range generateCommands {
		cmd := exec.Command("go", "generate", pkgs)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go generate %s in a copy of the module: %v\n%s", pkgs, err, out)
		}
	}

	for _, f := range generatedFiles {
		want, err := os.ReadFile(filepath.Join(work, filepath.FromSlash(f)))
		if err != nil {
			t.Errorf("%s was not generated: %v", f, err)
			continue
		}
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Errorf("%s is not checked in: %v", f, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale (%s); regenerate with `go generate %s`", f, firstDiff(got, want), strings.Join(generateCommands, " "))
		}
	}

	for _, tree := range generatedTrees {
		want, got := treeFiles(t, work, tree), treeFiles(t, root, tree)
		if len(want) == 0 {
			t.Errorf("go generate ./server/generated wrote nothing under %s", tree)
		}
		for rel, w := range want {
			g, ok := got[rel]
			switch {
			case !ok:
				t.Errorf("%s is generated but not checked in; regenerate with `go generate ./server/generated`", rel)
			case !bytes.Equal(g, w):
				t.Errorf("%s is stale (%s); regenerate with `go generate ./server/generated`", rel, firstDiff(g, w))
			}
		}
		for rel := range got {
			if _, ok := want[rel]; !ok {
				t.Errorf("%s is checked in but no longer generated; regenerate with `go generate ./server/generated`", rel)
			}
		}
	}
}

// treeFiles returns the contents of every regular file under root/dir, keyed by its
// slash-separated path relative to root.
func treeFiles(t *testing.T, root, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	base := filepath.Join(root, filepath.FromSlash(dir))
	err := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == base && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// moduleRoot returns the directory of go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// copyTree copies the regular files under root/dir that keep accepts (given their path
// relative to root) to the same place under dst.
func copyTree(t *testing.T, root, dst, dir string, keep func(rel string) bool) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if keep(rel) {
			copyFile(t, path, filepath.Join(dst, rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d is %q, the generator writes %q", i+1, gl, wl)
		}
	}
	return "same lines, different bytes"
}
