package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// TestBigText: every letter of the font draws 3 rows of 3 columns; join codes, addresses and
// ports draw; what the font lacks does not.
func TestBigText(t *testing.T) {
	for r, g := range bigFont {
		rows, ok := bigText(string(r))
		if !ok {
			t.Errorf("%q: not drawn", r)
			continue
		}
		on := false
		for _, row := range rows {
			if n := len([]rune(row)); n != 3 {
				t.Errorf("%q: row %q is %d wide", r, row, n)
			}
			on = on || strings.TrimSpace(row) != ""
		}
		for _, p := range g {
			if len(p) != 3 || strings.Trim(p, ".#") != "" {
				t.Errorf("%q: bad pixel row %q", r, p)
			}
		}
		if !on {
			t.Errorf("%q draws nothing", r)
		}
	}
	// Glyphs that must be told apart on a projector differ.
	seen := map[[3]string]rune{}
	for _, r := range "0123456789ABCDEFGHJKMNPQRSTVWXYZ.:-" { // Crockford's alphabet, and an address's
		rows, _ := bigText(string(r))
		if o, dup := seen[rows]; dup {
			t.Errorf("%q and %q look the same", o, r)
		}
		seen[rows] = r
	}
	rows, ok := bigText("4f7k-Q2:7443.")
	if !ok || len([]rune(rows[0])) != 13*4-1 {
		t.Errorf("bigText(lower case, punctuation) = %q, %v", rows, ok)
	}
	for _, bad := range []string{"", "[::1]:7443", "host_name", "é"} {
		if _, ok := bigText(bad); ok {
			t.Errorf("bigText(%q) drew", bad)
		}
	}
	if a, c, ok := joinParts("kubewalk join 192.168.1.20:7443 --code 4F7K-Q2"); !ok || a != "192.168.1.20:7443" || c != "4F7K-Q2" {
		t.Errorf("joinParts = %q %q %v", a, c, ok)
	}
}

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
			code, _ := bigText("4F7K-Q2-8K3M-T9QX-2HVD-R4NA")
			addr, _ := bigText("127.0.0.1:7443")
			view := hs.view()
			for _, rows := range [][3]string{addr, code} {
				for _, r := range rows {
					if got := strings.Contains(view, r); got != tt.big {
						t.Errorf("block letters shown: %v, want %v:\n%s", got, tt.big, view)
					}
				}
			}
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
