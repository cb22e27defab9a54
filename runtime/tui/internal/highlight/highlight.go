// Package highlight is the part of chroma's lexer registry that kubewalk uses, built on first
// use: the Go lexer (the source pane), and what lesson code blocks need — chroma's choice of a
// lexer for a block without a language (lexers.Analyse), the lexers it can choose, and YAML for
// the manifests.
//
// chroma's lexers package (github.com/alecthomas/chroma/v2/lexers) registers every one of its
// ~300 lexers, parsing their embedded XML, and its styles package parses ~70 styles, in package
// variables: about 20 ms and 5 MB of package initialisation that every kubewalk command paid,
// though kubewalk highlights only Go and lesson code blocks. This package holds the rules of
// chroma v2.27.0 for those (lexers/go.go, and lexers/embedded/*.xml copied to lexers/ here;
// MIT licence, see LICENSE) and builds them when first asked, so kubewalk links none of chroma's
// lexers, styles or quick packages.
//
// Analyse weighs a text with the analysers of every lexer of chroma that has one, in chroma's
// registry order, so a block picks the lexer chroma picks (chroma gives the go tool command of
// the code generation lesson to GDScript3, and kubewalk shows it as it did). One of those
// lexers, templ, needs chroma's CSS lexer, which this package leaves out: a block chroma gives to
// templ is shown as plain text. TestLessonCodeBlocks fails if a lesson has such a block, or a
// language this package does not have; TestSameAsChroma and TestLexersSameAsChroma hold the
// lexers to chroma's, token for token.
package highlight

import (
	"embed"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed lexers/*.xml swapoff.xml
var embedded embed.FS

// Go returns chroma's Go lexer, built on first use.
func Go() chroma.Lexer { return builtin().golang }

// Fallback returns chroma's fallback lexer (lexers.Fallback): every character is Text.
func Fallback() chroma.Lexer { return builtin().fallback }

// Get returns the lexer chroma's lexers.Get returns for a language name, alias or file
// extension, when this package has it, or nil.
func Get(name string) chroma.Lexer { return builtin().reg.Get(name) }

// Analyse returns the lexer chroma's lexers.Analyse picks for text, or nil when chroma picks
// none or one this package leaves out (see AnalyseName).
func Analyse(text string) chroma.Lexer {
	a := builtin().analyse(text)
	if a == nil {
		return nil
	}
	return a.lexer
}

// AnalyseName is the name of the lexer chroma's lexers.Analyse picks for text, "" for none.
func AnalyseName(text string) string {
	a := builtin().analyse(text)
	if a == nil {
		return ""
	}
	return a.name
}

// Highlight does what chroma's quick.Highlight does, with this package's lexers: it tokenises
// source with the lexer for language (by Get, else Analyse, else Fallback) and writes it with
// formatter in style.
func Highlight(w io.Writer, source, language string, formatter chroma.Formatter, style *chroma.Style) error {
	l := Get(language)
	if l == nil {
		l = Analyse(source)
	}
	if l == nil {
		l = Fallback()
	}
	l = chroma.Coalesce(l)
	it, err := l.Tokenise(nil, source)
	if err != nil {
		return err
	}
	return formatter.Format(w, style, it)
}

// FallbackStyle returns chroma's fallback style (styles.Fallback, "swapoff"), parsed on first
// use.
var FallbackStyle = sync.OnceValue(func() *chroma.Style {
	f, err := embedded.Open("swapoff.xml")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	s, err := chroma.NewXMLStyle(f)
	if err != nil {
		panic(err)
	}
	return s
})

// analyser is one of chroma's lexers that has an analyser: its name, how it weighs a text,
// and the lexer when this package has it.
type analyser struct {
	name  string
	weigh func(string) float32
	lexer chroma.Lexer
}

// set is the lexers, built once.
type set struct {
	reg       *chroma.LexerRegistry // the lexers this package has, for Get and for <using>
	golang    chroma.Lexer
	fallback  chroma.Lexer
	analysers []analyser // in chroma's registry order, which breaks ties
}

// analyse is chroma's LexerRegistry.Analyse over the analysers.
func (s *set) analyse(text string) *analyser {
	var picked *analyser
	highest := float32(0)
	for i := range s.analysers {
		if w := s.analysers[i].weigh(text); w > highest {
			picked, highest = &s.analysers[i], w
		}
	}
	return picked
}

// builtin is the lexers, built on first use.
var builtin = sync.OnceValue(func() *set {
	s := &set{reg: chroma.NewLexerRegistry()}
	xml := func(file string) *chroma.RegexLexer { return chroma.MustNewXMLLexer(embedded, "lexers/"+file) }
	weigh := func(l chroma.Lexer) func(string) float32 { return l.(chroma.Analyser).AnalyseText }

	// chroma registers its XML lexers first, sorted by file name, then its Go-coded ones.
	for _, f := range []string{"bash.xml", "c++.xml", "c.xml", "dns.xml", "gdscript.xml", "gdscript3.xml", "mysql.xml", "nu.xml", "rpgle.xml", "templ.xml", "zed.xml"} {
		switch f {
		case "templ.xml": // needs the CSS lexer; the analyser only
			l := xml(f)
			s.analysers = append(s.analysers, analyser{name: l.Config().Name, weigh: weigh(l)})
		default:
			l := xml(f)
			switch f {
			case "dns.xml":
				l.SetAnalyser(dnsAnalyser)
			case "mysql.xml":
				l.SetAnalyser(mysqlAnalyser)
			case "zed.xml":
				l.SetAnalyser(zedAnalyser)
			}
			s.reg.Register(l)
			s.analysers = append(s.analysers, analyser{name: l.Config().Name, weigh: weigh(l), lexer: l})
		}
	}
	// YAML (a lesson's manifests, ```yaml): chroma gives it no analyser, so it is only ever
	// chosen by name.
	s.reg.Register(xml("yaml.xml"))
	s.golang = s.reg.Register(chroma.MustNewLexer(
		&chroma.Config{
			Name:      "Go",
			Aliases:   []string{"go", "golang"},
			Filenames: []string{"*.go"},
			MimeTypes: []string{"text/x-gosrc"},
		},
		func() chroma.Rules { return goRules(s.goTextTemplate()) },
	).SetAnalyser(goAnalyser))
	s.analysers = append(s.analysers, analyser{name: "Go", weigh: goAnalyser, lexer: s.golang})
	s.fallback = chroma.MustNewLexer(&chroma.Config{
		Name:      "fallback",
		Filenames: []string{"*"},
		Priority:  -1,
	}, plaintextRules)
	return s
})

// goTextTemplate is chroma's "Go Text Template" lexer, which the Go lexer uses inside raw
// string literals.
func (s *set) goTextTemplate() chroma.Lexer {
	return s.reg.Register(chroma.MustNewXMLLexer(embedded, "lexers/go_template.xml").SetConfig(&chroma.Config{
		Name:    "Go Text Template",
		Aliases: []string{"go-text-template"},
	}))
}

// The analysers chroma v2.27.0 sets in Go code (lexers/go.go, dns.go, mysql.go, zed.go). The
// ones lexers/erb.go and php.go set never count: they are set on the language inside an
// HTML-delegating lexer, and chroma's registry asks the delegating lexer, which answers with
// HTML's (none).

func goAnalyser(text string) float32 {
	if strings.Contains(text, "fmt.") && strings.Contains(text, "package ") {
		return 0.5
	}
	if strings.Contains(text, "package ") {
		return 0.1
	}
	return 0.0
}

var zoneAnalyserRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^@\s+IN\s+SOA\s+`) })

func dnsAnalyser(text string) float32 {
	if zoneAnalyserRe().FindString(text) != "" {
		return 1.0
	}
	return 0.0
}

var mysqlAnalyserRes = sync.OnceValues(func() (*regexp.Regexp, *regexp.Regexp) {
	return regexp.MustCompile("`[a-zA-Z_]\\w*`"), regexp.MustCompile(`\[[a-zA-Z_]\w*\]`)
})

func mysqlAnalyser(text string) float32 {
	backtick, bracket := mysqlAnalyserRes()
	nameBetweenBacktickCount := len(backtick.FindAllString(text, -1))
	nameBetweenBracketCount := len(bracket.FindAllString(text, -1))

	var result float32

	// Same logic as above in the TSQL analysis.
	dialectNameCount := nameBetweenBacktickCount + nameBetweenBracketCount
	if dialectNameCount >= 1 && nameBetweenBacktickCount >= (2*nameBetweenBracketCount) {
		// Found at least twice as many `name` as [name].
		result += 0.5
	} else if nameBetweenBacktickCount > nameBetweenBracketCount {
		result += 0.2
	} else if nameBetweenBacktickCount > 0 {
		result += 0.1
	}

	return result
}

func zedAnalyser(text string) float32 {
	if strings.Contains(text, "definition ") && strings.Contains(text, "relation ") && strings.Contains(text, "permission ") {
		return 0.9
	}
	if strings.Contains(text, "definition ") {
		return 0.5
	}
	if strings.Contains(text, "relation ") {
		return 0.5
	}
	if strings.Contains(text, "permission ") {
		return 0.25
	}
	return 0.0
}

// plaintextRules are chroma's lexers.PlaintextRules.
func plaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{Pattern: `.+`, Type: chroma.Text},
			{Pattern: `\n`, Type: chroma.Text},
		},
	}
}
