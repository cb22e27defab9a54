package apis

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// fieldLabels lists, per core/v1 kind, the field selector labels beyond metadata.name and
// metadata.namespace that the server accepts. They match what kube-apiserver accepts for the
// same kinds, so `kubectl describe` (which lists events by involvedObject) works.
var fieldLabels = map[string][]string{
	"Event": {
		"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
		"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
		"involvedObject.fieldPath", "reason", "reportingComponent", "source", "type",
	},
	"Pod": {
		"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
		"spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName",
	},
	"Secret":    {"type"},
	"Namespace": {"status.phase"},
}

// addFieldLabelConversions registers the accepted field selector labels with the scheme.
func addFieldLabelConversions(s *runtime.Scheme) error {
	for kind, labels := range fieldLabels {
		allowed := map[string]bool{"metadata.name": true, "metadata.namespace": true}
		for _, l := range labels {
			allowed[l] = true
		}
		err := s.AddFieldLabelConversionFunc(CoreV1.WithKind(kind), func(label, value string) (string, string, error) {
			if allowed[label] {
				return label, value, nil
			}
			return "", "", fmt.Errorf("field label not supported: %s", label)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
	}
	return nil
}

// FieldLabels returns the field selector labels accepted for a core/v1 kind beyond
// metadata.name and metadata.namespace.
func FieldLabels(kind string) []string {
	return append([]string(nil), fieldLabels[kind]...)
}

// addDefaulters registers the few defaults that kube-apiserver applies to the kinds we serve
// and that kubectl output relies on. Upstream keeps them in k8s.io/kubernetes
// (pkg/apis/core/v1/defaults.go), which we do not import.
func addDefaulters(s *runtime.Scheme) {
	s.AddTypeDefaultingFunc(&corev1.Secret{}, func(obj interface{}) {
		if sec := obj.(*corev1.Secret); sec.Type == "" {
			sec.Type = corev1.SecretTypeOpaque
		}
	})
	s.AddTypeDefaultingFunc(&corev1.Pod{}, func(obj interface{}) { defaultPod(obj.(*corev1.Pod)) })
}

func defaultPod(p *corev1.Pod) {
	spec := &p.Spec
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = corev1.DefaultSchedulerName
	}
	if spec.TerminationGracePeriodSeconds == nil {
		grace := int64(corev1.DefaultTerminationGracePeriodSeconds)
		spec.TerminationGracePeriodSeconds = &grace
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	for i := range spec.Containers {
		defaultContainer(&spec.Containers[i])
	}
	for i := range spec.InitContainers {
		defaultContainer(&spec.InitContainers[i])
	}
	if p.Status.Phase == "" {
		p.Status.Phase = corev1.PodPending
	}
}

func defaultContainer(c *corev1.Container) {
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = corev1.PullIfNotPresent
		if imageTag(c.Image) == "latest" {
			c.ImagePullPolicy = corev1.PullAlways
		}
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
}

// imageTag returns the tag of an image reference, "latest" when it has neither tag nor digest.
func imageTag(image string) string {
	for i := len(image) - 1; i >= 0; i-- {
		switch image[i] {
		case '@':
			return ""
		case ':':
			return image[i+1:]
		case '/':
			return "latest"
		}
	}
	return "latest"
}
