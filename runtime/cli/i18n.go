package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// msgs returns the strings kubewalk prints to a learner, in the language --lang names, else in
// the environment's (LANGUAGE, LC_ALL, LC_MESSAGES, LANG; see lessons.DetectLang). An empty
// flag, or one naming no language kubewalk has, follows the environment: a bad --lang is
// reported in the language the learner's terminal speaks.
func msgs(flag string) *i18n.Strings {
	if _, ok := lessons.NormalizeLang(flag); !ok {
		flag = ""
	}
	return i18n.For(lessons.DetectLang(flag, os.Getenv))
}

// checkLang returns nil for an empty --lang or one naming a language kubewalk has, else the
// error saying which languages there are, in the environment's language.
func checkLang(flag string) error {
	if flag == "" {
		return nil
	}
	if _, ok := lessons.NormalizeLang(flag); !ok {
		return fmt.Errorf(msgs("").ErrBadLang, flag)
	}
	return nil
}

// langFlag is the value of cmd's --lang flag, "" when it has none.
func langFlag(cmd *cobra.Command) string {
	if cmd == nil {
		return ""
	}
	if f := cmd.Flags().Lookup("lang"); f != nil {
		return f.Value.String()
	}
	return ""
}

// langArg finds --lang in a command line before cobra parses it (the supervisor prints before
// the command runs), "" when it is not there.
func langArg(args []string) string {
	for i, a := range args {
		switch {
		case a == "--":
			return ""
		case a == "--lang" && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "--lang="):
			return strings.TrimPrefix(a, "--lang=")
		}
	}
	return ""
}

// lessonsLang is the language lessons were loaded in ("en" when there are none).
func lessonsLang(ls []lessons.Lesson) string {
	if len(ls) > 0 && ls[0].Lang != "" {
		return ls[0].Lang
	}
	return lessons.DefaultLang
}

// kubeconfigWaitNotice returns the server's Options.KubeconfigWait: one line on w saying that
// the start waits for a run that is shutting down.
func kubeconfigWaitNotice(w io.Writer, tr *i18n.Strings) func(path string, pid int) {
	return func(path string, pid int) {
		fmt.Fprintln(w, "kubewalk: "+fmt.Sprintf(tr.CLIKubeconfigWait, path, pid))
	}
}
