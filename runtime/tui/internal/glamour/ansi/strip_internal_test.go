package ansi

import (
	"testing"

	"github.com/microcosm-cc/bluemonday"
)

// stripCases are HTML fragments as Markdown can carry them (goldmark's HTML blocks and raw
// inline HTML) and the odd cases of bluemonday's sanitizer.
var stripCases = []struct{ name, in string }{
	{"empty", ""},
	{"blank", " \n\t "},
	{"text", "plain text"},
	{"bold", "<b>html</b> stripped"},
	{"entities", "a &amp; b &lt;c&gt; &copy; &#x4e2d; &nbsp;x"},
	{"bare ampersand", "a & b < c > d \" e ' f"},
	{"comment", "<!-- note --> after"},
	{"doctype", "<!DOCTYPE html><p>x</p>"},
	{"script", "before<script>alert('x')</script>after"},
	{"style", "<style>p{color:red}</style>text"},
	{"script upper case", "<SCRIPT>x</SCRIPT>y"},
	{"title", "<title>t</title>body"},
	{"iframe", "<iframe src=x>inside</iframe>outside"},
	{"nested skip", "<object><iframe>a</iframe>b</object>c"},
	{"unbalanced end", "</iframe>a<iframe>b</iframe>c"},
	{"unclosed skip", "<noscript>never closed"},
	{"self closing", "a<br/>b<img src=x />c"},
	{"attributes", `<a href="https://example.com" onclick="x()">link</a>`},
	{"details", "<details><summary>More</summary>\n\nhidden\n</details>"},
	{"html block", "<div align=\"center\">\n  <img src=\"logo.png\">\n</div>\n"},
	{"lone angle", "<notatag"},
	{"cyrillic", "<scrİpt>x</scrİpt>y"},
	{"chinese", "<b>中文</b>「引号」"},
	{"textarea", "<textarea><b>raw</b></textarea>z"},
	{"cdata", "<![CDATA[x]]>y"},
}

// TestStripHTMLSameAsBluemonday: stripHTML returns what glamour v1.0.0's stripper,
// bluemonday.StrictPolicy(), returns.
func TestStripHTMLSameAsBluemonday(t *testing.T) {
	p := bluemonday.StrictPolicy()
	for _, tt := range stripCases {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := stripHTML(tt.in), p.Sanitize(tt.in); got != want {
				t.Errorf("stripHTML(%q) = %q, bluemonday: %q", tt.in, got, want)
			}
		})
	}
}

// FuzzStripHTML compares stripHTML with bluemonday.StrictPolicy() on any input.
func FuzzStripHTML(f *testing.F) {
	for _, tt := range stripCases {
		f.Add(tt.in)
	}
	p := bluemonday.StrictPolicy()
	f.Fuzz(func(t *testing.T, in string) {
		if got, want := stripHTML(in), p.Sanitize(in); got != want {
			t.Errorf("stripHTML(%q) = %q, bluemonday: %q", in, got, want)
		}
	})
}
