package tracing

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// Text is a piece of a lane that kubewalk words itself — a stage's detail, a field's label or
// value — kept so that a view can show it in the learner's language: a format of the i18n
// catalogue, named by Key (a field of i18n.Strings whose name starts with "Lane"), and its
// arguments. An argument that is a Text, or a Texts list, is worded in the same language;
// any other (a user, a key, an error or a reason the server wrote) is shown as it is. A Text
// with no Key is a literal, shown as it is in every language, or parts set one after
// another. The lane's Detail, Field.Label and Field.Value keep the English, which
// --trace-log writes and checks match on.
type Text struct {
	Key  string
	Args []any

	lit   string // a literal's words (no Key, no parts)
	parts []Text // the parts of a joined Text (no Key)
	list  bool   // parts are joined by the language's list separator
}

// Texts is a list of Texts worded and joined by the language's list separator (LaneListSep).
type Texts []Text

// say is the Text of a catalogue format with its arguments.
func say(key string, args ...any) Text { return Text{Key: key, Args: args} }

// verbatim is a Text shown as it is in every language.
func verbatim(s string) Text { return Text{lit: s} }

// joined words several Texts one after another, with no separator.
func joined(parts ...Text) Text { return Text{parts: parts} }

// list words ts joined by the language's list separator.
func list(ts Texts) Text { return Text{parts: ts, list: true} }

// IsZero reports whether t holds nothing.
func (t Text) IsZero() bool { return t.Key == "" && t.lit == "" && len(t.parts) == 0 }

// String is the English wording.
func (t Text) String() string { return t.In(english()) }

// english is the catalogue String wordings come from (read only), built on first use, not
// during package initialisation.
var english = sync.OnceValue(func() *i18n.Strings { return i18n.For(i18n.English) })

// In words t in tr's language (English when tr is nil). A key the catalogue lacks (a bug the
// catalogue test catches) shows as the key with its arguments, never as nothing; a wrong
// argument shows as fmt shows it ("%!s(MISSING)").
func (t Text) In(tr *i18n.Strings) string {
	if tr == nil {
		tr = english()
	}
	switch {
	case t.Key == "" && t.parts == nil:
		return t.lit
	case t.Key != "" && len(t.Args) == 0:
		if f, ok := tr.Format(t.Key); ok && !strings.Contains(f, "%") {
			return f
		}
	}
	var b strings.Builder
	t.writeTo(&b, tr)
	return b.String()
}

// writeTo writes t in tr's language.
func (t Text) writeTo(b *strings.Builder, tr *i18n.Strings) {
	switch {
	case t.Key == "" && t.parts == nil:
		b.WriteString(t.lit)
	case t.Key == "":
		for i, p := range t.parts {
			if i > 0 && t.list {
				b.WriteString(tr.LaneListSep)
			}
			p.writeTo(b, tr)
		}
	default:
		format, ok := tr.Format(t.Key)
		if !ok {
			b.WriteString(t.Key)
			fmt.Fprint(b, t.Args...)
			return
		}
		writeFormat(b, format, t.Args, tr)
	}
}

// writeFormat writes format with args as fmt.Sprintf does, wording Text and Texts arguments in
// tr's language as it goes. It reads the verbs the lane formats use itself (%s, %d, %v, with
// an optional [n] index: a lane is assembled often, and fmt would cost most of it); a format
// with any other goes through fmt.
func writeFormat(b *strings.Builder, format string, args []any, tr *i18n.Strings) {
	if !simpleFormat(format) {
		worded := make([]any, len(args))
		for i, a := range args {
			worded[i] = wordArg(a, tr)
		}
		fmt.Fprintf(b, format, worded...)
		return
	}
	next, reordered := 0, false
	for i := 0; i < len(format); {
		j := strings.IndexByte(format[i:], '%')
		if j < 0 {
			b.WriteString(format[i:])
			break
		}
		b.WriteString(format[i : i+j])
		i += j + 1
		if format[i] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		n, indexed := next, false
		if format[i] == '[' {
			k := strings.IndexByte(format[i:], ']')
			idx, _ := strconv.Atoi(format[i+1 : i+k]) // simpleFormat checked it
			n, indexed, reordered = idx-1, true, true
			i += k + 1
		}
		verb := format[i]
		i++
		next = n + 1
		switch {
		case n >= len(args) && indexed:
			b.WriteString("%!" + string(verb) + "(BADINDEX)")
			continue
		case n >= len(args):
			b.WriteString("%!" + string(verb) + "(MISSING)")
			continue
		}
		writeArg(b, args[n], verb, tr)
	}
	if !reordered && next < len(args) {
		b.WriteString("%!(EXTRA ")
		for k, a := range args[next:] {
			if k > 0 {
				b.WriteString(", ")
			}
			w := wordArg(a, tr)
			fmt.Fprintf(b, "%T=%v", w, w)
		}
		b.WriteByte(')')
	}
}

// simpleFormat reports whether writeFormat reads format itself: its verbs are %%, or %s, %d or
// %v with at most an [n] index (n ≥ 1) and no flags, width or precision.
func simpleFormat(format string) bool {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i >= len(format) {
			return false
		}
		if format[i] == '%' {
			continue
		}
		if format[i] == '[' {
			k := strings.IndexByte(format[i:], ']')
			if k < 0 {
				return false
			}
			if n, err := strconv.Atoi(format[i+1 : i+k]); err != nil || n < 1 {
				return false
			}
			i += k + 1
			if i >= len(format) {
				return false
			}
		}
		switch format[i] {
		case 's', 'd', 'v':
		default:
			return false
		}
	}
	return true
}

// writeArg writes one argument for verb: a Text or Texts worded in tr's language, a string or
// an int as it is, and a mismatch as fmt writes it ("%!d(string=x)").
func writeArg(b *strings.Builder, a any, verb byte, tr *i18n.Strings) {
	switch v := a.(type) {
	case Text:
		if verb != 'd' {
			v.writeTo(b, tr)
			return
		}
	case Texts:
		if verb != 'd' {
			list(v).writeTo(b, tr)
			return
		}
	case string:
		if verb != 'd' {
			b.WriteString(v)
			return
		}
	case int:
		if verb != 's' {
			b.WriteString(strconv.Itoa(v))
			return
		}
	default:
		fmt.Fprintf(b, "%"+string(verb), a)
		return
	}
	w := wordArg(a, tr)
	fmt.Fprintf(b, "%%!%c(%T=%v)", verb, w, w)
}

// wordArg is an argument for fmt: a Text or Texts worded in tr's language, anything else as
// it is.
func wordArg(a any, tr *i18n.Strings) any {
	switch v := a.(type) {
	case Text:
		return v.In(tr)
	case Texts:
		return list(v).In(tr)
	}
	return a
}

// Keys lists the catalogue keys t and its arguments and parts use, for the catalogue test.
func (t Text) Keys() []string {
	var keys []string
	if t.Key != "" {
		keys = append(keys, t.Key)
	}
	if t.list {
		keys = append(keys, "LaneListSep")
	}
	for _, p := range t.parts {
		keys = append(keys, p.Keys()...)
	}
	for _, a := range t.Args {
		switch v := a.(type) {
		case Text:
			keys = append(keys, v.Keys()...)
		case Texts:
			keys = append(keys, list(v).Keys()...)
		}
	}
	return keys
}

// DetailIn is the stage's detail in tr's language (its English Detail when it has no Text:
// a stage made elsewhere, as tests do).
func (s Stage) DetailIn(tr *i18n.Strings) string {
	if s.DetailText.IsZero() {
		return s.Detail
	}
	return s.DetailText.In(tr)
}

// LabelIn is the field's label in tr's language.
func (f Field) LabelIn(tr *i18n.Strings) string {
	if f.LabelKey != "" && tr != nil {
		if label, ok := tr.Format(f.LabelKey); ok {
			return label
		}
	}
	return f.Label
}

// ValueIn is the field's value in tr's language.
func (f Field) ValueIn(tr *i18n.Strings) string {
	if f.ValueText.IsZero() {
		return f.Value
	}
	return f.ValueText.In(tr)
}

// In is the outcome's word in tr's language (English when tr is nil), as the lane's boxes
// show it.
func (o Outcome) In(tr *i18n.Strings) string {
	if tr == nil {
		tr = english()
	}
	switch o {
	case OutcomeOK:
		return tr.OutcomeOK
	case OutcomeAllowed:
		return tr.OutcomeAllowed
	case OutcomeDenied:
		return tr.OutcomeDenied
	case OutcomeNoOpinion:
		return tr.OutcomeNoOpinion
	case OutcomeChanged:
		return tr.OutcomeChanged
	case OutcomeNoChange:
		return tr.OutcomeNoChange
	case OutcomeRefused:
		return tr.OutcomeRefused
	case OutcomeFailed:
		return tr.OutcomeFailed
	case OutcomeHeld:
		return tr.OutcomeHeld
	case OutcomeAborted:
		return tr.OutcomeAborted
	case OutcomeCache:
		return tr.OutcomeCache
	case OutcomeEtcd:
		return tr.OutcomeEtcd
	case OutcomeSkipped:
		return tr.OutcomeSkipped
	case OutcomeDelegated:
		return tr.OutcomeDelegated
	case OutcomeServed:
		return tr.OutcomeServed
	case OutcomeProxied:
		return tr.OutcomeProxied
	case OutcomeNotFound:
		return tr.OutcomeNotFound
	}
	return string(o)
}

// setDetail sets the stage's detail, in English and as a Text.
func (s *Stage) setDetail(t Text) { s.Detail, s.DetailText = t.String(), t }

// addField appends a field whose label is an identifier shown as it is (an authenticator's or
// authorizer's name, a storage operation, a field path) and whose value kubewalk words.
func (s *Stage) addField(label string, value Text) {
	s.Fields = append(s.Fields, Field{Label: label, Value: value.String(), ValueText: value})
}

// addWordedField appends a field whose label kubewalk words too (labelKey is its catalogue
// key); Label keeps the English word, which views match on ("key").
func (s *Stage) addWordedField(labelKey string, value Text) {
	label, _ := english().Format(labelKey)
	s.Fields = append(s.Fields, Field{Label: label, Value: value.String(), LabelKey: labelKey, ValueText: value})
}
