package apis

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
)

// fieldLabels lists, per core/v1 kind, the field selector labels beyond metadata.name and
// metadata.namespace that the server accepts. They match what kube-apiserver accepts for the
// same kinds, so `kubectl describe` (which lists events by involvedObject) works.
var fieldLabels = map[string][]string{
	"Event": {
		"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
		"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
		"involvedObject.fieldPath", "reason", "reportingComponent", "source", "type",
	},
	"Pod": {
		"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
		"spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName",
	},
	"Secret":    {"type"},
	"Namespace": {"status.phase"},
}

// addFieldLabelConversions registers the accepted field selector labels with the scheme.
func addFieldLabelConversions(s *runtime.Scheme) error {
	for kind, labels := range fieldLabels {
		allowed := map[string]bool{"metadata.name": true, "metadata.namespace": true}
		for _, l := range labels {
			allowed[l] = true
		}
		err := s.AddFieldLabelConversionFunc(CoreV1.WithKind(kind), func(label, value string) (string, string, error) {
			if allowed[label] {
				return label, value, nil
			}
			return "", "", fmt.Errorf("field label not supported: %s", label)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
	}
	return nil
}

// FieldLabels returns the field selector labels accepted for a core/v1 kind beyond
// metadata.name and metadata.namespace.
func FieldLabels(kind string) []string {
	return append([]string(nil), fieldLabels[kind]...)
}
