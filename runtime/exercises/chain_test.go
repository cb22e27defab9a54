package exercises_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/exercises"
)

// TestTrackerChainObject: an object check of an object the chain's apiextensions server keeps
// (a CustomResourceDefinition) ticks on the status a controller writes, not on a write of the
// learner's: the CRD is created by kubewalk's own (hidden) client, so only the etcd watch of
// its key can wake the check, and the establishing controller's status write must. The why
// names the condition in words.
func TestTrackerChainObject(t *testing.T) {
	s, store := liveServer(t)
	ctx := t.Context()
	n := fmt.Sprint(runs.Add(1))
	plural, group := "widgets"+n, "chain.example.com"
	name := plural + "." + group
	ex := lessons.Exercise{ID: "chain-crd", Lesson: "install", Phase: "install", Needs: "serve", Why: "{detail}",
		Check: lessons.ExerciseCheck{Kind: lessons.CheckObject, APIVersion: "apiextensions.k8s.io/v1", Resource: "customresourcedefinitions", Name: name,
			Fields: map[string]string{`{.status.conditions[?(@.type=="Established")].status}`: "True"}}}
	tr := exercises.NewTracker(exercises.Options{Exercises: []lessons.Exercise{ex}, Server: s, Store: store})
	tr.Refresh(ctx)
	if st, _ := tr.Get(ex.ID); st.State != exercises.Open {
		t.Fatalf("state %s before the CRD exists, want open", st.State)
	}
	runTracker(t, tr)
	cfg, err := s.RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = exercises.UserAgent // hidden: no learner's write wakes the check
	c, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Kind: "Widget" + n},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: new(true)}}}}}}
	if _, err := c.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	st := waitDone(t, tr, ex.ID)
	if want := "CustomResourceDefinition " + name + " has condition Established = True"; st.Why != want {
		t.Errorf("why %q, want %q", st.Why, want)
	}
}

// TestAnswerWithKey: an answer check with a key passes only while the key is in etcd; a wrong
// answer is wrong whether or not it is.
func TestAnswerWithKey(t *testing.T) {
	s, _ := liveServer(t)
	ctx := t.Context()
	name := "answer-key-" + fmt.Sprint(runs.Add(1))
	ex := lessons.Exercise{ID: "key", Why: "{detail}", Check: lessons.ExerciseCheck{Kind: lessons.CheckAnswer,
		Accept: []string{"configmaps/default/" + name}, Key: "configmaps/default/" + name}}
	k := exercises.NewChecker(s, nil)
	tests := []struct {
		name, answer string
		create, pass bool
	}{
		{"right, before the object exists", "configmaps/default/" + name, false, false},
		{"wrong, before", "configmaps/" + name, false, false},
		{"right, once it exists", "configmaps/default/" + name, true, true},
		{"wrong, once it exists", "configmaps/" + name, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.create {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}
				if _, err := clientAs(t, s, "admin").CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			res, err := k.Answer(ctx, ex, tt.answer)
			if err != nil {
				t.Fatal(err)
			}
			if res.Passed != tt.pass || (!tt.pass && res.Wrong == "") {
				t.Errorf("answer %q: %+v, want passed %v (and a wrong message otherwise)", tt.answer, res, tt.pass)
			}
		})
	}
}
