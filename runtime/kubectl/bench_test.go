package kubectl_test

import (
	"context"
	"io"
	"testing"
)

// BenchmarkRunGetConfigMap measures one in-process `kubectl get cm NAME` against the real
// server, discovery cached: building the command tree, parsing, one GET, printing the table.
func BenchmarkRunGetConfigMap(b *testing.B) {
	r := newRunner(b)
	name := uniqueName("bench")
	run(b, r, "create cm "+name)
	args := []string{"get", "cm", name}
	ctx := context.Background()
	for b.Loop() {
		res, err := r.Run(ctx, args, io.Discard)
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("get cm: code %d, %v", res.ExitCode, err)
		}
	}
}
