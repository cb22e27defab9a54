package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/lessons"
)

// TestNoFetchExplains: with NoFetch (a class ssh student) F fetches nothing; the status line
// says why in one line, the side-by-side pane says the module is missing and who can fetch it,
// and the key bar does not offer F. In English and Chinese.
func TestNoFetchExplains(t *testing.T) {
	for _, zh := range []bool{false, true} {
		c := newTrackContent(zh, false)
		f := newFakeFetch(c.kube)
		hs := newHarnessOpts(t, 120, 40, c, fakeServer{}, Options{GlamourStyle: "notty", Probe: newFakeProbe().run, Fetch: f.fetch, NoFetch: true})
		tr := hs.model.m.tr
		hs.keys("E", "n", "s")
		mm := hs.model.m.sidePane().Missing()
		if mm == nil || mm.Module != lessons.KubeModule {
			t.Fatalf("zh=%v: the side-by-side pane lacks nothing: %+v", zh, mm)
		}
		if got, want := hs.model.m.sidePane().Kube().MissingText(mm), fmt.Sprintf(tr.ModuleMissingNoFetch, mm.Module, mm.Version); got != want {
			t.Errorf("zh=%v: the pane says %q, want %q", zh, got, want)
		}
		if !zh {
			hs.must("this session does not fetch modules", "The instructor can run `go mod download")
			hs.mustNot("Press F")
		}
		hs.keys("F")
		hs.must(tr.NoteFetchOff)
		if hs.model.m.tour.Fetching() {
			t.Errorf("zh=%v: F started a fetch", zh)
		}
		select {
		case m := <-f.started:
			t.Errorf("zh=%v: F fetched %s", zh, m)
		default:
		}
		if strings.Contains(hs.view(), "F "+tr.KeyFetch) {
			t.Errorf("zh=%v: the key bar offers F:\n%s", zh, hs.view())
		}
	}
}
