package server

import (
	"runtime/debug"
	"testing"
	"time"

	"k8s.io/component-base/compatibility"
)

func TestVersionInfoFromBuild(t *testing.T) {
	commitTime := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := []struct {
		name     string
		settings []debug.BuildSetting
		commit   string
		tree     string
		date     string
	}{
		{"go run: nothing recorded", nil, "unknown", "unknown", "unknown"},
		{"go build in a clean checkout", []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: commitTime.Format(time.RFC3339)},
			{Key: "vcs.modified", Value: "false"},
		}, "0123456789abcdef0123456789abcdef01234567", "clean", "2026-03-04T05:06:07Z"},
		{"go build with uncommitted changes", []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"},
			{Key: "vcs.time", Value: "2026-03-04T05:06:07+02:00"},
			{Key: "vcs.modified", Value: "true"},
		}, "abc", "dirty", "2026-03-04T03:06:07Z"},
		{"a revision without a time", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}, "abc", "clean", "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := BuildFrom(&debug.BuildInfo{Main: debug.Module{Path: "github.com/kubewalk/kubewalk", Version: "(devel)"}, Settings: tt.settings})
			v := kubewalkVersion{compatibility.NewEffectiveVersionFromString(KubernetesVersion, "", ""), b}
			info := v.Info()
			if info.GitVersion != "v1.37.2+kubewalk" || info.Major != "1" || info.Minor != "37" {
				t.Errorf("version = %q %s.%s", info.GitVersion, info.Major, info.Minor)
			}
			if info.GitCommit != tt.commit || info.GitTreeState != tt.tree || info.BuildDate != tt.date {
				t.Errorf("commit, tree, date = %q %q %q; want %q %q %q", info.GitCommit, info.GitTreeState, info.BuildDate, tt.commit, tt.tree, tt.date)
			}
			if b.Version != "" {
				t.Errorf("(devel) gives Version %q, want empty", b.Version)
			}
		})
	}
}

func TestKubernetesRelease(t *testing.T) {
	for in, want := range map[string]string{
		"v0.37.2":                            "v1.37.2",
		"v0.30.10":                           "v1.30.10",
		"v1.2.3":                             "",
		"v0.37.2-rc.1":                       "",
		"v0.0.0-20260101000000-abcdefabcdef": "",
		"v0.37":                              "",
		"":                                   "",
	} {
		if got := KubernetesRelease(in); got != want {
			t.Errorf("KubernetesRelease(%q) = %q, want %q", in, got, want)
		}
	}
}
