package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/registry/rest"
	restclient "k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Node is one entry of the inspectable state tree: a label, an optional value and children.
type Node struct {
	Label    string  `json:"label"`
	Value    string  `json:"value,omitempty"`
	Children []*Node `json:"children,omitempty"`
}

// Add appends a child and returns it.
func (n *Node) Add(label, value string) *Node {
	c := &Node{Label: label, Value: value}
	n.Children = append(n.Children, c)
	return c
}

// Addf appends a child whose value is formatted.
func (n *Node) Addf(label, format string, args ...any) *Node {
	return n.Add(label, fmt.Sprintf(format, args...))
}

// Find returns the first node, depth first, whose label is label, or nil.
func (n *Node) Find(label string) *Node {
	if n == nil {
		return nil
	}
	if n.Label == label {
		return n
	}
	for _, c := range n.Children {
		if f := c.Find(label); f != nil {
			return f
		}
	}
	return nil
}

// String renders the tree as indented text, one node a line.
func (n *Node) String() string {
	var b strings.Builder
	var walk func(n *Node, depth int)
	walk = func(n *Node, depth int) {
		b.WriteString(strings.Repeat("  ", depth))
		b.WriteString(n.Label)
		if n.Value != "" {
			b.WriteString(": ")
			b.WriteString(n.Value)
		}
		b.WriteByte('\n')
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// LiveObject is a named pointer to a live object the server built, for a debugger-style view.
type LiveObject struct {
	Name  string
	Value any
}

// State describes what the phases have built so far, read from the live objects. Call it from
// the hook or while no phase is running: the phase goroutine writes these objects.
func (s *Server) State() *Node {
	root := &Node{Label: "kubewalk"}
	if s.c != nil {
		s.c.describe(root.Add(string(PhaseConfig), ""))
	}
	if s.an != nil {
		s.an.describe(root.Add(string(PhaseAuthn), ""))
	}
	if s.az != nil {
		s.az.describe(root.Add(string(PhaseAuthz), ""))
	}
	if s.ad != nil {
		s.ad.describe(root.Add(string(PhaseAdmission), ""))
	}
	if s.st != nil {
		s.st.describe(root.Add(string(PhaseStorage), ""), s.opts.EtcdPrefix)
	}
	if s.in != nil {
		s.in.describe(root.Add(string(PhaseInstall), ""))
	}
	if s.sv != nil {
		s.describeServe(root.Add(string(PhaseServe), ""))
	}
	return root
}

// PhaseState returns the subtree of one phase, or nil if it has not started.
func (s *Server) PhaseState(p Phase) *Node {
	for _, c := range s.State().Children {
		if c.Label == string(p) {
			return c
		}
	}
	return nil
}

// LiveObjects returns the live Go objects each started phase built, for raw inspection.
//
// Once the serve phase has started the server, informers, watch caches and handlers change
// their maps on other goroutines; reading those maps by reflection without their locks can
// stop the process ("concurrent map read and map write"). From then on only objects that no
// longer change are returned, plus a note naming what was left out.
func (s *Server) LiveObjects() []LiveObject {
	if s.sv != nil && s.sv.cancel != nil {
		out := []LiveObject{{"config.scheme", s.c.scheme.Scheme}, {"authn.authenticator", s.an.final}}
		return append(out, LiveObject{"note", "the server is running: informer caches, watch caches, " +
			"the authorizer, admission chain, stores and handlers are hidden from the raw view, " +
			"because reading their maps without their locks could crash it; the state tree still describes them"})
	}
	var out []LiveObject
	if s.c != nil {
		out = append(out, LiveObject{"config.scheme", s.c.scheme.Scheme}, LiveObject{"config.genericConfig", s.c.generic})
	}
	if s.an != nil {
		out = append(out, LiveObject{"authn.authenticator", s.an.final})
	}
	if s.az != nil {
		out = append(out, LiveObject{"authz.authorizer", s.az.final}, LiveObject{"authz.rbac", s.az.rbac})
	}
	if s.ad != nil {
		out = append(out, LiveObject{"admission.chain", s.ad.chain})
	}
	if s.st != nil {
		out = append(out, LiveObject{"storage.factory", s.st.factory})
		if s.st.embedded != nil {
			out = append(out, LiveObject{"storage.etcd", s.st.embedded})
		}
		for _, r := range s.st.stores {
			out = append(out, LiveObject{"storage.store." + r.Resource, r.Storage})
		}
	}
	if s.in != nil && s.in.generic != nil {
		out = append(out, LiveObject{"install.genericAPIServer", s.in.generic})
	}
	if s.sv != nil {
		out = append(out, LiveObject{"serve.prepared", s.sv.prepared})
	}
	return out
}

func (c *configState) describe(n *Node) {
	sch := n.Add("scheme", "")
	gvs := map[schema.GroupVersion]int{}
	for gvk := range c.scheme.AllKnownTypes() {
		gvs[gvk.GroupVersion()]++
	}
	keys := make([]schema.GroupVersion, 0, len(gvs))
	for gv := range gvs {
		keys = append(keys, gv)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, gv := range keys {
		label := gv.String()
		if gv.Group == "" {
			label = "core/" + gv.Version
		}
		sch.Addf(label, "%d kinds", gvs[gv])
	}
	var media []string
	for _, m := range c.scheme.Codecs.SupportedMediaTypes() {
		media = append(media, m.MediaType)
	}
	n.Add("codecs", strings.Join(media, ", "))

	g := c.generic
	if g == nil {
		return
	}
	gen := n.Add("genericConfig", "genericapiserver.RecommendedConfig")
	gen.Add("RequestTimeout", g.RequestTimeout.String())
	gen.Addf("MaxRequestsInFlight", "%d (mutating %d)", g.MaxRequestsInFlight, g.MaxMutatingRequestsInFlight)
	gen.Add("LegacyAPIGroupPrefixes", strings.Join(g.LegacyAPIGroupPrefixes.List(), ", "))
	var checks []string
	for _, h := range g.ReadyzChecks {
		checks = append(checks, h.Name())
	}
	gen.Add("ReadyzChecks", strings.Join(checks, ", "))

	if c.ca != nil {
		ss := n.Add("secureServing", "")
		ss.Add("bindAddress", c.host)
		ss.Addf("port", "%d", c.port)
		ss.Add("listening", listeningState(g.SecureServing != nil && g.SecureServing.Listener != nil))
		ss.Addf("CA", "CN=%s, ECDSA P-256, valid until %s", c.ca.Cert.Subject.CommonName, c.ca.Cert.NotAfter.Format(time.RFC3339))
		var sans []string
		for _, ip := range c.serving.Cert.IPAddresses {
			sans = append(sans, ip.String())
		}
		sans = append(sans, c.serving.Cert.DNSNames...)
		ss.Addf("servingCert", "CN=%s, SANs %s", c.serving.Cert.Subject.CommonName, strings.Join(sans, ", "))
	}
	if c.loopback != nil {
		lb := n.Add("loopback", "")
		lb.Add("host", c.loopback.Host)
		lb.Add("bearerToken", maskToken(c.loopback.BearerToken))
		lb.Add("user", "system:apiserver (groups system:masters) once Complete() runs")
	}
	if c.version != nil {
		v := n.Add("effectiveVersion", "")
		v.Add("binary", c.version.BinaryVersion().String())
		v.Add("emulation", c.version.EmulationVersion().String())
		v.Add("minCompatibility", c.version.MinCompatibilityVersion().String())
		v.Add("gitVersion", c.version.Info().GitVersion)
	}
	if g.OpenAPIV3Config != nil {
		o := n.Add("openAPI", "")
		o.Addf("definitions", "%d", len(g.OpenAPIV3Config.GetDefinitions(func(string) spec.Ref { return spec.Ref{} })))
		o.Add("title", g.OpenAPIV3Config.Info.Title)
	}
}

func listeningState(listening bool) string {
	if listening {
		return "yes"
	}
	return "no (the serve phase opens the listener)"
}

// maskToken shows enough of a secret to recognise it, not to use it.
func maskToken(t string) string {
	if len(t) <= 8 {
		return "****"
	}
	return t[:6] + "…" + fmt.Sprintf(" (%d hex chars)", len(t))
}

func (a *authnState) describe(n *Node) {
	chain := n.Add("authenticator", "union.NewFailOnError (a failing credential is a 401)")
	inner := chain.Add("group.NewAuthenticatedGroupAdder", "adds system:authenticated")
	u := inner.Add("union.New", "first yes wins")
	if a.x509 != nil {
		u.Add("x509.Authenticator", "client certs signed by the run's CA; CN → user, O → groups")
	}
	if a.bearer != nil {
		var users []string
		for _, id := range a.identities {
			if id.Token != "" {
				users = append(users, id.User)
			}
		}
		u.Add("bearertoken → tokenfile.TokenAuthenticator", fmt.Sprintf("%d tokens: %s", len(users), strings.Join(users, ", ")))
	}
	if a.anonymous != nil {
		chain.Add("anonymous.Authenticator", "system:anonymous on "+strings.Join(anonymousPaths, ", "))
	}
	ids := n.Add("identities", "")
	for _, id := range a.identities {
		how := "bearer token " + maskToken(id.Token)
		if id.Token == "" {
			how = "client certificate"
		}
		groups := append([]string{}, id.Groups...)
		groups = append(groups, "system:authenticated")
		ids.Addf(id.Context, "user %s, groups [%s], %s", id.User, strings.Join(groups, " "), how)
	}
}

func (a *authzState) describe(n *Node) {
	if a.informers != nil {
		inf := n.Add("informers", "SharedInformerFactory on the loopback client")
		for typ, synced := range a.informers.WaitForCacheSync(closedChan()) {
			inf.Add(typ.String(), syncedState(synced))
		}
	}
	if len(a.chain) > 0 {
		c := n.Add("authorizer", "union: first Allow/Deny wins")
		for i, na := range a.chain {
			c.Addf(fmt.Sprintf("%d. %s", i+1, na.AuthorizerName), "%T", na.Authorizer)
		}
	} else if a.rbac != nil {
		n.Add("rbac", "RBAC authorizer (not in a chain yet)")
	}
}

// closedChan returns a closed channel, so WaitForCacheSync reports without waiting.
func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func syncedState(synced bool) string {
	if synced {
		return "synced"
	}
	return "not synced (informers start after serve)"
}

func (a *admissionState) describe(n *Node) {
	chain := n.Add("chain", "mutating plugins in order, then validating plugins in order")
	for i, p := range a.plugins {
		chain.Addf(fmt.Sprintf("%d. %s", i+1, p.Name), "%s", pluginKind(p.Plugin))
	}
}

func (st *storageState) describe(n *Node, prefix string) {
	e := n.Add("etcd", "")
	if st.external {
		e.Add("mode", "external (--etcd-servers)")
	} else {
		e.Add("mode", "embedded (go.etcd.io/etcd/server/v3/embed)")
		e.Add("dataDir", st.dataDir)
	}
	e.Add("endpoints", strings.Join(st.endpoints, ", "))
	if st.client != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if ml, err := st.client.MemberList(ctx); err == nil {
			m := e.Add("members", fmt.Sprintf("%d", len(ml.Members)))
			for _, mem := range ml.Members {
				m.Addf(mem.Name, "id %x, clients %s", mem.ID, strings.Join(mem.ClientURLs, ", "))
			}
		}
		if len(st.endpoints) > 0 {
			if status, err := st.client.Status(ctx, st.endpoints[0]); err == nil {
				e.Addf("status", "etcd %s, db %d bytes, raft index %d, leader %x", status.Version, status.DbSize, status.RaftIndex, status.Leader)
			}
		}
	}
	if st.factory != nil {
		f := n.Add("storageFactory", "serverstorage.DefaultStorageFactory")
		f.Add("prefix", prefix)
		f.Add("mediaType", st.factory.DefaultMediaType)
		f.Addf("watchCache", "%t", st.etcd.EnableWatchCache)
	}
	if len(st.stores) > 0 {
		r := n.Add("restStores", fmt.Sprintf("%d", len(st.stores)))
		for _, rs := range st.stores {
			r.Add(rs.Resource, st.storeSummary(rs))
		}
	}
}

// storeSummary says where a store keeps its objects and how it encodes them.
func (st *storageState) storeSummary(rs restStore) string {
	resource := strings.Split(rs.Resource, "/")[0]
	gr := schema.GroupResource{Group: rs.GroupVersion.Group, Resource: resource}
	st.getter.mu.Lock()
	opts, ok := st.getter.seen[gr]
	st.getter.mu.Unlock()
	if !ok {
		return fmt.Sprintf("%T", rs.Storage)
	}
	if strings.Contains(rs.Resource, "/") {
		return fmt.Sprintf("subresource of %s, same etcd key", resource)
	}
	return fmt.Sprintf("key %s/%s/…, encoded as %s via %s",
		opts.StorageConfig.Prefix, strings.TrimPrefix(opts.ResourcePrefix, "/"),
		opts.StorageConfig.EncodeVersioner, st.factory.DefaultMediaType)
}

func (in *installState) describe(n *Node) {
	if in.generic == nil {
		return
	}
	groups := n.Add("groups", "")
	for _, g := range in.groups {
		for _, gv := range g.PrioritizedVersions {
			label := gv.String()
			prefix := "/apis/" + gv.String()
			if gv.Group == "" {
				label, prefix = "core/"+gv.Version, "/api/"+gv.Version
			}
			gn := groups.Add(label, prefix)
			names := make([]string, 0, len(g.VersionedResourcesStorageMap[gv.Version]))
			for r := range g.VersionedResourcesStorageMap[gv.Version] {
				names = append(names, r)
			}
			sort.Strings(names)
			for _, r := range names {
				gn.Add(r, verbs(g.VersionedResourcesStorageMap[gv.Version][r]))
			}
		}
	}
	ws := in.generic.Handler.GoRestfulContainer.RegisteredWebServices()
	routes := n.Add("routes", "")
	total := 0
	for _, w := range ws {
		total += len(w.Routes())
		routes.Addf(w.RootPath(), "%d routes", len(w.Routes()))
	}
	routes.Value = fmt.Sprintf("%d go-restful routes", total)
	n.Add("nonGoRestfulMux", strings.Join(in.generic.Handler.NonGoRestfulMux.ListedPaths(), ", "))
	hooks := n.Add("postStartHooks", "")
	for _, h := range in.hooks {
		hooks.Add(h, "/healthz/poststarthook/"+h)
	}
}

// verbs lists the REST verbs a storage supports, as discovery reports them.
func verbs(st rest.Storage) string {
	var v []string
	if _, ok := st.(rest.Creater); ok {
		v = append(v, "create")
	}
	if _, ok := st.(rest.GracefulDeleter); ok {
		v = append(v, "delete")
	}
	if _, ok := st.(rest.CollectionDeleter); ok {
		v = append(v, "deletecollection")
	}
	if _, ok := st.(rest.Getter); ok {
		v = append(v, "get")
	}
	if _, ok := st.(rest.Lister); ok {
		v = append(v, "list")
	}
	if _, ok := st.(rest.Patcher); ok {
		v = append(v, "patch")
	}
	if _, ok := st.(rest.Updater); ok {
		v = append(v, "update")
	}
	if _, ok := st.(rest.Watcher); ok {
		v = append(v, "watch")
	}
	return strings.Join(v, " ")
}

func (s *Server) describeServe(n *Node) {
	sv := s.sv
	n.Add("address", s.c.loopback.Host)
	n.Add("listening", listeningState(sv.listener != nil))
	if !sv.readyAt.IsZero() {
		n.Add("readyAt", sv.readyAt.Format(time.RFC3339Nano))
		n.Add("readyz", s.readyzVerbose())
	}
	if sv.kubeconfig != "" {
		k := n.Add("kubeconfig", sv.kubeconfig)
		for _, id := range s.an.identities {
			k.Add("context "+id.Context, "kubectl --kubeconfig "+sv.kubeconfig+" --context "+id.Context+" get ns")
		}
	}
}

// readyzVerbose fetches /readyz?verbose and returns its checks as one line.
func (s *Server) readyzVerbose() string {
	cfg, err := s.RESTConfig("admin")
	if err != nil {
		return err.Error()
	}
	client, err := restclient.HTTPClientFor(cfg)
	if err != nil {
		return err.Error()
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+"/readyz?verbose", nil)
	resp, err := client.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err.Error()
	}
	ok, failed := 0, 0
	for _, l := range strings.Split(string(body), "\n") {
		switch {
		case strings.HasPrefix(l, "[+]"):
			ok++
		case strings.HasPrefix(l, "[-]"):
			failed++
		}
	}
	return fmt.Sprintf("%s, %d checks ok, %d failing", resp.Status, ok, failed)
}

// pluginKind says whether an admission plugin mutates, validates or both.
func pluginKind(p admission.Interface) string {
	_, m := p.(admission.MutationInterface)
	_, v := p.(admission.ValidationInterface)
	var ops []string
	for _, op := range []admission.Operation{admission.Create, admission.Update, admission.Delete, admission.Connect} {
		if p.Handles(op) {
			ops = append(ops, strings.ToLower(string(op)))
		}
	}
	kind := "validating"
	switch {
	case m && v:
		kind = "mutating + validating"
	case m:
		kind = "mutating"
	}
	return fmt.Sprintf("%s, on %s", kind, strings.Join(ops, "/"))
}
