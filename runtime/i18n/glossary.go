package i18n

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/content"
)

// Term is one row of the glossary: a concept's English term, its Simplified Chinese term and an
// optional note (in Chinese).
type Term struct {
	English, Chinese, Note string
}

// Glossary parses the embedded glossary (content/glossary.md).
func Glossary() ([]Term, error) {
	return ParseGlossary(content.Glossary)
}

// ParseGlossary reads the glossary table of a Markdown document: the first table whose header
// row has at least two cells; each following row is | English | 中文 | note |. It fails, naming
// the line, on a row with an empty term or a term (English or Chinese, ignoring case) that an
// earlier row already has: one term per concept.
func ParseGlossary(md []byte) ([]Term, error) {
	var terms []Term
	seenEN, seenZH := map[string]int{}, map[string]int{}
	inTable := false
	for i, line := range strings.Split(string(md), "\n") {
		n := i + 1
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		cells := splitRow(line)
		if !inTable {
			if len(cells) < 2 {
				continue
			}
			inTable = true // the header row
			continue
		}
		if isSeparator(cells) {
			continue
		}
		for len(cells) < 3 {
			cells = append(cells, "")
		}
		t := Term{English: cells[0], Chinese: cells[1], Note: cells[2]}
		switch {
		case t.English == "" || t.Chinese == "":
			return nil, fmt.Errorf("glossary line %d: both the English and the Chinese term are required", n)
		case seenEN[strings.ToLower(t.English)] > 0:
			return nil, fmt.Errorf("glossary line %d: %q is already on line %d", n, t.English, seenEN[strings.ToLower(t.English)])
		case seenZH[t.Chinese] > 0:
			return nil, fmt.Errorf("glossary line %d: %q is already on line %d: one term per concept", n, t.Chinese, seenZH[t.Chinese])
		}
		seenEN[strings.ToLower(t.English)], seenZH[t.Chinese] = n, n
		terms = append(terms, t)
	}
	if len(terms) == 0 {
		return nil, fmt.Errorf("glossary: no table of terms")
	}
	return terms, nil
}

// splitRow splits a table row into its trimmed cells; `\|` is a literal bar.
func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	const bar = "\x00"
	line = strings.ReplaceAll(line, `\|`, bar)
	parts := strings.Split(line, "|")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(strings.ReplaceAll(p, bar, "|"))
	}
	return parts
}

// isSeparator reports whether cells are a table's |---|---| row.
func isSeparator(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":-") != "" || c == "" {
			return false
		}
	}
	return true
}

// Table lays rows out in columns gap cells apart, measuring each cell in terminal cells (a CJK
// character is two), which text/tabwriter does not: it counts runes. The last column is not
// padded. Lines have no trailing spaces.
func Table(rows [][]string, gap int) []string {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(c)+gap))
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}

// PadRight pads s with spaces to w terminal cells (CJK characters count two); a longer s is
// returned as it is.
func PadRight(s string, w int) string {
	if d := w - ansi.StringWidth(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}
