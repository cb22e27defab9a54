package i18n

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/content"
)

// Term is one row of the glossary: a concept's English term, its Simplified Chinese term (or
// terms, "角色 / 集群角色"), a short English definition, the Chinese variants kubewalk does not
// use for it, and an optional note (in Chinese).
type Term struct {
	English, Chinese, Definition string
	Rejected                     []string
	Note                         string
}

// Preferred lists the Chinese forms the term prefers: each of the terms its Chinese cell
// separates with " / ", and, for one with an English gloss in full-width brackets
// ("监视（watch）"), the form without it too.
func (t Term) Preferred() []string {
	var out []string
	for _, f := range strings.Split(t.Chinese, "/") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		out = append(out, f)
		if i := strings.Index(f, "（"); i > 0 && strings.HasSuffix(f, "）") {
			out = append(out, strings.TrimSpace(f[:i]))
		}
	}
	return out
}

// Glossary parses the embedded glossary (content/glossary.md).
func Glossary() ([]Term, error) {
	return ParseGlossary(content.Glossary)
}

// glossaryColumns maps a header cell, lower-cased, to the Term field it fills.
var glossaryColumns = map[string]string{
	"english": "en", "中文": "zh", "chinese": "zh", "definition": "def",
	"rejected": "rej", "不用": "rej", "说明": "note", "note": "note",
}

// ParseGlossary reads the glossary table of a Markdown document: the first table whose header
// row has at least two cells. The header names the columns, in any order: English, 中文,
// definition, rejected and 说明 (a header that does not name both English and 中文 is read
// as | English | 中文 | 说明 |). Rejected variants are separated by "、" or ",". It fails, naming
// the line, on a row with an empty term, an empty
// definition (when the table has the column), a rejected variant that is one of the row's own
// terms, or a term (English or Chinese, ignoring case) that an earlier row already has: one
// term per concept.
func ParseGlossary(md []byte) ([]Term, error) {
	var terms []Term
	seenEN, seenZH := map[string]int{}, map[string]int{}
	var cols []string // the field of each column, "" for an unknown one
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
			cols = headerColumns(cells)
			continue
		}
		if isSeparator(cells) {
			continue
		}
		var t Term
		for j, c := range cells {
			if j >= len(cols) {
				break
			}
			switch cols[j] {
			case "en":
				t.English = c
			case "zh":
				t.Chinese = c
			case "def":
				t.Definition = c
			case "rej":
				t.Rejected = splitVariants(c)
			case "note":
				t.Note = c
			}
		}
		switch {
		case t.English == "" || t.Chinese == "":
			return nil, fmt.Errorf("glossary line %d: both the English and the Chinese term are required", n)
		case slices.Contains(cols, "def") && t.Definition == "":
			return nil, fmt.Errorf("glossary line %d: %q has no definition", n, t.English)
		case seenEN[strings.ToLower(t.English)] > 0:
			return nil, fmt.Errorf("glossary line %d: %q is already on line %d", n, t.English, seenEN[strings.ToLower(t.English)])
		case seenZH[t.Chinese] > 0:
			return nil, fmt.Errorf("glossary line %d: %q is already on line %d: one term per concept", n, t.Chinese, seenZH[t.Chinese])
		}
		for _, r := range t.Rejected {
			if slices.Contains(t.Preferred(), r) {
				return nil, fmt.Errorf("glossary line %d: %q is both preferred and rejected", n, r)
			}
		}
		seenEN[strings.ToLower(t.English)], seenZH[t.Chinese] = n, n
		terms = append(terms, t)
	}
	if len(terms) == 0 {
		return nil, fmt.Errorf("glossary: no table of terms")
	}
	return terms, nil
}

// headerColumns names the field each header cell fills. A header that does not name both the
// English and the 中文 column is read by position: English, 中文, note.
func headerColumns(cells []string) []string {
	cols := make([]string, len(cells))
	for i, c := range cells {
		name, _, _ := strings.Cut(strings.ToLower(c), " ")
		cols[i] = glossaryColumns[name]
	}
	if !slices.Contains(cols, "en") || !slices.Contains(cols, "zh") {
		clear(cols)
		copy(cols, []string{"en", "zh", "note"})
	}
	return cols
}

// splitVariants splits a rejected cell on "、" and ",".
func splitVariants(cell string) []string {
	var out []string
	for _, v := range strings.FieldsFunc(cell, func(r rune) bool { return r == '、' || r == ',' || r == '，' }) {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
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

// Wrap breaks s into lines of at most w terminal cells: between words, and between CJK
// characters too, keeping closing punctuation (，。）”…) with the character before it and
// opening punctuation (（“) with the one after. Spaces at a break are dropped; a word longer
// than w is cut.
func Wrap(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	var lines []string
	var line strings.Builder
	lw := 0
	flush := func() {
		lines = append(lines, strings.TrimRight(line.String(), " "))
		line.Reset()
		lw = 0
	}
	for _, tok := range wrapTokens(s) {
		tw := ansi.StringWidth(tok)
		if tok == " " {
			if lw > 0 && lw < w {
				line.WriteString(tok)
				lw++
			}
			continue
		}
		if lw+tw > w && lw > 0 {
			flush()
		}
		for tw > w { // a word wider than a line: cut it
			cut := ansi.Truncate(tok, w, "")
			line.WriteString(cut)
			flush()
			tok = strings.TrimPrefix(tok, cut)
			tw = ansi.StringWidth(tok)
		}
		line.WriteString(tok)
		lw += tw
	}
	if lw > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// wrapTokens splits s into the pieces Wrap never breaks: a single space, a run of other
// non-CJK characters (a Latin word), or one CJK character with the punctuation that must stay
// with it.
func wrapTokens(s string) []string {
	var toks []string
	var word strings.Builder
	endWord := func() {
		if word.Len() > 0 {
			toks = append(toks, word.String())
			word.Reset()
		}
	}
	openPending := ""
	for _, r := range s {
		switch {
		case r == ' ' || r == '\n' || r == '\t':
			endWord()
			toks = append(toks, " ")
		case strings.ContainsRune("，。、：；？！）」』”’…", r) && (len(toks) > 0 || word.Len() > 0):
			endWord()
			toks[len(toks)-1] += string(r)
		case strings.ContainsRune("（「『“‘", r):
			endWord()
			openPending += string(r)
		case isCJK(r):
			endWord()
			toks = append(toks, openPending+string(r))
			openPending = ""
		default:
			if openPending != "" {
				word.WriteString(openPending)
				openPending = ""
			}
			word.WriteRune(r)
		}
	}
	endWord()
	if openPending != "" {
		toks = append(toks, openPending)
	}
	return toks
}
