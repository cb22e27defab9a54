package source

import (
	"io/fs"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/server"
)

// BenchmarkTokenise is tokenising a Go file of about 2000 lines (done once per file, in a
// tea.Cmd, off the update loop), lexing included.
func BenchmarkTokenise(b *testing.B) {
	one, err := fs.ReadFile(server.SourceFS, "config.go")
	if err != nil {
		b.Fatal(err)
	}
	var src []byte
	for len(src) < 60_000 {
		src = append(src, one...)
	}
	st := common.DefaultStyles()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		lexedCache.Clear() // lexing, not a cache hit, is what is measured
		_ = tokenise(src, st)
	}
}
