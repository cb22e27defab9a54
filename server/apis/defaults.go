package apis

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// addDefaulters registers the defaults that kube-apiserver applies to the kinds we serve. The
// scheme is the defaulter of every API group we install, so the genericapiserver applies them
// when it decodes a request body (create, update, every kind of patch and apply) and when it
// reads an object from storage, before any admission plugin, registry decorator or strategy
// sees the object. Upstream keeps them in k8s.io/kubernetes (pkg/apis/core/v1/defaults.go and
// pkg/apis/rbac/v1/defaults.go, registered by their zz_generated.defaults.go), which we do not
// import.
func addDefaulters(s *runtime.Scheme) {
	s.AddTypeDefaultingFunc(&corev1.Secret{}, func(obj any) {
		if sec := obj.(*corev1.Secret); sec.Type == "" {
			sec.Type = corev1.SecretTypeOpaque
		}
	})
	s.AddTypeDefaultingFunc(&corev1.Pod{}, func(obj any) { defaultPod(obj.(*corev1.Pod)) })

	// As upstream's rbac/v1 RegisterDefaults: the bindings and their lists. Roles have no
	// defaults.
	s.AddTypeDefaultingFunc(&rbacv1.RoleBinding{}, func(obj any) { DefaultRoleBinding(obj.(*rbacv1.RoleBinding)) })
	s.AddTypeDefaultingFunc(&rbacv1.RoleBindingList{}, func(obj any) {
		l := obj.(*rbacv1.RoleBindingList)
		for i := range l.Items {
			DefaultRoleBinding(&l.Items[i])
		}
	})
	s.AddTypeDefaultingFunc(&rbacv1.ClusterRoleBinding{}, func(obj any) { DefaultClusterRoleBinding(obj.(*rbacv1.ClusterRoleBinding)) })
	s.AddTypeDefaultingFunc(&rbacv1.ClusterRoleBindingList{}, func(obj any) {
		l := obj.(*rbacv1.ClusterRoleBindingList)
		for i := range l.Items {
			DefaultClusterRoleBinding(&l.Items[i])
		}
	})
}

// DefaultRoleBinding applies kube-apiserver's rbac/v1 defaults to b, as upstream's
// SetObjectDefaults_RoleBinding does: SetDefaults_RoleBinding puts an empty roleRef.apiGroup in
// rbac.authorization.k8s.io, then SetDefaults_Subject runs on every subject.
func DefaultRoleBinding(b *rbacv1.RoleBinding) {
	defaultRoleRef(&b.RoleRef)
	for i := range b.Subjects {
		DefaultSubject(&b.Subjects[i])
	}
}

// DefaultClusterRoleBinding applies kube-apiserver's rbac/v1 defaults to b, as upstream's
// SetObjectDefaults_ClusterRoleBinding does (see DefaultRoleBinding).
func DefaultClusterRoleBinding(b *rbacv1.ClusterRoleBinding) {
	defaultRoleRef(&b.RoleRef)
	for i := range b.Subjects {
		DefaultSubject(&b.Subjects[i])
	}
}

// defaultRoleRef is the body of upstream's SetDefaults_RoleBinding and
// SetDefaults_ClusterRoleBinding.
func defaultRoleRef(ref *rbacv1.RoleRef) {
	if len(ref.APIGroup) == 0 {
		ref.APIGroup = rbacv1.GroupName
	}
}

// DefaultSubject is upstream's SetDefaults_Subject: a subject without an API group is put in
// rbac.authorization.k8s.io when it is a User or a Group, and stays in the core group ("") when
// it is a ServiceAccount. Other kinds are left alone, for validation to refuse.
func DefaultSubject(s *rbacv1.Subject) {
	if len(s.APIGroup) == 0 {
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			s.APIGroup = ""
		case rbacv1.UserKind, rbacv1.GroupKind:
			s.APIGroup = rbacv1.GroupName
		}
	}
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
		if pullAlways(c.Image) {
			c.ImagePullPolicy = corev1.PullAlways
		}
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
}
