package tui

import (
	"fmt"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/etcd"
)

// TestEtcdCommandKey: the etcd view's :etcd KEY, from the root's one table: tab completes the
// key segment by segment from the keys listed, enter shows the etcd view with the key
// selected, and a key outside /registry/ stays in the prompt with the reason.
func TestEtcdCommandKey(t *testing.T) {
	en := i18n.For(i18n.English)
	f := newFixture(t, 120, 40)
	hs := f.hs
	hs.typeLine("etcd")
	hs.until("the keys listed", func() bool { return hs.etcdView().Listed() == 6 })
	hs.typeLine("lesson")
	if hs.model.m.at != viewTour {
		t.Fatalf(":lesson left %v on screen", hs.model.m.at)
	}

	// Completion: one path segment per tab.
	hs.keys(":")
	hs.send(keyMsg("etcd /registry/configmaps/default/d"))
	hs.settle()
	hs.must("key: show its value, decoded")
	hs.keys("tab")
	if got := hs.model.m.prompt.Line(); got != "etcd /registry/configmaps/default/demo " {
		t.Fatalf("tab made %q", got)
	}
	hs.keys("enter")
	if hs.model.m.at != viewEtcd || hs.model.m.prompt.IsOpen() {
		t.Fatalf("after :etcd KEY: %v on screen, prompt open %v", hs.model.m.at, hs.model.m.prompt.IsOpen())
	}
	hs.until("the key decoded", func() bool {
		_, ok := hs.etcdView().Decoded()
		return ok && hs.etcdView().Selected() == "/registry/configmaps/default/demo"
	})

	// A refused key stays in the prompt with the reason, the screen unchanged.
	hs.typeLine("lesson")
	hs.typeLine("etcd registry/x")
	if hs.model.m.at != viewTour || !hs.model.m.prompt.IsOpen() || hs.model.m.prompt.Line() != "etcd registry/x" {
		t.Fatalf("a refused key: %v on screen, prompt open %v with %q", hs.model.m.at, hs.model.m.prompt.IsOpen(), hs.model.m.prompt.Line())
	}
	if got, want := hs.model.m.prompt.Err(), fmt.Sprintf(en.CmdEtcdKey, etcd.Prefix); got != want {
		t.Errorf("the reason is %q, want %q", got, want)
	}
}
