package lessons

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/content"
)

// TestArticleTable resolves every location in the "where" column of the article lesson's
// tables: a k8s.io/apiserver or k8s.io/apimachinery symbol in the pinned module, a
// k8s.io/kubernetes "file symbol" in v1.37.2 (downloaded when absent).
func TestArticleTable(t *testing.T) {
	data, err := content.FS.ReadFile("en/26-article.md")
	if err != nil {
		t.Fatal(err)
	}
	dirs, errs := ModuleDirs()
	for _, err := range errs {
		t.Error(err)
	}
	kubeDir := kubeSource(t)
	res := NewResolver()
	code := regexp.MustCompile("`([^`]+)`")
	rows := 0
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
		for _, m := range locs {
			loc := m[1]
			if mod, ok := UpstreamModuleOf(loc); ok {
				if _, err := res.Module(mod, dirs[mod], loc); err != nil {
					t.Errorf("row %q: %v", cells[0], err)
				}
				continue
			}
			if _, err := res.Kube(kubeDir, loc); err != nil {
				t.Errorf("row %q: %v", cells[0], err)
			}
		}
	}
	if rows < 15 {
		t.Errorf("found %d table rows in en/26-article.md, want at least 15", rows)
	}
}
