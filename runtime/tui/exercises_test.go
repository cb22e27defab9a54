package tui

import (
	"fmt"
	"os"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// newExFixture is a model on the fake backends with exercises, in lang at w×h, left paused
// at the first checkpoint (serve runs with hs.keys("E")).
func newExFixture(t *testing.T, lang string, w, h int) (*harness, *fakeExercises) {
	t.Helper()
	x := newFakeExercises(lang)
	store := newFakeStore(100)
	hs := newHarnessOpts(t, w, h, fakeContent{zh: lang == i18n.SimplifiedChinese}, fakeServer{}, Options{GlamourStyle: "notty", Lang: lang,
		Requests: store, Exercises: x})
	hs.until("the exercises", func() bool { return hs.model.m.ex.loaded })
	hs.settle()
	return hs, x
}

func TestExScratch(t *testing.T) {
	if os.Getenv("EXSCRATCH") == "" {
		t.Skip()
	}
	for _, lang := range i18n.Languages() {
		for _, sz := range viewSizes {
			hs, x := newExFixture(t, lang, sz.w, sz.h)
			hs.keys("E")
			hs.typeLine("ex")
			hs.keys("down", "down", "h", "h")
			fmt.Println(hs.view())
			x.pass("authz-bob-cm")
			hs.until("tick", func() bool { return len(hs.model.m.toasts) > 0 })
			hs.settle()
			fmt.Println(hs.view())
			hs.keys("up", "a")
			hs.send(keyMsg("wrong"))
			fmt.Println(hs.view())
		}
	}
}
