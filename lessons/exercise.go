package lessons

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/jsonpath"
	"sigs.k8s.io/yaml"

	"github.com/kubewalk/kubewalk/server"
)

// Exercises live beside their lesson, one file per lesson: content/<lang>/NN-<phase>.exercises.yaml
// next to content/<lang>/NN-<phase>.md. English holds everything: ids, checks, solutions and
// texts. A translation's file of the same name holds only texts (title, goal, hints, choices,
// why), keyed by the English ids; ids, checks and solutions are never translated.

// ExercisesSuffix ends the name of a lesson's exercise file; the rest is the lesson file's name
// without ".md".
const ExercisesSuffix = ".exercises.yaml"

// HintLevels is how many hints every exercise has: a nudge, a pointer, the solution.
const HintLevels = 3

// Check kinds. Live kinds read the serving server; the others compare what the learner types.
const (
	// CheckTrace passes when a request recorded since the exercise opened matches.
	CheckTrace = "trace"
	// CheckObject passes when an object exists with the given field values.
	CheckObject = "object"
	// CheckAccess passes when SubjectAccessReviews give the expected answers, all of them.
	CheckAccess = "access"
	// CheckEtcdKey passes when a key (or a key under a prefix) exists in etcd.
	CheckEtcdKey = "etcd-key"
	// CheckEtcdRevision passes when the learner types the mod revision etcd holds for a key.
	CheckEtcdRevision = "etcd-revision"
	// CheckAnswer passes when the learner types one of the accepted answers.
	CheckAnswer = "answer"
	// CheckChoice passes when the learner picks the right choice.
	CheckChoice = "choice"
)

// CheckKinds lists the check kinds, in the order the docs describe them.
func CheckKinds() []string {
	return []string{CheckTrace, CheckObject, CheckAccess, CheckEtcdKey, CheckEtcdRevision, CheckAnswer, CheckChoice}
}

// NeedsServe is the only value of an exercise's needs field: its check, or finding its answer,
// needs the serving server.
const NeedsServe = "serve"

// Exercise is one task of a lesson, in the requested language.
type Exercise struct {
	// ID is unique across all lessons and never translated; progress is keyed by it.
	ID string
	// Lesson is the id of the lesson the exercise belongs to, Phase that lesson's phase (the
	// exercise is available once the walkthrough reaches it; serve for a lesson of the
	// after-serve track) and LessonTitle its title.
	Lesson, Phase, LessonTitle string
	// Needs is NeedsServe when the exercise cannot be done before the server serves.
	Needs string
	// Title and Goal say what to do; Goal may hold inline Markdown.
	Title, Goal string
	// Choices are the options of a choice exercise, in order.
	Choices []string
	// Hints are the HintLevels hints: nudge, pointer, solution.
	Hints []string
	// Why explains a pass; "{detail}" in it is replaced by what the check found.
	Why string
	// Check is what decides that the exercise is done.
	Check ExerciseCheck
	// Solution is the reference solution the solver test runs.
	Solution []SolutionStep
	// NearMisses are attempts that come close and must not pass: the solver test runs each
	// before the solution and fails if the check passes.
	NearMisses []NearMiss
	// Lang is the language the texts were loaded in (a text missing from a translation is
	// English).
	Lang string
	// File is the English exercise file, as a path in the content fs.FS.
	File string
}

// NeedsServer reports whether the exercise waits for the serving server.
func (e Exercise) NeedsServer() bool { return e.Needs == NeedsServe }

// Typed reports whether the learner answers the exercise by typing or choosing.
func (e Exercise) Typed() bool {
	switch e.Check.Kind {
	case CheckAnswer, CheckChoice, CheckEtcdRevision:
		return true
	}
	return false
}

// ExerciseCheck is an exercise's check, as data. Which fields apply depends on Kind; the loader
// refuses fields that do not belong to the kind.
type ExerciseCheck struct {
	Kind string `json:"kind"`

	// trace: every field set must match one request (strings exactly; Detail as a substring
	// of the stage's detail or of one of its fields' values, such as the response's message,
	// of any stage when Stage is empty).
	User        string `json:"user,omitempty"`
	Verb        string `json:"verb,omitempty"`
	Resource    string `json:"resource,omitempty"`
	Subresource string `json:"subresource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
	Path        string `json:"path,omitempty"`
	Code        int    `json:"code,omitempty"`
	Stage       string `json:"stage,omitempty"`
	Outcome     string `json:"outcome,omitempty"`
	Detail      string `json:"detail,omitempty"`
	// Command is the kubectl command that must have sent the request ("kubectl explain"), as
	// its Kubectl-Command header names it.
	Command string `json:"command,omitempty"`
	// Impersonator is the user who must have sent the request with --as. Without it, a check
	// that names a user matches only that user's own requests, never another's --as.
	Impersonator string `json:"impersonator,omitempty"`
	// Event (with verb: watch) asks for a watch that an event reached: it was open when a
	// change to an object it watches was written, after it started.
	Event bool `json:"event,omitempty"`

	// object: the object apiVersion/resource namespace/name (Namespace and Name above) and
	// the values its fields must have, each field a kubectl JSONPath ("{.data.k}").
	APIVersion string            `json:"apiVersion,omitempty"`
	Fields     map[string]string `json:"fields,omitempty"`

	// access: the SubjectAccessReviews to ask; each must give its Allowed.
	Asks []AccessAsk `json:"asks,omitempty"`

	// etcd-key and etcd-revision: the key below the server's key prefix ("configmaps/default/x");
	// Prefix makes etcd-key pass for any key under it.
	Key    string `json:"key,omitempty"`
	Prefix bool   `json:"prefix,omitempty"`

	// answer: the accepted answers, compared without case and with runs of blanks as one.
	// With Key, an accepted answer passes only while that key exists in etcd: the answer
	// names something the learner made, and it must really be there.
	Accept []string `json:"accept,omitempty"`

	// choice: the right choice, 1-based.
	Correct int `json:"correct,omitempty"`
}

// AccessAsk is one SubjectAccessReview and the answer it must get.
type AccessAsk struct {
	User        string   `json:"user"`
	Groups      []string `json:"groups,omitempty"`
	Verb        string   `json:"verb"`
	Group       string   `json:"group,omitempty"`
	Resource    string   `json:"resource,omitempty"`
	Subresource string   `json:"subresource,omitempty"`
	Namespace   string   `json:"namespace,omitempty"`
	Name        string   `json:"name,omitempty"`
	Path        string   `json:"path,omitempty"` // a non-resource URL instead of a resource
	Allowed     bool     `json:"allowed"`
}

// SolutionStep is one step of a reference solution: a kubectl command line (without
// "kubectl" and without --kubeconfig, which the runner adds), or the answer to type.
type SolutionStep struct {
	// Kubectl is the command's arguments as a shell would split them; "{server}" stands for
	// the server's URL.
	Kubectl string `json:"kubectl,omitempty"`
	// Fails says the command is expected to fail (a 401 or 403 is the point).
	Fails bool `json:"fails,omitempty"`
	// AnswerOutput types the command's output, trimmed, as the answer.
	AnswerOutput bool `json:"answerOutput,omitempty"`
	// Answer is typed as the answer (a choice's number for a choice exercise).
	Answer string `json:"answer,omitempty"`
	// Stdin is given to the kubectl command on its standard input (a manifest for
	// `kubectl apply -f -`).
	Stdin string `json:"stdin,omitempty"`
	// Curl is a path to GET with no credentials at all, as `curl -k https://<server><path>`
	// does: kubectl always sends some (or prompts for them).
	Curl string `json:"curl,omitempty"`
	// Background runs the kubectl command (a watch) in the background, as in a second
	// terminal: the next step starts once its long-running request is open on the server, and
	// it is stopped after the last step.
	Background bool `json:"background,omitempty"`
	// TUI is what a learner types after `:k` in the TUI for this step, when it differs from
	// Kubectl (same syntax): the TUI's kubectl runs only the allow-list a class ssh student
	// gets, and nobody there has curl. Empty: Kubectl as it is, or for a curl step
	// `--context anonymous get --raw <path>` (no certificate and no token, as curl sends).
	TUI string `json:"tui,omitempty"`
	// TUIRefused says that the TUI refuses this step's command (a pinned flag such as
	// --token): a near miss a student in the TUI cannot even try. The solver checks that the
	// TUI refuses it. Never in a solution: every exercise is solvable in the TUI.
	TUIRefused bool `json:"tuiRefused,omitempty"`
}

// TUILine is what a learner types after `:k` in the TUI for step s: TUI when set, else Kubectl,
// else (a curl step) the anonymous context's get --raw of the path.
func (s SolutionStep) TUILine() string {
	switch {
	case s.TUI != "":
		return s.TUI
	case s.Curl != "":
		return "--context anonymous get --raw " + s.Curl
	}
	return s.Kubectl
}

// NearMiss is an attempt that comes close to an exercise's goal and must not pass its check:
// the wrong namespace, the wrong user, no change, the wrong resource.
type NearMiss struct {
	// Why says what is wrong with it, for the solver test's output (English only).
	Why string `json:"why"`
	// Steps are run as a solution's are.
	Steps []SolutionStep `json:"steps"`
}

// exerciseFile is one exercise file as written.
type exerciseFile struct {
	Exercises []exerciseMatter `json:"exercises"`
}

// exerciseMatter is one exercise as written; a translation sets only the text fields.
type exerciseMatter struct {
	ID         string         `json:"id"`
	Needs      string         `json:"needs,omitempty"`
	Title      string         `json:"title,omitempty"`
	Goal       string         `json:"goal,omitempty"`
	Choices    []string       `json:"choices,omitempty"`
	Hints      []string       `json:"hints,omitempty"`
	Why        string         `json:"why,omitempty"`
	Check      *ExerciseCheck `json:"check,omitempty"`
	Solution   []SolutionStep `json:"solution,omitempty"`
	NearMisses []NearMiss     `json:"nearMisses,omitempty"`
}

// LoadExercises reads the exercises of ls (as Load returned them, in lang) from their sibling
// files in fsys: English's, then lang's texts over them, text by text. A lesson without an
// exercise file has no exercises. The exercises come in lesson order, then file order. Any
// problem (a file that does not parse, an invalid check, a translation of an unknown
// exercise, ...) is returned as a Problems error beside the exercises that are sound.
func LoadExercises(fsys fs.FS, lang string, ls []Lesson) ([]Exercise, error) {
	if lang == "" {
		lang = DefaultLang
	}
	var (
		out      []Exercise
		problems Problems
		seen     = map[string]string{} // id -> file
	)
	for _, l := range ls {
		enName := exerciseFileName(l.File)
		en, err := readExerciseFile(fsys, enName)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, asProblems(err)...)
			continue
		}
		var tr map[string]exerciseMatter
		trName := path.Join(lang, path.Base(enName))
		if lang != DefaultLang {
			trf, err := readExerciseFile(fsys, trName)
			switch {
			case errors.Is(err, fs.ErrNotExist):
			case err != nil:
				problems = append(problems, asProblems(err)...)
			default:
				tr, problems = overlayTexts(trf, en, trName, enName, problems)
			}
		}
		for _, m := range en.Exercises {
			ps := validateExercise(m, enName)
			if prev, dup := seen[m.ID]; dup && m.ID != "" {
				ps = append(ps, exProblem(enName, m.ID, fmt.Sprintf("duplicate exercise id (first in %s)", prev),
					"exercise ids are unique across all lessons: rename one"))
			}
			seen[m.ID] = enName
			if l.Track == TrackAfterServe && m.Needs != NeedsServe && len(ps) == 0 {
				ps = append(ps, exProblem(enName, m.ID, "an exercise of an after-serve lesson opens once the server serves",
					"add needs: serve"))
			}
			if len(ps) > 0 {
				problems = append(problems, ps...)
				continue
			}
			out = append(out, exerciseOf(l, m, tr[m.ID], lang, enName))
		}
	}
	problems = append(problems, orphanExerciseFiles(fsys, lang, ls)...)
	if len(problems) > 0 {
		return out, problems
	}
	return out, nil
}

// exerciseFileName returns the exercise file beside lesson file name ("en/03-authz.md").
func exerciseFileName(lessonFile string) string {
	return strings.TrimSuffix(lessonFile, ".md") + ExercisesSuffix
}

// orphanExerciseFiles reports exercise files in en and lang that belong to no lesson.
func orphanExerciseFiles(fsys fs.FS, lang string, ls []Lesson) []Problem {
	known := map[string]bool{}
	for _, l := range ls {
		known[path.Base(exerciseFileName(l.File))] = true
	}
	var out []Problem
	for _, dir := range slices.Compact([]string{DefaultLang, lang}) {
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if n := e.Name(); strings.HasSuffix(n, ExercisesSuffix) && !known[n] {
				out = append(out, Problem{File: path.Join(dir, n),
					Msg: fmt.Sprintf("belongs to no lesson: %s does not exist", path.Join(DefaultLang, strings.TrimSuffix(n, ExercisesSuffix)+".md")),
					Fix: "name it after its lesson file (03-authz.md → 03-authz" + ExercisesSuffix + ")"})
			}
		}
	}
	return out
}

// readExerciseFile parses one exercise file strictly (unknown fields are errors); a missing
// file is fs.ErrNotExist.
func readExerciseFile(fsys fs.FS, name string) (*exerciseFile, error) {
	data, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, Problems{{File: name, Msg: fmt.Sprintf("cannot read: %v", err), Fix: "make the file readable"}}
	}
	var f exerciseFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, Problems{{File: name, Msg: fmt.Sprintf("exercises: %v", err),
			Fix: "the file is `exercises:` with a list; an exercise has id, needs, title, goal, choices, hints, why, check, solution and nearMisses"}}
	}
	return &f, nil
}

// overlayTexts checks translation trf of English file en and returns its texts by id.
func overlayTexts(trf, en *exerciseFile, trName, enName string, ps Problems) (map[string]exerciseMatter, Problems) {
	enByID := map[string]exerciseMatter{}
	for _, m := range en.Exercises {
		enByID[m.ID] = m
	}
	out := map[string]exerciseMatter{}
	for _, m := range trf.Exercises {
		e, ok := enByID[m.ID]
		switch {
		case !ok:
			ps = append(ps, exProblem(trName, m.ID, fmt.Sprintf("exercise %q is not in the English file %s", m.ID, enName),
				"use the English ids (translate texts, never ids), or add the exercise to English first"))
			continue
		case m.Check != nil || len(m.Solution) > 0 || len(m.NearMisses) > 0 || m.Needs != "":
			ps = append(ps, exProblem(trName, m.ID, "a translation sets only title, goal, choices, hints and why",
				"delete check, solution, nearMisses and needs here: they always come from English"))
		case len(m.Hints) > 0 && len(m.Hints) != len(e.Hints):
			ps = append(ps, exProblem(trName, m.ID, fmt.Sprintf("%d hints, English has %d", len(m.Hints), len(e.Hints)),
				"translate every hint level, in the English order"))
		case len(m.Choices) > 0 && len(m.Choices) != len(e.Choices):
			ps = append(ps, exProblem(trName, m.ID, fmt.Sprintf("%d choices, English has %d", len(m.Choices), len(e.Choices)),
				"translate every choice, in the English order (the right one is picked by position)"))
		}
		out[m.ID] = m
	}
	return out, ps
}

// exerciseOf builds the Exercise of English entry m with translation tr's texts.
func exerciseOf(l Lesson, m, tr exerciseMatter, lang, file string) Exercise {
	phase := l.Phase
	if l.Track == TrackAfterServe {
		phase = string(server.PhaseServe)
	}
	e := Exercise{ID: m.ID, Lesson: l.ID, Phase: phase, LessonTitle: l.Title, Needs: m.Needs,
		Title: m.Title, Goal: strings.TrimSpace(m.Goal), Choices: slices.Clone(m.Choices), Hints: slices.Clone(m.Hints),
		Why: strings.TrimSpace(m.Why), Check: *m.Check, Solution: slices.Clone(m.Solution), NearMisses: slices.Clone(m.NearMisses),
		Lang: lang, File: file}
	pick := func(dst *string, s string) {
		if strings.TrimSpace(s) != "" {
			*dst = strings.TrimSpace(s)
		}
	}
	pick(&e.Title, tr.Title)
	pick(&e.Goal, tr.Goal)
	pick(&e.Why, tr.Why)
	if len(tr.Hints) == len(e.Hints) {
		for i, h := range tr.Hints {
			pick(&e.Hints[i], h)
		}
	}
	if len(tr.Choices) == len(e.Choices) {
		for i, c := range tr.Choices {
			pick(&e.Choices[i], c)
		}
	}
	for i := range e.Hints {
		e.Hints[i] = strings.TrimSpace(e.Hints[i])
	}
	return e
}

// validateExercise returns what is wrong with English exercise m of file.
func validateExercise(m exerciseMatter, file string) []Problem {
	var ps []Problem
	bad := func(msg, fix string) { ps = append(ps, exProblem(file, m.ID, msg, fix)) }
	if !idPattern().MatchString(m.ID) {
		bad(fmt.Sprintf("exercise id %q: want lowercase words joined by dashes", m.ID), "give the exercise an id like authz-bob-reads-cm")
	}
	if strings.TrimSpace(m.Title) == "" || strings.TrimSpace(m.Goal) == "" {
		bad("empty title or goal", "say in a title and one or two sentences what the learner does")
	}
	if m.Needs != "" && m.Needs != NeedsServe {
		bad(fmt.Sprintf("needs %q: the only value is %q", m.Needs, NeedsServe), "write needs: serve, or leave it out")
	}
	if len(m.Hints) != HintLevels {
		bad(fmt.Sprintf("%d hints: every exercise has %d (a nudge, a pointer, the solution)", len(m.Hints), HintLevels), "write the missing hint levels")
	}
	for i, h := range m.Hints {
		if strings.TrimSpace(h) == "" {
			bad(fmt.Sprintf("hint level %d is empty", i+1), "write it")
		}
	}
	if m.Check == nil {
		bad("no check", "add a check with a kind: "+strings.Join(CheckKinds(), ", "))
		return ps
	}
	for _, msg := range checkProblems(*m.Check, len(m.Choices)) {
		bad("check: "+msg, "see docs/exercises.md for the kinds and their fields")
	}
	live := !slices.Contains([]string{CheckAnswer, CheckChoice}, m.Check.Kind) || m.Check.Key != ""
	if live && m.Needs != NeedsServe && slices.Contains(CheckKinds(), m.Check.Kind) {
		bad(fmt.Sprintf("a %s check reads the serving server", m.Check.Kind), "add needs: serve")
	}
	if m.Check.Kind != CheckChoice && len(m.Choices) > 0 {
		bad("choices on an exercise whose check is not a choice", "delete the choices or make the check kind: choice")
	}
	ps = append(ps, solutionProblems(m, file)...)
	ps = append(ps, nearMissProblems(m, file)...)
	return ps
}

// solutionProblems checks that the reference solution exists and fits the check.
func solutionProblems(m exerciseMatter, file string) []Problem {
	var ps []Problem
	bad := func(msg, fix string) { ps = append(ps, exProblem(file, m.ID, msg, fix)) }
	if len(m.Solution) == 0 {
		bad("empty solution", "add the kubectl commands (or the answer) the solver test runs")
		return ps
	}
	stepProblems(m.Check.Kind, "solution", m.Solution, bad)
	return ps
}

// nearMissProblems checks that the exercise has near misses and that each is sound: a why,
// steps that fit the check, and for a typed check an answer the check does not accept.
func nearMissProblems(m exerciseMatter, file string) []Problem {
	var ps []Problem
	bad := func(msg, fix string) { ps = append(ps, exProblem(file, m.ID, msg, fix)) }
	if len(m.NearMisses) == 0 {
		bad("no near miss: nothing shows that the check refuses what comes close",
			"add nearMisses: an attempt that must not pass (the wrong namespace, user or resource, no change, a plausible wrong answer), with why and steps")
		return ps
	}
	for i, nm := range m.NearMisses {
		what := fmt.Sprintf("near miss %d", i+1)
		if strings.TrimSpace(nm.Why) == "" {
			bad(what+" has no why", "say in a few words what is wrong with it")
		}
		if len(nm.Steps) == 0 {
			bad(what+" has no steps", "give the kubectl commands (or the answer) of the attempt")
			continue
		}
		stepProblems(m.Check.Kind, what, nm.Steps, bad)
		for _, st := range nm.Steps {
			switch {
			case st.Answer == "":
			case m.Check.Kind == CheckAnswer && m.Check.Accepts(st.Answer):
				bad(fmt.Sprintf("%s answers %q, which the check accepts", what, st.Answer), "a near miss's answer must be wrong")
			case m.Check.Kind == CheckChoice && Choice(st.Answer) == m.Check.Correct:
				bad(fmt.Sprintf("%s picks the right choice %s", what, st.Answer), "pick a wrong one")
			}
		}
	}
	return ps
}

// stepProblems checks the steps of a solution or near miss (named what) against check kind.
func stepProblems(kind, what string, steps []SolutionStep, bad func(msg, fix string)) {
	answers, background := 0, 0
	for i, s := range steps {
		kinds := 0
		for _, set := range []bool{s.Kubectl != "", s.Answer != "", s.Curl != ""} {
			if set {
				kinds++
			}
		}
		step := fmt.Sprintf("%s step %d", what, i+1)
		switch {
		case kinds > 1:
			bad(step+" has more than one of kubectl, curl and answer", "split it into steps")
		case kinds == 0 || (s.Kubectl != "" && strings.TrimSpace(s.Kubectl) == ""):
			bad(step+" is empty", "give it a kubectl command line, a curl path or an answer")
		case s.Curl != "" && !strings.HasPrefix(s.Curl, "/"):
			bad(fmt.Sprintf("%s: curl %q is not a path", step, s.Curl), "give the path only, starting with /")
		case s.Stdin != "" && s.Kubectl == "":
			bad(step+": stdin belongs to a kubectl step", "give it a kubectl command that reads it (apply -f -)")
		case s.Curl != "" && (s.Fails || s.AnswerOutput):
			bad(step+": fails and answerOutput belong to kubectl steps", "delete them")
		case s.Kubectl != "" && splitArgs(s.Kubectl) == nil:
			bad(fmt.Sprintf("%s: kubectl %q does not split into arguments", step, s.Kubectl), "close its quotes")
		case s.Answer != "" && (s.Fails || s.AnswerOutput):
			bad(step+": fails and answerOutput belong to kubectl steps", "delete them")
		case s.Background && (s.Kubectl == "" || s.Fails || s.AnswerOutput || s.Stdin != ""):
			bad(step+": background is for a kubectl command that keeps a request open (a watch), without fails, answerOutput or stdin",
				"make it a plain kubectl step, or drop background")
		case s.Background && i == len(steps)-1:
			bad(step+": a background step is the last one, so nothing happens while it runs", "put the steps it waits for after it")
		case s.TUI != "" && s.Kubectl == "" && s.Curl == "":
			bad(step+": tui is the in-TUI form of a kubectl or curl step", "delete it, or give the step its kubectl command")
		case s.TUI != "" && (strings.TrimSpace(s.TUI) == "" || splitArgs(s.TUI) == nil):
			bad(fmt.Sprintf("%s: tui %q is not a kubectl command line", step, s.TUI), "give the arguments of :k, with its quotes closed")
		case strings.Contains(s.TUI, "{server}"):
			bad(step+": tui names {server}, which the TUI's kubectl cannot reach otherwise than through its kubeconfig", "drop --server: the TUI's kubectl talks to this run's server only")
		case s.TUIRefused && (s.Kubectl == "" || s.TUI != ""):
			bad(step+": tuiRefused is for a kubectl step the TUI refuses, without a tui form", "delete tuiRefused, or the tui form")
		case s.TUIRefused && what == "solution":
			bad(step+": a solution step the TUI refuses: a student in the TUI could not solve the exercise",
				"give it a tui form that the TUI runs (see docs/exercises.md)")
		}
		if s.Background {
			background++
		}
		if s.Answer != "" || s.AnswerOutput {
			answers++
		}
	}
	if background > 1 {
		bad(fmt.Sprintf("%s has %d background steps; the TUI keeps one watch running beside the command typed", what, background),
			"keep one background step")
	}
	typed := slices.Contains([]string{CheckAnswer, CheckChoice, CheckEtcdRevision}, kind)
	switch {
	case typed && answers != 1:
		bad(fmt.Sprintf("a %s exercise's %s types exactly one answer, this one %d", kind, what, answers), "add one answer step (or answerOutput: true)")
	case !typed && answers > 0:
		bad(fmt.Sprintf("a %s check reads the server, not a typed answer (%s)", kind, what), "delete the answer steps")
	}
}

// splitArgs splits a solution command line into arguments as a POSIX shell would, with
// quotes but without expansion; nil when a quote is not closed.
func splitArgs(line string) []string {
	var (
		args  []string
		cur   strings.Builder
		word  bool
		quote rune
	)
	for _, c := range line {
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(c)
		case c == '\'' || c == '"':
			quote, word = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if word {
				args = append(args, cur.String())
				cur.Reset()
				word = false
			}
		default:
			cur.WriteRune(c)
			word = true
		}
	}
	if quote != 0 {
		return nil
	}
	if word {
		args = append(args, cur.String())
	}
	if args == nil {
		args = []string{}
	}
	return args
}

// SplitArgs splits a solution's kubectl command line into arguments ('single' and "double"
// quotes group, nothing is expanded). It fails on an unclosed quote.
func SplitArgs(line string) ([]string, error) {
	args := splitArgs(line)
	if args == nil {
		return nil, fmt.Errorf("kubectl %q: unclosed quote", line)
	}
	return args, nil
}

// traceOutcomes are the stage outcomes a trace check may name.
var traceOutcomes = []string{"ok", "allowed", "denied", "no-opinion", "changed", "no-change", "refused", "failed", "aborted", "cache", "etcd", "skipped"}

// checkProblems returns what is wrong with c's parameters for its kind; nchoices is how many
// choices the exercise offers.
func checkProblems(c ExerciseCheck, nchoices int) []string {
	var out []string
	set := c.setFields()
	allow := func(fields ...string) {
		for _, f := range set {
			if !slices.Contains(fields, f) {
				out = append(out, fmt.Sprintf("field %s does not belong to a %s check (it takes %s)", f, c.Kind, strings.Join(fields, ", ")))
			}
		}
	}
	switch c.Kind {
	case CheckTrace:
		allow("user", "verb", "resource", "subresource", "namespace", "name", "path", "code", "stage", "outcome", "detail", "command", "impersonator", "event")
		if len(set) == 0 {
			out = append(out, "a trace check needs at least one field to match")
		}
		if c.Code != 0 && (c.Code < 100 || c.Code > 599) {
			out = append(out, fmt.Sprintf("code %d is not an HTTP status", c.Code))
		}
		if c.Outcome != "" && !slices.Contains(traceOutcomes, c.Outcome) {
			out = append(out, fmt.Sprintf("outcome %q: want one of %s", c.Outcome, strings.Join(traceOutcomes, ", ")))
		}
		if c.Outcome != "" && c.Stage == "" {
			out = append(out, "outcome needs the stage it is the outcome of")
		}
		if c.Event && (c.Verb != "watch" || c.Resource == "") {
			out = append(out, "event asks for a watch that an event reached: it needs verb: watch and the resource")
		}
		if c.Command != "" && !strings.HasPrefix(c.Command, "kubectl ") {
			out = append(out, fmt.Sprintf("command %q: give it as kubectl's Kubectl-Command header names it (kubectl explain)", c.Command))
		}
		if c.Impersonator != "" && c.User == "" {
			out = append(out, "impersonator needs the user it impersonated")
		}
		if c.Stage != "" && !validStage(c.Stage) {
			out = append(out, fmt.Sprintf("stage %q: want authentication, impersonation, flowcontrol, authorization, validation, storage, response or admission/mutating/<plugin>, admission/validating/<plugin>", c.Stage))
		}
	case CheckObject:
		allow("apiVersion", "resource", "namespace", "name", "fields")
		if c.Resource == "" || c.Name == "" || c.APIVersion == "" {
			out = append(out, "an object check needs apiVersion, resource and name")
		}
		if _, err := schema.ParseGroupVersion(c.APIVersion); err != nil {
			out = append(out, fmt.Sprintf("apiVersion %q: %v", c.APIVersion, err))
		}
		for f := range c.Fields {
			if err := jsonpath.New("field").Parse(f); err != nil || !strings.HasPrefix(f, "{") {
				out = append(out, fmt.Sprintf("field %q is not a kubectl JSONPath like {.data.key}", f))
			}
		}
	case CheckAccess:
		allow("asks")
		if len(c.Asks) == 0 {
			out = append(out, "an access check needs at least one ask")
		}
		for i, a := range c.Asks {
			if a.User == "" || a.Verb == "" || (a.Resource == "") == (a.Path == "") {
				out = append(out, fmt.Sprintf("ask %d needs user, verb and either resource or path", i+1))
			}
			if a.Path != "" && (a.Namespace != "" || a.Group != "" || a.Subresource != "" || a.Name != "") {
				out = append(out, fmt.Sprintf("ask %d: a non-resource path takes no namespace, group, subresource or name", i+1))
			}
		}
	case CheckEtcdKey, CheckEtcdRevision:
		if c.Kind == CheckEtcdKey {
			allow("key", "prefix")
		} else {
			allow("key")
		}
		if c.Key == "" || strings.HasPrefix(c.Key, "/") {
			out = append(out, fmt.Sprintf("key %q: give it below the server's prefix, without a leading / (configmaps/default/x)", c.Key))
		}
	case CheckAnswer:
		allow("accept", "key")
		if c.Key != "" && strings.HasPrefix(c.Key, "/") {
			out = append(out, fmt.Sprintf("key %q: give it below the server's prefix, without a leading / (configmaps/default/x)", c.Key))
		}
		if len(c.Accept) == 0 {
			out = append(out, "an answer check needs the accepted answers (accept)")
		}
		for _, a := range c.Accept {
			if NormalizeAnswer(a) == "" {
				out = append(out, "an accepted answer is empty")
			}
		}
	case CheckChoice:
		allow("correct")
		if nchoices < 2 {
			out = append(out, fmt.Sprintf("a choice exercise needs at least 2 choices, it has %d", nchoices))
		}
		if c.Correct < 1 || c.Correct > nchoices {
			out = append(out, fmt.Sprintf("correct %d: want the number of a choice, 1..%d", c.Correct, nchoices))
		}
	default:
		out = append(out, fmt.Sprintf("unknown kind %q: want one of %s", c.Kind, strings.Join(CheckKinds(), ", ")))
	}
	return out
}

// validStage reports whether a trace check may name stage.
func validStage(stage string) bool {
	switch stage {
	case "authentication", "impersonation", "flowcontrol", "authorization", "validation", "storage", "response":
		return true
	}
	for _, p := range []string{"admission/mutating/", "admission/validating/"} {
		if rest, ok := strings.CutPrefix(stage, p); ok && rest != "" {
			return true
		}
	}
	return false
}

// setFields lists the JSON names of c's parameters that are set (Kind aside).
func (c ExerciseCheck) setFields() []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, name)
		}
	}
	add(c.User != "", "user")
	add(c.Verb != "", "verb")
	add(c.Resource != "", "resource")
	add(c.Subresource != "", "subresource")
	add(c.Namespace != "", "namespace")
	add(c.Name != "", "name")
	add(c.Path != "", "path")
	add(c.Code != 0, "code")
	add(c.Stage != "", "stage")
	add(c.Outcome != "", "outcome")
	add(c.Detail != "", "detail")
	add(c.Command != "", "command")
	add(c.Impersonator != "", "impersonator")
	add(c.Event, "event")
	add(c.APIVersion != "", "apiVersion")
	add(len(c.Fields) > 0, "fields")
	add(len(c.Asks) > 0, "asks")
	add(c.Key != "", "key")
	add(c.Prefix, "prefix")
	add(len(c.Accept) > 0, "accept")
	add(c.Correct != 0, "correct")
	return out
}

// NormalizeAnswer is how typed answers compare: trimmed, lower case, runs of blanks as one
// space, a trailing full stop dropped.
func NormalizeAnswer(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimSuffix(strings.TrimSuffix(s, "."), "。")
}

// Accepts reports whether answer is one of c's accepted answers.
func (c ExerciseCheck) Accepts(answer string) bool {
	a := NormalizeAnswer(answer)
	for _, want := range c.Accept {
		if NormalizeAnswer(want) == a {
			return true
		}
	}
	return false
}

// Choice returns the choice number an answer names ("2", " 2 "), or 0.
func Choice(answer string) int {
	n, err := strconv.Atoi(strings.TrimSpace(answer))
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// CheckExercises loads the exercises of every language in content (English and langs when
// given) against the lessons of that language and returns every problem once.
func CheckExercises(content fs.FS, langs ...string) []Problem {
	if len(langs) == 0 {
		var err error
		if langs, err = Languages(content); err != nil {
			return []Problem{{Msg: err.Error()}}
		}
	} else if !slices.Contains(langs, DefaultLang) {
		langs = append([]string{DefaultLang}, langs...)
	}
	seen := map[string]bool{}
	var out []Problem
	for _, lang := range langs {
		ls, _ := Load(content, lang) // the lessons' own problems are CheckContent's
		_, err := LoadExercises(content, lang, ls)
		if err == nil {
			continue
		}
		for _, p := range asProblems(err) {
			if k := p.Error(); !seen[k] {
				seen[k] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// exProblem is a problem of exercise id in file.
func exProblem(file, id, msg, fix string) Problem {
	if id != "" {
		msg = "exercise " + id + ": " + msg
	}
	return Problem{File: file, Msg: msg, Fix: fix}
}
