package kubectl

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
)

var update = flag.Bool("update", false, "rewrite testdata/kubectl-tree.txt from the kubectl in go.mod (then review the allow-list)")

// kubectlTree describes kubectl's command tree as lines: each command path with its own flags
// (those it declares, persistent or not), sorted; and one line for the global flags.
func kubectlTree(t *testing.T) (string, *cobra.Command) {
	t.Helper()
	cf := genericclioptions.NewConfigFlags(true).WithDeprecatedPasswordFlag()
	root := kubectlcmd.NewKubectlCommand(kubectlcmd.KubectlOptions{ConfigFlags: cf, IOStreams: genericiooptions.NewTestIOStreamsDiscard()})
	var lines []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		var fl []string
		if c != root {
			c.LocalFlags().VisitAll(func(f *pflag.Flag) { fl = append(fl, f.Name) })
		}
		sort.Strings(fl)
		lines = append(lines, strings.TrimSpace(c.CommandPath()+": "+strings.Join(fl, " ")))
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	var g []string
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) { g = append(g, f.Name) })
	sort.Strings(g)
	sort.Strings(lines)
	return "global flags: " + strings.Join(g, " ") + "\n" + strings.Join(lines, "\n") + "\n", root
}

// TestConfinedTreeReviewed: the allow-list was made against the kubectl tree in
// testdata/kubectl-tree.txt. A kubectl that adds, removes or renames a command or a flag fails
// here until someone reviews the change against allow.go and rewrites the file (-update): the
// allow-list itself never lets anything new run, but this says that a review is due.
func TestConfinedTreeReviewed(t *testing.T) {
	got, root := kubectlTree(t)
	path := filepath.Join("testdata", "kubectl-tree.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("kubectl's command tree changed since the allow-list was reviewed: review allow.go against it, then run go test ./runtime/kubectl -run TestConfinedTreeReviewed -update\n%s", lineDiff(string(want), got))
	}
	// Every allowed command and flag exists (a typo would allow nothing, silently).
	root.InitDefaultHelpCmd() // cobra adds `help` as the command runs
	for p, flags := range allowedFlags() {
		c, _, err := root.Find(strings.Fields(p)[1:])
		if err != nil || c.CommandPath() != p {
			t.Errorf("allow-list: no command %q", p)
			continue
		}
		for f := range flags {
			if lf := c.Flags().Lookup(f); lf == nil || isGlobal(c, lf) {
				t.Errorf("allow-list: %s has no flag --%s of its own", p, f)
			}
		}
	}
	for f := range confinedGlobals {
		if root.PersistentFlags().Lookup(f) == nil {
			t.Errorf("allow-list: no global flag --%s", f)
		}
	}
	// The guard runs in the root's PersistentPreRunE; a command with a PersistentPreRun of its
	// own would run without it (cobra calls only the nearest).
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c != root && (c.PersistentPreRun != nil || c.PersistentPreRunE != nil) {
			t.Errorf("%s has a PersistentPreRun of its own: the guard would not run for it", c.CommandPath())
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// lineDiff lists the lines only in a (-) and only in b (+).
func lineDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	var out []string
	for _, l := range strings.Split(a, "\n") {
		if !mb[l] {
			out = append(out, "- "+l)
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ma[l] {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}
