//go:build !linux

package sandbox

import "fmt"

// Probe reports that this operating system offers neither Landlock nor seccomp.
func Probe() Support { return Support{} }

// Apply applies nothing here: without Require it reports that nothing is enforced; with it, and
// with a layer asked for, it fails with ErrUnsupported.
func Apply(spec Spec) (Applied, error) {
	if spec.Require && (spec.Landlock || spec.Seccomp) {
		return Applied{}, fmt.Errorf("sandbox: %w: %s", ErrUnsupported, Probe().Missing())
	}
	return Applied{}, nil
}
