package lessons

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/content"
)

// codeGenModule is the module whose generators the article's code-generation table names: a
// tool kubewalk's go.mod pins, so its source is in the module cache once the build has run.
const codeGenModule = "k8s.io/code-generator"

// TestArticleTable resolves every location in the "where" column of the article lesson's
// tables: a k8s.io/apiserver or k8s.io/apimachinery symbol in the pinned module, a
// k8s.io/code-generator symbol or file at the version go.mod pins, a k8s.io/kubernetes "file
// symbol" in v1.37.2 (downloaded when absent). In a row that names command-line flags, each
// flag of the middle column must be defined in the source the row points at, and each flag of
// the article's column that the middle column does not repeat must not be: it is gone.
func TestArticleTable(t *testing.T) {
	data, err := content.FS.ReadFile("en/26-article.md")
	if err != nil {
		t.Fatal(err)
	}
	dirs, errs := ModuleDirs()
	for _, err := range errs {
		t.Error(err)
	}
	genDir, _, err := ModuleDir(codeGenModule)
	if err != nil {
		t.Error(err)
	}
	kubeDir := kubeSource(t)
	res := NewResolver()
	code := regexp.MustCompile("`([^`]+)`")
	rows, flagRows := 0, 0
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| `") || len(cells) != 3 {
			continue
		}
		rows++
		locs := code.FindAllStringSubmatch(cells[2], -1)
		if len(locs) == 0 {
			t.Errorf("row %q names no location", line)
		}
		var sources []string // the source of each location, for the flag checks
		for _, m := range locs {
			loc := m[1]
			var l Location
			var err error
			switch mod, ok := UpstreamModuleOf(loc); {
			case ok:
				l, err = res.Module(mod, dirs[mod], loc)
			case strings.HasPrefix(loc, codeGenModule+"/"):
				l, err = codeGenLocation(res, genDir, loc)
			default:
				l, err = res.Kube(kubeDir, loc)
			}
			if err != nil {
				t.Errorf("row %q: %v", cells[0], err)
				continue
			}
			sources = append(sources, lines(l))
		}
		before, now := flagsIn(code, cells[0]), flagsIn(code, cells[1])
		if len(before)+len(now) == 0 || len(sources) != len(locs) {
			continue
		}
		flagRows++
		src := strings.Join(sources, "\n")
		for _, f := range now {
			if !definesFlag(src, f) {
				t.Errorf("row %q: the v1.37.2 column names %s, which %s does not define", cells[0], f, cells[2])
			}
		}
		for _, f := range before {
			if !contains(now, f) && definesFlag(src, f) {
				t.Errorf("row %q: %s still defines %s, which the row says is gone or renamed", cells[0], cells[2], f)
			}
		}
	}
	if rows < 20 {
		t.Errorf("found %d table rows in en/26-article.md, want at least 20", rows)
	}
	if flagRows < 4 {
		t.Errorf("found %d rows naming code-generator flags, want at least 4", flagRows)
	}
}

// codeGenLocation resolves a k8s.io/code-generator location: a file of the module, such as
// k8s.io/code-generator/kube_codegen.sh (the whole file), or an import path and a symbol.
func codeGenLocation(res *Resolver, dir, loc string) (Location, error) {
	if dir == "" {
		return Location{}, fmt.Errorf("%s: no %s module directory", loc, codeGenModule)
	}
	rel := strings.TrimPrefix(loc, codeGenModule+"/")
	if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel))); err == nil && fi.Mode().IsRegular() {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return Location{}, err
		}
		n := strings.Count(string(src), "\n") + 1
		return Location{File: rel, StartLine: 1, EndLine: n, FocusStart: 1, FocusEnd: n, Source: src}, nil
	}
	return res.Module(codeGenModule, dir, loc)
}

// flagsIn returns the code spans of cell that are command-line flags: "--name" or "-X".
func flagsIn(code *regexp.Regexp, cell string) []string {
	var out []string
	for _, m := range code.FindAllStringSubmatch(cell, -1) {
		if regexp.MustCompile(`^(--[a-z][a-z0-9-]*|-[A-Za-z])$`).MatchString(m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// definesFlag reports whether src defines or passes flag: Go source registers "--name" as the
// string literal "name" (and a shorthand "-X" as "X"); a shell script writes it out.
func definesFlag(src, flag string) bool {
	name := strings.TrimLeft(flag, "-")
	return strings.Contains(src, `"`+name+`"`) || regexp.MustCompile(`(^|\s)`+regexp.QuoteMeta(flag)+`(\s|=|$)`).MatchString(src)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
