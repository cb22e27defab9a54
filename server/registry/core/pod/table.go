package pod

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubewalk/kubewalk/server/registry/internal/table"
)

// nodeUnreachableReason is the status reason the node lifecycle controller gives pods of an
// unreachable node.
const nodeUnreachableReason = "NodeLost"

var tableConvertor = table.New(resource,
	[]metav1.TableColumnDefinition{
		table.NameColumn,
		{Name: "Ready", Type: "string", Description: "The aggregate readiness state of this pod for accepting traffic."},
		{Name: "Status", Type: "string", Description: "The aggregate status of the containers in this pod."},
		{Name: "Restarts", Type: "string", Description: "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."},
		table.AgeColumn,
		{Name: "IP", Type: "string", Priority: 1, Description: corev1.PodStatus{}.SwaggerDoc()["podIP"]},
		{Name: "Node", Type: "string", Priority: 1, Description: corev1.PodSpec{}.SwaggerDoc()["nodeName"]},
		{Name: "Nominated Node", Type: "string", Priority: 1, Description: corev1.PodStatus{}.SwaggerDoc()["nominatedNodeName"]},
		{Name: "Readiness Gates", Type: "string", Priority: 1, Description: corev1.PodSpec{}.SwaggerDoc()["readinessGates"]},
	},
	row)

// row renders a pod as kubectl shows it.
func row(pod *corev1.Pod) table.Row {
	s := summarize(pod)
	restarts := strconv.Itoa(s.restarts)
	if s.restarts != 0 && !s.lastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", s.restarts, table.Age(s.lastRestart))
	}
	r := table.Row{Cells: []any{
		pod.Name, fmt.Sprintf("%d/%d", s.ready, s.total), s.reason, restarts, table.Age(pod.CreationTimestamp),
		orNone(podIP(pod)), orNone(pod.Spec.NodeName), orNone(pod.Status.NominatedNodeName), readinessGates(pod),
	}}
	switch pod.Status.Phase {
	case corev1.PodSucceeded:
		r.Conditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue,
			Reason: string(corev1.PodSucceeded), Message: "The pod has completed successfully."}}
	case corev1.PodFailed:
		r.Conditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue,
			Reason: string(corev1.PodFailed), Message: "The pod failed."}}
	}
	return r
}

// summary is what the Ready, Status and Restarts columns show.
type summary struct {
	ready, total int
	reason       string
	restarts     int
	lastRestart  metav1.Time
}

// summarize computes the Ready, Status and Restarts columns the way kubectl's pod printer
// does: the status is the phase (or status reason) refined by the init containers while the
// pod initializes, then by the state of the containers, then by a pending deletion.
func summarize(pod *corev1.Pod) summary {
	s := summary{total: len(pod.Spec.Containers), reason: string(pod.Status.Phase)}
	if pod.Status.Reason != "" {
		s.reason = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			s.reason = corev1.PodReasonSchedulingGated
		}
	}

	sidecars := map[string]bool{}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
			s.total++
		}
	}

	var sidecarRestarts int
	var sidecarLastRestart metav1.Time
	initializing := false
	for i, c := range pod.Status.InitContainerStatuses {
		s.restarts += int(c.RestartCount)
		s.lastRestart = later(s.lastRestart, c.LastTerminationState)
		if sidecars[c.Name] {
			sidecarRestarts += int(c.RestartCount)
			sidecarLastRestart = later(sidecarLastRestart, c.LastTerminationState)
		}
		reason, done := initReason(c, sidecars[c.Name], i, len(pod.Spec.InitContainers))
		if done {
			if sidecars[c.Name] && c.Ready {
				s.ready++
			}
			continue
		}
		s.reason, initializing = reason, true
		break
	}

	if !initializing || initializedConditionTrue(pod) {
		s.restarts, s.lastRestart = sidecarRestarts, sidecarLastRestart
		running := false
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			c := pod.Status.ContainerStatuses[i]
			s.restarts += int(c.RestartCount)
			s.lastRestart = later(s.lastRestart, c.LastTerminationState)
			switch {
			case c.State.Waiting != nil && c.State.Waiting.Reason != "":
				s.reason = c.State.Waiting.Reason
			case c.State.Terminated != nil && c.State.Terminated.Reason != "":
				s.reason = c.State.Terminated.Reason
			case c.State.Terminated != nil && c.State.Terminated.Signal != 0:
				s.reason = fmt.Sprintf("Signal:%d", c.State.Terminated.Signal)
			case c.State.Terminated != nil:
				s.reason = fmt.Sprintf("ExitCode:%d", c.State.Terminated.ExitCode)
			case c.Ready && c.State.Running != nil:
				running = true
				s.ready++
			}
		}
		if s.reason == "Completed" && running {
			s.reason = "NotReady"
			if conditionTrue(pod, corev1.PodReady) {
				s.reason = "Running"
			}
		}
	}

	if pod.DeletionTimestamp != nil {
		switch {
		case pod.Status.Reason == nodeUnreachableReason:
			s.reason = "Unknown"
		case !terminal(pod.Status.Phase):
			s.reason = "Terminating"
		}
	}
	return s
}

// initReason reports whether init container status c (the i-th of n) is done (exited 0, or a
// started sidecar), and otherwise the Init:... status it gives the pod.
func initReason(c corev1.ContainerStatus, sidecar bool, i, n int) (string, bool) {
	t := c.State.Terminated
	switch {
	case t != nil && t.ExitCode == 0:
		return "", true
	case sidecar && c.Started != nil && *c.Started:
		return "", true
	case t != nil && t.Reason != "":
		return "Init:" + t.Reason, false
	case t != nil && t.Signal != 0:
		return fmt.Sprintf("Init:Signal:%d", t.Signal), false
	case t != nil:
		return fmt.Sprintf("Init:ExitCode:%d", t.ExitCode), false
	case c.State.Waiting != nil && c.State.Waiting.Reason != "" && c.State.Waiting.Reason != "PodInitializing":
		return "Init:" + c.State.Waiting.Reason, false
	}
	return fmt.Sprintf("Init:%d/%d", i, n), false
}

// later returns the later of t and the finish time of a last termination, if any.
func later(t metav1.Time, last corev1.ContainerState) metav1.Time {
	if last.Terminated != nil && t.Before(&last.Terminated.FinishedAt) {
		return last.Terminated.FinishedAt
	}
	return t
}

func initializedConditionTrue(pod *corev1.Pod) bool {
	return conditionTrue(pod, corev1.PodInitialized)
}

func conditionTrue(pod *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podIP(pod *corev1.Pod) string {
	if len(pod.Status.PodIPs) > 0 {
		return pod.Status.PodIPs[0].IP
	}
	return pod.Status.PodIP
}

// readinessGates renders "true/total" for the pod's readiness gates, "<none>" without any.
func readinessGates(pod *corev1.Pod) string {
	if len(pod.Spec.ReadinessGates) == 0 {
		return "<none>"
	}
	n := 0
	for _, g := range pod.Spec.ReadinessGates {
		if conditionTrue(pod, g.ConditionType) {
			n++
		}
	}
	return fmt.Sprintf("%d/%d", n, len(pod.Spec.ReadinessGates))
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
