package lessons

import (
	"path"
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/runtime/live"
	"github.com/kubewalk/kubewalk/server"
)

// TestContent requires the embedded lessons, in every language, to cover the server's
// checkpoints and to resolve every anchor in server/ and every upstream symbol in the pinned
// k8s.io/apiserver. It is what `kubewalk lessons check` runs.
func TestContent(t *testing.T) {
	names, err := lessonFiles(content.FS, DefaultLang)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("content/en has no lesson files (NN-<phase>.md): the binary would embed no lessons")
	}
	dirs, errs := ModuleDirs()
	for _, err := range errs {
		t.Errorf("upstream symbols cannot be checked: %v", err)
	}
	kubeDir := kubeSource(t)
	for _, lang := range []string{DefaultLang, "zh-CN"} {
		ls, err := Load(content.FS, lang)
		if err != nil {
			t.Errorf("Load(%s):\n%v", lang, prefixed(asProblems(err)))
		}
		if len(ls) == 0 {
			t.Errorf("Load(%s) returned no lessons", lang)
		}
	}
	known := Known{Checkpoints: server.Checkpoints(), Probes: live.IDs()}
	src := Sources{Ours: server.SourceFS, Upstream: dirs, Kube: kubeDir}
	if ps := CheckContent(content.FS, known, src); len(ps) > 0 {
		t.Errorf("%d problems in the lesson content:\n%s", len(ps), prefixed(ps))
	}
}

// prefixed renders problems one per line with repository paths (content/en/...).
func prefixed(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		if p.File != "" {
			p.File = path.Join("content", p.File)
		}
		b.WriteString(p.Error() + "\n")
	}
	return b.String()
}
