// Package i18n is kubewalk's catalogue of the strings a learner reads on its screens and command
// line, in English and Simplified Chinese.
//
// English is the base: Strings holds every string, and english() fills it. Another language is
// a map from a Strings field name to its translation (zhCN), merged over English string by
// string, so a string missing from a translation shows in English instead of breaking the
// screen. TestCatalogueParity names every English string a translation lacks and every
// translated key that is no longer a field (an orphan), and checks that each translation uses
// the same format arguments as its English string.
//
// Format strings take their arguments in the English order; a translation whose word order
// differs refers to them by position ("%[2]s … %[1]s"), never by building a sentence from
// pieces. API identifiers, flags, kinds, function names, phase names and request-stage names
// stay English in every language.
//
// To add a string: add a field to Strings (in its group), its English text to english(), its
// translation to zhCN(), and use it through the *Strings the screen was given (For(lang)).
package i18n

import "reflect"

// The languages kubewalk has catalogues for, as lessons.NormalizeLang names them.
const (
	English           = "en"
	SimplifiedChinese = "zh-CN"
)

// Languages lists the languages with a catalogue, English first.
func Languages() []string { return []string{English, SimplifiedChinese} }

// For returns the strings in lang: English for "en" and for any language without a catalogue;
// in "zh-CN" every string the Chinese catalogue has, and English for the rest. Each call
// returns a fresh value, which the caller may keep and share read-only.
func For(lang string) *Strings {
	s := english()
	s.lang = English
	if lang == SimplifiedChinese {
		overlay(&s, zhCN())
		s.lang = SimplifiedChinese
	}
	return &s
}

// Lang is the language the strings were asked in ("en" or "zh-CN").
func (s *Strings) Lang() string { return s.lang }

// overlay sets the string fields of s named by tr's keys to tr's non-empty values; keys that
// name no string field are ignored (the parity test reports them).
func overlay(s *Strings, tr map[string]string) {
	v := reflect.ValueOf(s).Elem()
	for k, text := range tr {
		if text == "" {
			continue
		}
		if f := v.FieldByName(k); f.IsValid() && f.Kind() == reflect.String && f.CanSet() {
			f.SetString(text)
		}
	}
}

// fields returns the exported string fields of Strings with their values in s, by name.
func fields(s *Strings) map[string]string {
	out := map[string]string{}
	v := reflect.ValueOf(s).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.IsExported() && f.Type.Kind() == reflect.String {
			out[f.Name] = v.Field(i).String()
		}
	}
	return out
}
