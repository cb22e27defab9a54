package server

// Authn on Windows must never be picked on other platforms.
func (s *Server) Authn() error { return nil }
