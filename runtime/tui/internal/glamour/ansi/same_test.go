package ansi_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	chromastyles "github.com/alecthomas/chroma/v2/styles"
	upstream "github.com/charmbracelet/glamour"
	upstreamansi "github.com/charmbracelet/glamour/ansi"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/runtime/tui/internal/glamour"
	"github.com/kubewalk/kubewalk/runtime/tui/internal/glamour/ansi"
	"github.com/kubewalk/kubewalk/runtime/tui/internal/glamour/styles"
)

// sample exercises what the lessons do not (yet): code blocks with and without a language,
// Go source, a raw string (chroma's Go lexer hands it to its template lexer), a shell line,
// every GFM extension, definition lists and inline and block HTML.
const sample = "# Title\n\nText with `code`, **bold**, *italic* and a [link](https://example.com), https://github.com/kubernetes/kubernetes/issues/1 and <https://github.com/kubernetes/kubernetes/pull/2>.\n\n" +
	"```go\npackage main\n\nimport \"fmt\"\n\n// main greets.\nfunc main() {\n\tx := 3.5i + 0x1F\n\tfmt.Println(`{{ .Name }}`, x, nil, len(\"é\"))\n}\n```\n\n" +
	"```\npackage server\n\nfunc New() *Server { return &Server{} }\n```\n\n" +
	"```\nkubectl get --raw /readyz\nexport KUBECONFIG=$HOME/.kube/config\n```\n\n" +
	"```golang\nvar s = []string{\"a\"}\n```\n\n" +
	"| a | b |\n|---|---|\n| 1 | 2 |\n\n- item\n  1. nested\n\n> quote\n\n<b>html</b> stripped\n\n" +
	// What goldmark's GFM and definition list extensions parse (internal/extension is a copy)
	// and the HTML glamour strips (strip.go replaces bluemonday).
	"| left | centre | right | none |\n|:---|:---:|---:|---|\n| 1 | 2 | 3 | 4 |\n\n" +
	"- [ ] open task\n- [x] done task\n- [X] done too\n\n~~struck~~ and ~single~ tilde\n\n" +
	"Bare www.example.com/path?q=1, (https://kubernetes.io/docs/), ftp://files.example.org, http://127.0.0.1:6443/readyz and mail@example.com.\n\n" +
	"Term\n: its definition\n\nOther term\n: first\n: second\n\n" +
	"<div align=\"center\">\n  <img src=\"logo.png\"> &amp; &copy; &lt;x&gt;\n</div>\n\n" +
	"<script>alert(1)</script>\n\n<style>p { color: red }</style>\n\n<!-- a comment -->\n\n<iframe src=x>\ngone\n</iframe>\n\n" +
	"Inline <span title=\"t\">span</span>, <iframe src=x>gone</iframe> and <br/> a & b.\n"

// TestSameAsUpstream renders every lesson text of every language, and a sample with Go code
// blocks, with this copy of glamour and with glamour v1.0.0 itself, in the styles and colour
// profiles kubewalk uses: the output must be the same byte for byte. The copy differs from
// upstream only in how code blocks find their lexer and style (see codeblock.go), which is
// what keeps chroma's lexer and style registries out of kubewalk's package initialisation.
func TestSameAsUpstream(t *testing.T) {
	docs := map[string]string{"sample": sample}
	err := fs.WalkDir(content.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := fs.ReadFile(content.FS, path)
		docs[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 10 {
		t.Fatalf("found %d documents in content.FS, want the lessons", len(docs))
	}
	profiles := []termenv.Profile{termenv.TrueColor, termenv.ANSI256, termenv.ANSI, termenv.Ascii}
	// kubewalk picks dark, light or notty (runtime/tui's pickGlamourStyle); ascii is notty's
	// sibling.
	for _, name := range []string{styles.DarkStyle, styles.LightStyle, styles.NoTTYStyle, styles.AsciiStyle} {
		for _, profile := range profiles {
			t.Run(fmt.Sprintf("%s/%d", name, profile), func(t *testing.T) {
				cfg := *styles.DefaultStyles[name]
				// chroma's terminal256 formatter, glamour's default, picks among equally close
				// colours in map order, so two renderings may differ; terminal16m writes the
				// style's colours as they are. Both copies use chroma's formatters package.
				ours, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithColorProfile(profile), glamour.WithWordWrap(0), glamour.WithChromaFormatter("terminal16m"))
				if err != nil {
					t.Fatal(err)
				}
				theirs, err := upstream.NewTermRenderer(upstream.WithStyles(upstreamStyle(t, cfg)), upstream.WithColorProfile(profile), upstream.WithWordWrap(0), upstream.WithChromaFormatter("terminal16m"))
				if err != nil {
					t.Fatal(err)
				}
				// Both register the first style they highlight with for the whole process.
				ansi.ResetChromaStyles()
				delete(chromastyles.Registry, "charm")
				for path, doc := range docs {
					sameRender(t, path, doc, ours, theirs)
				}
			})
		}
	}
}

// sameRender fails t unless both renderers render doc the same. chroma gives each regular
// expression match 250 ms and colours the rest of a code block as an error when one takes
// longer, which a loaded machine under -race can make happen to either side: a difference is
// retried (three times at most).
func sameRender(t *testing.T, path, doc string, ours *glamour.TermRenderer, theirs *upstream.TermRenderer) {
	t.Helper()
	for try := 1; ; try++ {
		want, err := theirs.Render(doc)
		if err != nil {
			t.Fatalf("%s: upstream: %v", path, err)
		}
		got, err := ours.Render(doc)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got == want {
			return
		}
		if try == 3 {
			t.Errorf("%s renders differently from glamour v1.0.0:\n got %q\nwant %q", path, firstDiff(got, want), firstDiff(want, got))
			return
		}
	}
}

// upstreamStyle is cfg as upstream glamour's type (the two are the same struct).
func upstreamStyle(t *testing.T, cfg ansi.StyleConfig) upstreamansi.StyleConfig {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var u upstreamansi.StyleConfig
	if err := json.Unmarshal(b, &u); err != nil {
		t.Fatal(err)
	}
	return u
}

// firstDiff is a's text around where it first differs from b.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(i-40, 0):min(i+80, len(a))]
}
