package cli

// e2eHooks let the end-to-end tests crash kubewalk or hang its shutdown. They do nothing unless
// kubewalk is built with -tags kubewalk_e2e (see e2e_hooks.go); they are set only by that
// file's init.
var e2eHooks = struct {
	// start runs once as a tour or serve process starts (in the supervised child).
	start func()
	// shutdown runs after an interrupt, just before the server is closed.
	shutdown func()
}{start: func() {}, shutdown: func() {}}
