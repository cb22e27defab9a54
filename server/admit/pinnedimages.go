package admit

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"

	"github.com/kubewalk/kubewalk/server/apis"
)

// PinnedImagesName is the plugin name of the validating PinnedImages plugin.
const PinnedImagesName = "kubewalk.io/PinnedImages"

// PinnedImages is a validating admission plugin: it refuses pods whose container images have no
// tag or digest, or use the floating ":latest" tag. Validating plugins run after every mutating
// plugin and after the object passed the registry's own validation, just before it is written.
type PinnedImages struct {
	*admission.Handler
}

var _ admission.ValidationInterface = &PinnedImages{}

// NewPinnedImages returns the plugin; it handles creates and updates.
func NewPinnedImages() *PinnedImages {
	return &PinnedImages{Handler: admission.NewHandler(admission.Create, admission.Update)}
}

// Validate checks every container and init container image of a pod.
func (p *PinnedImages) Validate(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() != corev1.Resource("pods") || a.GetSubresource() != "" {
		return nil
	}
	pod, ok := a.GetObject().(*corev1.Pod)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	check := func(path *field.Path, cs []corev1.Container) {
		for i, c := range cs {
			if msg := unpinned(c.Image); msg != "" {
				errs = append(errs, field.Forbidden(path.Index(i).Child("image"), msg))
			}
		}
	}
	check(field.NewPath("spec", "containers"), pod.Spec.Containers)
	check(field.NewPath("spec", "initContainers"), pod.Spec.InitContainers)
	if len(errs) == 0 {
		return nil
	}
	return admission.NewForbidden(a, fmt.Errorf("%s: %w", PinnedImagesName, errs.ToAggregate()))
}

// unpinned explains why image is not pinned, or returns "". An image is pinned by a digest,
// or by a tag other than "latest"; one that is not a valid image reference is not pinned
// either. The empty image is left to the registry's validation, which has refused it already.
func unpinned(image string) string {
	if image == "" {
		return ""
	}
	ref, err := apis.ParseImageReference(image)
	switch {
	case err != nil:
		return fmt.Sprintf("image %q is not a valid image reference: %v", image, err)
	case ref.Digest != "":
		return ""
	case ref.Tag == "":
		return fmt.Sprintf("image %q has no tag; pin a version, e.g. %s:1.0", image, image)
	case ref.Tag == "latest":
		return fmt.Sprintf("image %q uses the floating :latest tag; pin a version", image)
	}
	return ""
}

// String names the plugin for the state tree.
func (p *PinnedImages) String() string {
	return fmt.Sprintf("%s (validating, create/update pods)", PinnedImagesName)
}
