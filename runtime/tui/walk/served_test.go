package walk

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/internal/glamour"
)

// TestWrapCommandPastes wraps commands to pane widths and pastes each result into a real
// shell: every line fits, and the shell reads the same words as the command on one line. The
// export line used to be cut with "…" at 52 columns, so it could not be copied.
func TestWrapCommandPastes(t *testing.T) {
	long := "/home/someone-with-a-long-name/.local/state/kubewalk/kubeconfig"
	tests := []struct {
		cmd   string
		width int
	}{
		{"export KUBECONFIG=" + long, 52},
		{"export KUBECONFIG=" + long, 30},
		{"export KUBECONFIG=" + long, 78},
		{"export KUBECONFIG=/run/user/1000/kubewalk/kubeconfig", 52},
		{CreateDemo, 52},
		{CreateDemo, 30},
		{"kubectl get ns", 52},
		{"export KUBECONFIG=" + long + " extra words after the path", 40},
		{"export KUBECONFIG=" + strings.Repeat("x", 200), 52},
	}
	for _, tt := range tests {
		lines := common.WrapCommand(tt.cmd, tt.width)
		for _, l := range lines {
			if ansi.StringWidth(l) > tt.width {
				t.Errorf("common.WrapCommand(%q, %d): line %q is wider than the pane", tt.cmd, tt.width, l)
			}
			if strings.Contains(l, "…") {
				t.Errorf("common.WrapCommand(%q, %d): line %q is cut", tt.cmd, tt.width, l)
			}
		}
		// The shell sees the wrapped command as the same words.
		script := "printf '[%s]' " + strings.Join(lines, "\n")
		out, err := exec.Command("sh", "-c", script).Output()
		if err != nil {
			t.Fatalf("sh: %v\n%s", err, script)
		}
		want := ""
		for _, w := range strings.Fields(tt.cmd) {
			want += "[" + w + "]"
		}
		if string(out) != want {
			t.Errorf("common.WrapCommand(%q, %d) pastes as %s, want %s:\n%s", tt.cmd, tt.width, out, want, strings.Join(lines, "\n"))
		}
	}
}

// TestServedPanelShowsExportWhole: the serve panel shows the whole kubeconfig path in its
// export line, at the lesson pane's 52 columns, with the kubewalk env hint and the one
// command that creates the demo configmap.
func TestServedPanelShowsExportWhole(t *testing.T) {
	for _, lang := range []string{"en", "zh-CN"} {
		p := NewServed(common.Common{Styles: common.DefaultStyles(), Tr: i18n.For(lang)})
		p.SetSize(54, 60)
		p.kubeconfig = "/home/someone-with-a-long-name/.local/state/kubewalk/kubeconfig"
		p.relayout()
		text := ansi.Strip(strings.Join(p.lines, "\n"))
		joined := strings.ReplaceAll(text, "\\\n", "")
		if !strings.Contains(joined, "export KUBECONFIG="+p.kubeconfig) {
			t.Errorf("%s: the export line is not whole:\n%s", lang, text)
		}
		if !strings.Contains(text, `eval "$(kubewalk env)"`) || !strings.Contains(strings.ReplaceAll(text, " \\\n  ", " "), CreateDemo) {
			t.Errorf("%s: no kubewalk env hint, or not the demo command:\n%s", lang, text)
		}
		// Pasted whole into a shell, the "try it" block runs only its commands: every line is
		// a comment, a command, or the continuation of one.
		tr := i18n.For(lang)
		block := text[strings.Index(text, tr.ServedTry)+len(tr.ServedTry)+1:]
		block, _, _ = strings.Cut(block, "\n\n")
		continued := false
		for _, l := range strings.Split(block, "\n") {
			if !continued && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "kubectl ") && !strings.HasPrefix(l, "export ") {
				t.Errorf("%s: line %q of the try-it block would run as a command of its own", lang, l)
			}
			continued = strings.HasSuffix(l, "\\")
		}
	}
}

// TestInlineCodeWithoutColour: without colour (NO_COLOR picks the notty style; any style on a
// terminal without colour), inline code keeps its backticks, so it still reads apart from the
// prose; with colour, the style's colours mark it and no backticks are added.
func TestInlineCodeWithoutColour(t *testing.T) {
	tests := []struct {
		style    string
		noColor  bool
		profile  termenv.Profile
		backtick bool
	}{
		{"notty", true, termenv.Ascii, true},
		{"ascii", true, termenv.Ascii, true},
		{"dark", true, termenv.Ascii, true},
		{"notty", false, termenv.TrueColor, true},
		{"dark", false, termenv.TrueColor, false},
		{"light", false, termenv.ANSI256, false},
	}
	for _, tt := range tests {
		r, err := glamour.NewTermRenderer(glamour.WithStyles(lessonStyle(tt.style, tt.noColor)), glamour.WithColorProfile(tt.profile), glamour.WithWordWrap(0))
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Render(protectCodeSpans("Run `kubectl get ns` now."))
		if err != nil {
			t.Fatal(err)
		}
		text := common.Unkeep.Replace(ansi.Strip(out))
		if got := strings.Contains(text, "`kubectl get ns`"); got != tt.backtick {
			t.Errorf("%s (no colour %v): backticks %v, want %v: %q", tt.style, tt.noColor, got, tt.backtick, text)
		}
		if !tt.backtick && !strings.Contains(out, "\x1b[") {
			t.Errorf("%s with colour: the code is not styled: %q", tt.style, out)
		}
	}
}

func TestProtectCodeSpans(t *testing.T) {
	k := string(common.KeepSpace)
	tests := []struct{ in, want string }{
		{"a `b c` d", "a `b" + k + "c` d"},
		{"`a b` and `c d`", "`a" + k + "b` and `c" + k + "d`"},
		{"no `closing here", "no `closing here"},
		{"escaped \\`not code` here", "escaped \\`not code` here"},
		{"\\` then `a b`", "\\` then `a" + k + "b`"},
		{"`` a `b` c ``", "`` a" + k + "`b`" + k + "c ``"},
		{"```\nfenced `a b`\n```\nafter `c d`", "```\nfenced `a b`\n```\nafter `c" + k + "d`"},
		{"`over\ntwo lines`", "`over" + k + "two" + k + "lines`"},
	}
	for _, tt := range tests {
		if got := protectCodeSpans(tt.in); got != tt.want {
			t.Errorf("protectCodeSpans(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
