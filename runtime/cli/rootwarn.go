package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// warnRootOnClass makes `class host` and `class ssh` warn on stderr, as they start, when they
// run as root: class ssh runs every student's tour as this user, class host faces the
// classroom network. They keep working (tests and CI run as root). The class log has it too:
// class host writes it to its log file; class ssh's log is its stdout, whose banner warns, so
// on a terminal where stdout and stderr are one, the banner's warning is the one shown.
func warnRootOnClass(class *cobra.Command, stdout, stderr io.Writer) {
	class.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if cmd.Name() == "ssh" && sameFile(stdout, stderr) {
			return nil
		}
		rootWarning(os.Geteuid(), stderr, msgs(langFlag(cmd)), cmd.Name())
		return nil
	}
}

// sameFile reports whether a and b write to the same file (a terminal, a pipe).
func sameFile(a, b io.Writer) bool {
	if a == b {
		return true
	}
	fa, ok1 := a.(*os.File)
	fb, ok2 := b.(*os.File)
	if !ok1 || !ok2 {
		return false
	}
	sa, err1 := fa.Stat()
	sb, err2 := fb.Stat()
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// rootWarning writes the warning for `class <what>` to w when uid is 0; it reports whether it
// did.
func rootWarning(uid int, w io.Writer, tr *i18n.Strings, what string) bool {
	if uid != 0 {
		return false
	}
	switch what {
	case "ssh":
		fmt.Fprintln(w, "kubewalk: "+tr.CLIRootClassSSH)
	case "host":
		fmt.Fprintln(w, "kubewalk: "+tr.CLIRootClassHost)
	default:
		return false
	}
	return true
}
