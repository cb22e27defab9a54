package server_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	learnv1 "github.com/kubewalk/kubewalk/server/apis/learn/v1"
	"github.com/kubewalk/kubewalk/server/generated/clientset/versioned"
	typedv1 "github.com/kubewalk/kubewalk/server/generated/clientset/versioned/typed/learn/v1"
	typedv1alpha1 "github.com/kubewalk/kubewalk/server/generated/clientset/versioned/typed/learn/v1alpha1"
	"github.com/kubewalk/kubewalk/server/generated/informers/externalversions"
	listersv1 "github.com/kubewalk/kubewalk/server/generated/listers/learn/v1"
)

// methodsOf returns the names of the methods of the interface type T, sorted.
func methodsOf[T any]() []string {
	it := reflect.TypeFor[T]()
	var out []string
	for i := range it.NumMethod() {
		out = append(out, it.Method(i).Name)
	}
	sort.Strings(out)
	return out
}

// clientMethods is what client-gen v0.37.2 wrote for each kind from its +genclient tags: the
// interface's whole method set.
var clientMethods = []struct {
	name string
	tags string
	got  []string
	want []string
}{
	{"v1 Lesson", "+genclient, +genclient:method=GetStatus,verb=get,subresource=status", methodsOf[typedv1.LessonInterface](),
		[]string{"Create", "Delete", "DeleteCollection", "Get", "GetStatus", "List", "Patch", "Update", "UpdateStatus", "Watch"}},
	{"v1alpha1 Lesson", "+genclient", methodsOf[typedv1alpha1.LessonInterface](),
		[]string{"Create", "Delete", "DeleteCollection", "Get", "List", "Patch", "Update", "UpdateStatus", "Watch"}},
	{"Course", "+genclient, +genclient:nonNamespaced, +genclient:skipVerbs=deleteCollection", methodsOf[typedv1.CourseInterface](),
		[]string{"Create", "Delete", "Get", "List", "Patch", "Update", "Watch"}},
	{"Attempt", "+genclient, +genclient:onlyVerbs=create,get,list,watch,delete", methodsOf[typedv1.AttemptInterface](),
		[]string{"Create", "Delete", "Get", "List", "Watch"}},
}

// TestGeneratedClientMethods checks, on the generated interfaces' method sets, what each tag
// did: a verb a tag removed is not in the interface, so calling it does not compile.
func TestGeneratedClientMethods(t *testing.T) {
	for _, c := range clientMethods {
		t.Run(c.name, func(t *testing.T) {
			if !slices.Equal(c.got, c.want) {
				t.Errorf("%s client (%s) has methods %v, want %v", c.name, c.tags, c.got, c.want)
			}
		})
	}
	absent := []struct {
		name   string
		got    []string
		method string
		tag    string
	}{
		{"Course", methodsOf[typedv1.CourseInterface](), "DeleteCollection", "skipVerbs=deleteCollection"},
		{"Attempt", methodsOf[typedv1.AttemptInterface](), "Update", "onlyVerbs"},
		{"Attempt", methodsOf[typedv1.AttemptInterface](), "Patch", "onlyVerbs"},
		{"Attempt", methodsOf[typedv1.AttemptInterface](), "DeleteCollection", "onlyVerbs"},
		{"Attempt", methodsOf[typedv1.AttemptInterface](), "UpdateStatus", "onlyVerbs (and no Status field)"},
		{"v1alpha1 Lesson", methodsOf[typedv1alpha1.LessonInterface](), "GetStatus", "no method tag"},
	}
	for _, a := range absent {
		t.Run(a.name+" without "+a.method, func(t *testing.T) {
			if slices.Contains(a.got, a.method) {
				t.Errorf("%s client has %s, which %s should have left out", a.name, a.method, a.tag)
			}
		})
	}
	// nonNamespaced: the cluster-scoped kind's client and lister take no namespace.
	scoped := []struct {
		method     string
		namespaced bool
	}{
		{"Courses", false},
		{"Lessons", true},
		{"Attempts", true},
	}
	v1If := reflect.TypeFor[typedv1.LearnV1Interface]()
	for _, s := range scoped {
		m, ok := v1If.MethodByName(s.method)
		if !ok {
			t.Errorf("LearnV1Interface has no %s", s.method)
			continue
		}
		if got := m.Type.NumIn() == 1; got != s.namespaced {
			t.Errorf("LearnV1Interface.%s takes a namespace: %v, want %v", s.method, got, s.namespaced)
		}
	}
	if _, ok := reflect.TypeFor[listersv1.CourseLister]().MethodByName("Courses"); ok {
		t.Errorf("CourseLister has Courses(namespace), want none for a cluster-scoped kind")
	}
	if _, ok := reflect.TypeFor[listersv1.LessonLister]().MethodByName("Lessons"); !ok {
		t.Errorf("LessonLister has no Lessons(namespace)")
	}
}

// verbMethods maps a discovered verb to the client method that issues it.
var verbMethods = map[string]string{
	"create": "Create", "get": "Get", "list": "List", "watch": "Watch", "update": "Update",
	"patch": "Patch", "delete": "Delete", "deletecollection": "DeleteCollection",
}

// TestGeneratedClientset drives learn.kubewalk.io through the real server (embedded etcd) with
// the generated clientset: every verb the tags left in each client, the verbs the server
// serves agreeing with them, a verb a tag removed refused by the server too, and a generated
// informer and lister that sync and see a create.
func TestGeneratedClientset(t *testing.T) {
	s := startServer(t)
	cs, err := versioned.NewForConfig(restConfig(t, s, "admin"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	t.Run("discovery agrees with the clients", func(t *testing.T) {
		rl, err := cs.Discovery().ServerResourcesForGroupVersion(learnv1.SchemeGroupVersion.String())
		if err != nil {
			t.Fatal(err)
		}
		served := map[string][]string{}
		for _, r := range rl.APIResources {
			served[r.Name] = r.Verbs
		}
		for _, c := range []struct {
			resource string
			client   []string
			extra    []string // methods of subresources
		}{
			{"lessons", clientMethods[0].got, []string{"GetStatus", "UpdateStatus"}},
			{"courses", clientMethods[2].got, nil},
			{"attempts", clientMethods[3].got, nil},
		} {
			var want []string
			for _, v := range served[c.resource] {
				want = append(want, verbMethods[v])
			}
			want = append(want, c.extra...)
			sort.Strings(want)
			if !slices.Equal(c.client, want) {
				t.Errorf("%s: server serves %v (methods %v), client has %v", c.resource, served[c.resource], want, c.client)
			}
		}
		if v := served["lessons/status"]; !slices.Contains(v, "get") || !slices.Contains(v, "update") {
			t.Errorf("lessons/status serves %v, want get and update (GetStatus, UpdateStatus)", v)
		}
	})

	t.Run("lessons", func(t *testing.T) {
		lessons := cs.LearnV1().Lessons("default")
		newLesson := func(name string) *learnv1.Lesson {
			return &learnv1.Lesson{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"suite": "generated"}},
				Spec: learnv1.LessonSpec{Title: "Typed clients", Author: "ada", Steps: []learnv1.LessonStep{{Name: "tags"}, {Name: "methods"}}}}
		}
		created, err := lessons.Create(ctx, newLesson("typed"), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		if created.Spec.Level != learnv1.LevelBeginner || created.Generation != 1 {
			t.Errorf("Create returned level %q generation %d, want the default Beginner and 1", created.Spec.Level, created.Generation)
		}
		w, err := lessons.Watch(ctx, metav1.ListOptions{ResourceVersion: created.ResourceVersion, LabelSelector: "suite=generated"})
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		defer w.Stop()
		got, err := lessons.Get(ctx, "typed", metav1.GetOptions{})
		if err != nil || got.Spec.Author != "ada" {
			t.Fatalf("Get: %v, author %q", err, got.Spec.Author)
		}
		got.Spec.Title = "Typed clients, generated"
		updated, err := lessons.Update(ctx, got, metav1.UpdateOptions{})
		if err != nil || updated.Generation != 2 {
			t.Fatalf("Update: %v (generation %d, want 2)", err, updated.Generation)
		}
		updated.Status = learnv1.LessonStatus{CompletedSteps: 1, ObservedGeneration: updated.Generation}
		if _, err := lessons.UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("UpdateStatus: %v", err)
		}
		status, err := lessons.GetStatus(ctx, "typed", metav1.GetOptions{})
		if err != nil || status.Status.CompletedSteps != 1 || status.Status.ObservedGeneration != 2 {
			t.Fatalf("GetStatus: %v, status %+v", err, status.Status)
		}
		patched, err := lessons.Patch(ctx, "typed", types.MergePatchType, []byte(`{"spec":{"level":"Advanced"}}`), metav1.PatchOptions{})
		if err != nil || patched.Spec.Level != learnv1.LevelAdvanced || patched.Status.CompletedSteps != 1 {
			t.Fatalf("Patch: %v (level %q, status %+v)", err, patched.Spec.Level, patched.Status)
		}
		old, err := cs.LearnV1alpha1().Lessons("default").Get(ctx, "typed", metav1.GetOptions{})
		if err != nil || old.Spec.Owner != "ada" {
			t.Fatalf("v1alpha1 Get: %v, owner %q (want v1's author)", err, old.Spec.Owner)
		}
		wantEvents(t, w, watch.Modified, watch.Modified, watch.Modified) // update, status, patch
		list, err := lessons.List(ctx, metav1.ListOptions{LabelSelector: "suite=generated"})
		if err != nil || len(list.Items) != 1 {
			t.Fatalf("List: %v, %d items", err, len(list.Items))
		}
		if _, err := lessons.Create(ctx, newLesson("typed-2"), metav1.CreateOptions{}); err != nil {
			t.Fatalf("Create: %v", err)
		}
		if err := lessons.Delete(ctx, "typed", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if err := lessons.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "suite=generated"}); err != nil {
			t.Fatalf("DeleteCollection: %v", err)
		}
		wantEvents(t, w, watch.Added, watch.Deleted, watch.Deleted)
		if _, err := lessons.Get(ctx, "typed-2", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("Get after DeleteCollection: %v, want NotFound", err)
		}
	})

	t.Run("courses", func(t *testing.T) {
		courses := cs.LearnV1().Courses()
		c := &learnv1.Course{ObjectMeta: metav1.ObjectMeta{Name: "api-basics"},
			Spec: learnv1.CourseSpec{Title: "API basics", Lessons: []learnv1.CourseLesson{{Namespace: "default", Name: "typed"}}}}
		created, err := courses.Create(ctx, c, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		if created.Namespace != "" || created.Generation != 1 {
			t.Errorf("created course namespace %q generation %d, want none and 1", created.Namespace, created.Generation)
		}
		w, err := courses.Watch(ctx, metav1.ListOptions{ResourceVersion: created.ResourceVersion})
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		defer w.Stop()
		got, err := courses.Get(ctx, "api-basics", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		got.Spec.Lessons = append(got.Spec.Lessons, learnv1.CourseLesson{Namespace: "default", Name: "typed-2"})
		if u, err := courses.Update(ctx, got, metav1.UpdateOptions{}); err != nil || u.Generation != 2 {
			t.Fatalf("Update: %v", err)
		}
		if p, err := courses.Patch(ctx, "api-basics", types.MergePatchType, []byte(`{"spec":{"title":"API basics, typed"}}`), metav1.PatchOptions{}); err != nil || p.Spec.Title != "API basics, typed" {
			t.Fatalf("Patch: %v", err)
		}
		if l, err := courses.List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 1 || len(l.Items[0].Spec.Lessons) != 2 {
			t.Fatalf("List: %v %+v", err, l)
		}
		dup := c.DeepCopy()
		dup.Name = "dup"
		dup.Spec.Lessons = append(dup.Spec.Lessons, dup.Spec.Lessons[0])
		if _, err := courses.Create(ctx, dup, metav1.CreateOptions{}); err == nil {
			t.Fatal("a course naming a lesson twice was created")
		} else {
			wantInvalid(t, err, "spec.lessons[1]")
		}
		// The client has no DeleteCollection; the server does not serve it either.
		err = cs.LearnV1().RESTClient().Delete().Resource("courses").Do(ctx).Error()
		if !apierrors.IsMethodNotSupported(err) {
			t.Errorf("DELETE of the courses collection: %v, want 405 MethodNotAllowed", err)
		}
		if err := courses.Delete(ctx, "api-basics", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		wantEvents(t, w, watch.Modified, watch.Modified, watch.Deleted)
	})

	t.Run("attempts", func(t *testing.T) {
		attempts := cs.LearnV1().Attempts("default")
		a := &learnv1.Attempt{ObjectMeta: metav1.ObjectMeta{GenerateName: "typed-"},
			Spec: learnv1.AttemptSpec{Lesson: "typed", Step: "tags", Answer: "skipVerbs"}}
		created, err := attempts.Create(ctx, a, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		w, err := attempts.Watch(ctx, metav1.ListOptions{ResourceVersion: created.ResourceVersion})
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		defer w.Stop()
		if got, err := attempts.Get(ctx, created.Name, metav1.GetOptions{}); err != nil || got.Spec.Answer != "skipVerbs" {
			t.Fatalf("Get: %v", err)
		}
		if l, err := attempts.List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 1 {
			t.Fatalf("List: %v %+v", err, l)
		}
		bad := a.DeepCopy()
		bad.Spec.Step = "Not A Label"
		if _, err := attempts.Create(ctx, bad, metav1.CreateOptions{}); err == nil {
			t.Fatal("an attempt with an invalid step name was created")
		} else {
			wantInvalid(t, err, "spec.step")
		}
		// The client has no Update or Patch; the server serves neither.
		for _, verb := range []string{"PUT", "PATCH"} {
			req := cs.LearnV1().RESTClient().Verb(verb).Namespace("default").Resource("attempts").Name(created.Name).Body(created)
			if verb == "PATCH" {
				req = cs.LearnV1().RESTClient().Patch(types.MergePatchType).Namespace("default").Resource("attempts").Name(created.Name).Body([]byte(`{"spec":{"answer":"x"}}`))
			}
			if err := req.Do(ctx).Error(); !apierrors.IsMethodNotSupported(err) {
				t.Errorf("%s of an attempt: %v, want 405 MethodNotAllowed", verb, err)
			}
		}
		if err := attempts.Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		wantEvents(t, w, watch.Deleted)
	})

	t.Run("informers and listers", func(t *testing.T) {
		infCtx, stop := context.WithCancel(ctx)
		factory := externalversions.NewSharedInformerFactory(cs, 0)
		defer func() {
			stop()
			factory.Shutdown()
		}()
		lessons := factory.Learn().V1().Lessons()
		courses := factory.Learn().V1().Courses()
		attempts := factory.Learn().V1().Attempts()
		added := make(chan string, 16)
		for _, inf := range []cache.SharedIndexInformer{lessons.Informer(), courses.Informer(), attempts.Informer()} {
			if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
				if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
					added <- fmt.Sprintf("%T %s", obj, key)
				}
			}}); err != nil {
				t.Fatal(err)
			}
		}
		factory.Start(infCtx.Done())
		for typ, ok := range factory.WaitForCacheSync(infCtx.Done()) {
			if !ok {
				t.Fatalf("informer for %v did not sync", typ)
			}
		}
		if _, err := cs.LearnV1().Lessons("default").Create(ctx, &learnv1.Lesson{ObjectMeta: metav1.ObjectMeta{Name: "watched"},
			Spec: learnv1.LessonSpec{Title: "Seen by an informer", Steps: []learnv1.LessonStep{{Name: "one"}}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.LearnV1().Courses().Create(ctx, &learnv1.Course{ObjectMeta: metav1.ObjectMeta{Name: "watched"},
			Spec: learnv1.CourseSpec{Title: "Watched", Lessons: []learnv1.CourseLesson{{Namespace: "default", Name: "watched"}}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.LearnV1().Attempts("default").Create(ctx, &learnv1.Attempt{ObjectMeta: metav1.ObjectMeta{Name: "watched"},
			Spec: learnv1.AttemptSpec{Lesson: "watched", Step: "one"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{"*v1.Lesson default/watched": false, "*v1.Course watched": false, "*v1.Attempt default/watched": false}
		for remaining := len(want); remaining > 0; {
			select {
			case key := <-added:
				if seen, ok := want[key]; ok && !seen {
					want[key] = true
					remaining--
				}
			case <-ctx.Done():
				t.Fatalf("informers saw %v before the deadline", want)
			}
		}
		// The handlers run after the cache is updated, so the listers have them now.
		if l, err := lessons.Lister().Lessons("default").Get("watched"); err != nil || l.Spec.Title != "Seen by an informer" {
			t.Errorf("lesson lister: %v", err)
		}
		if c, err := courses.Lister().Get("watched"); err != nil || len(c.Spec.Lessons) != 1 {
			t.Errorf("course lister: %v", err)
		}
		if as, err := attempts.Lister().Attempts("default").List(labels.Everything()); err != nil || len(as) != 1 {
			t.Errorf("attempt lister: %v, %d attempts", err, len(as))
		}
	})
}

// wantEvents reads the next events of w, within a bound, and checks their types.
func wantEvents(t *testing.T, w watch.Interface, want ...watch.EventType) {
	t.Helper()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	var got []watch.EventType
	for len(got) < len(want) {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after events %v, want %v", got, want)
			}
			got = append(got, ev.Type)
		case <-timeout.C:
			t.Fatalf("watch events %v after 30s, want %v", got, want)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("watch events %v, want %v", got, want)
	}
}
