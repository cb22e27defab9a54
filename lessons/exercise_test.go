package lessons_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kubewalk/kubewalk/lessons"
)

// lessonMD is a minimal lesson file with the given id and phase.
func lessonMD(id, phase string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte("---\nid: " + id + "\nphase: " + phase + "\ntitle: \"T\"\nsteps:\n  - id: s\n    checkpoint: " + phase + "/x\n    title: \"S\"\n    anchor: \"New\"\n---\n## s\n\nText.\n")}
}

// afterServeMD is a minimal lesson file of the after-serve track with the given id.
func afterServeMD(id string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte("---\nid: " + id + "\ntrack: after-serve\ntitle: \"T\"\nsteps:\n  - id: s\n    title: \"S\"\n    anchor: \"New\"\n---\n## s\n\nText.\n")}
}

// TestAfterServeExercisePhase: an after-serve lesson has no phase; its exercises open at serve.
func TestAfterServeExercisePhase(t *testing.T) {
	fsys := fstest.MapFS{
		"en/21-later.md":             afterServeMD("later"),
		"en/21-later.exercises.yaml": file("exercises:\n" + goodExercise("later-ex")),
	}
	ls, err := lessons.Load(fsys, "en")
	if err != nil {
		t.Fatal(err)
	}
	exs, err := lessons.LoadExercises(fsys, "en", ls)
	if err != nil {
		t.Fatalf("LoadExercises: %v", err)
	}
	if len(exs) != 1 || exs[0].Phase != "serve" || exs[0].Lesson != "later" {
		t.Fatalf("exercises %+v, want one of lesson later at phase serve", exs)
	}
}

// goodExercise is a sound English exercise with id; extra lines are added to it.
func goodExercise(id string) string {
	return `  - id: ` + id + `
    needs: serve
    title: "Let bob read"
    goal: "Give bob list on configmaps."
    check:
      kind: access
      asks:
        - {user: bob, verb: list, resource: configmaps, namespace: default, allowed: true}
    hints: ["nudge", "pointer", "kubectl create rolebinding ..."]
    solution:
      - kubectl: "--context admin create rolebinding x -n default --clusterrole=view --user=bob"
    nearMisses:
      - why: "the binding is in kube-system"
        steps:
          - kubectl: "--context admin create rolebinding x -n kube-system --clusterrole=view --user=bob"
    why: "allowed: {detail}"
`
}

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

// TestLoadExercises loads a sound file with a translation: texts come from the translation,
// ids and checks from English.
func TestLoadExercises(t *testing.T) {
	fsys := fstest.MapFS{
		"en/03-authz.md":                lessonMD("authz", "authz"),
		"en/03-authz.exercises.yaml":    file("exercises:\n" + goodExercise("bob-reads") + choiceExercise),
		"zh-CN/03-authz.exercises.yaml": file("exercises:\n  - id: bob-reads\n    title: \"让 bob 读\"\n    hints: [\"提示\", \"指向\", \"答案\"]\n  - id: pick\n    choices: [\"甲\", \"乙\"]\n"),
	}
	ls, err := lessons.Load(fsys, "zh-CN")
	if err != nil {
		t.Fatal(err)
	}
	exs, err := lessons.LoadExercises(fsys, "zh-CN", ls)
	if err != nil {
		t.Fatalf("LoadExercises: %v", err)
	}
	if len(exs) != 2 {
		t.Fatalf("got %d exercises, want 2", len(exs))
	}
	e := exs[0]
	if e.ID != "bob-reads" || e.Lesson != "authz" || e.Phase != "authz" || e.Title != "让 bob 读" || e.Goal != "Give bob list on configmaps." ||
		e.Hints[0] != "提示" || e.Check.Kind != lessons.CheckAccess || len(e.Check.Asks) != 1 || !e.NeedsServer() || e.Lang != "zh-CN" {
		t.Errorf("exercise 1: %+v", e)
	}
	if c := exs[1]; c.Choices[1] != "乙" || c.Check.Correct != 2 || !c.Typed() || c.Title != "Pick" {
		t.Errorf("exercise 2: %+v", c)
	}
}

const choiceExercise = `  - id: pick
    title: "Pick"
    goal: "Pick one."
    choices: ["a", "b"]
    check: {kind: choice, correct: 2}
    hints: ["n", "p", "choose 2"]
    solution: [{answer: "2"}]
    nearMisses: [{why: "the other one", steps: [{answer: "1"}]}]
`

// TestExerciseValidator feeds broken exercise files to the loader: each must give a problem
// that names the file and says what is wrong.
func TestExerciseValidator(t *testing.T) {
	replace := func(old, new string) string {
		s := goodExercise("ex")
		if !strings.Contains(s, old) {
			t.Fatalf("test table: %q not in the good exercise", old)
		}
		return "exercises:\n" + strings.Replace(s, old, new, 1)
	}
	for _, tc := range []struct {
		name  string
		en    string // en/03-authz.exercises.yaml
		extra fstest.MapFS
		lang  string
		want  string // substring of a problem
		file  string // the file the problem names
	}{
		{name: "unknown kind", en: replace("kind: access", "kind: telepathy"), want: `unknown kind "telepathy"`},
		{name: "missing hint level", en: replace(`hints: ["nudge", "pointer", "kubectl create rolebinding ..."]`, `hints: ["nudge", "pointer"]`), want: "2 hints: every exercise has 3"},
		{name: "empty hint", en: replace(`"pointer"`, `" "`), want: "hint level 2 is empty"},
		{name: "empty solution", en: replace(`      - kubectl: "--context admin create rolebinding x -n default --clusterrole=view --user=bob"`, "      []"), want: "empty solution"},
		{name: "no solution", en: replace("    solution:\n      - kubectl: \"--context admin create rolebinding x -n default --clusterrole=view --user=bob\"\n", ""), want: "empty solution"},
		{name: "empty solution step", en: replace(`- kubectl: "--context admin create rolebinding x -n default --clusterrole=view --user=bob"`, `- fails: true`), want: "solution step 1 is empty"},
		{name: "unclosed quote", en: replace(`--user=bob"`, `--user='bob"`), want: "does not split into arguments"},
		{name: "duplicate id in a file", en: "exercises:\n" + goodExercise("ex") + goodExercise("ex"), want: "exercise ex: duplicate exercise id"},
		{name: "duplicate id across lessons", en: "exercises:\n" + goodExercise("ex"),
			extra: fstest.MapFS{"en/04-admission.md": lessonMD("admission", "admission"), "en/04-admission.exercises.yaml": file("exercises:\n" + goodExercise("ex"))},
			want:  "duplicate exercise id (first in en/03-authz.exercises.yaml)", file: "en/04-admission.exercises.yaml"},
		{name: "bad id", en: "exercises:\n" + goodExercise("Bob_Reads"), want: `exercise id "Bob_Reads"`},
		{name: "no check", en: replace("    check:\n      kind: access\n      asks:\n        - {user: bob, verb: list, resource: configmaps, namespace: default, allowed: true}\n", ""), want: "no check"},
		{name: "field of another kind", en: replace("kind: access", "kind: access\n      key: configmaps/default/x"), want: "field key does not belong to a access check"},
		{name: "ask without verb", en: replace("verb: list, ", ""), want: "ask 1 needs user, verb and either resource or path"},
		{name: "trace code", en: replace("kind: access\n      asks:\n        - {user: bob, verb: list, resource: configmaps, namespace: default, allowed: true}", "kind: trace\n      code: 999"), want: "code 999 is not an HTTP status"},
		{name: "trace outcome without stage", en: replace("kind: access\n      asks:\n        - {user: bob, verb: list, resource: configmaps, namespace: default, allowed: true}", "kind: trace\n      outcome: denied"), want: "outcome needs the stage"},
		{name: "trace bad stage", en: replace("kind: access\n      asks:\n        - {user: bob, verb: list, resource: configmaps, namespace: default, allowed: true}", "kind: trace\n      stage: admission"), want: `stage "admission"`},
		{name: "object bad jsonpath", en: replace("kind: access\n      asks:\n        - {user: bob, verb: list, resource: configmaps, namespace: default, allowed: true}", "kind: object\n      apiVersion: v1\n      resource: configmaps\n      name: x\n      fields: {\"{.data[\": v}"), want: "is not a kubectl JSONPath"},
		{name: "object bad apiVersion", en: replace("kind: access\n      asks:\n        - {user: bob, verb: list, resource: configmaps, namespace: default, allowed: true}", "kind: object\n      apiVersion: a/b/c\n      resource: configmaps\n      name: x"), want: `apiVersion "a/b/c"`},
		{name: "etcd key with leading slash", en: replace("kind: access\n      asks:\n        - {user: bob, verb: list, resource: configmaps, namespace: default, allowed: true}", "kind: etcd-key\n      key: /registry/x"), want: "without a leading /"},
		{name: "live check without needs", en: replace("    needs: serve\n", ""), want: "a access check reads the serving server"},
		{name: "bad needs", en: replace("needs: serve", "needs: install"), want: `needs "install"`},
		{name: "answer without accepted", en: "exercises:\n" + strings.Replace(choiceExercise, "check: {kind: choice, correct: 2}", "check: {kind: answer}", 1), want: "needs the accepted answers"},
		{name: "choice out of range", en: "exercises:\n" + strings.Replace(choiceExercise, "correct: 2", "correct: 3", 1), want: "correct 3: want the number of a choice, 1..2"},
		{name: "typed without answer", en: "exercises:\n" + strings.Replace(choiceExercise, `solution: [{answer: "2"}]`, `solution: [{kubectl: "version"}]`, 1), want: "types exactly one answer, this one 0"},
		{name: "stdin without kubectl", en: "exercises:\n" + strings.Replace(choiceExercise, `solution: [{answer: "2"}]`, `solution: [{answer: "2", stdin: "x"}]`, 1), want: "stdin belongs to a kubectl step"},
		{name: "after-serve without needs", en: "exercises:\n" + goodExercise("ex"),
			extra: fstest.MapFS{"en/21-later.md": afterServeMD("later"), "en/21-later.exercises.yaml": file("exercises:\n" + choiceExercise)},
			want:  "exercise pick: an exercise of an after-serve lesson opens once the server serves", file: "en/21-later.exercises.yaml"},
		{name: "live with an answer", en: replace(`- kubectl: "--context admin create rolebinding x -n default --clusterrole=view --user=bob"`, `- answer: "yes"`), want: "reads the server, not a typed answer"},
		{name: "unknown field", en: replace("why:", "wy:"), want: `unknown field "wy"`},
		{name: "not yaml", en: "exercises: [", want: "exercises:"},
		{name: "orphan file", en: "exercises:\n" + goodExercise("ex"), extra: fstest.MapFS{"en/09-extra.exercises.yaml": file("exercises: []\n")},
			want: "belongs to no lesson", file: "en/09-extra.exercises.yaml"},
		{name: "translation of an unknown exercise", en: "exercises:\n" + goodExercise("ex"), lang: "zh-CN",
			extra: fstest.MapFS{"zh-CN/03-authz.exercises.yaml": file("exercises:\n  - id: other\n    title: \"别的\"\n")},
			want:  `exercise other: exercise "other" is not in the English file`, file: "zh-CN/03-authz.exercises.yaml"},
		{name: "no near miss", en: replace("    nearMisses:\n      - why: \"the binding is in kube-system\"\n        steps:\n          - kubectl: \"--context admin create rolebinding x -n kube-system --clusterrole=view --user=bob\"\n", ""),
			want: "exercise ex: no near miss"},
		{name: "near miss without why", en: replace(`why: "the binding is in kube-system"`, `why: ""`), want: "near miss 1 has no why"},
		{name: "near miss without steps", en: replace("        steps:\n          - kubectl: \"--context admin create rolebinding x -n kube-system --clusterrole=view --user=bob\"\n", ""),
			want: "near miss 1 has no steps"},
		{name: "near miss answering a live check", en: replace(`- kubectl: "--context admin create rolebinding x -n kube-system --clusterrole=view --user=bob"`, `- answer: "x"`),
			want: "reads the server, not a typed answer (near miss 1)"},
		{name: "near miss picks the right choice", en: "exercises:\n" + strings.Replace(choiceExercise, `steps: [{answer: "1"}]`, `steps: [{answer: "2"}]`, 1),
			want: "near miss 1 picks the right choice 2"},
		{name: "near miss answers an accepted answer", en: "exercises:\n" + strings.Replace(strings.Replace(choiceExercise, "check: {kind: choice, correct: 2}", "check: {kind: answer, accept: [\"1\"]}", 1), `choices: ["a", "b"]`, "", 1),
			want: "near miss 1 answers \"1\""},
		{name: "near miss step without answer", en: "exercises:\n" + strings.Replace(choiceExercise, `steps: [{answer: "1"}]`, `steps: [{kubectl: "version"}]`, 1),
			want: "near miss 1 types exactly one answer, this one 0"},
		{name: "background last", en: replace(`--clusterrole=view --user=bob"
    nearMisses`, `--clusterrole=view --user=bob"
        background: true
    nearMisses`), want: "solution step 1: a background step is the last one"},
		{name: "background that fails", en: replace(`--clusterrole=view --user=bob"
    nearMisses`, `--clusterrole=view --user=bob"
        background: true
        fails: true
      - kubectl: "version"
    nearMisses`), want: "background is for a kubectl command"},
		{name: "two background steps", en: replace(`--clusterrole=view --user=bob"
    nearMisses`, `--clusterrole=view --user=bob"
        background: true
      - kubectl: "get cm -w"
        background: true
      - kubectl: "version"
    nearMisses`), want: "solution has 2 background steps"},
		{name: "tui on an answer", en: "exercises:\n" + strings.Replace(choiceExercise, `solution: [{answer: "2"}]`, `solution: [{answer: "2", tui: "version"}]`, 1),
			want: "tui is the in-TUI form of a kubectl or curl step"},
		{name: "tui unclosed quote", en: replace(`--user=bob"
    nearMisses`, `--user=bob"
        tui: "get cm 'x"
    nearMisses`), want: `tui "get cm 'x" is not a kubectl command line`},
		{name: "tui blank", en: replace(`--user=bob"
    nearMisses`, `--user=bob"
        tui: " "
    nearMisses`), want: "is not a kubectl command line"},
		{name: "tui with server", en: replace(`--user=bob"
    nearMisses`, `--user=bob"
        tui: "--server {server} get cm"
    nearMisses`), want: "tui names {server}"},
		{name: "tuiRefused in a solution", en: replace(`--user=bob"
    nearMisses`, `--user=bob"
        tuiRefused: true
    nearMisses`), want: "solution step 1: a solution step the TUI refuses"},
		{name: "tuiRefused with a tui form", en: replace(`--clusterrole=view --user=bob"
    why:`, `--clusterrole=view --user=bob"
            tuiRefused: true
            tui: "get cm"
    why:`), want: "near miss 1 step 1: tuiRefused is for a kubectl step the TUI refuses, without a tui form"},
		{name: "tuiRefused on an answer", en: "exercises:\n" + strings.Replace(choiceExercise, `steps: [{answer: "1"}]`, `steps: [{answer: "1", tuiRefused: true}]`, 1),
			want: "tuiRefused is for a kubectl step"},
		{name: "event without watch", en: replace("kind: access\n      asks:\n        - {user: bob, verb: list, resource: configmaps, namespace: default, allowed: true}", "kind: trace\n      verb: get\n      resource: configmaps\n      event: true"),
			want: "event asks for a watch that an event reached"},
		{name: "command not kubectl's", en: replace("kind: access\n      asks:\n        - {user: bob, verb: list, resource: configmaps, namespace: default, allowed: true}", "kind: trace\n      command: explain"),
			want: `command "explain"`},
		{name: "impersonator without user", en: replace("kind: access\n      asks:\n        - {user: bob, verb: list, resource: configmaps, namespace: default, allowed: true}", "kind: trace\n      impersonator: kubewalk-admin"),
			want: "impersonator needs the user"},
		{name: "translation with near misses", en: "exercises:\n" + goodExercise("ex"), lang: "zh-CN",
			extra: fstest.MapFS{"zh-CN/03-authz.exercises.yaml": file("exercises:\n  - id: ex\n    nearMisses: [{why: x, steps: [{answer: y}]}]\n")},
			want:  "a translation sets only title, goal, choices, hints and why", file: "zh-CN/03-authz.exercises.yaml"},
		{name: "translation with a check", en: "exercises:\n" + goodExercise("ex"), lang: "zh-CN",
			extra: fstest.MapFS{"zh-CN/03-authz.exercises.yaml": file("exercises:\n  - id: ex\n    check: {kind: answer, accept: [x]}\n")},
			want:  "a translation sets only title, goal, choices, hints and why", file: "zh-CN/03-authz.exercises.yaml"},
		{name: "translation with fewer hints", en: "exercises:\n" + goodExercise("ex"), lang: "zh-CN",
			extra: fstest.MapFS{"zh-CN/03-authz.exercises.yaml": file("exercises:\n  - id: ex\n    hints: [\"一\"]\n")},
			want:  "1 hints, English has 3", file: "zh-CN/03-authz.exercises.yaml"},
		{name: "orphan translation file", en: "exercises:\n" + goodExercise("ex"), lang: "zh-CN",
			extra: fstest.MapFS{"zh-CN/09-extra.exercises.yaml": file("exercises: []\n")},
			want:  "belongs to no lesson", file: "zh-CN/09-extra.exercises.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"en/03-authz.md": lessonMD("authz", "authz"), "en/03-authz.exercises.yaml": file(tc.en)}
			for k, v := range tc.extra {
				fsys[k] = v
			}
			lang := tc.lang
			if lang == "" {
				lang = "en"
			}
			if lang != "en" {
				fsys[lang+"/03-authz.md"] = lessonMD("authz", "authz")
			}
			wantFile := tc.file
			if wantFile == "" {
				wantFile = "en/03-authz.exercises.yaml"
			}
			ls, _ := lessons.Load(fsys, lang)
			_, err := lessons.LoadExercises(fsys, lang, ls)
			if err == nil {
				t.Fatalf("no problem reported, want %q", tc.want)
			}
			var found bool
			for _, p := range err.(lessons.Problems) {
				if strings.Contains(p.Error(), tc.want) && p.File == wantFile {
					found = true
				}
			}
			if !found {
				t.Errorf("problems:\n%v\nwant one in %s containing %q", err, wantFile, tc.want)
			}
			// The validator sees it too.
			if ps := lessons.CheckExercises(fsys, lang); len(ps) == 0 {
				t.Errorf("CheckExercises found nothing")
			}
		})
	}
}

// TestAnswerCompare checks how typed answers compare.
func TestAnswerCompare(t *testing.T) {
	c := lessons.ExerciseCheck{Kind: lessons.CheckAnswer, Accept: []string{"informer-sync", "System:APIServer"}}
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"informer-sync", true}, {"  Informer-Sync. ", true}, {"system:apiserver", true}, {"system : apiserver", false},
		{"informer sync", false}, {"", false},
	} {
		if got := c.Accepts(tc.in); got != tc.want {
			t.Errorf("Accepts(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if lessons.Choice(" 2 ") != 2 || lessons.Choice("two") != 0 || lessons.Choice("0") != 0 {
		t.Error("Choice parses numbers only, from 1")
	}
}
