package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/lessons"
)

// TestLessonsListsExercisesDone: `kubewalk lessons` says which exercises are done, not only how
// many: under its lesson, each exercise is ✓ when the progress file says done, ○ otherwise.
func TestLessonsListsExercisesDone(t *testing.T) {
	for _, lang := range []string{"en", "zh-CN"} {
		t.Run(lang, func(t *testing.T) {
			setLocale(t, "C.UTF-8")
			ls, err := lessons.Load(content.FS, lang)
			if err != nil {
				t.Fatal(err)
			}
			exs, err := lessons.LoadExercises(content.FS, lang, ls)
			if err != nil || len(exs) < 2 {
				t.Fatalf("exercises: %d, %v", len(exs), err)
			}
			p := &lessons.Progress{}
			p.ExerciseDone(exs[1].ID, "why", time.Now())
			path := filepath.Join(os.Getenv("XDG_STATE_HOME"), "kubewalk", "progress.json")
			if err := p.Save(path); err != nil {
				t.Fatal(err)
			}
			code, out, stderr := run(t, "lessons", "--lang", lang)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, want := range []string{"    ○ " + exs[0].Title + "\n", "    ✓ " + exs[1].Title + "\n", "    ○ " + exs[2].Title + "\n"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if strings.Count(out, "    ✓ ") != 1 || strings.Count(out, "    ○ ") != len(exs)-1 {
				t.Errorf("%d ✓ and %d ○ for 1 done of %d:\n%s", strings.Count(out, "    ✓ "), strings.Count(out, "    ○ "), len(exs), out)
			}
		})
	}
}
