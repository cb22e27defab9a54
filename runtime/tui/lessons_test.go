package tui

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/walk"
	"github.com/kubewalk/kubewalk/server"
)

const adapterSource = `package server

// Server is a server.
type Server struct{}

// Authn runs authn.
func (s *Server) Authn() error {
	x := 1
	_ = x
	return nil
}
`

func TestLessonContentAdapter(t *testing.T) {
	ls := []lessons.Lesson{
		{ID: "authn", Title: "Authentication", Kube: "lesson kube", Steps: []lessons.Step{
			{ID: "x509", Checkpoint: "authn/x509", Title: "Certs", Anchor: "(*Server).Authn", Focus: "x := 1", Kube: "step kube", Text: "text"},
			{ID: "token", Checkpoint: "authn/token", Title: "Tokens", Anchor: "(*Server).Authn"},
			{ID: "dup", Checkpoint: "authn/token", Title: "Duplicate"},
		}},
	}
	c := NewLessonContent(ls, fstest.MapFS{"authn.go": {Data: []byte(adapterSource)}})

	tests := []struct {
		cp        string
		wantOK    bool
		wantID    string
		wantKube  string
		wantTitle string
	}{
		{"authn/x509", true, "authn/x509", "step kube", "Certs"},
		{"authn/token", true, "authn/token", "lesson kube", "Tokens"},
		{"authn/none", false, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.cp, func(t *testing.T) {
			s, ok := c.Step(tt.cp)
			if ok != tt.wantOK || s.ID != tt.wantID || s.Kube != tt.wantKube || s.Title != tt.wantTitle {
				t.Errorf("Step(%q) = %+v, %v", tt.cp, s, ok)
			}
			if ok && s.Lesson != "Authentication" {
				t.Errorf("lesson title %q", s.Lesson)
			}
		})
	}

	loc, err := c.Local("(*Server).Authn", "x := 1")
	if err != nil {
		t.Fatal(err)
	}
	if loc.File != "server/authn.go" || loc.StartLine != 6 || loc.EndLine != 11 || loc.FocusStart != 8 || loc.FocusEnd != 8 {
		t.Errorf("Local with focus = %+v", loc)
	}
	loc, err = c.Local("(*Server).Authn", "")
	if err != nil {
		t.Fatal(err)
	}
	if loc.FocusStart != 0 || loc.FocusEnd != 0 {
		t.Errorf("without a focus nothing should be emphasised: %+v", loc)
	}
	if _, err := c.Local("(*Server).Missing", ""); err == nil {
		t.Error("missing anchor resolved")
	}
}

func TestLessonContentUpstream(t *testing.T) {
	c := NewLessonContent(nil, fstest.MapFS{})
	loc, err := c.Upstream("k8s.io/apiserver/pkg/server.(*GenericAPIServer).PrepareRun")
	if err != nil {
		t.Skipf("k8s.io/apiserver not available here: %v", err)
	}
	if !strings.HasPrefix(loc.File, "k8s.io/apiserver@v") || !strings.HasSuffix(loc.File, ".go") || loc.StartLine == 0 || len(loc.Source) == 0 {
		t.Errorf("Upstream = %s:%d-%d (%d bytes)", loc.File, loc.StartLine, loc.EndLine, len(loc.Source))
	}
}

// TestRealLessonsFit walks the real lessons, in English and Chinese, through every checkpoint
// at the smallest and the wide size, in the plain and the colour lesson style. Every frame must
// fit the window (the harness checks each), and at every step every lesson line must fit its
// pane without splitting a word or an inline code span; in colour, no bold markers may be left
// unrendered.
func TestRealLessonsFit(t *testing.T) {
	for _, lang := range []string{"en", "zh-CN"} {
		c, err := LoadLessonContent(lang)
		if c == nil {
			t.Fatalf("no %s lessons: %v", lang, err)
		}
		if err != nil {
			t.Logf("%s lessons have problems (not this package's): %v", lang, err)
		}
		if len(c.steps) == 0 {
			t.Fatalf("no %s lesson steps", lang)
		}
		if c.Language() != lang {
			t.Errorf("LessonContent loaded in %s says its language is %s", lang, c.Language())
		}
		for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			for _, style := range []string{"notty", "dark"} {
				t.Run(fmt.Sprintf("%s/%dx%d/%s", lang, size.w, size.h, style), func(t *testing.T) {
					hs := newHarnessOpts(t, size.w, size.h, c, fakeServer{}, Options{GlamourStyle: style})
					checked := map[string]bool{}
					for range len(hs.eng.plan) {
						m := hs.model.m
						if step, has := m.lessonPane().Step(); m.tour.Displayed() != nil && has {
							stop := m.tour.Displayed()
							lw, _ := m.lessonPane().Size()
							id := stop.Checkpoint.ID()
							checked[id] = true
							for _, p := range wrapProblems(step.Text, m.lessonPane().Lines(), lw-2) {
								t.Errorf("%s: %s", id, p)
							}
							// No style prints ** (notty did, before lessonStyle asked for attributes).
							for _, p := range emphasisProblems(step.Text, m.lessonPane().Lines()) {
								t.Errorf("%s: %s", id, p)
							}
						}
						hs.keys(" ", "u", "u", "r", "r")
					}
					hs.must(i18n.For(lang).StatusServing)
					for id := range c.steps {
						if !checked[id] {
							t.Errorf("step for %s was never shown", id)
						}
					}
				})
			}
		}
	}
}

// emphasisProblems reports "**" that a colour style printed literally although the Markdown md
// has none inside inline code: emphasis CommonMark did not close. Chinese text meets this
// when a bold label ending in full-width punctuation is followed by a CJK character
// ("**状态面板：**列出"): such a closing "**" is not right-flanking.
func emphasisProblems(md string, lines []string) []string {
	for _, m := range codeSpanRE.FindAllStringSubmatch(md, -1) {
		if strings.Contains(m[1], "**") {
			return nil
		}
	}
	var probs []string
	for i, l := range lines {
		if plain := stripANSI(l); strings.Contains(plain, "**") {
			probs = append(probs, fmt.Sprintf("line %d shows bold markers literally (unclosed emphasis; after a full-width colon in bold, start the text with code or punctuation): %q", i+1, plain))
		}
	}
	return probs
}

func TestEmphasisProblems(t *testing.T) {
	cp := server.Checkpoints()[0]
	for _, tt := range []struct {
		md   string
		want bool
	}{
		{"**状态面板：**列出四个路径。", true},
		{"**状态面板：**`authn → authenticator` 列出四个路径。", false},
		{"**状态面板：**（无新内容）初始化器只是填充了字段。", false},
		{"**State pane:** lists the four paths.", false},
		{"Code may hold them: `a**b**c`.", false},
	} {
		p := walk.NewLesson(common.Common{Styles: DefaultStyles(), Tr: i18n.For(i18n.English)}, "dark")
		p.SetSize(80, 24)
		p.SetStep(Step{ID: "x/y", Title: "t", Text: tt.md}, true, cp)
		if got := emphasisProblems(tt.md, p.Lines()); (len(got) > 0) != tt.want {
			t.Errorf("emphasisProblems(%q) = %q, want problems: %v", tt.md, got, tt.want)
		}
	}
}
