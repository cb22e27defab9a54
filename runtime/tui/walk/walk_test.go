package walk

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/server"
)

func TestMain(m *testing.M) {
	// NO_COLOR, as the TUI's goldens: no colour, a dark background for adaptive colours.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

func newCommon(lang string) common.Common {
	tr := i18n.For(lang)
	return common.Common{Styles: common.DefaultStyles(), Tr: tr, Scroll: common.NewScrollKeys(tr)}
}

// stops are two stops of the storage phase: the second adds a resource and changes a value.
func stops() (prev, stop *engine.Stop) {
	tree := func(second bool) *server.Node {
		root := &server.Node{}
		st := root.Add("storage", "")
		st.Add("etcd", "https://127.0.0.1:2379")
		rs := st.Add("resources", "")
		rs.Add("configmaps", "v1")
		if second {
			rs.Add("secrets", "v1, encrypted at rest with a key the run made and nobody else holds")
			st.Add("codec", "protobuf")
		} else {
			st.Add("codec", "json")
		}
		root.Add("authn", "").Add("x509", "client CA")
		return root
	}
	cp := server.Checkpoint{Phase: "storage", Name: "built", Title: "Storage is built"}
	return &engine.Stop{Index: 0, Checkpoint: cp, State: tree(false)},
		&engine.Stop{Index: 1, Checkpoint: cp, State: tree(true)}
}

var step = Step{ID: "storage/built", Checkpoint: "storage/built", Title: "Storage is built", Lesson: "Storage",
	Text: "The server builds **storage** for every resource: `configmaps` and `secrets`.\n\n" +
		"- etcd holds the objects;\n- the codec turns them into bytes.\n",
	Kube: "cmd/kube-apiserver/app/server.go CreateServerChain"}

type fakeServer struct{}

func (fakeServer) Kubeconfig() string { return "/run/kubewalk/kubeconfig" }
func (fakeServer) Address() string    { return "https://127.0.0.1:6443" }
func (fakeServer) Identities() []server.Identity {
	return []server.Identity{{Context: "admin", User: "admin", Groups: []string{"system:masters"}}, {Context: "alice", User: "alice"}}
}

// pane is what the goldens draw.
type pane interface {
	SetSize(w, h int)
	SetFocused(bool)
	View() []string
}

// TestGolden: each pane alone at 80×24 and 120×40, in English and Chinese, with NO_COLOR.
// -update rewrites the files.
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		make func(c common.Common) pane
	}{
		{"state", func(c common.Common) pane {
			p := NewState(c)
			prev, stop := stops()
			p.SetStop(stop, prev, false)
			return p
		}},
		{"state_raw_none", func(c common.Common) pane {
			p := NewState(c)
			_, stop := stops()
			p.SetStop(stop, nil, false)
			p.ToggleRaw()
			return p
		}},
		{"state_probe", func(c common.Common) pane {
			p := NewState(c)
			prev, stop := stops()
			p.SetProbe("config-map", Probe{Tree: stop.State, Prev: prev.State}, false, true)
			return p
		}},
		{"lesson", func(c common.Common) pane {
			p := NewLesson(c, "notty")
			p.SetStep(step, true, server.Checkpoint{Phase: "storage", Name: "built"})
			return p
		}},
		{"lesson_starting", func(c common.Common) pane { return NewLesson(c, "notty") }},
		{"served", func(c common.Common) pane {
			p := NewServed(c)
			p.SetServer(fakeServer{})
			p.SetHealth(true, "200 OK", time.Date(2025, 5, 1, 10, 30, 0, 0, time.UTC))
			return p
		}},
	}
	for _, lang := range i18n.Languages() {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			for _, tt := range cases {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", lang, tt.name, sz.w, sz.h), func(t *testing.T) {
					p := tt.make(newCommon(lang))
					p.SetSize(sz.w, sz.h)
					p.SetFocused(true)
					lines := p.View()
					if len(lines) != sz.h {
						t.Errorf("%d lines, want %d", len(lines), sz.h)
					}
					for i, l := range lines {
						if w := lipgloss.Width(l); w != sz.w {
							t.Errorf("line %d is %d cells, want %d: %q", i, w, sz.w, l)
						}
					}
					frame := strings.Join(lines, "\n")
					// NO_COLOR keeps glamour's attributes (bold), never a colour.
					if strings.Contains(frame, "\x1b[38;") || strings.Contains(frame, "\x1b[48;") {
						t.Error("NO_COLOR frame has colours")
					}
					golden.RequireEqual(t, []byte(xansi.Strip(frame)))
				})
			}
		}
	}
}

// TestStateKeys: the cursor starts on the first change, JumpChange cycles the changes, the
// toggles open and close, raw shows live objects (none here), Repoint keeps the pane on a
// stop.
func TestStateKeys(t *testing.T) {
	prev, stop := stops()
	for _, tt := range []struct {
		name  string
		do    func(p *State) bool
		label string
		want  bool
	}{
		{"first change", func(p *State) bool { return p.Changes() == 2 }, "secrets", true},
		{"next change", func(p *State) bool { return p.JumpChange(1) }, "codec", true},
		{"previous change wraps", func(p *State) bool { return p.JumpChange(-1) }, "codec", true},
		{"collapse all", func(p *State) bool { p.CollapseAll(); _, _, ok := p.Row(2); return !ok }, "", true},
		{"toggle a leaf that fits", func(p *State) bool { p.Move(1); return p.Toggle() }, "codec", false},
		{"raw", func(p *State) bool { p.ToggleRaw(); return p.Raw() && p.Changes() == 0 }, "", true},
		{"repoint", func(p *State) bool { p.Repoint(stop); return p.Changes() == 2 }, "secrets", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := NewState(newCommon("en"))
			p.SetSize(80, 24)
			p.SetStop(stop, prev, false)
			if got := tt.do(p); got != tt.want {
				t.Errorf("reported %v, want %v", got, tt.want)
			}
			if l, _, _ := p.Row(p.Cursor()); tt.label != "" && l != tt.label {
				t.Errorf("cursor on %q, want %q", l, tt.label)
			}
		})
	}
}

// TestLessonScroll: the lesson scrolls within its lines, from the top at each step.
func TestLessonScroll(t *testing.T) {
	p := NewLesson(newCommon("en"), "notty")
	p.SetSize(40, 8)
	p.SetStep(step, true, server.Checkpoint{Phase: "storage", Name: "built"})
	top := strings.Join(p.View(), "\n")
	p.Scroll(p.Page())
	if strings.Join(p.View(), "\n") == top {
		t.Fatal("a page down did not scroll")
	}
	p.Scroll(-1 << 30)
	if strings.Join(p.View(), "\n") != top {
		t.Error("scrolling back did not return to the top")
	}
	if got, ok := p.Step(); !ok || got.ID != step.ID || len(p.Lines()) <= 6 {
		t.Errorf("step %q %v, %d lines", got.ID, ok, len(p.Lines()))
	}
}
