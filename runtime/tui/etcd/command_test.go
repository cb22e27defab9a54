package etcd

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/cmdline"
)

// etcdCommand is the view's :etcd row.
func etcdCommand(t *testing.T, v *Model) cmdline.Command {
	t.Helper()
	cmds := v.Commands()
	if len(cmds) != 1 || cmds[0].Name != "etcd" {
		t.Fatalf("the view offers %v, want :etcd alone", cmds)
	}
	return cmds[0]
}

// TestCommandCompletes: :etcd completes a key one segment at a time from the keys listed, and
// the prefix before anything is listed.
func TestCommandCompletes(t *testing.T) {
	en := i18n.For("en")
	d := opened(t, "en", 120, 40)
	c := etcdCommand(t, d.v)
	texts := func(ss []cmdline.Suggestion) []string {
		var out []string
		for _, s := range ss {
			out = append(out, fmt.Sprintf("%s|%v", s.Text, s.Open))
		}
		return out
	}
	for _, tt := range []struct {
		name string
		args []string
		word string
		want []string
	}{
		{"nothing typed", nil, "", []string{"/registry/|true"}},
		{"part of the prefix", nil, "/reg", []string{"/registry/|true"}},
		{"the resources", nil, "/registry/", []string{"/registry/clusterroles/|true", "/registry/configmaps/|true", "/registry/namespaces/|true"}},
		{"a resource's namespaces", nil, "/registry/configmaps/", []string{"/registry/configmaps/default/|true", "/registry/configmaps/kube-system/|true"}},
		{"the keys", nil, "/registry/configmaps/default/", []string{"/registry/configmaps/default/demo|false", "/registry/configmaps/default/kube-root-ca.crt|false"}},
		{"a key's start", nil, "/registry/namespaces/k", []string{"/registry/namespaces/kube-system|false"}},
		{"nothing under it", nil, "/registry/pods/", nil},
		{"a second argument", []string{demo}, "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := texts(c.Complete(tt.args, tt.word)); !slices.Equal(got, tt.want) {
				t.Errorf("Complete(%q, %q) = %q, want %q", tt.args, tt.word, got, tt.want)
			}
		})
	}
	if s := c.Complete(nil, "/registry/configmaps/default/"); len(s) == 0 || s[0].Desc != en.SuggestEtcdKey {
		t.Errorf("a key is not described as one: %+v", s)
	}
	// Not opened yet: nothing is listed, the prefix alone is offered.
	fresh := newDriver(t, "en", newFake(sampleKeys...), 120, 40)
	if got := texts(etcdCommand(t, fresh.v).Complete(nil, "/registry/")); got != nil {
		t.Errorf("before the first listing: %q, want none", got)
	}
	if s := etcdCommand(t, fresh.v).Complete(nil, ""); len(s) != 1 || s[0].Desc != en.SuggestEtcdNotListed {
		t.Errorf("before the first listing the prefix is described %+v, want %q", s, en.SuggestEtcdNotListed)
	}
}

// TestCommandRuns: :etcd KEY selects the key and decodes its value; a key outside /registry/
// or with a space is refused with the reason, and nothing is opened.
func TestCommandRuns(t *testing.T) {
	en := i18n.For("en")
	for _, tt := range []struct {
		name, args string
		problem    bool
		sel        string
	}{
		{"alone", "", false, ""},
		{"a key", demo, false, demo},
		{"outside the prefix", "/other/x", true, ""},
		{"two words", demo + " x", true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := newDriver(t, "en", newFake(sampleKeys...), 120, 40)
			a := etcdCommand(t, d.v).Run(tt.args)
			if tt.problem {
				if a.Problem != fmt.Sprintf(en.CmdEtcdKey, Prefix) || a.Show || a.Cmd != nil {
					t.Fatalf("Run(%q) = %+v, want the reason alone", tt.args, a)
				}
				if d.b.lists != 0 {
					t.Errorf("a refused line listed the keys")
				}
				return
			}
			if a.Problem != "" || !a.Show {
				t.Fatalf("Run(%q) = %+v, want the view shown", tt.args, a)
			}
			d.run(a.Cmd)
			d.settle()
			if d.v.Listed() != len(sampleKeys) {
				t.Errorf("%d keys listed, want %d", d.v.Listed(), len(sampleKeys))
			}
			if tt.sel != "" {
				if d.v.Selected() != tt.sel {
					t.Errorf("selected %q, want %q", d.v.Selected(), tt.sel)
				}
				d.must("kind: configmap", "name: demo")
			}
		})
	}
}
