package tracing

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// TestWriteFormatIsSprintf: writeFormat writes what fmt.Sprintf writes for the same format and
// arguments (Texts worded first), the mistakes fmt marks included, so a wrong argument count
// shows as "%!" as fmt would show it and the catalogue tests catch it.
func TestWriteFormatIsSprintf(t *testing.T) {
	zh := i18n.For(i18n.SimplifiedChinese)
	nested := say("LaneUserGroups", "bob", "system:authenticated")
	opinions := Texts{say("LaneNamed", "privileged-groups", say("LaneNoOpinion")), say("LaneNamed", "rbac", say("LaneNoOpinion"))}
	tests := []struct {
		name   string
		format string
		args   []any
	}{
		{"no verb", "no answer", nil},
		{"one string", "accepted: %s", []any{"bob"}},
		{"string and int", "422: %d field errors from %s", []any{3, "strategy.Validate"}},
		{"reordered", "422：%[2]s 报告了 %[1]d 个字段错误", []any{3, "strategy.Validate"}},
		{"a Text argument", "%s: %s", []any{"token", nested}},
		{"a Texts argument", "403 Forbidden: %s", []any{opinions}},
		{"percent sign", "100%% %s", []any{"sure"}},
		{"%v", "%v then %v", []any{"a", 2}},
		{"missing argument", "%s and %s", []any{"one"}},
		{"extra argument", "%s", []any{"one", "two", 3}},
		{"extra Text argument", "%s", []any{"one", nested}},
		{"string for %d", "rev %d", []any{"16"}},
		{"int for %s", "rev %s", []any{16}},
		{"Text for %d", "%d", []any{nested}},
		{"other type", "%s and %d", []any{true, int64(7)}},
		{"index out of range", "%[3]s", []any{"one"}},
		{"index, then missing", "%[1]s %s %s", []any{"one"}},
		{"index back", "%[2]s %[1]s %s", []any{"one", "two"}},
		{"flags go through fmt", "%-10s|%5d", []any{"ok", 42}},
		{"width-less dangling percent", "50%", nil},
		{"bad index", "%[x]s", []any{"one"}},
	}
	for _, tt := range tests {
		for _, tr := range []*i18n.Strings{english(), zh} {
			t.Run(tt.name+" "+tr.Lang(), func(t *testing.T) {
				worded := make([]any, len(tt.args))
				for i, a := range tt.args {
					worded[i] = wordArg(a, tr)
				}
				want := fmt.Sprintf(tt.format, worded...)
				var b strings.Builder
				writeFormat(&b, tt.format, tt.args, tr)
				if got := b.String(); got != want {
					t.Errorf("writeFormat(%q) = %q, fmt.Sprintf = %q", tt.format, got, want)
				}
			})
		}
	}
}

// BenchmarkTextEnglish measures wording one detail of a lane in English, as assembling does
// for each Text.
func BenchmarkTextEnglish(b *testing.B) {
	d := say("LaneForbidden", Texts{say("LaneNamed", "privileged-groups", say("LaneNoOpinion")), say("LaneNamed", "rbac", say("LaneNoOpinion"))})
	b.ReportAllocs()
	for b.Loop() {
		_ = d.String()
	}
}
