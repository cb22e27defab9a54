package plain

import (
	"net/http"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"k8s.io/client-go/rest"
)

// wrap wraps text to width display cells, breaking CJK text between characters too.
func wrap(text string, width int) string {
	return ansi.Wrap(text, width, "")
}

// indent prefixes every non-empty line of s.
func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

// firstLine returns s's first line, cut to n runes.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func restHTTPClient(cfg *rest.Config) (*http.Client, error) { return rest.HTTPClientFor(cfg) }
