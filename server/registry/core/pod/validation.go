package pod

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validatePod validates a pod's metadata and spec.
func validatePod(pod *corev1.Pod) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&pod.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateSpec(&pod.Spec, field.NewPath("spec"))...)
}

// ValidatePodTemplateSpec validates a pod template, as kube's core validation of the same name
// does for the templates of deployments and other workloads: its labels and annotations, and
// its spec exactly as a pod's spec is validated. Ephemeral containers are not allowed in a
// template. Errors are reported under path (e.g. spec.template).
func ValidatePodTemplateSpec(template *corev1.PodTemplateSpec, path *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabels(template.Labels, path.Child("labels"))
	errs = append(errs, apivalidation.ValidateAnnotations(template.Annotations, path.Child("annotations"))...)
	errs = append(errs, validateSpec(&template.Spec, path.Child("spec"))...)
	if len(template.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(path.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return errs
}

func validateSpec(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	volumes, errs := validateVolumes(spec.Volumes, path.Child("volumes"))
	names := map[string]bool{} // container names are unique across init and regular containers
	for i := range spec.InitContainers {
		errs = append(errs, validateContainer(&spec.InitContainers[i], path.Child("initContainers").Index(i), names, volumes, true)...)
	}
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(path.Child("containers"), ""))
	}
	for i := range spec.Containers {
		errs = append(errs, validateContainer(&spec.Containers[i], path.Child("containers").Index(i), names, volumes, false)...)
	}

	switch spec.RestartPolicy {
	case corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
	case "":
		errs = append(errs, field.Required(path.Child("restartPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(path.Child("restartPolicy"), spec.RestartPolicy, []corev1.RestartPolicy{
			corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	}
	switch spec.DNSPolicy {
	case "", corev1.DNSClusterFirst, corev1.DNSClusterFirstWithHostNet, corev1.DNSDefault, corev1.DNSNone:
	default:
		errs = append(errs, field.NotSupported(path.Child("dnsPolicy"), spec.DNSPolicy, []corev1.DNSPolicy{
			corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone}))
	}
	if d := spec.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > math.MaxInt32) {
		errs = append(errs, field.Invalid(path.Child("activeDeadlineSeconds"), *d,
			fmt.Sprintf("must be between 1 and %d, inclusive", math.MaxInt32)))
	}
	dnsNames := []struct {
		name, value string
		check       func(string, bool) []string
	}{
		{"serviceAccountName", spec.ServiceAccountName, apivalidation.NameIsDNSSubdomain},
		{"nodeName", spec.NodeName, apivalidation.NameIsDNSSubdomain},
		{"hostname", spec.Hostname, apivalidation.NameIsDNSLabel},
		{"subdomain", spec.Subdomain, apivalidation.NameIsDNSLabel},
	}
	for _, n := range dnsNames {
		if n.value == "" {
			continue
		}
		for _, msg := range n.check(n.value, false) {
			errs = append(errs, field.Invalid(path.Child(n.name), n.value, msg))
		}
	}
	return errs
}

// validateVolumes checks that volumes have unique DNS-label names and exactly one source, and
// returns their names.
func validateVolumes(volumes []corev1.Volume, path *field.Path) (map[string]bool, field.ErrorList) {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, v := range volumes {
		p := path.Index(i)
		switch {
		case v.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case names[v.Name]:
			errs = append(errs, field.Duplicate(p.Child("name"), v.Name))
		default:
			for _, msg := range validation.IsDNS1123Label(v.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), v.Name, msg))
			}
		}
		names[v.Name] = true
		switch n := countSources(v.VolumeSource); {
		case n == 0:
			errs = append(errs, field.Required(p, "must specify a volume type"))
		case n > 1:
			errs = append(errs, field.Forbidden(p, "may not specify more than 1 volume type"))
		}
	}
	return names, errs
}

// countSources counts the sources set in a VolumeSource, whose fields are all pointers.
func countSources(src corev1.VolumeSource) int {
	v := reflect.ValueOf(src)
	n := 0
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			n++
		}
	}
	return n
}

func validateContainer(c *corev1.Container, path *field.Path, names, volumes map[string]bool, init bool) field.ErrorList {
	var errs field.ErrorList
	switch {
	case c.Name == "":
		errs = append(errs, field.Required(path.Child("name"), ""))
	case names[c.Name]:
		errs = append(errs, field.Duplicate(path.Child("name"), c.Name))
	default:
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), c.Name, msg))
		}
	}
	names[c.Name] = true

	if c.Image == "" {
		errs = append(errs, field.Required(path.Child("image"), ""))
	} else if c.Image != strings.TrimSpace(c.Image) {
		errs = append(errs, field.Invalid(path.Child("image"), c.Image, "must not have leading or trailing whitespace"))
	}
	switch c.ImagePullPolicy {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	default:
		errs = append(errs, field.NotSupported(path.Child("imagePullPolicy"), c.ImagePullPolicy,
			[]corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}))
	}
	if p := c.RestartPolicy; p != nil {
		allowed := []corev1.ContainerRestartPolicy{corev1.ContainerRestartPolicyAlways}
		if !init {
			allowed = append(allowed, corev1.ContainerRestartPolicyOnFailure, corev1.ContainerRestartPolicyNever)
		}
		if !slices.Contains(allowed, *p) {
			errs = append(errs, field.NotSupported(path.Child("restartPolicy"), *p, allowed))
		}
	}
	errs = append(errs, validatePorts(c.Ports, path.Child("ports"))...)
	for i, e := range c.Env {
		p := path.Child("env").Index(i).Child("name")
		if e.Name == "" {
			errs = append(errs, field.Required(p, ""))
			continue
		}
		for _, msg := range validation.IsRelaxedEnvVarName(e.Name) {
			errs = append(errs, field.Invalid(p, e.Name, msg))
		}
	}
	for i, m := range c.VolumeMounts {
		p := path.Child("volumeMounts").Index(i)
		if !volumes[m.Name] {
			errs = append(errs, field.NotFound(p.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(p.Child("mountPath"), ""))
		}
	}
	return append(errs, validateResources(c.Resources, path.Child("resources"))...)
}

func validatePorts(ports []corev1.ContainerPort, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, port := range ports {
		p := path.Index(i)
		if port.Name != "" {
			for _, msg := range validation.IsValidPortName(port.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), port.Name, msg))
			}
		}
		for _, msg := range validation.IsValidPortNum(int(port.ContainerPort)) {
			errs = append(errs, field.Invalid(p.Child("containerPort"), port.ContainerPort, msg))
		}
		if port.HostPort != 0 {
			for _, msg := range validation.IsValidPortNum(int(port.HostPort)) {
				errs = append(errs, field.Invalid(p.Child("hostPort"), port.HostPort, msg))
			}
		}
		switch port.Protocol {
		case corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP:
		case "":
			errs = append(errs, field.Required(p.Child("protocol"), ""))
		default:
			errs = append(errs, field.NotSupported(p.Child("protocol"), port.Protocol,
				[]corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}))
		}
	}
	return errs
}

// validateResources checks that quantities are not negative and requests do not exceed limits.
func validateResources(r corev1.ResourceRequirements, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, l := range []struct {
		name string
		list corev1.ResourceList
	}{{"limits", r.Limits}, {"requests", r.Requests}} {
		for _, name := range sortedNames(l.list) {
			if q := l.list[name]; q.Sign() < 0 {
				errs = append(errs, field.Invalid(path.Child(l.name).Key(string(name)), q.String(), "must be greater than or equal to 0"))
			}
		}
	}
	for _, name := range sortedNames(r.Requests) {
		req := r.Requests[name]
		if lim, ok := r.Limits[name]; ok && req.Cmp(lim) > 0 {
			errs = append(errs, field.Invalid(path.Child("requests").Key(string(name)), req.String(),
				fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
		}
	}
	return errs
}

func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// updatableSpecFields describes, for error messages, what a pod update may change.
const updatableSpecFields = "pod updates may not change fields other than `spec.containers[*].image`, " +
	"`spec.initContainers[*].image`, `spec.activeDeadlineSeconds` and `spec.tolerations` (only additions to existing tolerations)"

// validateSpecUpdate enforces that a pod's spec is immutable but for container images,
// activeDeadlineSeconds (which may be set or lowered, never unset or raised) and tolerations
// (which may only be added).
func validateSpecUpdate(spec, old *corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	deadline := path.Child("activeDeadlineSeconds")
	if old.ActiveDeadlineSeconds != nil {
		switch {
		case spec.ActiveDeadlineSeconds == nil:
			errs = append(errs, field.Invalid(deadline, nil, "must not update from a positive integer to nil value"))
		case *spec.ActiveDeadlineSeconds > *old.ActiveDeadlineSeconds:
			errs = append(errs, field.Invalid(deadline, *spec.ActiveDeadlineSeconds, "must be less than or equal to previous value"))
		}
	}
	for i, t := range old.Tolerations {
		if !slices.ContainsFunc(spec.Tolerations, func(n corev1.Toleration) bool { return apiequality.Semantic.DeepEqual(n, t) }) {
			errs = append(errs, field.Forbidden(path.Child("tolerations"),
				fmt.Sprintf("existing toleration %d (key %q) may not be removed or changed", i, t.Key)))
		}
	}

	// Apply the allowed changes to a copy of the old spec; anything else still differing is
	// a forbidden change.
	allowed := old.DeepCopy()
	copyImages(allowed.Containers, spec.Containers)
	copyImages(allowed.InitContainers, spec.InitContainers)
	allowed.ActiveDeadlineSeconds = spec.ActiveDeadlineSeconds
	allowed.Tolerations = spec.Tolerations
	if changed := changedFields(allowed, spec); len(changed) > 0 {
		errs = append(errs, field.Forbidden(path, updatableSpecFields+"; changed: "+strings.Join(changed, ", ")))
	}
	return errs
}

// copyImages copies the images of src into dst where both have a container at that index.
func copyImages(dst, src []corev1.Container) {
	for i := range dst {
		if i < len(src) {
			dst[i].Image = src[i].Image
		}
	}
}

// changedFields names the top-level PodSpec fields (by JSON name, as spec.x) that differ.
func changedFields(a, b *corev1.PodSpec) []string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	var out []string
	for i := 0; i < va.NumField(); i++ {
		if apiequality.Semantic.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			continue
		}
		name, _, _ := strings.Cut(va.Type().Field(i).Tag.Get("json"), ",")
		out = append(out, "spec."+name)
	}
	return out
}

// validateStatusUpdate validates a pod's new status: known phase and no way back from a
// terminal one, valid IPs, conditions with a type and a True/False/Unknown status, container
// statuses naming containers of the pod, and an unchanged QoS class.
func validateStatusUpdate(pod, old *corev1.Pod, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	st := &pod.Status
	switch st.Phase {
	case "", corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown:
	default:
		errs = append(errs, field.NotSupported(path.Child("phase"), st.Phase, []corev1.PodPhase{
			corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown}))
	}
	if terminal(old.Status.Phase) && st.Phase != old.Status.Phase {
		errs = append(errs, field.Forbidden(path.Child("phase"),
			fmt.Sprintf("cannot transition from terminal phase %s to %s", old.Status.Phase, st.Phase)))
	}
	if st.QOSClass != old.Status.QOSClass {
		errs = append(errs, field.Invalid(path.Child("qosClass"), st.QOSClass, "field is immutable"))
	}
	for _, ip := range []struct {
		path  *field.Path
		value string
	}{{path.Child("podIP"), st.PodIP}, {path.Child("hostIP"), st.HostIP}} {
		if ip.value != "" {
			errs = append(errs, validation.IsValidIP(ip.path, ip.value)...)
		}
	}
	for i, ip := range st.PodIPs {
		errs = append(errs, validation.IsValidIP(path.Child("podIPs").Index(i).Child("ip"), ip.IP)...)
	}
	if st.PodIP != "" && len(st.PodIPs) > 0 && st.PodIPs[0].IP != st.PodIP {
		errs = append(errs, field.Invalid(path.Child("podIPs").Index(0).Child("ip"), st.PodIPs[0].IP, "must match status.podIP"))
	}
	for i, c := range st.Conditions {
		p := path.Child("conditions").Index(i)
		if c.Type == "" {
			errs = append(errs, field.Required(p.Child("type"), ""))
		}
		switch c.Status {
		case corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown:
		default:
			errs = append(errs, field.NotSupported(p.Child("status"), c.Status, []corev1.ConditionStatus{
				corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown}))
		}
	}
	errs = append(errs, validateContainerStatuses(st.ContainerStatuses, pod.Spec.Containers, path.Child("containerStatuses"))...)
	return append(errs, validateContainerStatuses(st.InitContainerStatuses, pod.Spec.InitContainers, path.Child("initContainerStatuses"))...)
}

func validateContainerStatuses(statuses []corev1.ContainerStatus, containers []corev1.Container, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range statuses {
		if !slices.ContainsFunc(containers, func(c corev1.Container) bool { return c.Name == s.Name }) {
			errs = append(errs, field.NotFound(path.Index(i).Child("name"), s.Name))
		}
		if s.RestartCount < 0 {
			errs = append(errs, field.Invalid(path.Index(i).Child("restartCount"), s.RestartCount, "must be greater than or equal to 0"))
		}
	}
	return errs
}

func terminal(phase corev1.PodPhase) bool {
	return phase == corev1.PodSucceeded || phase == corev1.PodFailed
}
