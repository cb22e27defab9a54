package apis

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

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
