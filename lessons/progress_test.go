package lessons

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestProgressPath(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/state", "HOME": "/home/u"}, filepath.Join("/state", "kubewalk", "progress.json")},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/home/u"}, filepath.Join("/home/u", ".local", "state", "kubewalk", "progress.json")},
		{map[string]string{"HOME": "/home/u"}, filepath.Join("/home/u", ".local", "state", "kubewalk", "progress.json")},
	}
	for _, tt := range tests {
		got, err := ProgressPath(func(k string) string { return tt.env[k] })
		if err != nil || got != tt.want {
			t.Errorf("ProgressPath(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
}

func progressLesson() Lesson {
	return Lesson{ID: "authn", Steps: []Step{{ID: "x509"}, {ID: "token"}, {ID: "union"}}}
}

func TestProgressRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "kubewalk", "progress.json")
	p, err := LoadProgress(path)
	if err != nil {
		t.Fatalf("missing file: %v", err)
	}
	l := progressLesson()
	if p.Reached(l) != 0 || p.Done(l) || p.Resume(l) != "x509" {
		t.Errorf("empty progress: reached %d done %v resume %s", p.Reached(l), p.Done(l), p.Resume(l))
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if !p.Record(l, "token", now) {
		t.Error("Record(token) changed nothing")
	}
	if p.Record(l, "x509", now.Add(time.Minute)) {
		t.Error("Record(x509) after token moved progress back")
	}
	if p.Record(l, "nope", now) {
		t.Error("Record(unknown step) changed progress")
	}
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d files, want only progress.json (temp file left behind?)", len(entries))
	}
	got, err := LoadProgress(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Reached(l) != 2 || got.Resume(l) != "token" || !got.Lessons["authn"].Updated.Equal(now) {
		t.Errorf("loaded %+v", got)
	}
	got.Record(l, "union", now)
	if !got.Done(l) || got.Reached(l) != 3 {
		t.Errorf("after the last step: done %v reached %d", got.Done(l), got.Reached(l))
	}
	// A step that no longer exists counts as nothing reached.
	got.Lessons["authn"] = LessonProgress{Step: "removed"}
	if got.Reached(l) != 0 {
		t.Errorf("Reached() with a removed step = %d", got.Reached(l))
	}
}

func TestLoadProgressCorrupt(t *testing.T) {
	tests := []struct {
		name, data, wantErr string
	}{
		{"not json", "{nope", "invalid character"},
		{"empty", "", "unexpected end of JSON input"},
		{"wrong shape", `{"lessons": ["a"]}`, "cannot unmarshal"},
		{"newer version", `{"version": 9, "lessons": {}}`, "format version 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "progress.json")
			if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			p, err := LoadProgress(path)
			if !errors.Is(err, ErrCorruptProgress) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want ErrCorruptProgress naming %s and %q", err, path, tt.wantErr)
			}
			if p == nil || p.Lessons == nil {
				t.Error("no usable empty progress alongside the error")
			}
			if data, _ := os.ReadFile(path); string(data) != tt.data {
				t.Error("LoadProgress changed the corrupt file")
			}
		})
	}
}

func TestLoadProgressWithoutVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "progress.json")
	if err := os.WriteFile(path, []byte(`{"lessons": {"authn": {"step": "token"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := LoadProgress(path)
	if err != nil || p.Reached(progressLesson()) != 2 {
		t.Errorf("LoadProgress() = %+v, %v", p, err)
	}
}

func TestSaveProgressFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p := &Progress{}
	err := p.Save(filepath.Join(blocker, "progress.json"))
	if err == nil || !strings.Contains(err.Error(), "save progress") {
		t.Errorf("Save() under a file = %v", err)
	}
	// The target is a directory: the rename fails and the temp file is removed.
	target := filepath.Join(dir, "isdir")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := p.Save(target); err == nil {
		t.Error("Save() over a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".progress-") {
			t.Errorf("temp file %s left behind", e.Name())
		}
	}
}

func TestProgressWelcomeSeen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "progress.json")
	// A file written before the flag existed reads as not seen, and keeps its lessons.
	if err := os.WriteFile(path, []byte(`{"version": 1, "lessons": {"authn": {"step": "token"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := LoadProgress(path)
	if err != nil || p.WelcomeSeen || p.Reached(progressLesson()) != 2 {
		t.Fatalf("old file: %+v, %v", p, err)
	}
	p.WelcomeSeen = true
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"welcomeSeen": true`) || !strings.Contains(string(data), `"version": 1`) {
		t.Errorf("saved file:\n%s", data)
	}
	got, err := LoadProgress(path)
	if err != nil || !got.WelcomeSeen || got.Reached(progressLesson()) != 2 {
		t.Errorf("round trip: %+v, %v", got, err)
	}
	// Not seen is not written: a file without it is what older kubewalks wrote.
	got.WelcomeSeen = false
	if err := got.Save(path); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); strings.Contains(string(data), "welcome") {
		t.Errorf("welcomeSeen false was written:\n%s", data)
	}
}
