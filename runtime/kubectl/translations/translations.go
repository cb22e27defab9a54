// Package translations makes kubectl's message catalogue load only when it changes something.
//
// kubectl's commands translate their help texts with k8s.io/kubectl/pkg/util/i18n.T in package
// variables, so the first T, during package initialisation, loads a catalogue: by default
// i18n.LoadTranslations("kubectl", nil), which zips the locale's k8s.po and k8s.mo (200 KB for
// English) and parses them — about 25 ms and 4 MB before kubewalk's main, whatever the
// command, though kubewalk runs kubectl only in the tour's kubectl pane.
//
// The English catalogues ("default", used for an unset, C or unknown locale, and "en_US")
// translate every message to itself, and an unbound gettext also returns the message itself,
// so for them this package's loader loads nothing; for a locale kubectl has a translation of
// (zh_CN, ja_JP, …) it loads kubectl's catalogue exactly as kubectl would. kubectl's output is
// the same either way (TestSameAsKubectl).
//
// i18n.SetLoadTranslationsFunc must run before the first T: import this package before
// anything that imports kubectl's commands. Go initialises packages in import-path order as
// soon as their imports are, so this package (which imports only kubectl's i18n package)
// runs before every k8s.io/kubectl/pkg/cmd/... package.
package translations

import (
	"fmt"
	"os"
	"strings"

	"k8s.io/kubectl/pkg/util/i18n"
)

func init() {
	if err := i18n.SetLoadTranslationsFunc(load); err != nil {
		panic(fmt.Sprintf("kubewalk: kubectl's translations were loaded before %s: %v", "runtime/kubectl/translations", err))
	}
}

// translated are the locales kubectl v0.37.2 has a catalogue of, besides English
// (k8s.io/kubectl/pkg/util/i18n's knownTranslations).
var translated = map[string]bool{
	"fr_FR": true, "zh_CN": true, "ja_JP": true, "zh_TW": true, "it_IT": true,
	"de_DE": true, "ko_KR": true, "pt_BR": true,
}

// load loads kubectl's catalogue for the environment's locale unless it is English.
func load() error {
	if !translated[Locale(os.Getenv)] {
		return nil
	}
	return i18n.LoadTranslations("kubectl", nil)
}

// Locale is the locale kubectl's i18n package picks from the environment, as its
// loadSystemLanguage does: LC_ALL, else LC_MESSAGES, else LANG, with the part before the
// encoding ("zh_CN" of "zh_CN.UTF-8"); "default" when unset or without an encoding.
func Locale(getenv func(string) string) string {
	s := getenv("LC_ALL")
	if s == "" {
		s = getenv("LC_MESSAGES")
	}
	if s == "" {
		s = getenv("LANG")
	}
	pieces := strings.Split(s, ".")
	if len(pieces) != 2 {
		return "default"
	}
	return pieces[0]
}
