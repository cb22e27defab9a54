package tui

import (
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// TestFollowSkipsWelcome: a student's first run does not hide the live, following walkthrough
// behind the welcome: the class line says it follows, the keys to stop (D) and to ask for help
// (!) show whole at 80×24 and 120×40, and the key bar has the welcome's keys. A run of one's
// own still gets the welcome.
func TestFollowSkipsWelcome(t *testing.T) {
	for _, zh := range []bool{false, true} {
		tr := i18n.For("en")
		if zh {
			tr = i18n.For("zh-CN")
		}
		for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			own := newHarnessOpts(t, size.w, size.h, fakeContent{zh: zh}, fakeServer{}, Options{GlamourStyle: "notty", ShowWelcome: true})
			own.must(tr.WelcomeTitle)

			f := newFakeFollower(FollowState{Title: "apiserver walk", Name: "ana", Connected: true, Following: true, Instructor: ClassPlace{Checkpoint: "authn/token"}})
			hs := newHarnessOpts(t, size.w, size.h, fakeContent{zh: zh}, fakeServer{}, Options{GlamourStyle: "notty", ShowWelcome: true, Follow: f})
			hs.until("the student catches up", func() bool { return liveID(hs) == "authn/token" })
			hs.settle()
			hs.mustNot(tr.WelcomeTitle)
			hs.must("apiserver walk", strings.SplitN(tr.ClassFollowing, "%", 2)[0], tr.ClassKeys, tr.ClassNoMessage)
			if hs.model.m.welcome {
				t.Errorf("zh=%v %dx%d: the welcome is still up", zh, size.w, size.h)
			}
			// A long message takes the second line: the keys stay on the first, cut if need be.
			f.set(func(s *FollowState) {
				s.Message, s.MessageSeq = strings.Repeat("look at the RBAC authorizer ", 3), 1
			})
			hs.settle()
			hs.must(tr.ClassMessage + " look at the RBAC authorizer")
		}
	}
}
