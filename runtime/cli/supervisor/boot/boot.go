// Package boot supervises a kubewalk run before the libraries initialise: its init function
// calls supervisor.Boot, which, for tour and serve, starts the run as a child process, watches
// it and exits without returning (see runtime/cli/supervisor). Only cmd/kubewalk imports it:
// in any other program (a test binary) the command line is not kubewalk's.
package boot

import "github.com/kubewalk/kubewalk/runtime/cli/supervisor"

func init() {
	supervisor.Boot()
}
