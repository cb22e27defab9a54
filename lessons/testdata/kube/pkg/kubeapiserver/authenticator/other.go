package authenticator

// Other is declared in another file of the package.
func Other() {}
