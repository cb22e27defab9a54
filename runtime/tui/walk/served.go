package walk

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/server"
)

// ServerInfo is what the after-serve panel reads from the serving server.
type ServerInfo interface {
	Kubeconfig() string
	Identities() []server.Identity
	Address() string
}

// Served is the after-serve panel: the kubeconfig, kubectl commands to try and live health.
type Served struct {
	frame

	kubeconfig string
	address    string
	ids        []server.Identity

	checked bool
	ok      bool
	status  string
	at      time.Time

	lines  []string
	offset int
}

func NewServed(c common.Common) *Served {
	return &Served{frame: newFrame(c)}
}

func (p *Served) SetSize(w, h int) {
	if p.w != w || p.h != h {
		p.resize(w, h)
		p.relayout()
	}
}

// SetServer reads what the panel shows from the serving server.
func (p *Served) SetServer(srv ServerInfo) {
	p.kubeconfig, p.address, p.ids = srv.Kubeconfig(), srv.Address(), srv.Identities()
	p.relayout()
}

// SetHealth records a /readyz poll: whether it said ready, its status (or error) and when.
func (p *Served) SetHealth(ok bool, status string, at time.Time) {
	p.checked, p.ok, p.status, p.at = true, ok, status, at
	p.relayout()
}

// CreateDemo creates the configmap the lessons read from serve on (runtime/live's
// ConfigMapName): the README, the serve lesson, the apimachinery lesson and this panel give
// this one command, so following any of them after another says it already exists, rather
// than making a different object.
const CreateDemo = "kubectl --context alice create configmap demo --from-literal=greeting=hello"

// Commands are the copy-ready commands the panel suggests, in order.
func (p *Served) Commands() []string {
	kc := p.kubeconfig
	if kc == "" {
		kc = "<kubeconfig>"
	}
	return []string{
		"export KUBECONFIG=" + kc,
		"kubectl get ns",
		CreateDemo,
		"kubectl get cm demo -o yaml",
		"kubectl --context bob get cm",
		"kubectl auth can-i --list --context alice",
	}
}

func (p *Served) relayout() {
	p.Invalidate()
	w := p.w - 2
	if w <= 0 {
		p.lines = nil
		return
	}
	st, tr := p.st.Served, p.tr
	var out []string
	add := func(style func(...string) string, text string) {
		if rest, ok := strings.CutPrefix(text, "# "); ok && w > 4 {
			// A shell comment stays one when it wraps: a block pasted whole runs no prose.
			for _, l := range common.WrapLines(rest, w-2) {
				out = append(out, style("# "+l))
			}
			return
		}
		for _, l := range common.WrapLines(text, w) {
			out = append(out, style(l))
		}
	}
	health := st.Dim.Render(tr.ServedChecking)
	if p.checked {
		checked := st.Dim.Render(fmt.Sprintf(tr.ServedChecked, p.status, p.at.Format("15:04:05")))
		if p.ok {
			health = st.OK.Render(tr.ServedOK) + checked
		} else {
			health = st.Failing.Render(tr.ServedFailing) + checked
		}
	}
	out = append(out, common.WrapLines(health, w)...)
	// The labels line up in cells: CJK labels are two cells a character.
	labelW := 0
	for _, l := range []string{tr.ServedServer, tr.ServedKubeconfig, tr.ServedContexts} {
		labelW = max(labelW, ansi.StringWidth(l))
	}
	label := func(l string) string { return i18n.PadRight(l, labelW) + " " }
	add(st.Label.Render, label(tr.ServedServer)+p.address)
	add(st.Label.Render, label(tr.ServedKubeconfig)+p.kubeconfig)
	var ctxs []string
	for _, id := range p.ids {
		groups := strings.Join(id.Groups, ",")
		if groups != "" {
			groups = " [" + groups + "]"
		}
		ctxs = append(ctxs, fmt.Sprintf("%s → %s%s", id.Context, id.User, groups))
	}
	if len(ctxs) > 0 {
		ctxs = append(ctxs, tr.ServedProbeContexts)
		add(st.Label.Render, label(tr.ServedContexts)+strings.Join(ctxs, "; "))
	}
	out = append(out, "")
	add(st.Heading.Render, tr.ServedTry)
	notes := []string{"", tr.ServedAsAdmin, tr.ServedAliceWrites, tr.ServedCreatedBy, tr.ServedBobMayNot, tr.ServedAliceRBAC}
	for i, c := range p.Commands() {
		if notes[i] != "" {
			add(st.Comment.Render, notes[i])
		}
		for _, l := range common.WrapCommand(c, w) {
			out = append(out, st.Command.Render(l))
		}
		if i == 0 {
			add(st.Comment.Render, tr.ServedEnvHint)
		}
	}
	out = append(out, "")
	add(st.Heading.Render, tr.ServedHere)
	add(st.Comment.Render, tr.ServedHereNote)
	for _, c := range []string{":k get ns", ":k --context bob get cm", ":req"} {
		out = append(out, st.Command.Render(c))
	}
	p.lines = out
	p.offset = max(min(p.offset, len(p.lines)-p.visible()), 0)
}

func (p *Served) visible() int { return max(p.h-2, 1) }

// Scroll moves the view by n lines.
func (p *Served) Scroll(n int) {
	p.offset = max(min(p.offset+n, len(p.lines)-p.visible()), 0)
	p.Invalidate()
}

func (p *Served) Page() int { return max(p.visible()-2, 1) }

// View renders the pane: exactly h lines of exactly w cells.
func (p *Served) View() []string {
	return p.Render(p.tr.PaneKubectl, p.tr.ServedTitle, "", func() []string {
		return p.lines[p.offset:min(p.offset+p.visible(), len(p.lines))]
	})
}

// Lines are the panel's rendered lines at its width.
func (p *Served) Lines() []string { return p.lines }
