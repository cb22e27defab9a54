package pod

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/ptr"

	"github.com/kubewalk/kubewalk/server/registry/internal/testutil"
)

// pod returns a valid pod as the scheme's defaulting leaves it.
func pod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "4", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{
			Containers:         []corev1.Container{{Name: "app", Image: "nginx:1.27", ImagePullPolicy: corev1.PullIfNotPresent}},
			RestartPolicy:      corev1.RestartPolicyAlways,
			DNSPolicy:          corev1.DNSClusterFirst,
			SchedulerName:      corev1.DefaultSchedulerName,
			ServiceAccountName: "default",
		},
	}
}

func TestNewREST(t *testing.T) {
	g := &testutil.RESTOptionsGetter{}
	r, status, err := NewREST(testutil.Scheme(t), g)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckStore(t, r, r.Store, g, testutil.StoreWant{
		Resource: resource, Singular: "pod", Namespaced: true, ShortNames: []string{"po"}, Categories: []string{"all"},
		New: &corev1.Pod{}, NewList: &corev1.PodList{},
	})
	if _, ok := status.store.UpdateStrategy.(statusStrategy); !ok {
		t.Errorf("status store updates with %T, want statusStrategy", status.store.UpdateStrategy)
	}
	if _, ok := r.UpdateStrategy.(strategy); !ok {
		t.Errorf("main store updates with %T, want strategy", r.UpdateStrategy)
	}
	if got := status.GetResetFields()["v1"].String(); got != ".spec\n.metadata.ownerReferences" {
		t.Errorf("status reset fields = %q", got)
	}
	if got := r.GetResetFields()["v1"].String(); got != ".status" {
		t.Errorf("main reset fields = %q", got)
	}
	if _, ok := status.New().(*corev1.Pod); !ok {
		t.Errorf("status New() = %T", status.New())
	}
}

func TestPrepareForCreateResetsStatus(t *testing.T) {
	p := pod()
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1", Conditions: []corev1.PodCondition{{Type: corev1.PodReady}}}
	newStrategy(testutil.Scheme(t)).PrepareForCreate(context.Background(), p)
	want := corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBestEffort}
	if !reflect.DeepEqual(p.Status, want) || p.Generation != 1 {
		t.Errorf("status = %+v generation = %d, want %+v and 1", p.Status, p.Generation, want)
	}
}

func TestQOSClass(t *testing.T) {
	q := apiresource.MustParse
	res := func(req, lim corev1.ResourceList) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: req, Limits: lim}
	}
	both := corev1.ResourceList{corev1.ResourceCPU: q("100m"), corev1.ResourceMemory: q("64Mi")}
	tests := []struct {
		name string
		res  []corev1.ResourceRequirements
		want corev1.PodQOSClass
	}{
		{"nothing", []corev1.ResourceRequirements{{}}, corev1.PodQOSBestEffort},
		{"requests only", []corev1.ResourceRequirements{res(both, nil)}, corev1.PodQOSBurstable},
		{"limits only", []corev1.ResourceRequirements{res(nil, both)}, corev1.PodQOSGuaranteed},
		{"requests equal limits", []corev1.ResourceRequirements{res(both, both)}, corev1.PodQOSGuaranteed},
		{"request below limit", []corev1.ResourceRequirements{
			res(corev1.ResourceList{corev1.ResourceCPU: q("50m")}, both)}, corev1.PodQOSBurstable},
		{"cpu limit only", []corev1.ResourceRequirements{
			res(nil, corev1.ResourceList{corev1.ResourceCPU: q("1")})}, corev1.PodQOSBurstable},
		{"one container without limits", []corev1.ResourceRequirements{res(nil, both), {}}, corev1.PodQOSBurstable},
		{"other resources only", []corev1.ResourceRequirements{
			res(corev1.ResourceList{corev1.ResourceEphemeralStorage: q("1Gi")}, nil)}, corev1.PodQOSBestEffort},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := &corev1.PodSpec{}
			for _, r := range tc.res {
				spec.Containers = append(spec.Containers, corev1.Container{Resources: r})
			}
			if got := qosClass(spec); got != tc.want {
				t.Errorf("qos = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestPrepareForUpdateKeepsStatus(t *testing.T) {
	old := pod()
	old.Generation = 1
	old.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.7"}
	p := pod()
	p.Generation = 1
	p.Status = corev1.PodStatus{Phase: corev1.PodFailed}
	p.Spec.Containers[0].Image = "nginx:1.28"
	newStrategy(testutil.Scheme(t)).PrepareForUpdate(context.Background(), p, old)
	if !reflect.DeepEqual(p.Status, old.Status) {
		t.Errorf("status = %+v, want the stored %+v", p.Status, old.Status)
	}
	if p.Spec.Containers[0].Image != "nginx:1.28" || p.Generation != 2 {
		t.Errorf("image = %q generation = %d, want the new image and generation 2", p.Spec.Containers[0].Image, p.Generation)
	}

	same := pod()
	same.Generation = 1
	newStrategy(testutil.Scheme(t)).PrepareForUpdate(context.Background(), same, old)
	if same.Generation != 1 {
		t.Errorf("generation = %d after a metadata-only update, want 1", same.Generation)
	}
}

func TestStatusPrepareForUpdateKeepsSpec(t *testing.T) {
	old := pod()
	old.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u"}}
	old.Status.QOSClass = corev1.PodQOSBestEffort
	p := pod()
	p.Spec.NodeName = "node-1"
	p.Spec.Containers[0].Image = "evil:latest"
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.9"}
	statusStrategy{newStrategy(testutil.Scheme(t))}.PrepareForUpdate(context.Background(), p, old)
	if !reflect.DeepEqual(p.Spec, old.Spec) || !reflect.DeepEqual(p.OwnerReferences, old.OwnerReferences) {
		t.Errorf("spec or owner references changed through status: %+v", p.Spec)
	}
	want := corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.9", QOSClass: corev1.PodQOSBestEffort}
	if !reflect.DeepEqual(p.Status, want) {
		t.Errorf("status = %+v, want %+v", p.Status, want)
	}
}

func TestValidate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	q := apiresource.MustParse
	tests := []struct {
		name   string
		mutate func(*corev1.Pod)
		want   []string
	}{
		{"valid", func(*corev1.Pod) {}, []string{}},
		{"no containers", func(p *corev1.Pod) { p.Spec.Containers = nil }, []string{"spec.containers: Required value"}},
		{"no image", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "" }, []string{"spec.containers[0].image: Required value"}},
		{"bad container name", func(p *corev1.Pod) { p.Spec.Containers[0].Name = "App_1" },
			[]string{"spec.containers[0].name: Invalid value"}},
		{"duplicate container name", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "app", Image: "busybox"}}
		}, []string{"spec.containers[0].name: Duplicate value"}},
		{"bad restart policy", func(p *corev1.Pod) { p.Spec.RestartPolicy = "Sometimes" },
			[]string{"spec.restartPolicy: Unsupported value"}},
		{"init container restart policy", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox",
				RestartPolicy: ptr.To(corev1.ContainerRestartPolicyNever)}}
		}, []string{"spec.initContainers[0].restartPolicy: Unsupported value"}},
		{"mount of unknown volume", func(p *corev1.Pod) {
			p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
		}, []string{"spec.containers[0].volumeMounts[0].name: Not found"}},
		{"volume without source", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "data"}}
		}, []string{"spec.volumes[0]: Required value"}},
		{"bad port", func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 70000, Protocol: corev1.ProtocolTCP}}
		}, []string{"spec.containers[0].ports[0].containerPort: Invalid value"}},
		{"request above limit", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: q("2")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: q("1")},
			}
		}, []string{"spec.containers[0].resources.requests[cpu]: Invalid value"}},
		{"bad active deadline", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](0) },
			[]string{"spec.activeDeadlineSeconds: Invalid value"}},
		{"bad name", func(p *corev1.Pod) { p.Name = "Web" }, []string{"metadata.name: Invalid value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := pod()
			tc.mutate(p)
			got := testutil.ErrorFields(s.Validate(context.Background(), p))
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	toleration := corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists}
	tests := []struct {
		name     string
		old, new func(*corev1.Pod)
		want     []string
	}{
		{"image", func(*corev1.Pod) {}, func(p *corev1.Pod) { p.Spec.Containers[0].Image = "nginx:1.28" }, []string{}},
		{"labels", func(*corev1.Pod) {}, func(p *corev1.Pod) { p.Labels["tier"] = "front" }, []string{}},
		{"node name", func(*corev1.Pod) {}, func(p *corev1.Pod) { p.Spec.NodeName = "node-1" }, []string{"spec: Forbidden"}},
		{"container added", func(*corev1.Pod) {}, func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "b", Image: "b"})
		}, []string{"spec: Forbidden"}},
		{"deadline set", func(*corev1.Pod) {}, func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) }, []string{}},
		{"deadline raised", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) },
			func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](60) }, []string{"spec.activeDeadlineSeconds: Invalid value"}},
		{"deadline unset", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) },
			func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = nil }, []string{"spec.activeDeadlineSeconds: Invalid value"}},
		{"toleration added", func(*corev1.Pod) {}, func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{toleration} }, []string{}},
		{"toleration removed", func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{toleration} },
			func(p *corev1.Pod) { p.Spec.Tolerations = nil }, []string{"spec.tolerations: Forbidden"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old, p := pod(), pod()
			tc.old(old)
			tc.old(p)
			tc.new(p)
			got := testutil.ErrorFields(s.ValidateUpdate(context.Background(), p, old))
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateStatusUpdate(t *testing.T) {
	s := statusStrategy{newStrategy(testutil.Scheme(t))}
	tests := []struct {
		name     string
		old, new corev1.PodStatus
		want     []string
	}{
		{"running", corev1.PodStatus{Phase: corev1.PodPending},
			corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1", PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true}},
				Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}, []string{}},
		{"back from terminal", corev1.PodStatus{Phase: corev1.PodSucceeded}, corev1.PodStatus{Phase: corev1.PodRunning},
			[]string{"status.phase: Forbidden"}},
		{"unknown phase", corev1.PodStatus{}, corev1.PodStatus{Phase: "Sleeping"}, []string{"status.phase: Unsupported value"}},
		{"bad ip", corev1.PodStatus{}, corev1.PodStatus{PodIP: "10.0.0"}, []string{"status.podIP: Invalid value"}},
		{"unknown container", corev1.PodStatus{}, corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "db"}}},
			[]string{"status.containerStatuses[0].name: Not found"}},
		{"bad condition", corev1.PodStatus{}, corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: "Maybe"}}},
			[]string{"status.conditions[0].status: Unsupported value"}},
		{"qos changed", corev1.PodStatus{QOSClass: corev1.PodQOSBestEffort}, corev1.PodStatus{QOSClass: corev1.PodQOSGuaranteed},
			[]string{"status.qosClass: Invalid value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old, p := pod(), pod()
			old.Status, p.Status = tc.old, tc.new
			got := testutil.ErrorFields(s.ValidateUpdate(context.Background(), p, old))
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	p := pod()
	p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](-1)
	p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "A", Value: "2"}}
	got := newStrategy(testutil.Scheme(t)).WarningsOnCreate(context.Background(), p)
	want := []string{
		"spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1",
		`spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings = %q, want %q", got, want)
	}
}

func TestGetAttrs(t *testing.T) {
	p := pod()
	p.Spec.NodeName = "node-1"
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1", PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}}
	testutil.CheckAttrs(t, GetAttrs, p, "Pod", true, fields.Set{
		"metadata.name": "web", "metadata.namespace": "default",
		"spec.nodeName": "node-1", "spec.restartPolicy": "Always", "spec.schedulerName": "default-scheduler",
		"spec.serviceAccountName": "default", "spec.hostNetwork": "false",
		"status.phase": "Running", "status.podIP": "10.0.0.1", "status.nominatedNodeName": "",
	})
}

func TestTable(t *testing.T) {
	p := pod()
	p.CreationTimestamp = metav1.NewTime(time.Now().Add(-10 * 24 * time.Hour))
	p.Spec.NodeName = "node-1"
	p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/lb"}}
	p.Status = corev1.PodStatus{
		Phase:  corev1.PodRunning,
		PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}},
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: corev1.ConditionTrue},
			{Type: "example.com/lb", Status: corev1.ConditionTrue},
		},
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: "app", Ready: true, RestartCount: 2,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				FinishedAt: metav1.NewTime(time.Now().Add(-9 * 24 * time.Hour))}},
		}},
	}
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "5"}, Items: []corev1.Pod{*p}}
	testutil.CheckTable(t, tableConvertor, p, list,
		[]string{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"},
		[]any{"web", "1/1", "Running", "2 (9d ago)", "10d", "10.0.0.1", "node-1", "<none>", "1/1"})
}

func TestTableStatus(t *testing.T) {
	waiting := func(reason string) corev1.ContainerState {
		return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}
	}
	terminated := func(code int32, reason string) corev1.ContainerState {
		return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason}}
	}
	tests := []struct {
		name      string
		mutate    func(*corev1.Pod)
		wantReady string
		want      string
		completed bool
	}{
		{"new pod", func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }, "0/1", "Pending", false},
		{"pulling", func(p *corev1.Pod) {
			p.Status = corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: waiting("ContainerCreating")}}}
		}, "0/1", "ContainerCreating", false},
		{"init running", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox"}}
			p.Status = corev1.PodStatus{Phase: corev1.PodPending,
				InitContainerStatuses: []corev1.ContainerStatus{{Name: "init", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}},
				ContainerStatuses:     []corev1.ContainerStatus{{Name: "app", State: waiting("PodInitializing")}}}
		}, "0/1", "Init:0/1", false},
		{"init failed", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox"}}
			p.Status = corev1.PodStatus{Phase: corev1.PodPending,
				InitContainerStatuses: []corev1.ContainerStatus{{Name: "init", State: terminated(3, "")}}}
		}, "0/1", "Init:ExitCode:3", false},
		{"sidecar ready", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "proxy", Image: "envoy", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
			p.Status = corev1.PodStatus{Phase: corev1.PodRunning,
				InitContainerStatuses: []corev1.ContainerStatus{{Name: "proxy", Ready: true, Started: ptr.To(true),
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true,
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}
		}, "2/2", "Running", false},
		{"crash loop", func(p *corev1.Pod) {
			p.Status = corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: waiting("CrashLoopBackOff")}}}
		}, "0/1", "CrashLoopBackOff", false},
		{"completed", func(p *corev1.Pod) {
			p.Status = corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: terminated(0, "Completed")}}}
		}, "0/1", "Completed", true},
		{"terminating", func(p *corev1.Pod) {
			p.DeletionTimestamp = ptr.To(metav1.Now())
			p.Status = corev1.PodStatus{Phase: corev1.PodRunning}
		}, "0/1", "Terminating", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := pod()
			tc.mutate(p)
			r := row(p)
			if r.Cells[1] != tc.wantReady || r.Cells[2] != tc.want {
				t.Errorf("ready, status = %v, %v, want %s, %s", r.Cells[1], r.Cells[2], tc.wantReady, tc.want)
			}
			if completed := len(r.Conditions) == 1 && r.Conditions[0].Type == metav1.RowCompleted; completed != tc.completed {
				t.Errorf("row conditions = %+v, want completed %v", r.Conditions, tc.completed)
			}
		})
	}
}
