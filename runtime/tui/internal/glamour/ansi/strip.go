package ansi

// kubewalk: this file is not in glamour. Upstream strips HTML with
// bluemonday.StrictPolicy().Sanitize (bluemonday v1.0.27); linking bluemonday links its CSS
// parser (bluemonday/css, gorilla/css, douceur), whose package variables cost ~4 ms of
// kubewalk's package initialisation whatever the command. A strict policy allows no element,
// so of bluemonday's sanitizer only the part below ever runs.

import (
	"io"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// skipContent reports whether a strict policy drops the text of element name along with its
// tags (bluemonday's addDefaultSkipElementContent).
func skipContent(name string) bool {
	switch name {
	case "frame", "frameset", "iframe", "noembed", "noframes", "noscript", "nostyle", "object",
		"script", "style", "title":
		return true
	}
	return false
}

// stripHTML returns s without its HTML tags, comments and doctypes, with the text of the
// skipContent elements and of script and style dropped and the rest of the text HTML-escaped:
// what bluemonday.StrictPolicy().Sanitize(s) returns, token for token (TestStripHTMLSameAsBluemonday).
// Like bluemonday it returns s as is when s is only white space, and "" when the tokenizer
// fails.
func stripHTML(s string) string {
	if strings.TrimSpace(s) == "" {
		return s
	}
	var (
		b        strings.Builder
		skip     bool   // inside a skipContent element
		skipping int64  // skipContent start tags minus end tags (may go below 0, as bluemonday's)
		recent   string // the most recently started element, until its end tag
	)
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		if z.Next() == html.ErrorToken {
			if z.Err() == io.EOF {
				return b.String()
			}
			return ""
		}
		tok := z.Token()
		switch tok.Type {
		case html.StartTagToken:
			name := normaliseElementName(tok.Data)
			recent = name
			if name == "script" || name == "style" {
				continue
			}
			if skipContent(tok.Data) {
				skip = true
				skipping++
			}
		case html.EndTagToken:
			name := normaliseElementName(tok.Data)
			if recent == name {
				recent = ""
			}
			if name == "script" || name == "style" {
				continue
			}
			if skipContent(tok.Data) {
				skipping--
				if skipping == 0 {
					skip = false
				}
			}
		case html.TextToken:
			if !skip && recent != "script" && recent != "style" {
				b.WriteString(tok.String())
			}
		case html.SelfClosingTagToken, html.CommentToken, html.DoctypeToken:
			// Dropped.
		default:
			return ""
		}
	}
}

// normaliseElementName lower-cases an element name, keeping anything not ASCII escaped so
// that it cannot fold into "script" (bluemonday's normaliseElementName).
func normaliseElementName(str string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(strconv.QuoteToASCII(str)), `"`), `"`)
}
