package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/server"
)

// The media types the probes ask the server for.
const (
	mediaJSON     = "application/json"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// learnGroup is kubewalk's own API group.
const learnGroupName = "learn.kubewalk.io"

// clients are the clients one probe run reads through, as the admin identity.
type clients struct {
	s    Server
	kube kubernetes.Interface
	disc discovery.DiscoveryInterface
	dyn  dynamic.Interface
	raw  rest.Interface
	tr   *i18n.Strings // the hints' language
}

func newClients(s Server, tr *i18n.Strings) (*clients, error) {
	cfg, err := s.RESTConfig("admin")
	if err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = "kubewalk-live-probe"
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	return &clients{s: s, kube: kube, disc: kube.Discovery(), dyn: dyn, raw: kube.CoreV1().RESTClient(), tr: tr}, nil
}

// get reads an API path as media type, returning the bytes the server sent, or the server's
// Status as an error (Error decodes it; DoRaw would give only a generic message for the code).
func (c *clients) get(ctx context.Context, apiPath, media string) ([]byte, error) {
	res := c.raw.Get().AbsPath(apiPath).SetHeader("Accept", media).Do(ctx)
	if err := res.Error(); err != nil {
		return nil, err
	}
	return res.Raw()
}

// missing is the node of an object the learner has not created yet, saying how to create it.
func (c *clients) missing(n *server.Node, what, create string) *server.Node {
	n.Add(what, fmt.Sprintf(c.tr.LiveNotCreated, create))
	return n
}

// createConfigMap is the command the apimachinery lesson gives.
const createConfigMap = "kubectl --context alice create configmap " + ConfigMapName + " --from-literal=greeting=hello"

// objectMeta shows TypeMeta and ObjectMeta of the learner's configmap: as it travels (JSON,
// with apiVersion and kind) and as client-go's typed client hands it back (TypeMeta empty).
func objectMeta(ctx context.Context, c *clients) (*server.Node, error) {
	n := &server.Node{}
	p := "/api/v1/namespaces/" + Namespace + "/configmaps/" + ConfigMapName
	body, err := c.get(ctx, p, mediaJSON)
	if apierrors.IsNotFound(err) {
		return c.missing(n, "configmap "+Namespace+"/"+ConfigMapName, createConfigMap), nil
	}
	if err != nil {
		return nil, err
	}
	var wire struct {
		metav1.TypeMeta
		Metadata metav1.ObjectMeta `json:"metadata"`
		Data     map[string]string `json:"data"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		return nil, fmt.Errorf("decode %s: %w", p, err)
	}
	n.Add("GET", p)
	tm := n.Add("TypeMeta (in the JSON)", "")
	tm.Add("apiVersion", wire.APIVersion)
	tm.Add("kind", wire.Kind)
	typed, err := c.kube.CoreV1().ConfigMaps(Namespace).Get(ctx, ConfigMapName, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	tc := n.Add("TypeMeta (typed client-go object)", "")
	tc.Add("apiVersion", quoteEmpty(typed.APIVersion))
	tc.Add("kind", quoteEmpty(typed.Kind))
	om := n.Add("ObjectMeta", "")
	m := wire.Metadata
	om.Add("name", m.Name)
	om.Add("namespace", m.Namespace)
	om.Add("uid", string(m.UID))
	om.Add("resourceVersion", m.ResourceVersion)
	om.Addf("generation", "%d", m.Generation)
	om.Add("creationTimestamp", m.CreationTimestamp.UTC().Format("2006-01-02T15:04:05Z"))
	labels := om.Addf("labels", "%d", len(m.Labels))
	for _, k := range sortedKeys(m.Labels) {
		labels.Add(k, m.Labels[k])
	}
	mf := om.Addf("managedFields", "%d entries", len(m.ManagedFields))
	for _, e := range m.ManagedFields {
		mf.Add(e.Manager, fmt.Sprintf("%s %s", e.Operation, e.APIVersion))
	}
	data := n.Addf("data", "%d keys", len(wire.Data))
	for _, k := range sortedKeys(wire.Data) {
		data.Add(k, wire.Data[k])
	}
	return n, nil
}

// quoteEmpty shows an empty string as "" so that the learner sees it is empty.
func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// schemeGVKs lists the server Scheme's registered kinds by group and version.
func schemeGVKs(_ context.Context, c *clients) (*server.Node, error) {
	scheme := c.s.Scheme()
	if scheme == nil {
		return nil, errors.New("the config phase has not built the scheme")
	}
	n := &server.Node{}
	byGroup := map[string]map[string][]string{}
	total := 0
	for gvk := range scheme.AllKnownTypes() {
		if byGroup[gvk.Group] == nil {
			byGroup[gvk.Group] = map[string][]string{}
		}
		byGroup[gvk.Group][gvk.Version] = append(byGroup[gvk.Group][gvk.Version], gvk.Kind)
		total++
	}
	n.Addf("registered GVKs", "%d in %d groups", total, len(byGroup))
	// The Go type *v1.ConfigMap is registered under more than one GVK: its version, and the
	// group's internal version (kubewalk registers each published type as both).
	gvks, _, err := scheme.ObjectKinds(&corev1.ConfigMap{})
	if err != nil {
		return nil, fmt.Errorf("scheme.ObjectKinds(*v1.ConfigMap): %w", err)
	}
	cm := n.Add("ObjectKinds(*v1.ConfigMap)", fmt.Sprintf("%d GVKs", len(gvks)))
	for _, g := range gvks {
		cm.Add(gvkString(g), "")
	}
	groups := n.Add("groups", "")
	for _, g := range sortedKeys(byGroup) {
		label := g
		if g == "" {
			label = `"" (core)`
		}
		var order []string
		for _, v := range scheme.PrioritizedVersionsForGroup(g) {
			order = append(order, v.Version)
		}
		gn := groups.Add(label, "priority: "+strings.Join(order, ", "))
		for _, v := range sortedKeys(byGroup[g]) {
			ks := byGroup[g][v]
			slices.Sort(ks)
			vn := gn.Addf(v, "%d kinds", len(ks))
			for _, k := range ks {
				vn.Add(k, "")
			}
		}
	}
	return n, nil
}

// restMapper builds a RESTMapper from the running server's discovery, as kubectl does, and
// resolves the names a learner types.
func restMapper(ctx context.Context, c *clients) (*server.Node, error) {
	n := &server.Node{}
	groups, err := c.disc.ServerGroups()
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	gn := n.Addf("discovery: /api, /apis", "%d groups", len(groups.Groups))
	for _, g := range groups.Groups {
		var vs []string
		for _, v := range g.Versions {
			vs = append(vs, v.Version)
		}
		name := g.Name
		if name == "" {
			name = `"" (core)`
		}
		gn.Add(name, fmt.Sprintf("versions %s, preferred %s", strings.Join(vs, ", "), g.PreferredVersion.Version))
	}
	agr, err := restmapper.GetAPIGroupResources(c.disc)
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	mapper := restmapper.NewShortcutExpander(restmapper.NewDiscoveryRESTMapper(agr), c.disc, func(string) {})
	typed := n.Add("kubectl get <name> → GVR → GVK → path", "")
	for _, name := range []string{"cm", "configmaps", "po", "deploy", "lessons", "lessons.v1alpha1.learn.kubewalk.io"} {
		// As kubectl's resource builder does: "resource.version.group" when fully qualified.
		gvr := schema.ParseGroupResource(name).WithVersion("")
		if fq, _ := schema.ParseResourceArg(name); fq != nil {
			gvr = *fq
		}
		row := typed.Add(name, "")
		full, err := mapper.ResourceFor(gvr)
		if err != nil {
			row.Value = "no match: " + err.Error()
			continue
		}
		gvk, err := mapper.KindFor(full)
		if err != nil {
			row.Value = "no kind: " + err.Error()
			continue
		}
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			row.Value = "no mapping: " + err.Error()
			continue
		}
		row.Value = gvrString(full)
		row.Add("GVR", gvrString(full))
		row.Add("GVK", gvkString(gvk))
		row.Add("scope", string(mapping.Scope.Name()))
		row.Add("path", apiPath(full, mapping.Scope.Name() == "namespace"))
	}
	kinds := n.Add("kind → resource (RESTMapping)", "")
	for _, gk := range []schema.GroupKind{{Kind: "ConfigMap"}, {Group: "apps", Kind: "Deployment"}, {Group: learnGroupName, Kind: "Lesson"}} {
		m, err := mapper.RESTMapping(gk)
		if err != nil {
			kinds.Add(gk.String(), "no mapping: "+err.Error())
			continue
		}
		kinds.Add(gvkString(m.GroupVersionKind), gvrString(m.Resource))
	}
	return n, nil
}

// gvrString renders a GVR as group/version/resource, "core" for the empty group.
func gvrString(r schema.GroupVersionResource) string {
	g := r.Group
	if g == "" {
		g = `""`
	}
	return g + "/" + r.Version + "/" + r.Resource
}

// gvkString renders a GVK as group/version, Kind=kind.
func gvkString(k schema.GroupVersionKind) string {
	g := k.Group
	if g == "" {
		g = `""`
	}
	return g + "/" + k.Version + ", Kind=" + k.Kind
}

// apiPath is the collection path of a resource in the learner's namespace.
func apiPath(r schema.GroupVersionResource, namespaced bool) string {
	p := "/apis/" + r.Group + "/" + r.Version
	if r.Group == "" {
		p = "/api/" + r.Version
	}
	if namespaced {
		p += "/namespaces/" + Namespace
	}
	return p + "/" + r.Resource
}

// etcdBytes shows the learner's configmap in the three encodings it exists in: JSON and
// protobuf from the API, and the value etcd holds.
func etcdBytes(ctx context.Context, c *clients) (*server.Node, error) {
	n := &server.Node{}
	p := "/api/v1/namespaces/" + Namespace + "/configmaps/" + ConfigMapName
	js, err := c.get(ctx, p, mediaJSON)
	if apierrors.IsNotFound(err) {
		return c.missing(n, "configmap "+Namespace+"/"+ConfigMapName, createConfigMap), nil
	}
	if err != nil {
		return nil, err
	}
	pb, err := c.get(ctx, p, mediaProtobuf)
	if err != nil {
		return nil, err
	}
	api := n.Add("GET "+p, "")
	api.Addf("Accept: "+mediaJSON, "%d bytes", len(js))
	pn := api.Addf("Accept: "+mediaProtobuf, "%d bytes", len(pb))
	pn.Add("first bytes", prefixHex(pb))
	return n, storedNode(ctx, c, n, schema.GroupResource{Resource: "configmaps"}, Namespace+"/"+ConfigMapName)
}

// storedNode adds what etcd holds for one object of gr: its key, size, first bytes, the media
// type the server's serializers recognise and the apiVersion the bytes declare.
func storedNode(ctx context.Context, c *clients, n *server.Node, gr schema.GroupResource, name string) error {
	a, err := c.s.Etcd()
	if err != nil {
		return err
	}
	i := slices.IndexFunc(a.Resources(), func(r server.EtcdResource) bool { return r.Resource == gr })
	if i < 0 {
		return fmt.Errorf("no store of %s writes to etcd", gr)
	}
	key := a.Resources()[i].KeyPrefix + name
	resp, err := a.Get(ctx, key)
	if err != nil {
		return err
	}
	en := n.Add("etcd", key)
	if len(resp.Kvs) == 0 {
		en.Add("value", "no such key")
		return nil
	}
	kv := resp.Kvs[0]
	en.Addf("value", "%d bytes", len(kv.Value))
	en.Add("first bytes", prefixHex(kv.Value))
	en.Addf("mod_revision", "%d (the object's resourceVersion)", kv.ModRevision)
	so, err := a.Decode(kv.Value)
	en.Add("recognised as", so.MediaType)
	if err != nil {
		en.Add("decode", err.Error())
		return nil
	}
	en.Add("stored as (storage version)", gvkString(so.GVK))
	return nil
}

// prefixHex shows the first bytes of a value: printable ASCII as is, the rest as \xNN.
func prefixHex(b []byte) string {
	const show = 12
	var out strings.Builder
	for i, c := range b {
		if i == show {
			out.WriteString("…")
			break
		}
		if c >= 0x20 && c < 0x7f && c != '\\' {
			out.WriteByte(c)
		} else {
			fmt.Fprintf(&out, `\x%02x`, c)
		}
	}
	return out.String()
}

// learnGroup shows learn.kubewalk.io as discovery serves it, and the learner's Lesson read in
// both versions: v1alpha1's spec.owner is v1's spec.author.
func learnGroup(ctx context.Context, c *clients) (*server.Node, error) {
	n := &server.Node{}
	groups, err := c.disc.ServerGroups()
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	gi := slices.IndexFunc(groups.Groups, func(g metav1.APIGroup) bool { return g.Name == learnGroupName })
	if gi < 0 {
		n.Add(learnGroupName, c.tr.LiveNotServed)
		return n, nil
	}
	g := groups.Groups[gi]
	gn := n.Add("/apis/"+learnGroupName, "preferred "+g.PreferredVersion.Version)
	for _, v := range g.Versions {
		vn := gn.Add(v.Version, "")
		rl, err := c.disc.ServerResourcesForGroupVersion(v.GroupVersion)
		if err != nil {
			vn.Value = err.Error()
			continue
		}
		for _, r := range rl.APIResources {
			rn := vn.Add(r.Name, "kind "+r.Kind)
			rn.Add("verbs", strings.Join(r.Verbs, ", "))
			if len(r.ShortNames) > 0 {
				rn.Add("shortNames", strings.Join(r.ShortNames, ", "))
			}
			rn.Addf("namespaced", "%t", r.Namespaced)
		}
	}
	obj := n.Add("lesson "+Namespace+"/"+LessonName, "")
	for _, v := range []string{"v1alpha1", "v1"} {
		gvr := schema.GroupVersionResource{Group: learnGroupName, Version: v, Resource: "lessons"}
		u, err := c.dyn.Resource(gvr).Namespace(Namespace).Get(ctx, LessonName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return c.missing(n, "lesson "+Namespace+"/"+LessonName, c.tr.LiveCreateLesson), nil
		}
		if err != nil {
			return nil, err
		}
		vn := obj.Add("GET as "+v, u.GetAPIVersion())
		spec, _, _ := unstructured.NestedMap(u.Object, "spec")
		for _, k := range sortedKeys(spec) {
			vn.Add("spec."+k, summary(spec[k]))
		}
		if st, ok, _ := unstructured.NestedMap(u.Object, "status"); ok {
			for _, k := range sortedKeys(st) {
				vn.Add("status."+k, summary(st[k]))
			}
		}
	}
	return n, nil
}

// summary renders a JSON value on one line.
func summary(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		return fmt.Sprintf("%d items", len(v))
	case map[string]any:
		return fmt.Sprintf("%d fields", len(v))
	}
	return fmt.Sprint(v)
}

// learnStorage shows the learner's Lesson as etcd holds it: JSON (the group has no protobuf),
// in the storage version v1, whatever version it was written in.
func learnStorage(ctx context.Context, c *clients) (*server.Node, error) {
	n := &server.Node{}
	gr := schema.GroupResource{Group: learnGroupName, Resource: "lessons"}
	_, err := c.dyn.Resource(gr.WithVersion("v1")).Namespace(Namespace).Get(ctx, LessonName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return c.missing(n, "lesson "+Namespace+"/"+LessonName, c.tr.LiveCreateLesson), nil
	}
	if err != nil {
		return nil, err
	}
	if err := storedNode(ctx, c, n, gr, Namespace+"/"+LessonName); err != nil {
		return nil, err
	}
	a, err := c.s.Etcd()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(a.Resources(), func(r server.EtcdResource) bool { return r.Resource == gr })
	resp, err := a.Get(ctx, a.Resources()[i].KeyPrefix+Namespace+"/"+LessonName)
	if err != nil || len(resp.Kvs) == 0 {
		return n, err
	}
	var stored map[string]any
	if err := json.Unmarshal(resp.Kvs[0].Value, &stored); err == nil {
		sn := n.Add("stored JSON", "")
		sn.Add("apiVersion", summary(stored["apiVersion"]))
		if spec, ok := stored["spec"].(map[string]any); ok {
			for _, k := range sortedKeys(spec) {
				sn.Add("spec."+k, summary(spec[k]))
			}
		}
	}
	return n, nil
}

// createPod is the command the subresources lesson gives.
const createPod = "kubectl run " + PodName + " --image=nginx:1.27"

// podStatus shows the learner's pod: the spec the learner wrote and the status nobody writes
// here (no scheduler, no kubelet), so it stays Pending.
func podStatus(ctx context.Context, c *clients) (*server.Node, error) {
	n := &server.Node{}
	pod, err := c.kube.CoreV1().Pods(Namespace).Get(ctx, PodName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return c.missing(n, "pod "+Namespace+"/"+PodName, createPod), nil
	}
	if err != nil {
		return nil, err
	}
	pn := n.Add("pod "+Namespace+"/"+PodName, "resourceVersion "+pod.ResourceVersion)
	spec := pn.Add("spec", "")
	spec.Add("nodeName", quoteEmpty(pod.Spec.NodeName))
	for _, ct := range pod.Spec.Containers {
		spec.Add("containers["+ct.Name+"].image", ct.Image)
	}
	st := pn.Add("status", "")
	st.Add("phase", string(pod.Status.Phase))
	st.Add("message", quoteEmpty(pod.Status.Message))
	conds := st.Addf("conditions", "%d", len(pod.Status.Conditions))
	for _, cd := range pod.Status.Conditions {
		conds.Add(string(cd.Type), fmt.Sprintf("%s %s", cd.Status, cd.Reason))
	}
	mf := pn.Addf("managedFields", "%d", len(pod.ManagedFields))
	for _, e := range pod.ManagedFields {
		label := e.Manager
		if e.Subresource != "" {
			label += " (" + e.Subresource + ")"
		}
		mf.Add(label, string(e.Operation))
	}
	return n, nil
}

// podSubresources lists the pods subresources discovery announces and, when the learner's pod
// exists, what pods/log answers (a GET: the one kubelet subresource a probe may read).
func podSubresources(ctx context.Context, c *clients) (*server.Node, error) {
	n := &server.Node{}
	rl, err := c.disc.ServerResourcesForGroupVersion("v1")
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	sn := n.Add("discovery /api/v1: pods/*", "")
	for _, r := range rl.APIResources {
		if strings.HasPrefix(r.Name, "pods/") {
			sn.Add(r.Name, strings.Join(r.Verbs, ", "))
		}
	}
	p := "/api/v1/namespaces/" + Namespace + "/pods/" + PodName + "/log"
	_, err = c.get(ctx, p, "*/*")
	var se apierrors.APIStatus
	switch {
	case apierrors.IsNotFound(err) && isPodMissing(err):
		c.missing(n, "pod "+Namespace+"/"+PodName, createPod)
	case errors.As(err, &se):
		st := se.Status()
		ln := n.Add("GET "+p, fmt.Sprintf("%d %s", st.Code, st.Reason))
		ln.Add("message", st.Message)
	case err != nil:
		return nil, err
	default:
		n.Add("GET "+p, "200")
	}
	return n, nil
}

// isPodMissing tells the 404 of a missing pod (its details name the pod) from the 404 kubewalk
// answers because it does not serve the subresource (no details, a message saying why).
func isPodMissing(err error) bool {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return false
	}
	d := se.Status().Details
	return d != nil && d.Kind == "pods" && d.Name == PodName
}

// createDeployment is the command the apps/v1 lesson gives.
const createDeployment = "kubectl create deployment " + DeploymentName + " --image=nginx:1.27"

// deployments shows the learner's deployment: the desired state it stores, the status nobody
// updates, the scale subresource, and that no ReplicaSet or pod follows.
func deployments(ctx context.Context, c *clients) (*server.Node, error) {
	n := &server.Node{}
	d, err := c.kube.AppsV1().Deployments(Namespace).Get(ctx, DeploymentName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return c.missing(n, "deployment "+Namespace+"/"+DeploymentName, createDeployment), nil
	}
	if err != nil {
		return nil, err
	}
	dn := n.Add("deployment "+Namespace+"/"+DeploymentName, "generation "+fmt.Sprint(d.Generation))
	spec := dn.Add("spec (desired state)", "")
	if d.Spec.Replicas != nil {
		spec.Addf("replicas", "%d", *d.Spec.Replicas)
	}
	spec.Add("selector", metav1.FormatLabelSelector(d.Spec.Selector))
	spec.Add("strategy", string(d.Spec.Strategy.Type))
	for _, ct := range d.Spec.Template.Spec.Containers {
		spec.Add("template.containers["+ct.Name+"].image", ct.Image)
	}
	st := dn.Add("status (nobody writes it here)", "")
	st.Addf("observedGeneration", "%d", d.Status.ObservedGeneration)
	st.Addf("replicas", "%d", d.Status.Replicas)
	st.Addf("readyReplicas", "%d", d.Status.ReadyReplicas)
	scale, err := c.kube.AppsV1().Deployments(Namespace).GetScale(ctx, DeploymentName, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	sc := n.Add("GET deployments/"+DeploymentName+"/scale", scale.APIVersion+" "+scale.Kind)
	if scale.APIVersion == "" {
		sc.Value = "autoscaling/v1 Scale"
	}
	sc.Addf("spec.replicas", "%d", scale.Spec.Replicas)
	sc.Addf("status.replicas", "%d", scale.Status.Replicas)
	sc.Add("status.selector", scale.Status.Selector)
	pods, err := c.kube.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(d.Spec.Selector)})
	if err != nil {
		return nil, err
	}
	n.Add("pods matching the selector", fmt.Sprintf(c.tr.LiveNoController, len(pods.Items)))
	rl, err := c.disc.ServerResourcesForGroupVersion("apps/v1")
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	var served []string
	for _, r := range rl.APIResources {
		served = append(served, r.Name)
	}
	n.Add("apps/v1 serves", strings.Join(served, ", "))
	return n, nil
}

// versions shows what version skew is made of here: the server's version, the versions each
// group serves and prefers, and the version each resource's objects are stored in.
func versions(ctx context.Context, c *clients) (*server.Node, error) {
	n := &server.Node{}
	v, err := c.disc.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("/version: %w", err)
	}
	vn := n.Add("GET /version", v.GitVersion)
	vn.Add("major.minor", v.Major+"."+v.Minor)
	vn.Add("goVersion", v.GoVersion)
	vn.Add("platform", v.Platform)
	groups, err := c.disc.ServerGroups()
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	gn := n.Add("served versions", "")
	for _, g := range groups.Groups {
		var vs []string
		for _, v := range g.Versions {
			vs = append(vs, v.Version)
		}
		name := g.Name
		if name == "" {
			name = `"" (core)`
		}
		gn.Add(name, strings.Join(vs, ", ")+"; preferred "+g.PreferredVersion.Version)
	}
	a, err := c.s.Etcd()
	if err != nil {
		return nil, err
	}
	sn := n.Add("storage versions (read from stored bytes)", "")
	for _, r := range a.Resources() {
		resp, err := a.Get(ctx, r.KeyPrefix, clientv3.WithPrefix(), clientv3.WithLimit(1))
		if err != nil {
			return nil, err
		}
		if len(resp.Kvs) == 0 {
			sn.Add(r.Resource.String(), c.tr.LiveNothingStored)
			continue
		}
		so, err := a.Decode(resp.Kvs[0].Value)
		if err != nil {
			sn.Add(r.Resource.String(), err.Error())
			continue
		}
		sn.Add(r.Resource.String(), so.GVK.GroupVersion().String()+" ("+mediaName(so.MediaType)+")")
	}
	return n, nil
}

// mediaName shortens a media type for a tree value.
func mediaName(mt string) string {
	switch mt {
	case mediaProtobuf:
		return "protobuf"
	case mediaJSON:
		return "JSON"
	}
	return mt
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
