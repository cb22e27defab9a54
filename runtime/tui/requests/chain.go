package requests

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/tracing"
)

// Chain draws the request path for the root's chain bar, w cells at most: the stage a held
// request is in (or, when the view is on screen, where the selected request got) marked by a
// symbol, not colour alone. Each stage before it reads as its lane does: ✓ passed, – skipped
// (impersonation without an Impersonate-User header); a held request's lane, when the list
// has it, says which.
func (v *Model) Chain(w int, onScreen bool) string {
	st := v.st.Chain
	at, sym, lead := -1, "", v.tr.PathLead
	var passed, skipped map[int]bool
	mark := func(t tracing.Trace, before int) {
		passed, skipped = map[int]bool{}, map[int]bool{}
		for _, s := range t.Stages {
			i := PathIndex(s.Name)
			if i < 0 || (before >= 0 && i >= before) {
				continue
			}
			switch {
			case s.Stopped:
				at, sym = i, "✗"
			case s.Outcome == tracing.OutcomeSkipped:
				skipped[i] = true
			default:
				passed[i] = true
			}
		}
		for i := range skipped {
			if passed[i] {
				delete(skipped, i) // one admission plugin skipped, another ran: the step ran
			}
		}
	}
	if h, ok := v.focusHeld(); ok {
		at, sym = PathIndex(h.Stage), "⏸"
		lead = fmt.Sprintf(v.tr.PathHeldAt, h.Stage)
		if t, ok := v.trace(h.ID); ok && at >= 0 {
			mark(t, at)
		}
	} else if t, ok := v.selected(); ok && onScreen {
		mark(t, -1)
	}
	render := func(short bool, arrow string) string {
		var parts []string
		for i, p := range requestPath {
			name := p.Name
			if short {
				name = p.Short
			}
			switch {
			case i == at:
				parts = append(parts, st.Current.Render(sym+" "+name))
			case skipped[i]:
				parts = append(parts, st.Pending.Render("– "+name))
			case passed != nil && passed[i]:
				parts = append(parts, st.Done.Render("✓ "+name))
			case passed == nil && at >= 0 && i < at:
				parts = append(parts, st.Done.Render("✓ "+name))
			default:
				parts = append(parts, st.Pending.Render("· "+name))
			}
		}
		return strings.Join(parts, st.Arrow.Render(arrow))
	}
	for _, try := range []struct {
		short bool
		arrow string
		lead  bool
	}{{false, " → ", true}, {true, " → ", true}, {true, " → ", false}, {true, "›", true}, {true, "›", false}} {
		l := lead
		if !try.lead {
			l = ""
		}
		s := l + render(try.short, try.arrow)
		if ansi.StringWidth(s) <= w {
			return s
		}
	}
	return render(true, "›")
}
