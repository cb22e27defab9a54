package tracing

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// logLine is one line of the --trace-log format (docs/trace-log.md): the trace's own JSON
// fields plus when the request arrived and how long it took.
type logLine struct {
	Time           string `json:"time"`
	DurationMicros int64  `json:"durationMicros"`
	Trace
}

// MarshalLogLine renders t as one line of the --trace-log format, without the newline.
func MarshalLogLine(t Trace) ([]byte, error) {
	l := logLine{Time: t.Received.UTC().Format(time.RFC3339Nano), DurationMicros: t.Duration.Microseconds(), Trace: t}
	if l.Stages == nil {
		l.Stages = []Stage{}
	}
	return json.Marshal(l)
}

// WriteLog writes every trace of store that finishes, once, as one JSON object per line (the
// --trace-log format), until ctx ends; it then writes those that have finished meanwhile and
// returns. The server's loopback traffic is written too when loopback is set. A write error
// ends it.
func WriteLog(ctx context.Context, store *Store, w io.Writer, loopback bool) error {
	events, cancel := store.Subscribe()
	defer cancel()
	written := map[string]bool{}
	write := func(t Trace) error {
		if written[t.ID] || !t.Done || (t.Loopback && !loopback) {
			return nil
		}
		written[t.ID] = true
		line, err := MarshalLogLine(t)
		if err != nil {
			return fmt.Errorf("--trace-log: %w", err)
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return fmt.Errorf("--trace-log: %w", err)
		}
		return nil
	}
	scan := func() error {
		ts := store.List(Filter{Loopback: loopback})
		sort.Slice(ts, func(i, j int) bool { return ts[i].Seq < ts[j].Seq })
		present := make(map[string]bool, len(ts))
		for _, t := range ts {
			present[t.ID] = true
			if err := write(t); err != nil {
				return err
			}
		}
		if len(written) > 2*len(ts)+16 { // forget what the ring has dropped
			for id := range written {
				if !present[id] {
					delete(written, id)
				}
			}
		}
		return nil
	}
	if err := scan(); err != nil {
		return err
	}
	for {
		select {
		case ev := <-events:
			if ev.ID == "" {
				if err := scan(); err != nil {
					return err
				}
				continue
			}
			if t, ok := store.Get(ev.ID); ok {
				if err := write(t); err != nil {
					return err
				}
			}
		case <-ctx.Done():
			return scan()
		}
	}
}

// outcomeMark marks a stage in text without relying on colour.
func outcomeMark(st Stage) string {
	switch {
	case st.Stopped:
		return "■"
	case st.Outcome == OutcomeHeld:
		return "‖"
	case st.Outcome == OutcomeSkipped:
		return "·"
	}
	return "→"
}

// WriteLane writes t as text in tr's language (English when tr is nil): a heading line and one
// line per stage, the stage that stopped the request marked ■ and named; a mutating plugin's
// patch and a refusal's field errors follow their stage, indented. indent starts every line.
// Stage names, outcomes' symbols and what the server wrote read the same in every language.
func WriteLane(w io.Writer, t Trace, indent string, tr *i18n.Strings) {
	if tr == nil {
		tr = english()
	}
	who := t.User
	if who == "" {
		who = tr.LaneUnauthenticated
	}
	if t.Impersonator != "" {
		who = fmt.Sprintf(tr.LaneAs, t.Impersonator, t.User)
	}
	what := strings.ToUpper(t.Verb)
	if what == "" {
		what = "?"
	}
	head := fmt.Sprintf("%s%s %s  %s", indent, what, t.Path, who)
	if t.Code != 0 {
		head += fmt.Sprintf(" → %d", t.Code)
	}
	if t.Done {
		head += "  " + round(t.Duration).String()
	}
	fmt.Fprintf(w, "%s  [Audit-Id %s]\n", head, t.ID)
	width, outcomeW := 0, 10
	for _, st := range t.Stages {
		width = max(width, len(st.Name))
		outcomeW = max(outcomeW, ansi.StringWidth(st.Outcome.In(tr)))
	}
	for _, st := range t.Stages {
		d := ""
		if st.Duration > 0 {
			d = "  " + round(st.Duration).String()
		}
		fmt.Fprintf(w, "%s  %s %-*s  %s %s%s\n", indent, outcomeMark(st), width, st.Name, i18n.PadRight(st.Outcome.In(tr), outcomeW), st.DetailIn(tr), d)
		if st.Patch != "" {
			fmt.Fprintf(w, "%s        %s\n", indent, fmt.Sprintf(tr.LanePatchLine, st.Patch))
		}
		if st.Stopped {
			for _, f := range st.Fields {
				fmt.Fprintf(w, "%s        %s\n", indent, fmt.Sprintf(tr.LaneNamed, f.LabelIn(tr), f.ValueIn(tr)))
			}
			fmt.Fprintf(w, "%s        %s\n", indent, tr.LaneStoppedMark)
		}
	}
}

// LaneText returns WriteLane's text in tr's language (English when tr is nil).
func LaneText(t Trace, indent string, tr *i18n.Strings) string {
	var b strings.Builder
	WriteLane(&b, t, indent, tr)
	return b.String()
}
