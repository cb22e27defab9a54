package lessons_test

import (
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
