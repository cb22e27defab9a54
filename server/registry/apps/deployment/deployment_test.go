package deployment

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/utils/ptr"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/registry/internal/testutil"
)

// deployment returns a valid deployment as `kubectl create deployment web --image=nginx:1.27`
// sends it, after the scheme's defaulting.
func deployment() *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "5", UID: "uid-1", Generation: 1,
			Labels: map[string]string{"app": "web"}},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}},
			},
		},
	}
	apis.DefaultDeployment(d)
	return d
}

func TestNewStorage(t *testing.T) {
	g := &testutil.RESTOptionsGetter{}
	st, err := NewStorage(testutil.Scheme(t), g)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckStore(t, st.Deployment, st.Deployment.Store, g, testutil.StoreWant{
		Resource: resource, Singular: "deployment", Namespaced: true, ShortNames: []string{"deploy"}, Categories: []string{"all"},
		New: &appsv1.Deployment{}, NewList: &appsv1.DeploymentList{},
	})
	if _, ok := st.Status.store.UpdateStrategy.(statusStrategy); !ok {
		t.Errorf("status store updates with %T, want statusStrategy", st.Status.store.UpdateStrategy)
	}
	if st.Scale.store != st.Deployment.Store {
		t.Errorf("scale does not share the deployments store")
	}
	if got := st.Deployment.GetResetFields()["apps/v1"].String(); got != ".status" {
		t.Errorf("main reset fields = %q", got)
	}
	if got := st.Status.GetResetFields()["apps/v1"].String(); got != ".spec\n.metadata.labels" {
		t.Errorf("status reset fields = %q", got)
	}
	if got := st.Scale.GroupVersionKind(apis.AppsV1); got != apis.AutoscalingV1.WithKind("Scale") {
		t.Errorf("scale kind = %v, want autoscaling/v1 Scale", got)
	}
	if _, ok := st.Scale.New().(*autoscalingv1.Scale); !ok {
		t.Errorf("scale New() = %T", st.Scale.New())
	}
}

// TestDefaults: the defaults upstream's SetDefaults_Deployment sets, and the pod defaults on
// the template.
func TestDefaults(t *testing.T) {
	d := deployment()
	want := appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1),
		Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
			MaxUnavailable: ptr.To(intstr.FromString("25%")), MaxSurge: ptr.To(intstr.FromString("25%"))}},
		RevisionHistoryLimit:    ptr.To[int32](10),
		ProgressDeadlineSeconds: ptr.To[int32](600),
	}
	got := d.Spec
	if !reflect.DeepEqual(got.Replicas, want.Replicas) || !reflect.DeepEqual(got.Strategy, want.Strategy) ||
		!reflect.DeepEqual(got.RevisionHistoryLimit, want.RevisionHistoryLimit) || !reflect.DeepEqual(got.ProgressDeadlineSeconds, want.ProgressDeadlineSeconds) {
		t.Errorf("defaults = %+v", got)
	}
	if p := got.Template.Spec; p.RestartPolicy != corev1.RestartPolicyAlways || p.DNSPolicy != corev1.DNSClusterFirst ||
		p.Containers[0].ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("template not defaulted as a pod: %+v", p)
	}
	// Set values stay; a Recreate strategy gets no rolling update.
	d = &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}}}
	apis.DefaultDeployment(d)
	if *d.Spec.Replicas != 0 || d.Spec.Strategy.RollingUpdate != nil {
		t.Errorf("replicas %d rollingUpdate %v: want 0 and none", *d.Spec.Replicas, d.Spec.Strategy.RollingUpdate)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*appsv1.Deployment)
		want   []string
	}{
		{"valid", func(*appsv1.Deployment) {}, []string{}},
		{"zero replicas", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](0) }, []string{}},
		{"negative replicas", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](-1) }, []string{"spec.replicas: Invalid value"}},
		// As upstream: a missing selector selects nothing, so it does not match the template either.
		{"no selector", func(d *appsv1.Deployment) { d.Spec.Selector = nil },
			[]string{"spec.selector: Required value", "spec.template.metadata.labels: Invalid value"}},
		{"empty selector", func(d *appsv1.Deployment) { d.Spec.Selector = &metav1.LabelSelector{} }, []string{"spec.selector: Invalid value"}},
		{"selector does not match the template", func(d *appsv1.Deployment) { d.Spec.Selector.MatchLabels = map[string]string{"app": "db"} },
			[]string{"spec.template.metadata.labels: Invalid value"}},
		{"template like a pod: no image", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "" },
			[]string{"spec.template.spec.containers[0].image: Required value"}},
		{"template like a pod: no containers", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers = nil },
			[]string{"spec.template.spec.containers: Required value"}},
		{"template label invalid", func(d *appsv1.Deployment) { d.Spec.Template.Labels["bad key!"] = "x" },
			[]string{"spec.template.labels: Invalid value"}},
		{"restartPolicy Never", func(d *appsv1.Deployment) { d.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever },
			[]string{"spec.template.spec.restartPolicy: Unsupported value"}},
		{"activeDeadlineSeconds", func(d *appsv1.Deployment) { d.Spec.Template.Spec.ActiveDeadlineSeconds = ptr.To[int64](5) },
			[]string{"spec.template.spec.activeDeadlineSeconds: Forbidden"}},
		{"unknown strategy", func(d *appsv1.Deployment) { d.Spec.Strategy = appsv1.DeploymentStrategy{Type: "BlueGreen"} },
			[]string{"spec.strategy: Unsupported value"}},
		{"recreate with rolling update", func(d *appsv1.Deployment) { d.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType },
			[]string{"spec.strategy.rollingUpdate: Forbidden"}},
		{"both zero", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(0))
			d.Spec.Strategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromString("0%"))
		}, []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value"}},
		{"over 100%", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromString("150%"))
		},
			[]string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value"}},
		{"not a percentage", func(d *appsv1.Deployment) { d.Spec.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromString("lots")) },
			[]string{"spec.strategy.rollingUpdate.maxSurge: Invalid value"}},
		{"negative surge", func(d *appsv1.Deployment) { d.Spec.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(-1)) },
			[]string{"spec.strategy.rollingUpdate.maxSurge: Invalid value"}},
		{"negative history", func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = ptr.To[int32](-1) },
			[]string{"spec.revisionHistoryLimit: Invalid value"}},
		{"deadline not after minReady", func(d *appsv1.Deployment) { d.Spec.MinReadySeconds = 600 },
			[]string{"spec.progressDeadlineSeconds: Invalid value"}},
		{"bad name", func(d *appsv1.Deployment) { d.Name = "Web" }, []string{"metadata.name: Invalid value"}},
	}
	s := newStrategy(testutil.Scheme(t))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := deployment()
			tt.change(d)
			if got := testutil.ErrorFields(s.Validate(context.Background(), d)); !slices.Equal(got, tt.want) {
				t.Errorf("errors = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	d := deployment()
	d.Spec.Replicas = ptr.To[int32](3)
	d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	if errs := s.ValidateUpdate(context.Background(), d, deployment()); len(errs) != 0 {
		t.Errorf("scaling and a new image: %v", errs)
	}
	d = deployment()
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "tier": "front"}}
	d.Spec.Template.Labels["tier"] = "front"
	if got := testutil.ErrorFields(s.ValidateUpdate(context.Background(), d, deployment())); !slices.Equal(got, []string{"spec.selector: Invalid value"}) {
		t.Errorf("selector change: errors = %q, want it immutable", got)
	}
}

func TestPrepare(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	d := deployment()
	d.Generation = 4
	d.Status = appsv1.DeploymentStatus{Replicas: 3, ReadyReplicas: 3}
	s.PrepareForCreate(context.Background(), d)
	if !reflect.DeepEqual(d.Status, appsv1.DeploymentStatus{}) || d.Generation != 1 {
		t.Errorf("create: status %+v generation %d", d.Status, d.Generation)
	}

	old := deployment()
	old.Status.Replicas = 1
	d = deployment()
	d.Status.Replicas = 9
	s.PrepareForUpdate(context.Background(), d, old)
	if d.Status.Replicas != 1 || d.Generation != 1 {
		t.Errorf("update without changes: status %+v generation %d", d.Status, d.Generation)
	}
	d = deployment()
	d.Annotations = map[string]string{"note": "x"}
	s.PrepareForUpdate(context.Background(), d, old)
	if d.Generation != 2 {
		t.Errorf("annotation change: generation %d, want 2", d.Generation)
	}

	d = deployment()
	d.Spec.Replicas = ptr.To[int32](7)
	d.Labels = map[string]string{"changed": "yes"}
	d.Status.Replicas = 2
	statusStrategy{s}.PrepareForUpdate(context.Background(), d, old)
	if *d.Spec.Replicas != 1 || d.Labels["app"] != "web" || d.Status.Replicas != 2 {
		t.Errorf("status update: replicas %d labels %v status %+v: want spec and labels kept", *d.Spec.Replicas, d.Labels, d.Status)
	}
}

func TestValidateStatusUpdate(t *testing.T) {
	tests := []struct {
		name   string
		status appsv1.DeploymentStatus
		want   []string
	}{
		{"consistent", appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 2}, []string{}},
		{"negative", appsv1.DeploymentStatus{ObservedGeneration: -1}, []string{"status.observedGeneration: Invalid value"}},
		{"more ready than replicas", appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 2, AvailableReplicas: 0},
			[]string{"status.readyReplicas: Invalid value"}},
		{"more available than ready", appsv1.DeploymentStatus{Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 2},
			[]string{"status.availableReplicas: Invalid value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := deployment()
			d.Status = tt.status
			if got := testutil.ErrorFields(validateStatusUpdate(d, deployment())); !slices.Equal(got, tt.want) {
				t.Errorf("errors = %q, want %q", got, tt.want)
			}
		})
	}
	old := deployment()
	old.Status.CollisionCount = ptr.To[int32](2)
	d := deployment()
	d.Status.CollisionCount = ptr.To[int32](1)
	if got := testutil.ErrorFields(validateStatusUpdate(d, old)); !slices.Equal(got, []string{"status.collisionCount: Invalid value"}) {
		t.Errorf("decremented collision count: %q", got)
	}
}

// scaleTo is the UpdatedObjectInfo of a request that sets a Scale's replicas.
type scaleTo int32

func (scaleTo) Preconditions() *metav1.Preconditions { return nil }

func (n scaleTo) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	s := old.(*autoscalingv1.Scale).DeepCopy()
	s.Spec.Replicas = int32(n)
	return s, nil
}

var _ rest.UpdatedObjectInfo = scaleTo(0)

func TestScaleUpdatedObject(t *testing.T) {
	ctx := genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{APIGroup: "apps", APIVersion: "v1"})
	old := deployment()
	old.Status.Replicas = 1

	obj, err := (&scaleUpdatedObjectInfo{name: "web", reqObjInfo: scaleTo(3)}).UpdatedObject(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	d := obj.(*appsv1.Deployment)
	if *d.Spec.Replicas != 3 || *old.Spec.Replicas != 1 {
		t.Errorf("replicas = %d (old %d), want 3 (old untouched)", *d.Spec.Replicas, *old.Spec.Replicas)
	}

	_, err = (&scaleUpdatedObjectInfo{name: "web", reqObjInfo: scaleTo(-1)}).UpdatedObject(ctx, old)
	if !apierrors.IsInvalid(err) {
		t.Fatalf("negative replicas: %v, want Invalid", err)
	}
	if causes := err.(apierrors.APIStatus).Status().Details.Causes; len(causes) != 1 || causes[0].Field != "spec.replicas" {
		t.Errorf("causes = %+v, want spec.replicas", causes)
	}

	_, err = (&scaleUpdatedObjectInfo{name: "gone", reqObjInfo: scaleTo(1)}).UpdatedObject(ctx, &appsv1.Deployment{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("missing deployment: %v, want NotFound", err)
	}

	scale, err := scaleFromDeployment(old)
	if err != nil {
		t.Fatal(err)
	}
	if scale.Spec.Replicas != 1 || scale.Status.Replicas != 1 || scale.Status.Selector != "app=web" || scale.UID != "uid-1" {
		t.Errorf("scale = %+v", scale)
	}
}

func TestGetAttrs(t *testing.T) {
	testutil.CheckAttrs(t, GetAttrs, deployment(), "Deployment", true, fields.Set{"metadata.name": "web", "metadata.namespace": "default"})
}

func TestTable(t *testing.T) {
	d := deployment()
	d.CreationTimestamp = metav1.NewTime(time.Now().Add(-10 * 24 * time.Hour))
	d.Spec.Replicas = ptr.To[int32](3)
	d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "log", Image: "busybox:1.36"})
	d.Status = appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1}
	list := &appsv1.DeploymentList{ListMeta: metav1.ListMeta{ResourceVersion: "8"}, Items: []appsv1.Deployment{*d}}
	testutil.CheckTable(t, tableConvertor, d, list,
		[]string{"Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector"},
		[]any{"web", "1/3", int64(2), int64(1), "10d", "nginx,log", "nginx:1.27,busybox:1.36", "app=web"})
}
