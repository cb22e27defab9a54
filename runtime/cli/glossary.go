package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// newGlossaryCommand builds "kubewalk glossary": the terms the lessons and screens use, English
// and Simplified Chinese, as a table aligned in terminal cells.
func newGlossaryCommand(stdout io.Writer) *cobra.Command {
	var lang string
	cmd := &cobra.Command{
		Use:   "glossary",
		Short: "Print the terms kubewalk uses, in English and Simplified Chinese",
		Long: `Print the glossary the lessons and screens share (content/glossary.md): each concept's
English and Simplified Chinese term, with a note. The columns line up in terminal cells, so
Chinese text, two cells a character, aligns too. --lang (else the environment) picks the
language of the header and the introduction; the terms are always in both languages.`,
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
			fmt.Fprintln(stdout, tr.GlossaryIntro)
			fmt.Fprintln(stdout)
			rows := [][]string{strings.Split(tr.CLIGlossaryHeader, "\t")}
			for _, t := range terms {
				rows = append(rows, []string{t.English, t.Chinese, t.Note})
			}
			for _, l := range i18n.Table(rows, 2) {
				fmt.Fprintln(stdout, l)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "", "language of the header (en, zh-CN); default from LANGUAGE, LC_ALL, LC_MESSAGES, LANG")
	return cmd
}
