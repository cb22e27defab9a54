package i18n

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// TermFinding is one place where a Chinese text breaks the glossary's contract.
type TermFinding struct {
	// Col is the rune offset in the checked text where the problem starts.
	Col int
	// Text is what is wrong: the rejected variant, the stray space with its neighbours, or the
	// stage name and 阶段.
	Text string
	// Msg says what is wrong and what to write instead.
	Msg string
}

// objectReplacement stands in for a code span while a text is checked: neither a space, nor
// CJK, nor part of a Latin word.
const objectReplacement = '\uFFFC'

// TermChecker checks Chinese prose against a glossary (see CheckChinese).
type TermChecker struct {
	terms     []Term
	preferred []string // every term's preferred forms, longest first
}

// NewTermChecker returns a checker for terms.
func NewTermChecker(terms []Term) *TermChecker {
	c := &TermChecker{terms: terms}
	for _, t := range terms {
		c.preferred = append(c.preferred, t.Preferred()...)
	}
	sort.SliceStable(c.preferred, func(i, j int) bool { return len(c.preferred[i]) > len(c.preferred[j]) })
	return c
}

// StageNames are the request-stage names that are never also a phase's name (runtime/tracing's
// Stage constants; admission and storage are phases too). "<stage> 阶段" confuses a request's
// stage (环节) with a startup phase (阶段).
var StageNames = []string{"authentication", "impersonation", "flowcontrol", "authorization", "validation", "response",
	"admission/mutating", "admission/validating"}

var stagePhase = lazyRegexp("`?(" + strings.Join(quoteAll(StageNames), "|") + `)[\w./-]*` + "`?" + `\s*阶段`)

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = regexp.QuoteMeta(s)
	}
	return out
}

// Check checks one piece of Chinese prose (a line of a lesson, an exercise text, a catalogue
// string) and returns what breaks the contract, in order:
//
//   - a rejected variant of a glossary term, outside code spans (`...`), unless it lies wholly
//     inside a preferred form of some term (认证器 in 身份认证器), inside the full-width
//     brackets right after a preferred form (持有者令牌（bearer token）), or inside a quotation
//     with no CJK in it (the server's English, “pod web does not have a host assigned”). A
//     variant in Latin letters matches whole words only (letters, digits, '_' and '-' make a
//     word; a '/', ':', '.' or '=' next to it makes it part of a path, command or
//     identifier), case-sensitively;
//   - a space between two CJK characters, where CJK means Han, CJK and full-width punctuation
//     and “”‘’: Chinese puts spaces only around Latin words, numbers and code;
//   - a request stage's name (StageNames) followed by 阶段.
func (c *TermChecker) Check(text string) []TermFinding {
	stripped, orig := stripCode(text)
	rs := []rune(stripped)
	masked := make([]bool, len(rs))
	for _, p := range c.preferred {
		pr := []rune(p)
		for i := index(rs, pr, 0); i >= 0; i = index(rs, pr, i+1) {
			end := i + len(pr)
			if end < len(rs) && rs[end] == '（' {
				if close := index(rs, []rune("）"), end); close >= 0 {
					end = close + 1
				}
			}
			for k := i; k < end; k++ {
				masked[k] = true
			}
		}
	}
	// A quotation with no CJK in it (“pod web does not have a host assigned”) is the server's
	// English, quoted as it is.
	for i := index(rs, []rune("“"), 0); i >= 0; i = index(rs, []rune("“"), i+1) {
		j := index(rs, []rune("”"), i)
		if j < 0 {
			break
		}
		if !slices.ContainsFunc(rs[i+1:j], isCJK) {
			for k := i; k <= j; k++ {
				masked[k] = true
			}
		}
	}
	var out []TermFinding
	for _, t := range c.terms {
		for _, v := range t.Rejected {
			vr := []rune(v)
			latin := isWordRune(vr[0]) || isWordRune(vr[len(vr)-1])
			for i := index(rs, vr, 0); i >= 0; i = index(rs, vr, i+1) {
				end := i + len(vr)
				if allTrue(masked[i:end]) {
					continue
				}
				if latin && ((isWordRune(vr[0]) && i > 0 && (isWordRune(rs[i-1]) || isJoiner(rs[i-1]))) ||
					(isWordRune(vr[len(vr)-1]) && end < len(rs) && (isWordRune(rs[end]) || isJoiner(rs[end])))) {
					continue
				}
				out = append(out, TermFinding{Col: orig[i], Text: v,
					Msg: fmt.Sprintf("%q is not the glossary's term for %s: write %q", v, t.English, t.Chinese)})
			}
		}
	}
	for i := 0; i < len(rs); i++ {
		if !isSpace(rs[i]) {
			continue
		}
		j := i
		for j < len(rs) && isSpace(rs[j]) {
			j++
		}
		if i > 0 && j < len(rs) && isCJK(rs[i-1]) && isCJK(rs[j]) {
			out = append(out, TermFinding{Col: orig[i], Text: string(rs[i-1 : j+1]),
				Msg: fmt.Sprintf("stray space in %q: no space between CJK characters", string(rs[i-1:j+1]))})
		}
		i = j
	}
	for _, m := range stagePhase().FindAllStringSubmatchIndex(text, -1) {
		out = append(out, TermFinding{Col: len([]rune(text[:m[0]])), Text: text[m[0]:m[1]],
			Msg: fmt.Sprintf("%q: %s is a stage of a request (环节), not a startup phase (阶段)", text[m[0]:m[1]], text[m[2]:m[3]])})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Col != out[j].Col {
			return out[i].Col < out[j].Col
		}
		return len(out[i].Text) > len(out[j].Text)
	})
	// One finding per place: a variant inside a longer one reported at the same place (认证 in
	// 认证器) adds nothing.
	var kept []TermFinding
	for _, f := range out {
		if n := len(kept); n > 0 && kept[n-1].Col+len([]rune(kept[n-1].Text)) > f.Col && !strings.Contains(f.Msg, "stray space") {
			continue
		}
		kept = append(kept, f)
	}
	return kept
}

// stripCode replaces each code span (a run of backticks up to the next run of as many) with
// objectReplacement, and returns for each rune of the result the index of the rune of s it
// came from. An unclosed run is left as it is.
func stripCode(s string) (string, []int) {
	var b strings.Builder
	var orig []int
	at := 0 // runes of the original consumed
	keep := func(part string) {
		for range part {
			orig = append(orig, at)
			at++
		}
		b.WriteString(part)
	}
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			keep(s)
			return b.String(), orig
		}
		n := i
		for n < len(s) && s[n] == '`' {
			n++
		}
		ticks := s[i:n]
		j := strings.Index(s[n:], ticks)
		for j >= 0 && n+j+len(ticks) < len(s) && s[n+j+len(ticks)] == '`' { // a longer run does not close
			k := strings.Index(s[n+j+len(ticks):], ticks)
			if k < 0 {
				j = -1
				break
			}
			j += len(ticks) + k
		}
		if j < 0 {
			keep(s[:n])
			s = s[n:]
			continue
		}
		keep(s[:i])
		b.WriteRune(objectReplacement)
		orig = append(orig, at)
		at += utf8.RuneCountInString(s[i : n+j+len(ticks)])
		s = s[n+j+len(ticks):]
	}
}

// index returns the first index of sub in rs at or after from, or -1.
func index(rs, sub []rune, from int) int {
	for i := from; i+len(sub) <= len(rs); i++ {
		match := true
		for k := range sub {
			if rs[i+k] != sub[k] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

func allTrue(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}

// isWordRune reports whether r continues a Latin word: a letter (not CJK), a digit, '_' or '-'.
func isWordRune(r rune) bool {
	return r < 0x2E80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-')
}

// isJoiner reports whether r ties a Latin word to the next as part of a path, a command or an
// identifier (pods/exec, :lesson, v1.Pod): a variant next to one is not prose.
func isJoiner(r rune) bool { return r == '/' || r == ':' || r == '.' || r == '=' }

// isSpace reports whether r is a space in prose; a tab separates the columns of a table.
func isSpace(r rune) bool { return r == ' ' || r == '\u3000' }

// isCJK reports whether r is a Han character or CJK punctuation: the characters Chinese text
// never puts a space between.
func isCJK(r rune) bool {
	switch {
	case unicode.Is(unicode.Han, r):
		return true
	case r > 0x3000 && r <= 0x303F: // CJK symbols and punctuation: 、。〈〉《》「」
		return true
	case r >= 0xFF01 && r <= 0xFF60: // full-width forms: ，：；？！（）
		return true
	case r == '“' || r == '”' || r == '‘' || r == '’':
		return true
	}
	return false
}

// lazyRegexp compiles expr when it is first used rather than during package initialisation,
// which every kubewalk command pays.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
