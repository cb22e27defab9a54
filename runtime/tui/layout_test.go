package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/class"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
	"github.com/kubewalk/kubewalk/runtime/tui/side"
	"github.com/kubewalk/kubewalk/runtime/tui/tour"
)

// joinHost is a class host with a join line of the test's choosing.
type joinHost struct {
	*fakeClassHost
	join string
}

func (h joinHost) JoinLine() string { return h.join }

// TestClassHostJoinLineWhole: the instructor's join line, which students copy off the
// projector, is whole at 80×24 and 120×40 in both languages, with the student count and
// the loopback hint on a line of their own when they do not fit beside it; a join line wider
// than the screen breaks before its --code. The frame always fits the window.
func TestClassHostJoinLineWhole(t *testing.T) {
	lan := "kubewalk join 192.168.100.200:7443 --code 4F7K-Q2-8K3M-T9QX-2HVD-R4NA"
	v6 := "kubewalk join [fd12:3456:789a:1::200]:7443 --code 4F7K-Q2-8K3M-T9QX-2HVD-R4NA"
	for _, tt := range []struct {
		w, h  int
		lang  string
		join  string
		lines int
	}{
		{80, 24, i18n.English, lan, 3},
		{80, 24, i18n.SimplifiedChinese, lan, 3},
		{120, 40, i18n.English, lan, 2},
		{250, 50, i18n.English, lan, 1},
		{120, 40, i18n.SimplifiedChinese, lan, 2},
		{80, 24, i18n.English, v6, 3},
	} {
		t.Run(fmt.Sprintf("%s_%dx%d_%d", tt.lang, tt.w, tt.h, len(tt.join)), func(t *testing.T) {
			h := joinHost{boardHost(), tt.join}
			hs := newHarnessOpts(t, tt.w, tt.h, fakeContent{zh: tt.lang == i18n.SimplifiedChinese}, fakeServer{},
				Options{GlamourStyle: "notty", Class: h, Lang: tt.lang})
			hs.until("the board", func() bool { return hs.model.m.cls.(*class.Model).BoardLoaded() })
			hs.settle()
			if got := hs.model.m.classLineCount(); got != tt.lines {
				t.Errorf("%d class lines, want %d", got, tt.lines)
			}
			view := hs.view()
			flat := strings.Join(strings.Fields(view), " ")
			if len(tt.join)+8 <= tt.w {
				if !strings.Contains(view, tt.join) {
					t.Errorf("the join line is not whole on one line:\n%s", view)
				}
			} else if !strings.Contains(flat, tt.join) {
				t.Errorf("the join line is not whole across its two lines:\n%s", view)
			}
			if !strings.Contains(flat, "3") || !strings.Contains(flat, "--listen 0.0.0.0:7443") {
				t.Errorf("the student count or the loopback hint is missing:\n%s", view)
			}
			if err := frameFits(hs.model.View(), tt.w, tt.h); err != "" {
				t.Error(err)
			}
		})
	}
}

// TestWelcomeFitsShortScreens: the welcome at 80×24 on an instructor's screen (the join line
// takes header lines) with the module cache note keeps its last line, how to begin, and the
// frame fits; at 120×40 nothing is left out. Goldens in both languages.
func TestWelcomeFitsShortScreens(t *testing.T) {
	for _, tt := range []struct {
		name string
		w, h int
		lang string
		full bool
	}{
		{"en_80x24", 80, 24, i18n.English, false},
		{"zh_80x24", 80, 24, i18n.SimplifiedChinese, false},
		{"en_120x40", 120, 40, i18n.English, true},
		{"zh_120x40", 120, 40, i18n.SimplifiedChinese, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := joinHost{boardHost(), "kubewalk join 192.168.100.200:7443 --code 4F7K-Q2-8K3M-T9QX-2HVD-R4NA"}
			hs := newHarnessOpts(t, tt.w, tt.h, fakeContent{zh: tt.lang == i18n.SimplifiedChinese}, fakeServer{},
				Options{GlamourStyle: "notty", Class: h, Lang: tt.lang, ShowWelcome: true})
			hs.send(side.UpstreamCheckMsg{Missing: &MissingModuleError{Module: "k8s.io/apiserver", Version: "v0.37.2"}})
			hs.until("the board", func() bool { return hs.model.m.cls.(*class.Model).BoardLoaded() })
			hs.settle()
			tr := i18n.For(tt.lang)
			hs.must(tr.WelcomeBegin, tr.WelcomeTitle, "k8s.io/apiserver v0.37.2")
			if tt.full && !strings.Contains(hs.view(), "config → authn → authz → admission → storage → install → serve") {
				t.Errorf("the chain paragraph is left out at %dx%d", tt.w, tt.h)
			}
			if err := frameFits(hs.model.View(), tt.w, tt.h); err != "" {
				t.Error(err)
			}
			golden.RequireEqual(t, []byte(hs.view()))
		})
	}
}

// TestZoom: z gives the focused pane the whole body and z again puts the layout back; tab
// while zoomed zooms the next pane; the key bar says z zoom / z unzoom and the ? help lists
// z, in both languages; the after-serve views zoom their focused pane too. Goldens of the
// zoomed lesson at 80×24 and 120×40.
func TestZoom(t *testing.T) {
	for _, tt := range []struct {
		w, h int
		lang string
	}{{80, 24, i18n.English}, {120, 40, i18n.English}, {80, 24, i18n.SimplifiedChinese}, {120, 40, i18n.SimplifiedChinese}} {
		t.Run(fmt.Sprintf("%s_%dx%d", tt.lang, tt.w, tt.h), func(t *testing.T) {
			f := newFixtureIn(t, tt.lang, tt.w, tt.h, okCreate("ok-create", 7))
			hs := f.hs
			tr := i18n.For(tt.lang)
			m := hs.model.m
			hs.keys("2")
			m.tour.SetFocus(tour.PaneLesson)
			normal, _ := m.lessonPane().Size()
			hs.must("z " + tr.BarZoom)
			hs.keys("z")
			if lw, lh := m.lessonPane().Size(); !m.zoom || lw != tt.w || lh != m.lay.body.h {
				t.Fatalf("zoomed lesson is %dx%d, want the body %dx%d", lw, lh, tt.w, m.lay.body.h)
			}
			hs.must("z " + tr.BarUnzoom)
			if err := frameFits(hs.model.View(), tt.w, tt.h); err != "" {
				t.Error(err)
			}
			golden.RequireEqual(t, []byte(hs.view()))
			// tab takes the zoom to the next pane.
			hs.keys("tab")
			if m.tour.Focus() == tour.PaneLesson {
				t.Fatal("tab did not move the focus")
			}
			if fw, fh := m.tour.FocusedSize(); fw != tt.w || fh != m.lay.body.h {
				t.Errorf("after tab the focused pane is %dx%d, want the body", fw, fh)
			}
			hs.keys("z")
			m.tour.SetFocus(tour.PaneLesson)
			if lw, _ := m.lessonPane().Size(); m.zoom || lw != normal {
				t.Errorf("z again: zoom %v, lesson %d wide, want %d", m.zoom, lw, normal)
			}
			// The help lists it.
			hs.keys("?")
			hs.must(tr.KeyZoom)
			hs.keys("x")
			// An after-serve view: the Requests view's lane.
			hs.typeLine("req")
			hs.model.m.rqv().Select("ok-create", "")
			hs.model.m.rqv().SetFocus(requests.PaneLane)
			hs.keys("z")
			if lw, lh := m.rqv().LanePane().Size(); lw != tt.w || lh != m.lay.body.h {
				t.Errorf("zoomed lane is %dx%d, want %dx%d", lw, lh, tt.w, m.lay.body.h)
			}
			if err := frameFits(hs.model.View(), tt.w, tt.h); err != "" {
				t.Error(err)
			}
			hs.keys("z")
			if m.zoom {
				t.Error("z did not unzoom the Requests view")
			}
		})
	}
}
