package kubectl

import (
	"fmt"
	"strings"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// ParseError says why a command line could not be split into arguments, and where.
type ParseError struct {
	// Line is the command line as typed.
	Line string
	// Col is the 1-based column (in runes) of the offending character.
	Col int
	// Msg says what is wrong, in English (MsgIn words it in the learner's language).
	Msg string

	why reason // Msg, as the catalogue words it
}

// MsgIn is Msg in tr's language (every message Split gives is in the i18n catalogue, with the
// operators and quotes as typed). A ParseError built with a Msg of its own gives that Msg.
func (e *ParseError) MsgIn(tr *i18n.Strings) string {
	if e.why.isZero() {
		return e.Msg
	}
	return e.why.in(tr)
}

// Error implements error.
func (e *ParseError) Error() string {
	return fmt.Sprintf("kubectl command line, column %d: %s", e.Col, e.Msg)
}

// Split splits a command line the way a POSIX shell splits words, without being a shell: words
// are separated by blanks; 'single quotes' keep everything literally; "double quotes" keep
// everything but \" \\ \$ \` (backslash escapes those); outside quotes a backslash keeps the next
// character. Nothing is expanded: no variables, no globbing (a * is passed to kubectl as it
// is, as `auth can-i '*' '*'` needs), no ~.
//
// Shell syntax that would need a shell — pipes (|), redirections (< >), command lists (; & &&
// ||), command substitution ($( ) and backticks) and variables ($NAME, ${NAME}) — is refused
// with a *ParseError when it appears unquoted, rather than passed to kubectl as an argument; so
// is an unterminated quote or a trailing backslash.
func Split(line string) ([]string, error) {
	var (
		args    []string
		cur     strings.Builder
		inWord  bool
		quote   rune // 0, '\'' or '"'
		quoteAt int
	)
	rs := []rune(line)
	fail := func(i int, r reason) error {
		return &ParseError{Line: line, Col: i + 1, Msg: r.in(englishStrings()), why: r}
	}
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch quote {
		case '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
			continue
		case '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[i+1]):
				i++
				if rs[i] != '\n' { // backslash-newline is a line continuation
					cur.WriteRune(rs[i])
				}
			default:
				cur.WriteRune(c)
			}
			continue
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'' || c == '"':
			quote, quoteAt, inWord = c, i, true
		case c == '\\':
			if i+1 == len(rs) {
				return nil, fail(i, why("ParseTrailingBackslash"))
			}
			i++
			if rs[i] != '\n' {
				cur.WriteRune(rs[i])
				inWord = true
			}
		case c == '|' || c == '<' || c == '>' || c == ';' || c == '&' || c == '`':
			return nil, fail(i, why("ParseShellOperator", operatorAt(rs, i), c))
		case c == '$' && i+1 < len(rs) && (rs[i+1] == '(' || rs[i+1] == '{' || rs[i+1] == '_' || isLetter(rs[i+1])):
			return nil, fail(i, why("ParseShellVariable", operatorAt(rs, i)))
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	if quote != 0 {
		name := why("ParseQuoteSingle")
		if quote == '"' {
			name = why("ParseQuoteDouble")
		}
		return nil, fail(quoteAt, why("ParseUnterminatedQuote", name, quote))
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args, nil
}

// operatorAt returns the shell operator starting at rs[i] for error messages: "&&", "||",
// ">>", "$(", "${", "$NAME" or the single character.
func operatorAt(rs []rune, i int) string {
	if i+1 < len(rs) {
		two := string(rs[i : i+2])
		switch two {
		case "&&", "||", ">>", "<<", "$(", "${":
			return two
		}
	}
	if rs[i] == '$' {
		j := i + 1
		for j < len(rs) && (rs[j] == '_' || isLetter(rs[j]) || (rs[j] >= '0' && rs[j] <= '9')) {
			j++
		}
		return string(rs[i:j])
	}
	return string(rs[i])
}

func isLetter(r rune) bool { return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') }

// Quote returns args as one line a POSIX shell splits back into args: words made only of safe
// characters stay as they are, others are single-quoted.
func Quote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = quoteWord(a)
	}
	return strings.Join(out, " ")
}

func quoteWord(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(isLetter(r) || (r >= '0' && r <= '9') || strings.ContainsRune("-_./:=,+@%^", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ReadsStdin reports whether args pass `-f -` (in any of its spellings: -f -, -f=-, -f-,
// --filename -, --filename=-): the command reads its manifest from standard input, which in
// the TUI is the kubectl pane's text box.
func ReadsStdin(args []string) bool {
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case a == "-f-" || a == "-f=-" || a == "--filename=-":
			return true
		case (a == "-f" || a == "--filename") && i+1 < len(args) && args[i+1] == "-":
			return true
		}
	}
	return false
}
