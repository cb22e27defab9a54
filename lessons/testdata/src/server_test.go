package server

// TestOnly lives in a test file, which the resolver skips.
func TestOnly() {}
