package exercises

import (
	"fmt"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// Toast is an exercise that ticked by itself (its live check passed while the learner was
// anywhere), for the root's toast.
type Toast struct{ ID, Title, Why string }

// ToastMsg hands the root the exercises that ticked in a snapshot. The root keeps them and
// draws ToastBox over whatever view is on screen until the next key not typed into a line.
type ToastMsg []Toast

// ToastBox is the toast of the exercises that ticked, w cells wide at most (64), or nil when
// there are none: the last two with why they passed, and how many more.
func ToastBox(st *common.Styles, tr *i18n.Strings, toasts []Toast, w int) []string {
	if len(toasts) == 0 {
		return nil
	}
	bw := min(w, 64)
	inner := bw - 3
	var body []string
	shown := toasts
	if len(shown) > 2 {
		shown = shown[len(shown)-2:]
	}
	for _, t := range shown {
		for _, l := range common.WrapLines(st.Lane.OK.Render(fmt.Sprintf(tr.ToastDone, t.Title)), inner) {
			body = append(body, " "+l)
		}
		if t.Why != "" {
			for _, l := range common.WrapLines(inlineCode(t.Why, st.Served.Command, st.Lane.Text), inner-2) {
				body = append(body, "   "+common.Unkeep.Replace(l))
			}
		}
	}
	if n := len(toasts) - len(shown); n > 0 {
		body = append(body, " "+st.List.Dim.Render(fmt.Sprintf(tr.ToastMore, n)))
	}
	if len(body) > 8 {
		body = body[:8]
	}
	return common.Box(st, tr.ToastTitle, body, bw, len(body)+2, true)
}
