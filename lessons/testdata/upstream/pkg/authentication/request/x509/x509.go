// Package x509 is a fixture standing in for k8s.io/apiserver's.
package x509

// Authenticator authenticates client certificates.
type Authenticator struct{}

// NewDynamic returns an Authenticator.
func NewDynamic() *Authenticator {
	return &Authenticator{}
}

// AuthenticateRequest authenticates a request.
func (a *Authenticator) AuthenticateRequest() error { return nil }
