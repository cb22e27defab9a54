package learn_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tagChanges are the edits of v1/types.go the own-group lesson's clients step describes: each
// old line must occur exactly once.
var tagChanges = []struct{ old, new string }{
	{"// +genclient:nonNamespaced\n", ""},
	{"// +genclient:onlyVerbs=create,get,list,watch,delete\n", "// +genclient:noVerbs\n"},
	{"// +genclient:method=GetStatus,verb=get,subresource=status\n", ""},
}

// TestClientTagVariants checks what the clients step says changes when a tag changes: it
// regenerates the clientset, listers and informers in a copy of the module whose v1 types have
// the tags of tagChanges, and checks the generated code of the copy and of the checked-in tree
// (which has the tags as they are) against each claim. It runs the pinned generators offline,
// as TestGeneratedFilesUpToDate does.
func TestClientTagVariants(t *testing.T) {
	root := moduleRoot(t)
	work := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum"} {
		copyFile(t, filepath.Join(root, f), filepath.Join(work, f))
	}
	// The group's sources, and server/generated's doc.go and header without the output trees.
	copyTree(t, root, work, filepath.FromSlash("server/apis/learn"), func(rel string) bool {
		return !strings.HasSuffix(rel, "_test.go")
	})
	copyTree(t, root, work, filepath.FromSlash("server/generated"), func(rel string) bool {
		return filepath.Dir(rel) == filepath.FromSlash("server/generated")
	})
	types := filepath.Join(work, "server", "apis", "learn", "v1", "types.go")
	src, err := os.ReadFile(types)
	if err != nil {
		t.Fatal(err)
	}
	edited := string(src)
	for _, c := range tagChanges {
		if n := strings.Count(edited, c.old); n != 1 {
			t.Fatalf("v1/types.go has %d lines %q, want 1", n, strings.TrimSpace(c.old))
		}
		edited = strings.Replace(edited, c.old, c.new, 1)
	}
	if err := os.WriteFile(types, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "generate", "./server/generated")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go generate ./server/generated with the tags changed: %v\n%s", err, out)
	}

	const (
		typed     = "server/generated/clientset/versioned/typed/learn/v1/"
		listers   = "server/generated/listers/learn/v1/"
		informers = "server/generated/informers/externalversions/learn/v1/"
	)
	claims := []struct {
		name string
		// check reports whether the claim holds in the generated tree under dir.
		check func(t *testing.T, dir string) bool
		// asTagged and changed are what check must report for the checked-in tree and for
		// the tree generated with tagChanges.
		asTagged, changed bool
	}{
		{"Courses takes a namespace", func(t *testing.T, dir string) bool {
			m, _ := interfaceMethods(t, filepath.Join(dir, typed+"course.go"), "CoursesGetter")
			return m["Courses"] == 1
		}, false, true},
		{"CourseLister has Courses(namespace)", func(t *testing.T, dir string) bool {
			m, _ := interfaceMethods(t, filepath.Join(dir, listers+"course.go"), "CourseLister")
			_, ok := m["Courses"]
			return ok
		}, false, true},
		{"AttemptInterface has no methods", func(t *testing.T, dir string) bool {
			m, ok := interfaceMethods(t, filepath.Join(dir, typed+"attempt.go"), "AttemptInterface")
			return ok && len(m) == 0
		}, false, true},
		{"an Attempt informer is written", func(t *testing.T, dir string) bool {
			return exists(filepath.Join(dir, informers+"attempt.go"))
		}, true, false},
		{"an Attempt lister is written", func(t *testing.T, dir string) bool {
			return exists(filepath.Join(dir, listers+"attempt.go"))
		}, true, true},
		{"LessonInterface has GetStatus", func(t *testing.T, dir string) bool {
			m, _ := interfaceMethods(t, filepath.Join(dir, typed+"lesson.go"), "LessonInterface")
			_, ok := m["GetStatus"]
			return ok
		}, true, false},
		{"LessonInterface has UpdateStatus", func(t *testing.T, dir string) bool {
			m, _ := interfaceMethods(t, filepath.Join(dir, typed+"lesson.go"), "LessonInterface")
			_, ok := m["UpdateStatus"]
			return ok
		}, true, true},
	}
	for _, c := range claims {
		t.Run(c.name, func(t *testing.T) {
			if got := c.check(t, root); got != c.asTagged {
				t.Errorf("checked-in tree: %v, want %v", got, c.asTagged)
			}
			if got := c.check(t, work); got != c.changed {
				t.Errorf("with the tags changed: %v, want %v", got, c.changed)
			}
		})
	}
}

// interfaceMethods parses file and returns the methods the interface type name declares
// itself (not those of embedded interfaces), each with its number of parameters, and whether
// the file declares the interface. A missing file declares nothing.
func interfaceMethods(t *testing.T, file, name string) (map[string]int, bool) {
	t.Helper()
	if !exists(file) {
		return nil, false
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range g.Specs {
			ts, ok := spec.(*ast.TypeSpec)
			if !ok || ts.Name.Name != name {
				continue
			}
			it, ok := ts.Type.(*ast.InterfaceType)
			if !ok {
				t.Fatalf("%s in %s is not an interface", name, file)
			}
			out := map[string]int{}
			for _, m := range it.Methods.List {
				fn, ok := m.Type.(*ast.FuncType)
				if !ok || len(m.Names) == 0 {
					continue // an embedded interface
				}
				n := 0
				for _, p := range fn.Params.List {
					n += max(len(p.Names), 1)
				}
				for _, id := range m.Names {
					out[id.Name] = n
				}
			}
			return out, true
		}
	}
	return nil, false
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
