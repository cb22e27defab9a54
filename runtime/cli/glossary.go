package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// glossaryIndent is how far a term's definition and rejected variants sit under its line.
const glossaryIndent = "    "

// newGlossaryCommand builds "kubewalk glossary": the terms the lessons and screens use, English
// and Simplified Chinese aligned in terminal cells, each followed by its English definition, the
// Chinese variants kubewalk does not use and its note.
func newGlossaryCommand(stdout io.Writer) *cobra.Command {
	var lang string
	cmd := &cobra.Command{
		Use:   "glossary",
		Short: "Print the terms kubewalk uses, in English and Simplified Chinese, with definitions",
		Long: `Print the glossary the lessons and screens share (content/glossary.md): each concept's
English and Simplified Chinese term, then, indented, a short English definition, the Chinese
variants kubewalk does not use for it (its tests fail on them) and a note. The terms line up in
terminal cells, so Chinese text, two cells a character, aligns too; the rest wraps at the
terminal's width (80 columns when the output is not a terminal). --lang (else the environment)
picks the language of the header, the introduction and the labels; the terms are always in
both languages.`,
		Example: `  kubewalk glossary
  kubewalk glossary --lang zh-CN | less`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkLang(lang); err != nil {
				return err
			}
			tr := msgs(lang)
			terms, err := i18n.Glossary()
			if err != nil {
				return fmt.Errorf(tr.GlossaryError, err)
			}
			for _, l := range glossaryLines(terms, tr, outputWidth(stdout)) {
				fmt.Fprintln(stdout, l)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "", "language of the header and labels (en, zh-CN); default from LANGUAGE, LC_ALL, LC_MESSAGES, LANG")
	return cmd
}

// glossaryLines lays the glossary out for a width of w cells: the introduction, the header and
// one aligned line per term (English, Chinese), each followed, indented and wrapped, by its
// definition, the variants it rejects and its note.
func glossaryLines(terms []i18n.Term, tr *i18n.Strings, w int) []string {
	out := append(i18n.Wrap(tr.GlossaryIntro, w), "")
	rows := [][]string{strings.Split(tr.CLIGlossaryHeader, "\t")}
	for _, t := range terms {
		rows = append(rows, []string{t.English, t.Chinese})
	}
	table := i18n.Table(rows, 2)
	out = append(out, table[0])
	inner := max(20, w-len(glossaryIndent))
	for i, t := range terms {
		out = append(out, table[i+1])
		more := []string{t.Definition}
		if len(t.Rejected) > 0 {
			more = append(more, fmt.Sprintf(tr.GlossaryRejected, strings.Join(t.Rejected, "、")))
		}
		if t.Note != "" {
			more = append(more, fmt.Sprintf(tr.GlossaryNoted, t.Note))
		}
		for _, m := range more {
			for _, l := range i18n.Wrap(m, inner) {
				out = append(out, glossaryIndent+l)
			}
		}
	}
	return out
}

// outputWidth is the width of the terminal w writes to, or 80 when it is not a terminal.
func outputWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if tw, _, err := term.GetSize(int(f.Fd())); err == nil && tw > 0 {
			return tw
		}
	}
	return 80
}
