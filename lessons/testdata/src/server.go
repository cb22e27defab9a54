// Package server is a fixture: source the resolver tests look symbols up in.
package server

import "fmt"

// Server is the fixture server.
type Server struct{ name string }

// Authn builds the authenticators.
// It uses x509.NewDynamic only in its body.
func (s *Server) Authn() error {
	a := x509.NewDynamic(nil)
	_ = a
	t := tokenfile.New(
		nil,
	)
	_ = t
	return nil
}

// Name has a value receiver.
func (s Server) Name() string { return s.name }

// New returns a server.
func New() *Server { return &Server{} }

type (
	// Phase is a phase.
	Phase string
	// Hook is a hook.
	Hook interface{ Checkpoint() }
)

// defaultPort is a lone var.
var defaultPort = 6443

// List is generic.
type List[T any] struct{ items []T }

// Len has a generic receiver.
func (l *List[T]) Len() int { return len(l.items) }

var _ = fmt.Sprint
