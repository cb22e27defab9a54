package etcd

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/cmdline"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

var _ view.Commander = (*Model)(nil)

// Commands is the view's : command, :etcd [KEY]: alone it shows the view as it was left; with
// a key it selects the key and decodes its value (OpenKeyMsg). Tab completes a key from those
// listed so far, one path segment at a time (resource, namespace, name).
func (v *Model) Commands() []cmdline.Command {
	return []cmdline.Command{{
		Name: "etcd", Args: "[KEY]",
		Desc:     func(tr *i18n.Strings) string { return tr.CmdEtcd },
		Complete: v.completeKey,
		Run: func(args string) cmdline.Action {
			if args != "" && (!strings.HasPrefix(args, Prefix) || strings.ContainsAny(args, " \t")) {
				return cmdline.Action{Problem: fmt.Sprintf(v.c.Tr.CmdEtcdKey, Prefix)}
			}
			return cmdline.Action{Show: true, Cmd: v.Update(OpenKeyMsg{Key: args})}
		},
	}}
}

// completeKey suggests the key being typed: the prefix, then the listed keys under the word,
// cut after the next "/" past it (one suggestion per resource, namespace or name). Before the
// view's first listing there are none: the prefix's description says so.
func (v *Model) completeKey(args []string, word string) []cmdline.Suggestion {
	tr := v.c.Tr
	if len(args) > 0 {
		return nil
	}
	if !strings.HasPrefix(word, Prefix) {
		desc := tr.SuggestEtcdPrefix
		if !v.started {
			desc = tr.SuggestEtcdNotListed // nothing to complete from until the view lists
		}
		return []cmdline.Suggestion{{Text: Prefix, Desc: desc, Open: true}}
	}
	var out []cmdline.Suggestion
	// The keys are sorted: those under word are one run, and a run's keys that share the
	// next segment follow one another.
	i := sort.Search(len(v.keys), func(i int) bool { return v.keys[i].Key.Key >= word })
	for ; i < len(v.keys) && strings.HasPrefix(v.keys[i].Key.Key, word); i++ {
		k := v.keys[i].Key.Key
		s := cmdline.Suggestion{Text: k, Desc: tr.SuggestEtcdKey}
		if j := strings.IndexByte(k[len(word):], '/'); j >= 0 {
			s = cmdline.Suggestion{Text: k[:len(word)+j+1], Desc: tr.SuggestEtcdUnder, Open: true}
		}
		if n := len(out); n > 0 && out[n-1].Text == s.Text {
			continue
		}
		out = append(out, s)
	}
	return out
}
