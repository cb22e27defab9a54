// Package authenticator is a fixture: k8s.io/kubernetes source the kube: locations resolve in.
package authenticator

// Config is the fixture config.
type Config struct{}

// New builds the authenticator.
func (config Config) New() error { return nil }

// NewTokenAuthenticator builds the token authenticator.
func NewTokenAuthenticator() error { return nil }
