package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	authzunion "k8s.io/apiserver/pkg/authorization/union"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubewalk/kubewalk/server/rbac"
)

var authzCheckpoints = []Checkpoint{
	{PhaseAuthz, "informers", "Loopback clientset and shared informer factory (started after serve)"},
	{PhaseAuthz, "rbac", "RBAC authorizer reads Roles and bindings through informer listers"},
	{PhaseAuthz, "privileged", "Privileged-groups authorizer lets system:masters through first"},
	{PhaseAuthz, "union", "Authorizer chain: the first Allow or Deny wins; no opinion means 403"},
}

// informerResync is long: RBAC objects change only through this server, and watches carry them.
const informerResync = 10 * time.Minute

// Authz runs the authz phase. kube-apiserver builds its authorizer in BuildAuthorizer
// (pkg/controlplane/apiserver/config.go) from the --authorization-mode list; kubewalk's chain is
// fixed: system:masters first, then RBAC over the rbac.authorization.k8s.io/v1 objects this
// very server stores, read through informers on its own loopback client.
func (s *Server) Authz(ctx context.Context) error {
	return s.inPhase(ctx, PhaseAuthz, func(ctx context.Context, run *phaseRun) error {
		c := s.c
		a := &authzState{}
		s.az = a
		var err error

		// Own the HTTP client so Close can drop its keep-alive connections to the server.
		a.httpClient, err = rest.HTTPClientFor(c.loopback)
		if err != nil {
			return fmt.Errorf("loopback client: %w", err)
		}
		client, err := kubernetes.NewForConfigAndClient(c.loopback, a.httpClient)
		if err != nil {
			return fmt.Errorf("loopback clientset: %w", err)
		}
		a.client = client
		a.informers = informers.NewSharedInformerFactory(client, informerResync)
		// genericapiserver's "generic-apiserver-start-informers" post-start hook starts it.
		c.generic.SharedInformerFactory = a.informers
		if err := run.reach(ctx, "informers"); err != nil {
			return err
		}

		rbacInformers := a.informers.Rbac().V1()
		a.rbac = rbac.NewAuthorizer(
			rbacInformers.Roles().Lister(),
			rbacInformers.RoleBindings().Lister(),
			rbacInformers.ClusterRoles().Lister(),
			rbacInformers.ClusterRoleBindings().Lister(),
		)
		if err := run.reach(ctx, "rbac"); err != nil {
			return err
		}

		a.privileged = authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup)
		if err := run.reach(ctx, "privileged"); err != nil {
			return err
		}

		a.chain = []authzunion.NamedAuthorizer{
			{AuthorizerName: "privileged-groups", Authorizer: a.privileged},
			{AuthorizerName: "rbac", Authorizer: a.rbac},
		}
		a.final, err = authzunion.New(a.chain...)
		if err != nil {
			return fmt.Errorf("authorizer union: %w", err)
		}
		a.resolver = authzunion.NewRuleResolvers(a.rbac)
		c.generic.Authorization.Authorizer = a.final
		c.generic.RuleResolver = a.resolver
		// Recording requests or holding them: the same chain, decorated (recording.go).
		if err := s.observeAuthz(a); err != nil {
			return err
		}
		return run.reach(ctx, "union")
	})
}

// stop waits for the informers to finish. They run on the server's stop channel (the
// "generic-apiserver-start-informers" post-start hook starts them), so Close stops the server
// first; Shutdown then waits for their goroutines, and returns at once if they never started.
func (a *authzState) stop() {
	if a.informers != nil {
		a.informers.Shutdown()
	}
	if a.httpClient != nil {
		a.httpClient.CloseIdleConnections()
	}
}

// OnAuthorizationChange calls fn after each change the RBAC authorizer can see — a Role,
// ClusterRole, RoleBinding or ClusterRoleBinding added, changed or deleted — once the informer
// cache the authorizer reads holds it: a decision asked for from fn (a SubjectAccessReview)
// sees the change. Nothing is polled: fn rides on the watches the informers already hold.
// fn runs on an informer goroutine and must return quickly. It is not called for the objects
// already cached when it registers, nor on the informers' periodic resync, which change
// nothing. The returned func unregisters fn. It fails until the authz phase has run, and once
// the server is closed.
func (s *Server) OnAuthorizationChange(fn func()) (remove func(), err error) {
	s.mu.Lock()
	closed, authzDone := s.closed, s.next > slices.Index(Phases(), PhaseAuthz)
	a := s.az
	s.mu.Unlock()
	switch {
	case closed:
		return nil, fmt.Errorf("authorization changes: %w", ErrClosed)
	case !authzDone || a == nil || a.informers == nil:
		return nil, errors.New("authorization changes: the authz phase has not built the RBAC informers yet")
	}
	handler := cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(_ any, initial bool) {
			if !initial {
				fn()
			}
		},
		UpdateFunc: func(old, obj any) {
			o, err1 := meta.Accessor(old)
			n, err2 := meta.Accessor(obj)
			if err1 == nil && err2 == nil && o.GetResourceVersion() == n.GetResourceVersion() {
				return // a resync: nothing changed
			}
			fn()
		},
		DeleteFunc: func(any) { fn() },
	}
	rbacInformers := a.informers.Rbac().V1()
	var regs []func()
	remove = func() {
		for _, r := range regs {
			r()
		}
	}
	for _, inf := range []cache.SharedIndexInformer{
		rbacInformers.Roles().Informer(), rbacInformers.RoleBindings().Informer(),
		rbacInformers.ClusterRoles().Informer(), rbacInformers.ClusterRoleBindings().Informer(),
	} {
		reg, err := inf.AddEventHandler(handler)
		if err != nil {
			remove()
			return nil, fmt.Errorf("authorization changes: %w", err)
		}
		regs = append(regs, func() { _ = inf.RemoveEventHandler(reg) })
	}
	return remove, nil
}
