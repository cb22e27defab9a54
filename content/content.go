// Package content holds kubewalk's lesson files, embedded into the binary.
//
// en/ has one Markdown file per phase, NN-<phase>.md: YAML front matter (id, phase, title,
// kube, steps with id, checkpoint, title, anchor, focus, upstream, kube) and one
// "## <step id>" section per step. Other language directories (zh-CN/) hold files of the same
// names that translate the lesson title, step titles and step texts; everything else comes
// from English. README.md files are documentation, not lessons. Beside each lesson,
// NN-<phase>.exercises.yaml holds its exercises (English: ids, checks, solutions and texts;
// other languages: texts only; see docs/exercises.md). Package lessons loads and validates the
// files; `kubewalk lessons check` runs the validation.
package content

import "embed"

// FS holds the language directories en/ and zh-CN/ at its root.
//
//go:embed en zh-CN
var FS embed.FS
