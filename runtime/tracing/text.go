package tracing

import (
	"fmt"
	"strings"

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
func (t Text) String() string { return t.In(english) }

// english is the catalogue String wordings come from (read only).
var english = i18n.For(i18n.English)

// In words t in tr's language. A key the catalogue lacks (a bug the catalogue test catches)
// shows as the key with its arguments, never as nothing.
func (t Text) In(tr *i18n.Strings) string {
	if t.Key == "" {
		switch {
		case t.parts == nil:
			return t.lit
		case t.list:
			return Texts(t.parts).in(tr)
		}
		var b strings.Builder
		for _, p := range t.parts {
			b.WriteString(p.In(tr))
		}
		return b.String()
	}
	format, ok := tr.Format(t.Key)
	if !ok {
		return t.Key + fmt.Sprint(t.Args...)
	}
	if len(t.Args) == 0 {
		return format
	}
	// Arguments that are not Texts go to Sprintf as they are (no copy, no new boxing).
	args := t.Args
	copied := false
	for i, a := range t.Args {
		var w string
		switch v := a.(type) {
		case Text:
			w = v.In(tr)
		case Texts:
			w = v.in(tr)
		default:
			continue
		}
		if !copied {
			args, copied = append([]any(nil), t.Args...), true
		}
		args[i] = w
	}
	return fmt.Sprintf(format, args...)
}

// in words the list in tr's language, joined by its list separator.
func (ts Texts) in(tr *i18n.Strings) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.In(tr)
	}
	return strings.Join(parts, tr.LaneListSep)
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
	if f.LabelKey != "" {
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

// In is the outcome's word in tr's language, as the lane's boxes show it.
func (o Outcome) In(tr *i18n.Strings) string {
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
	label, _ := english.Format(labelKey)
	s.Fields = append(s.Fields, Field{Label: label, Value: value.String(), LabelKey: labelKey, ValueText: value})
}
