package cli

// The tour's after-serve views (runtime/tui: Requests, breakpoints, the etcd explorer) read
// the running server through small interfaces of the TUI's own. This file adapts the real
// backends to them: tracing.Store is a tui.Requests as it is; tracing.Breakpoints and
// etcdview.Explorer (with server.EtcdAccess for paged listing) need the adapters below.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	"sigs.k8s.io/yaml"

	"github.com/kubewalk/kubewalk/runtime/etcdview"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/runtime/tui"
	"github.com/kubewalk/kubewalk/server"
	"github.com/kubewalk/kubewalk/server/observe"
)

var (
	_ tui.Requests    = (*tracing.Store)(nil)
	_ tui.Breakpoints = tuiBreakpoints{}
	_ tui.EtcdBrowser = (*etcdBrowser)(nil)
)

// tuiBreakpoints is a tracing.Breakpoints as the TUI uses it: breakpoints named by their
// specs rather than by number, held requests with their body as YAML.
type tuiBreakpoints struct{ b *tracing.Breakpoints }

// Add sets the breakpoint spec (setting one already set is no error).
func (a tuiBreakpoints) Add(spec string) error {
	_, err := a.b.Add(spec)
	return err
}

// Remove deletes the breakpoint spec names. The spec is parsed, so "authorization:user=bob"
// and "Authorization: user=bob" name the same breakpoint.
func (a tuiBreakpoints) Remove(spec string) error {
	sp, err := tracing.ParseSpec(spec)
	if err != nil {
		return err
	}
	bps := a.b.List()
	for _, bp := range bps {
		if bp.Spec == sp {
			return a.b.Remove(bp.ID)
		}
	}
	if len(bps) == 0 {
		return fmt.Errorf("no breakpoint %s: none is set", sp)
	}
	set := make([]string, len(bps))
	for i, bp := range bps {
		set[i] = bp.Spec.String()
	}
	return fmt.Errorf("no breakpoint %s; set: %s", sp, strings.Join(set, ", "))
}

// List returns the breakpoints as specs, in the order they were added.
func (a tuiBreakpoints) List() []string {
	bps := a.b.List()
	out := make([]string, len(bps))
	for i, bp := range bps {
		out[i] = bp.Spec.String()
	}
	return out
}

// Held returns the held requests, the longest held first.
func (a tuiBreakpoints) Held() []tui.HeldRequest {
	held := a.b.Held()
	out := make([]tui.HeldRequest, len(held))
	for i, h := range held {
		out[i] = tui.HeldRequest{ID: h.ID, Stage: laneStage(h.Stage), Spec: h.Breakpoint, Since: h.Since, Body: bodyYAML(h.Object)}
	}
	return out
}

// Step, Continue and Abort act on a held request.
func (a tuiBreakpoints) Step(id string) error     { return a.b.Step(id) }
func (a tuiBreakpoints) Continue(id string) error { return a.b.Continue(id) }
func (a tuiBreakpoints) Abort(id string) error    { return a.b.Abort(id) }

// laneStage names a breakpoint stage (observe.Gate*) as the lanes name the stage it holds
// in: a hold at "admission" is before the first mutating plugin.
func laneStage(gate string) string {
	if gate == observe.GateAdmission {
		return tracing.StageMutatingAdmission
	}
	return gate
}

// bodyYAML turns a held request's object (JSON, secrets already redacted by the gate) into
// YAML, as the state pane shows objects; JSON that does not convert is shown as it is.
func bodyYAML(obj string) string {
	if obj == "" {
		return ""
	}
	y, err := yaml.JSONToYAML([]byte(obj))
	if err != nil {
		return obj
	}
	return string(y)
}

// etcdBrowser is the etcd explorer the TUI reads. The server has an etcd to read only from the
// storage phase on, so the explorer is made on first use after that; until then every call
// fails wrapping server.ErrEtcdNotReady, which the TUI explains. It works with the embedded
// etcd and with --etcd-servers alike: both go through the storage phase's own client.
type etcdBrowser struct {
	srv *server.Server
	tr  *i18n.Strings // the notes Decode writes above a value

	mu     sync.Mutex
	x      *etcdview.Explorer
	acc    *server.EtcdAccess
	closed bool
}

func newEtcdBrowser(srv *server.Server, tr *i18n.Strings) *etcdBrowser {
	return &etcdBrowser{srv: srv, tr: tr}
}

// errBrowserClosed is returned once the tour has closed the browser.
var errBrowserClosed = errors.New("etcd explorer: closed")

// open returns the explorer and the access it lists through, making them on first use.
func (b *etcdBrowser) open() (*etcdview.Explorer, *server.EtcdAccess, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, nil, errBrowserClosed
	}
	if b.x != nil {
		return b.x, b.acc, nil
	}
	// Etcd waits while a phase runs (it reads what the storage phase builds): never under the
	// TUI's update loop, only in its commands.
	acc, err := b.srv.Etcd()
	if err != nil {
		return nil, nil, err
	}
	x, err := etcdview.New(b.srv)
	if err != nil {
		return nil, nil, err
	}
	b.x, b.acc = x, acc
	return x, acc, nil
}

// List reads one page of keys (no values: etcd answers from its index, so a page costs the
// same whatever the objects weigh) under prefix, after continueKey.
func (b *etcdBrowser) List(ctx context.Context, prefix string, limit int, continueKey string) (tui.EtcdPage, error) {
	_, acc, err := b.open()
	if err != nil {
		return tui.EtcdPage{}, err
	}
	from := prefix
	if continueKey != "" {
		if !strings.HasPrefix(continueKey, prefix) {
			return tui.EtcdPage{}, fmt.Errorf("etcd list %s: continue key %q is not under it", prefix, continueKey)
		}
		from = continueKey + "\x00" // the next key after it
	}
	resp, err := acc.Get(ctx, from, clientv3.WithRange(clientv3.GetPrefixRangeEnd(prefix)),
		clientv3.WithKeysOnly(), clientv3.WithLimit(int64(max(limit, 1))))
	if err != nil {
		return tui.EtcdPage{}, fmt.Errorf("etcd list %s: %w", prefix, err)
	}
	page := tui.EtcdPage{Revision: resp.Header.Revision, Keys: make([]tui.EtcdKey, 0, len(resp.Kvs))}
	for _, kv := range resp.Kvs {
		page.Keys = append(page.Keys, tui.EtcdKey{Key: string(kv.Key), CreateRevision: kv.CreateRevision,
			ModRevision: kv.ModRevision, Version: kv.Version, Size: -1})
	}
	if resp.More && len(page.Keys) > 0 {
		page.Continue = page.Keys[len(page.Keys)-1].Key
	}
	return page, nil
}

// Decode reads key and decodes it with the server's own codecs, secrets redacted.
func (b *etcdBrowser) Decode(ctx context.Context, key string) (tui.EtcdValue, error) {
	x, _, err := b.open()
	if err != nil {
		return tui.EtcdValue{}, err
	}
	v, err := x.Decode(ctx, key, etcdview.DecodeOptions{})
	if err != nil {
		return tui.EtcdValue{}, err
	}
	return etcdValue(v, b.tr), nil
}

// etcdValue is what the value pane shows of a decoded value: a note first when it is not an
// object, or a custom resource (which CRD defines it, its storage version, JSON), then YAML.
func etcdValue(v etcdview.Value, tr *i18n.Strings) tui.EtcdValue {
	out := tui.EtcdValue{EtcdKey: tuiKey(v.Key), Encoding: encodingName(v.MediaType, tr), YAML: v.YAML}
	if sv := v.StorageVersion(); sv != "" {
		out.Encoding += fmt.Sprintf(tr.EtcdStoredAs, sv, v.GVK.Kind)
	}
	switch {
	case v.Unstructured && v.CRD != nil:
		out.YAML = fmt.Sprintf(tr.EtcdCustomResource, v.CRD.Name, v.CRD.StorageVersion) + "\n" + v.YAML
	case v.Unstructured:
		out.YAML = fmt.Sprintf(tr.EtcdUnregistered, v.StorageVersion(), v.GVK.Kind) + "\n" + v.YAML
	}
	if !v.Object() {
		out.YAML = fmt.Sprintf(tr.EtcdNotObject, v.NotObject) + "\n" + v.Raw
		if v.Redacted {
			out.YAML += etcdview.Redacted + "\n"
		}
	}
	return out
}

// encodingName says how a value is stored, as the explorer's value pane shows it.
func encodingName(mediaType string, tr *i18n.Strings) string {
	switch mediaType {
	case "application/vnd.kubernetes.protobuf":
		return `protobuf ("k8s\x00" envelope)`
	case "application/json":
		return "JSON"
	case "":
		return tr.EtcdRawBytes
	}
	return mediaType
}

func tuiKey(k etcdview.Key) tui.EtcdKey {
	return tui.EtcdKey{Key: k.Key, CreateRevision: k.CreateRevision, ModRevision: k.ModRevision, Version: k.Version, Size: k.Size}
}

// Watch reports the changes under the key prefix after afterRevision, key by key, until ctx
// ends or the watch fails (etcd compacted the revisions it needed, the server stopped); the
// channel is closed then. The explorer coalesces what the TUI has not taken yet, so a slow
// screen never holds etcd up.
func (b *etcdBrowser) Watch(ctx context.Context, afterRevision int64) <-chan tui.EtcdChange {
	out := make(chan tui.EtcdChange)
	x, _, err := b.open()
	if err != nil {
		close(out)
		return out
	}
	changes, err := x.Watch(ctx, afterRevision)
	if err != nil {
		close(out)
		return out
	}
	go func() {
		defer close(out)
		for c := range changes {
			for _, ev := range c.Events {
				select {
				case out <- tui.EtcdChange{Key: tuiKey(ev.Key), Deleted: ev.Deleted}:
				case <-ctx.Done():
					// Let the explorer's goroutines end: they stop with ctx too.
					for range changes {
					}
					return
				}
			}
		}
	}()
	return out
}

// Close stops the explorer's watches. Later calls fail.
func (b *etcdBrowser) Close() error {
	b.mu.Lock()
	x := b.x
	b.closed, b.x = true, nil
	b.mu.Unlock()
	if x != nil {
		return x.Close()
	}
	return nil
}
