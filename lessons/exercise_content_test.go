package lessons_test

import (
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/lessons"
)

// TestExerciseContent checks the embedded exercises in every language: they load without a
// problem, every lesson has at least two, and there are at least 14 in all.
func TestExerciseContent(t *testing.T) {
	if ps := lessons.CheckExercises(content.FS); len(ps) > 0 {
		for _, p := range ps {
			t.Error(p)
		}
	}
	langs, err := lessons.Languages(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range langs {
		ls, _ := lessons.Load(content.FS, lang)
		exs, err := lessons.LoadExercises(content.FS, lang, ls)
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		if len(exs) < 14 {
			t.Errorf("%s: %d exercises, want at least 14", lang, len(exs))
		}
		per := map[string]int{}
		for _, e := range exs {
			per[e.Lesson]++
			if e.Lang != lang {
				t.Errorf("%s: exercise %s has language %q", lang, e.ID, e.Lang)
			}
		}
		if lang != lessons.DefaultLang {
			en := englishByID(t)
			for _, e := range exs {
				// Every text is translated: none is left equal to English.
				texts := append([]string{e.Title, e.Goal, e.Why}, append(e.Hints, e.Choices...)...)
				enTexts := append([]string{en[e.ID].Title, en[e.ID].Goal, en[e.ID].Why}, append(en[e.ID].Hints, en[e.ID].Choices...)...)
				for i := range texts {
					if texts[i] == enTexts[i] {
						t.Errorf("%s: exercise %s: text %q is not translated", lang, e.ID, texts[i])
					}
				}
			}
		}
		for _, l := range ls {
			if per[l.ID] < 2 {
				t.Errorf("%s: lesson %s has %d exercises, want at least 2", lang, l.ID, per[l.ID])
			}
		}
	}
}

// englishByID returns the English exercises by id.
func englishByID(t *testing.T) map[string]lessons.Exercise {
	t.Helper()
	ls, _ := lessons.Load(content.FS, lessons.DefaultLang)
	exs, err := lessons.LoadExercises(content.FS, lessons.DefaultLang, ls)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]lessons.Exercise{}
	for _, e := range exs {
		out[e.ID] = e
	}
	return out
}

// TestExerciseManifestsInLessons checks that a manifest the lessons show for the learner to
// apply is, byte for byte, the one the exercises' solutions apply (and the solver test proves):
// the install lesson's CronTab CRD, in every language.
func TestExerciseManifestsInLessons(t *testing.T) {
	tests := []struct {
		exercise, lesson string
		step             int
	}{
		{"install-crd-established", "06-install.md", 0},
	}
	en := englishByID(t)
	langs, err := lessons.Languages(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		e, ok := en[tt.exercise]
		if !ok || len(e.Solution) <= tt.step || e.Solution[tt.step].Stdin == "" {
			t.Fatalf("exercise %s has no manifest in solution step %d", tt.exercise, tt.step+1)
		}
		block := "```yaml\n" + e.Solution[tt.step].Stdin + "```\n"
		for _, lang := range langs {
			text, err := fs.ReadFile(content.FS, path.Join(lang, tt.lesson))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(text), block) {
				t.Errorf("%s/%s does not show the manifest of %s's solution step %d as a yaml block:\n%s", lang, tt.lesson, tt.exercise, tt.step+1, block)
			}
		}
	}
}
