package kubectl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

func stripLines(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	return out
}

// TestOutputBounded: a command that prints without end keeps the pane bounded (the
// oldest lines go, and the pane says how many), whether the pane reads as it goes or falls
// behind; escape sequences and control characters in the output are not drawn.
func TestOutputBounded(t *testing.T) {
	for _, every := range []int{7, 997, 1 << 30} {
		t.Run(fmt.Sprint(every), func(t *testing.T) {
			tr := i18n.For(i18n.English)
			v := New(common.Common{Styles: common.DefaultStyles(), Tr: tr, Scroll: common.NewScrollKeys(tr)}, Options{})
			v.View(80, 24)
			run := newRun("get cm -w", []string{"get", "cm", "-w"}, func() {})
			v.show(run)
			n := maxLines*2 + 123
			for i := range n {
				fmt.Fprintf(run, "line %d\n", i)
				if i%every == 0 {
					v.output()
				}
			}
			fmt.Fprint(run, "partial \x1b[31mred\x1b[0m\x07 end")
			v.output()
			lines := stripLines(v.out.Lines())
			if got := len(v.rowsOf); got > maxLines {
				t.Errorf("%d lines kept, want at most %d", got, maxLines)
			}
			if v.wrapFirst+len(v.rowsOf) != n {
				t.Errorf("lines %d..%d kept, want the last ones up to %d", v.wrapFirst, v.wrapFirst+len(v.rowsOf), n)
			}
			if !strings.Contains(strings.Join(lines, "\n"), fmt.Sprintf("… %d earlier lines dropped", v.wrapFirst)) {
				t.Error("the pane does not say lines were dropped")
			}
			if last := lines[len(lines)-1]; last != "partial red end" {
				t.Errorf("the unfinished last line is %q", last)
			}
			if prev := lines[len(lines)-2]; prev != fmt.Sprintf("line %d", n-1) {
				t.Errorf("the last complete line is %q", prev)
			}
		})
	}
}

// BenchmarkOutput is one more line of output arriving from a command that has printed 5,000
// (a long get -w), and the view's frame after it at 200×56 (a 200×60 screen's body). It was
// BenchmarkKubectlOutput in runtime/tui, which also drew the root's header and help bar.
func BenchmarkOutput(b *testing.B) {
	tr := i18n.For(i18n.English)
	v := New(common.Common{Styles: common.DefaultStyles(), Tr: tr, Scroll: common.NewScrollKeys(tr)}, Options{WideWidth: 120})
	run := newRun("get cm -w", []string{"get", "cm", "-w"}, func() {})
	v.show(run)
	v.View(200, 56)
	for i := range 5000 {
		fmt.Fprintf(run, "configmap-%05d   1      %ds\n", i, i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		fmt.Fprintf(run, "configmap-new-%05d   1      0s\n", i)
		v.Update(outputMsg{run: run})
		_ = v.View(200, 56)
	}
}
