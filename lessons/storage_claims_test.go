package lessons

import (
	"context"
	"flag"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/klog/v2"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/server"
)

// The media types a storage-encoding claim may name.
const (
	mtProtobuf = "application/vnd.kubernetes.protobuf"
	mtJSON     = "application/json"
)

// The subjects a storage-encoding claim may have besides one resource ("configmaps",
// "lessons.learn.kubewalk.io", as schema.GroupResource prints them).
const (
	everyResource = "every resource"
	builtIn       = "built-in"          // every resource but those of learn.kubewalk.io
	learnGroup    = "learn.kubewalk.io" // every resource of kubewalk's own group
)

// encodingClaim says the objects of subject are stored in etcd as mediaType.
type encodingClaim struct{ subject, mediaType string }

// storageClaims are the sentences of the lessons and exercises that speak of storage and of an
// encoding, each identified by its file and a piece of it, with what it claims about how
// objects are stored. TestStorageEncodingClaims checks each claim against the media type the
// live server really writes, and fails on a sentence that speaks of both and is not listed
// here: a new one must say what it claims (nothing, if it speaks of an API answer).
var storageClaims = []struct {
	file, text string
	claims     []encodingClaim
}{
	{"en/05-storage.md", "kubewalk stores the built-in kinds as protobuf", []encodingClaim{{builtIn, mtProtobuf}}},
	{"en/05-storage.md", "Its own group, learn.kubewalk.io, is stored as JSON", []encodingClaim{{learnGroup, mtJSON}}},
	{"en/05-storage.md", "`v1 ConfigMap in application/vnd.kubernetes.protobuf`, but `learn.kubewalk.io/v1 Lesson in application/json`",
		[]encodingClaim{{"configmaps", mtProtobuf}, {"lessons.learn.kubewalk.io", mtJSON}}},
	{"en/21-apimachinery.md", "JSON on the wire, protobuf in etcd", []encodingClaim{{"configmaps", mtProtobuf}}},
	{"en/21-apimachinery.md", "In etcd it is protobuf too", []encodingClaim{{"configmaps", mtProtobuf}, {builtIn, mtProtobuf}, {learnGroup, mtJSON}}},
	{"en/21-apimachinery.exercises.yaml", "the four bytes the protobuf encoding starts with", []encodingClaim{{"configmaps", mtProtobuf}}},
	{"en/21-apimachinery.exercises.yaml", "Built-in resources are stored as protobuf", []encodingClaim{{builtIn, mtProtobuf}}},
	{"en/21-apimachinery.exercises.yaml", "of the API's protobuf answer and of the etcd value", []encodingClaim{{"configmaps", mtProtobuf}}},
	{"en/22-own-group.md", "stored as v1 JSON", []encodingClaim{{learnGroup, mtJSON}}},
	{"en/22-own-group.md", "The value is JSON, not protobuf", []encodingClaim{{learnGroup, mtJSON}}},
	{"en/25-version-skew.md", "configmaps are `v1` in protobuf, lessons `learn.kubewalk.io/v1` in JSON",
		[]encodingClaim{{"configmaps", mtProtobuf}, {"lessons.learn.kubewalk.io", mtJSON}}},
	{"en/25-version-skew.exercises.yaml", "`/registry/lessons/default/hello`, stored as JSON", []encodingClaim{{"lessons.learn.kubewalk.io", mtJSON}}},

	{"zh-CN/05-storage.md", "kubewalk 把内置的 Kind 存储为 protobuf", []encodingClaim{{builtIn, mtProtobuf}}},
	{"zh-CN/05-storage.md", "它自己的组 learn.kubewalk.io 则存储为 JSON", []encodingClaim{{learnGroup, mtJSON}}},
	{"zh-CN/05-storage.md", "`v1 ConfigMap in application/vnd.kubernetes.protobuf`，而 `learn.kubewalk.io/v1 Lesson in application/json`",
		[]encodingClaim{{"configmaps", mtProtobuf}, {"lessons.learn.kubewalk.io", mtJSON}}},
	{"zh-CN/21-apimachinery.md", "传输时用 JSON，etcd 里存 protobuf", []encodingClaim{{"configmaps", mtProtobuf}}},
	{"zh-CN/21-apimachinery.md", "在 etcd 里它也是 protobuf", []encodingClaim{{"configmaps", mtProtobuf}, {builtIn, mtProtobuf}, {learnGroup, mtJSON}}},
	{"zh-CN/21-apimachinery.exercises.yaml", "输入 protobuf 编码开头的四个字节", []encodingClaim{{"configmaps", mtProtobuf}}},
	{"zh-CN/21-apimachinery.exercises.yaml", "内置资源以 protobuf 存储", []encodingClaim{{builtIn, mtProtobuf}}},
	{"zh-CN/21-apimachinery.exercises.yaml", "API 返回的 protobuf 和 etcd 中值的", []encodingClaim{{"configmaps", mtProtobuf}}},
	{"zh-CN/22-own-group.md", "以 v1 JSON 保存", []encodingClaim{{learnGroup, mtJSON}}},
	{"zh-CN/22-own-group.md", "值是 JSON 而不是 protobuf", []encodingClaim{{learnGroup, mtJSON}}},
	{"zh-CN/25-version-skew.md", "ConfigMap 是 protobuf 编码的 `v1`，Lesson 是 JSON 编码的",
		[]encodingClaim{{"configmaps", mtProtobuf}, {"lessons.learn.kubewalk.io", mtJSON}}},
	{"zh-CN/25-version-skew.exercises.yaml", "`/registry/lessons/default/hello`，以 JSON 存储", []encodingClaim{{"lessons.learn.kubewalk.io", mtJSON}}},
}

// TestStorageEncodingClaims starts a real server, writes an object of every resource that has
// none after startup, and reads one value of each resource's etcd key prefix, decoded with the
// server's codecs: the media type each resource is really stored in. Then the state pane's
// storage → restStores must name the same media type for each store, and every claim of
// storageClaims must hold; a sentence that speaks of storage and an encoding and is not in
// storageClaims fails, as does an entry no sentence matches any more.
func TestStorageEncodingClaims(t *testing.T) {
	quietKlog()
	s, stored := storedMediaTypes(t)

	// The server's own account, in the state pane, against the bytes.
	stores := s.State().Find("restStores")
	if stores == nil {
		t.Fatal("the state has no storage → restStores")
	}
	for gr, mt := range stored {
		var summary string
		for _, c := range stores.Children {
			if c.Label == gr.Resource {
				summary = c.Value
			}
		}
		if !strings.HasSuffix(summary, " in "+mt) {
			t.Errorf("state pane restStores %s: %q, but its objects are stored as %s", gr.Resource, summary, mt)
		}
	}

	// The lessons' and exercises' account.
	holds := func(c encodingClaim) (bool, []string) {
		var wrong []string
		for gr, mt := range stored {
			var in bool
			switch c.subject {
			case everyResource:
				in = true
			case builtIn:
				in = gr.Group != learnGroup
			case learnGroup:
				in = gr.Group == learnGroup
			default:
				in = gr.String() == c.subject
			}
			if in && mt != c.mediaType {
				wrong = append(wrong, gr.String()+" is "+mt)
			}
		}
		slices.Sort(wrong)
		return len(wrong) == 0, wrong
	}
	for _, e := range storageClaims {
		for _, c := range e.claims {
			if c.subject != everyResource && c.subject != builtIn && c.subject != learnGroup && !hasResource(stored, c.subject) {
				t.Errorf("storageClaims %s %q: the server stores no resource %q", e.file, e.text, c.subject)
			}
			if ok, wrong := holds(c); !ok {
				t.Errorf("content/%s: %q says %s is stored as %s, but %s", e.file, e.text, c.subject, c.mediaType, strings.Join(wrong, ", "))
			}
		}
	}
	used := make([]bool, len(storageClaims))
	for _, s := range encodingSentences(content.FS) {
		found := false
		for i, e := range storageClaims {
			if s.file != path.Join("content", e.file) || !strings.Contains(s.text, e.text) {
				continue
			}
			found, used[i] = true, true
			for _, c := range e.claims {
				if word := map[string]string{mtProtobuf: "protobuf", mtJSON: "json"}[c.mediaType]; !strings.Contains(strings.ToLower(s.text), word) {
					t.Errorf("storageClaims %s %q claims %s, which the sentence does not name: %q", e.file, e.text, c.mediaType, s.text)
				}
			}
		}
		if !found {
			t.Errorf("%s:%d speaks of storage and an encoding, and storageClaims does not say what it claims: %q", s.file, s.line, s.text)
		}
	}
	for i, e := range storageClaims {
		if !used[i] {
			t.Errorf("storageClaims: no sentence of content/%s contains %q any more: update or remove the entry", e.file, e.text)
		}
	}
}

// quietKlog keeps the server's klog lines (the apiserver library logs through klog, which is
// process-wide) off the test output.
func quietKlog() {
	klogOnce.Do(func() {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("logtostderr", "false")
		_ = fs.Set("alsologtostderr", "false")
		_ = fs.Set("stderrthreshold", "FATAL")
		klog.SetOutput(io.Discard)
	})
}

var klogOnce sync.Once

func hasResource(stored map[schema.GroupResource]string, s string) bool {
	for gr := range stored {
		if gr.String() == s {
			return true
		}
	}
	return false
}

// storedMediaTypes returns, for every REST store of a fresh real server, the media type of its
// objects' bytes in etcd. Resources startup leaves empty get an object first.
func storedMediaTypes(t *testing.T) (*server.Server, map[schema.GroupResource]string) {
	t.Helper()
	s, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("starting the server: %v", err)
	}
	cfg, err := s.RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	container := map[string]any{"name": "c", "image": "nginx:1.27"}
	examples := map[schema.GroupResource]*unstructured.Unstructured{
		{Resource: "configmaps"}:      obj("v1", "ConfigMap", map[string]any{"data": map[string]any{"a": "b"}}),
		{Resource: "secrets"}:         obj("v1", "Secret", map[string]any{"stringData": map[string]any{"a": "b"}}),
		{Resource: "serviceaccounts"}: obj("v1", "ServiceAccount", nil),
		{Resource: "events"}: obj("v1", "Event", map[string]any{"reason": "Test", "message": "m", "type": "Normal",
			"involvedObject": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "enc", "namespace": "default"}}),
		{Resource: "pods"}: obj("v1", "Pod", map[string]any{"spec": map[string]any{"containers": []any{container}}}),
		{Group: "apps", Resource: "deployments"}: obj("apps/v1", "Deployment", map[string]any{"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": "enc"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "enc"}},
				"spec": map[string]any{"containers": []any{container}}}}}),
		{Group: learnGroup, Resource: "lessons"}: obj("learn.kubewalk.io/v1", "Lesson", map[string]any{"spec": map[string]any{
			"title": "Encodings", "steps": []any{map[string]any{"name": "one"}}}}),
		{Group: learnGroup, Resource: "courses"}: obj("learn.kubewalk.io/v1", "Course", map[string]any{"spec": map[string]any{
			"title": "Encodings", "lessons": []any{map[string]any{"namespace": "default", "name": "enc"}}}}),
		{Group: learnGroup, Resource: "attempts"}: obj("learn.kubewalk.io/v1", "Attempt", map[string]any{"spec": map[string]any{
			"lesson": "enc", "step": "one"}}),
	}
	clusterScoped := map[schema.GroupResource]bool{{Group: learnGroup, Resource: "courses"}: true}
	for gr, o := range examples {
		gv, _ := schema.ParseGroupVersion(o.GetAPIVersion())
		ns := "default"
		if clusterScoped[gr] {
			ns = ""
			o.SetNamespace("")
		}
		if _, err := dyn.Resource(gv.WithResource(gr.Resource)).Namespace(ns).Create(ctx, o, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s: %v", gr, err)
		}
	}
	etcd, err := s.Etcd()
	if err != nil {
		t.Fatal(err)
	}
	out := map[schema.GroupResource]string{}
	for _, r := range etcd.Resources() {
		resp, err := etcd.Get(ctx, r.KeyPrefix, clientv3.WithPrefix(), clientv3.WithLimit(1))
		if err != nil {
			t.Fatalf("read %s: %v", r.KeyPrefix, err)
		}
		if len(resp.Kvs) == 0 {
			t.Fatalf("no object of %s in etcd: add an example to storedMediaTypes, so that claims about it are checked", r.Resource)
		}
		got, err := etcd.Decode(resp.Kvs[0].Value)
		if err != nil || got.MediaType == "" {
			t.Fatalf("decode %s: %v", resp.Kvs[0].Key, err)
		}
		out[r.Resource] = got.MediaType
	}
	for _, want := range []schema.GroupResource{{Resource: "configmaps"}, {Group: learnGroup, Resource: "lessons"}, {Group: "apps", Resource: "deployments"}} {
		if out[want] == "" {
			t.Fatalf("the server has no store for %s: %v", want, out)
		}
	}
	return s, out
}

func obj(apiVersion, kind string, fields map[string]any) *unstructured.Unstructured {
	o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": "enc", "namespace": "default"}}
	for k, v := range fields {
		o[k] = v
	}
	return &unstructured.Unstructured{Object: o}
}

// encodingSentence is a sentence of a lesson or an exercise that speaks of storage and of an
// encoding at once.
type encodingSentence struct {
	file string // content/en/05-storage.md
	line int
	text string
}

var (
	encodingWord = regexp.MustCompile(`(?i)protobuf|\bJSON\b`)
	storageWord  = regexp.MustCompile(`(?i)etcd|\bstor(e|ed|es|ing|age)\b|存储|存为|存成|保存|存入|里存`)
	sentenceEnd  = regexp.MustCompile(`[.!?](\s|$)|[。！？]`)
)

// encodingSentences returns every sentence of the lessons (English and translations, front
// matter titles included) and of the exercise files that names an encoding (protobuf, JSON)
// and storage (etcd, store, 存储 ...), outside code blocks.
func encodingSentences(fsys fs.FS) []encodingSentence {
	var out []encodingSentence
	names, _ := fs.Glob(fsys, "*/*")
	for _, name := range names {
		if path.Base(name) == "README.md" || (!strings.HasSuffix(name, ".md") && !strings.HasSuffix(name, ExercisesSuffix)) {
			continue
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			continue
		}
		inFence := false
		for i, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				inFence = !inFence
				continue
			}
			if inFence {
				continue
			}
			for _, s := range splitSentences(l) {
				if encodingWord.MatchString(s) && storageWord.MatchString(s) {
					out = append(out, encodingSentence{file: path.Join("content", name), line: i + 1, text: strings.TrimSpace(s)})
				}
			}
		}
	}
	return out
}

// splitSentences splits a line after each full stop, question or exclamation mark (Latin ones
// only when a space or the end follows, so that learn.kubewalk.io stays whole).
func splitSentences(l string) []string {
	var out []string
	for {
		loc := sentenceEnd.FindStringIndex(l)
		if loc == nil {
			if strings.TrimSpace(l) != "" {
				out = append(out, l)
			}
			return out
		}
		out = append(out, l[:loc[1]])
		l = l[loc[1]:]
	}
}
