package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// boardHost is a class with three students, one stuck, one offline.
func boardHost() *fakeClassHost {
	return newFakeClassHost(ClassBoard{Title: "walk", Place: ClassPlace{Checkpoint: "authz/rbac"}, Message: "read the RBAC step", Students: []ClassStudent{
		{Name: "ana", Place: ClassPlace{Checkpoint: "authz/rbac"}, Done: 2, Idle: 75 * time.Second, Stuck: true, Following: true, Connected: true},
		{Name: "bob", Place: ClassPlace{Checkpoint: "authn/token"}, Following: false, Connected: true},
		{Name: "chen", Following: true, Connected: false},
	}})
}

// TestBoardGolden: the board at 80×24 (the join line as one line) and 120×40 (address and code
// in block letters with the line under them), in English and Chinese, with NO_COLOR; and with
// the projector theme. The students' states are words, never colour alone.
func TestBoardGolden(t *testing.T) {
	for _, tt := range []struct {
		name      string
		w, h      int
		zh, big   bool
		projector bool
	}{
		{"en_80x24", 80, 24, false, false, false},
		{"en_120x40", 120, 40, false, true, false},
		{"zh_80x24", 80, 24, true, false, false},
		{"zh_120x40", 120, 40, true, true, false},
		{"en_120x40_projector", 120, 40, false, true, true},
		{"zh_80x24_projector", 80, 24, true, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{GlamourStyle: "notty", Class: boardHost()}
			if tt.projector {
				opts.Styles = ProjectorStyles()
			}
			hs := newHarnessOpts(t, tt.w, tt.h, fakeContent{zh: tt.zh}, fakeServer{}, opts)
			hs.keys("B")
			hs.must("kubewalk join 127.0.0.1:7443 --code 4F7K-Q2-8K3M-T9QX-2HVD-R4NA", "ana", "chen")
			frame := hs.model.View()
			if strings.Contains(frame, "\x1b[38;") {
				t.Error("NO_COLOR frame has colours")
			}
			// Whether the block letters show is the class package's test (TestBoardView); the
			// golden pins the frame.
			view := hs.view()
			// The class lines above the body say that only this machine can join; the board
			// does not say it again.
			lang := i18n.English
			if tt.zh {
				lang = i18n.SimplifiedChinese
			}
			hint, _, _ := strings.Cut(i18n.For(lang).ClassLoopbackHint, "--listen")
			if n := strings.Count(view, strings.TrimSpace(hint)); n != 1 {
				t.Errorf("the loopback hint %q is said %d times, want once:\n%s", hint, n, view)
			}
			golden.RequireEqual(t, []byte(frame))
			// B again goes back to the walkthrough, which the board's key bar says.
			if hs.model.m.at != viewBoard {
				t.Fatalf("B opened view %v, want the board", hs.model.m.at)
			}
			hs.keys("B")
			if hs.model.m.at != viewTour {
				t.Errorf("B on the board left view %v, want the tour", hs.model.m.at)
			}
		})
	}
}
