package cli

import (
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/live"
	"github.com/kubewalk/kubewalk/server"
)

// newLessonsCommand builds "kubewalk lessons" (list the lessons and the learner's progress)
// and "kubewalk lessons check" (validate the embedded lesson content).
func newLessonsCommand(stdout, stderr io.Writer) *cobra.Command {
	var lang string
	cmd := &cobra.Command{
		Use:   "lessons",
		Short: "List the lessons with your progress",
		Long: `List the lessons, one per startup phase, with their step count and how far you got,
then each lesson's exercises, marked ✓ when done.
The language comes from --lang, else from LANGUAGE, LC_ALL, LC_MESSAGES or LANG.`,
		Example: `  kubewalk lessons
  kubewalk lessons --lang zh-CN
  kubewalk lessons check`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := lessonLang(lang)
			if err != nil {
				return err
			}
			return listLessons(l, stdout, stderr)
		},
	}
	cmd.PersistentFlags().StringVar(&lang, "lang", "", "lesson language: en or zh-CN (default: from LANGUAGE, LC_ALL, LC_MESSAGES or LANG)")

	check := &cobra.Command{
		Use:   "check",
		Short: "Validate the lessons and their exercises against the server's checkpoints, its source and k8s.io/apiserver",
		Long: `Check that the embedded lessons cover every server checkpoint with exactly one step, that every
anchor resolves in kubewalk's server/ source, every upstream symbol in k8s.io/apiserver at the
version kubewalk is built with (from the Go module cache), that every exercise file parses (known
check kinds with parameters that parse, three hint levels, a solution, unique ids) and that every
translation matches English. Prints one problem per line and fails if there is any. Without
--lang it checks every language.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var langs []string
			if cmd.Flags().Changed("lang") {
				l, err := lessonLang(lang)
				if err != nil {
					return err
				}
				langs = []string{l}
			}
			return checkLessons(langs, stdout, stderr)
		},
	}
	cmd.AddCommand(check)
	return cmd
}

// lessonLang resolves --lang (or the locale when it is empty) to a content language.
func lessonLang(flag string) (string, error) {
	if err := checkLang(flag); err != nil {
		return "", err
	}
	return lessons.DetectLang(flag, os.Getenv), nil
}

// listLessons prints one line per lesson: phase, step count, progress and title.
func listLessons(lang string, stdout, stderr io.Writer) error {
	tr := i18n.For(lang)
	ls, err := lessons.Load(content.FS, lang)
	if err != nil {
		if len(ls) == 0 {
			return fmt.Errorf(tr.ErrLessons, err)
		}
		fmt.Fprintf(stderr, "kubewalk: "+tr.CLILessonsWarn+"\n", err)
	}
	progress := &lessons.Progress{}
	if p, err := lessons.ProgressPath(os.Getenv); err != nil {
		fmt.Fprintf(stderr, "kubewalk: "+tr.CLINoProgress+"\n", err)
	} else if progress, err = lessons.LoadProgress(p); err != nil {
		fmt.Fprintf(stderr, "kubewalk: "+tr.CLINoProgress+"\n", err)
	}

	// Columns line up in terminal cells (i18n.Table), not runes as text/tabwriter counts: the
	// Chinese header and titles are two cells a character.
	exs, err := lessons.LoadExercises(content.FS, lang, ls)
	if err != nil {
		fmt.Fprintf(stderr, "kubewalk: "+tr.CLILessonsWarn+"\n", err)
	}
	ids := map[string][]string{} // lesson id -> its exercise ids
	byLesson := map[string][]lessons.Exercise{}
	for _, e := range exs {
		ids[e.Lesson] = append(ids[e.Lesson], e.ID)
		byLesson[e.Lesson] = append(byLesson[e.Lesson], e)
	}
	rows := [][]string{strings.Split(tr.CLILessonsHeader, "\t")}
	for _, l := range ls {
		state := fmt.Sprintf("%d/%d", progress.Reached(l), len(l.Steps))
		if progress.Done(l) {
			state = tr.CLILessonDone
		}
		where := l.Phase
		if where == "" {
			where = l.Track // an after-serve lesson belongs to no phase
		}
		exState := "-"
		if n := len(ids[l.ID]); n > 0 {
			exState = fmt.Sprintf("%d/%d", progress.ExercisesDone(ids[l.ID]), n)
		}
		rows = append(rows, []string{where, fmt.Sprint(len(l.Steps)), state, exState, l.Title})
	}
	for _, line := range i18n.Table(rows, 2) {
		fmt.Fprintln(stdout, line)
	}
	if len(exs) == 0 {
		return nil
	}
	// Which exercises are done, lesson by lesson: the counts above do not say which.
	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, tr.CLIExercisesHeading)
	for _, l := range ls {
		if len(byLesson[l.ID]) == 0 {
			continue
		}
		where := l.Phase
		if where == "" {
			where = l.Track
		}
		fmt.Fprintf(stdout, "  %s · %s\n", where, l.Title)
		for _, e := range byLesson[l.ID] {
			mark := "○"
			if progress.Exercises[e.ID].Done {
				mark = "✓"
			}
			fmt.Fprintf(stdout, "    %s %s\n", mark, e.Title)
		}
	}
	return nil
}

// checkLessons validates the embedded content and prints each problem on its own line, with
// repository paths (content/en/02-authn.md).
func checkLessons(langs []string, stdout, stderr io.Writer) error {
	dirs, errs := lessons.ModuleDirs()
	for _, err := range errs {
		fmt.Fprintf(stderr, "kubewalk: %v\n", err)
	}
	kubeDir, err := lessons.KubeModuleDir()
	kubeChecked := fmt.Sprintf("kube: locations in %s %s", lessons.KubeModule, lessons.KubeVersion)
	if err != nil {
		kubeChecked = fmt.Sprintf("kube: locations checked in form only (%s %s is not in the module cache: `go mod download %s@%s`, about %s)",
			lessons.KubeModule, lessons.KubeVersion, lessons.KubeModule, lessons.KubeVersion, lessons.KubeDownloadSize)
	}
	known := lessons.Known{Checkpoints: server.Checkpoints(), Probes: live.IDs()}
	src := lessons.Sources{Ours: server.SourceFS, Upstream: dirs, Kube: kubeDir}
	problems := lessons.CheckContent(content.FS, known, src, langs...)
	problems = append(problems, lessons.CheckExercises(content.FS, langs...)...)
	for _, p := range problems {
		if p.File != "" {
			p.File = path.Join("content", p.File)
		}
		fmt.Fprintln(stdout, p.Error())
	}
	if n := len(problems); n > 0 {
		plural := "s"
		if n == 1 {
			plural = ""
		}
		return fmt.Errorf("lessons check: %d problem%s in the lesson content", n, plural)
	}
	if len(langs) == 0 {
		if langs, err = lessons.Languages(content.FS); err != nil {
			return fmt.Errorf("lessons check: %w", err)
		}
	} else if !slices.Contains(langs, lessons.DefaultLang) {
		langs = append([]string{lessons.DefaultLang}, langs...)
	}
	ls, err := lessons.Load(content.FS, lessons.DefaultLang)
	if err != nil {
		return fmt.Errorf("lessons check: %w", err)
	}
	steps := 0
	for _, l := range ls {
		steps += len(l.Steps)
	}
	exs, err := lessons.LoadExercises(content.FS, lessons.DefaultLang, ls)
	if err != nil {
		return fmt.Errorf("lessons check: %w", err)
	}
	var mods []string
	for _, m := range lessons.UpstreamModules() {
		if dir, ok := dirs[m]; ok {
			mods = append(mods, m+"@"+path.Base(dir)[strings.LastIndex(path.Base(dir), "@")+1:])
		}
	}
	fmt.Fprintf(stdout, "lessons ok: %d lessons, %d steps covering all %d server checkpoints, %d exercises (languages: %s); anchors resolve in server/, upstream symbols in %s; %s\n",
		len(ls), steps, len(server.Checkpoints()), len(exs), strings.Join(langs, ", "), strings.Join(mods, ", "), kubeChecked)
	return nil
}
