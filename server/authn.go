package server

import (
	"context"
	"fmt"

	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/anonymous"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/request/union"
	"k8s.io/apiserver/pkg/authentication/request/x509"
	"k8s.io/apiserver/pkg/authentication/token/tokenfile"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/kubewalk/kubewalk/server/rbac"
)

var authnCheckpoints = []Checkpoint{
	{PhaseAuthn, "x509", "x509 client-certificate authenticator trusts the run's CA (CN → user, O → groups)"},
	{PhaseAuthn, "token", "Static bearer-token authenticator holds this run's random tokens"},
	{PhaseAuthn, "union", "Union authenticator: the first authenticator that says yes wins"},
	{PhaseAuthn, "anonymous", "Anonymous authenticator last, for health and version paths only"},
}

// Identity is one of the users the run's kubeconfig carries.
type Identity struct {
	// Context is the kubeconfig context name.
	Context string
	// User is the name the authenticator returns.
	User string
	// Groups are the groups the authenticator returns (system:authenticated is added on top).
	Groups []string
	// Token is the bearer token (token identities only).
	Token string
	// ClientCertPEM and ClientKeyPEM are set for certificate identities.
	ClientCertPEM, ClientKeyPEM []byte
}

// Identity names shared by the authenticators, the bootstrap RBAC policy and the kubeconfig.
const (
	AdminUser = rbac.UserAdmin
	AliceUser = rbac.UserAlice
	BobUser   = rbac.UserBob
)

// anonymousPaths are the only paths an unauthenticated request is let through to authorization
// for; everything else answers 401. RBAC's system:public-info-viewer then allows them.
var anonymousPaths = []string{"/healthz", "/livez", "/readyz", "/version"}

// Authn runs the authn phase: it builds the request authenticator chain kube-apiserver builds
// in pkg/kubeapiserver/authenticator (Config.New) — x509 and bearer tokens in a union, wrapped
// so every authenticated user gets system:authenticated, then anonymous behind a fail-on-error
// union, so a bad credential is a 401 and never silently becomes anonymous.
func (s *Server) Authn(ctx context.Context) error {
	return s.inPhase(ctx, PhaseAuthn, func(ctx context.Context, run *phaseRun) error {
		c := s.c
		a := &authnState{}
		s.an = a

		admin, err := c.ca.newClientCert(AdminUser, []string{user.SystemPrivilegedGroup})
		if err != nil {
			return err
		}
		a.identities = append(a.identities, Identity{
			Context: "admin", User: AdminUser, Groups: []string{user.SystemPrivilegedGroup},
			ClientCertPEM: admin.CertPEM, ClientKeyPEM: admin.KeyPEM,
		})
		a.x509 = x509.NewDynamic(c.caBundle.VerifyOptions, x509.CommonNameUserConversion)
		if err := run.reach(ctx, "x509"); err != nil {
			return err
		}

		tokens := map[string]*user.DefaultInfo{}
		for _, id := range []Identity{
			{Context: "alice", User: AliceUser, Token: randomToken()},
			{Context: "bob", User: BobUser, Token: randomToken()},
		} {
			tokens[id.Token] = &user.DefaultInfo{Name: id.User, UID: "kubewalk-" + id.User, Groups: id.Groups}
			a.identities = append(a.identities, id)
		}
		a.badToken = randomToken() // the badtoken context's: never added to tokens
		a.tokens = tokenfile.New(tokens)
		a.bearer = bearertoken.New(a.tokens)
		if err := run.reach(ctx, "token"); err != nil {
			return err
		}

		a.union = group.NewAuthenticatedGroupAdder(union.New(a.x509, a.bearer))
		if err := run.reach(ctx, "union"); err != nil {
			return err
		}

		conditions := make([]apiserver.AnonymousAuthCondition, 0, len(anonymousPaths))
		for _, p := range anonymousPaths {
			conditions = append(conditions, apiserver.AnonymousAuthCondition{Path: p})
		}
		a.anonymous = anonymous.NewAuthenticator(conditions)
		a.final = union.NewFailOnError(a.union, a.anonymous)
		c.generic.Authentication.Authenticator = a.final
		s.observeAuthn(a) // recording requests: the same chain, each authenticator decorated (recording.go)
		return run.reach(ctx, "anonymous")
	})
}

// Identities returns the users the kubeconfig carries, once the authn phase has run.
func (s *Server) Identities() []Identity {
	if s.an == nil {
		return nil
	}
	return append([]Identity(nil), s.an.identities...)
}

// identity returns the identity for a kubeconfig context.
func (a *authnState) identity(context string) (Identity, error) {
	for _, id := range a.identities {
		if id.Context == context {
			return id, nil
		}
	}
	return Identity{}, fmt.Errorf("no identity for context %q", context)
}
