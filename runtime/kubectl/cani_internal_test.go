package kubectl

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
)

// TestCanIFlagsCovered fails when upstream's `auth can-i` gains (or loses) a flag the
// replacement Run in replaceCanI does not read.
func TestCanIFlagsCovered(t *testing.T) {
	root := kubectlcmd.NewKubectlCommand(kubectlcmd.KubectlOptions{IOStreams: genericiooptions.NewTestIOStreamsDiscard()})
	canI, _, err := root.Find([]string{"auth", "can-i"})
	if err != nil {
		t.Fatal(err)
	}
	var local []string
	canI.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) { local = append(local, f.Name) })
	slices.Sort(local)
	want := slices.Clone(canIFlags)
	slices.Sort(want)
	if !slices.Equal(local, want) {
		t.Errorf("auth can-i flags %q; the replacement reads %q", local, want)
	}
}
