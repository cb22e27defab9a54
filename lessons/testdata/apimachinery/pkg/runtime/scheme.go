// Package runtime is a fixture: k8s.io/apimachinery source the resolver tests look symbols up in.
package runtime

// Scheme is the fixture scheme.
type Scheme struct{}

// AllKnownTypes returns nothing.
func (s *Scheme) AllKnownTypes() map[string]int { return nil }
