package kubectl_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/runtime/kubectl"
)

// inputBuffer is an output with a manifest for `-f -`, as the TUI's text box gives one.
type inputBuffer struct {
	syncBuffer
	input string
}

func (b *inputBuffer) KubectlInput() (string, bool) { return b.input, true }

// TestRunBesideOpenWatch: once a command's watch is open, other commands run beside it — a
// write, a manifest through `-f -`, an error that ends its command through kubectl's fatal
// handler, a refusal — each with its own output and exit code, and the write's event reaches
// the watch, as with two terminals. The watch goes on through all of them and ends when
// stopped. For each way a watch is asked for: kubectl's own, the query of a raw GET, the
// deprecated /watch/ path.
func TestRunBesideOpenWatch(t *testing.T) {
	for _, tc := range []struct{ name, watch string }{
		{"get -w", "get cm --watch-only"},
		{"raw query", "get --raw '/api/v1/namespaces/default/configmaps?watch=1'"},
		{"raw watch path", "get --raw /api/v1/watch/namespaces/default/configmaps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRunner(t)
			run(t, r, "get ns default") // discovery cached
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			watch := &observingBuffer{}
			type ran struct {
				res kubectl.Result
				err error
			}
			done := make(chan ran, 1)
			go func() {
				res, err := r.RunLine(ctx, tc.watch, watch)
				done <- ran{res, err}
			}()
			waitFor(t, time.Minute, "the watch answered 200", func() bool {
				for _, q := range watch.requests() {
					if q.WatchOpen() {
						return true
					}
				}
				return false
			})

			written, fromBox := uniqueName("beside"), uniqueName("boxed")
			box := &inputBuffer{input: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + fromBox + ", namespace: default}\n"}
			for _, c := range []struct {
				line string
				out  interface {
					String() string
					Write([]byte) (int, error)
				}
				code int
				want string
			}{
				{"--context alice create cm " + written + " --from-literal=k=v", &syncBuffer{}, 0, "configmap/" + written + " created"},
				{"apply -f -", box, 0, "configmap/" + fromBox + " created"},
				{"get cm no-such-configmap", &syncBuffer{}, 1, `configmaps "no-such-configmap" not found`},
			} {
				// Bounded: a command that waited for the watch to end would never return.
				cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := r.RunLine(cctx, c.line, c.out)
				ccancel()
				if err != nil || res.ExitCode != c.code || !strings.Contains(c.out.String(), c.want) {
					t.Fatalf("%s beside the watch: code %d, err %v, output %q; want code %d and %q", c.line, res.ExitCode, err, c.out.String(), c.code, c.want)
				}
			}
			_, err := r.RunLine(context.Background(), "--kubeconfig /etc/passwd get cm", &syncBuffer{})
			var ref *kubectl.RefusedError
			if !errors.As(err, &ref) {
				t.Fatalf("a pinned flag beside the watch: %v, want refused", err)
			}
			waitFor(t, time.Minute, "the events in the watch's output", func() bool {
				return strings.Contains(watch.String(), written) && strings.Contains(watch.String(), fromBox)
			})
			select {
			case got := <-done:
				t.Fatalf("the watch ended before it was stopped: %+v, %v", got.res, got.err)
			default:
			}
			cancel()
			var got ran
			select {
			case got = <-done:
			case <-time.After(time.Minute): // a hang guard, far above Options.StopGrace
				t.Fatal("the watch's Run did not return after cancel")
			}
			if got.err != nil || !got.res.Canceled {
				t.Fatalf("stopped watch: err %v, canceled %v", got.err, got.res.Canceled)
			}
			// Nothing is left holding the slot: a command runs at once.
			if res, out := run(t, r, "get cm "+written); res.ExitCode != 0 {
				t.Fatalf("after the watch: code %d\n%s", res.ExitCode, out)
			}
		})
	}
}
