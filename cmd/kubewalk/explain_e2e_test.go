package main_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// widgetsCRD is a CRD whose schema describes its fields, for kubectl explain.
const widgetsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.kubewalk.io
spec:
  group: example.kubewalk.io
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A Widget is something the learner made.
        properties:
          spec:
            type: object
            description: WidgetSpec says how many replicas a widget wants.
            properties:
              replicas: {type: integer, description: How many copies to run.}
`

// TestKubectlExplainCustomResource: the real kubectl explains a CRD's kind from its schema,
// through /openapi/v3 (kubectl's default) and /openapi/v2 (plaintext-openapiv2), as it can
// against kube-apiserver: the apiextensions server publishes each CRD's schema into its
// OpenAPI documents and the aggregator in front serves them with the rest of the chain's.
func TestKubectlExplainCustomResource(t *testing.T) {
	requireKubectl(t)
	s := startServe(t)
	if out, err := s.kubectl(t, widgetsCRD, "apply", "-f", "-"); err != nil {
		t.Fatalf("kubectl apply the CRD: %v\n%s", err, out)
	}
	if out, err := s.kubectl(t, "", "wait", "--for", "condition=established", "crd/widgets.example.kubewalk.io", "--timeout=60s"); err != nil {
		t.Fatalf("kubectl wait established: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"openapi v3", []string{"explain", "widgets.spec"}, []string{"KIND:       Widget", "WidgetSpec says how many replicas a widget wants.", "How many copies to run."}},
		{"openapi v3, the kind", []string{"explain", "widgets"}, []string{"A Widget is something the learner made."}},
		{"openapi v2", []string{"explain", "widgets.spec", "--output=plaintext-openapiv2"}, []string{"KIND:     Widget", "WidgetSpec says how many replicas a widget wants.", "How many copies to run."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The CRD's schema reaches the documents asynchronously after it is established
			// (the apiextensions server's OpenAPI controllers; the aggregator's next look at
			// its delegates' v3 discovery, every second).
			var out string
			err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
				var err error
				out, err = s.kubectl(t, "", tc.args...)
				if err != nil {
					return false, nil
				}
				for _, w := range tc.want {
					if !strings.Contains(out, w) {
						return false, nil
					}
				}
				return true, nil
			})
			if err != nil {
				t.Fatalf("kubectl %s never explained the CRD (%v); last output:\n%s", strings.Join(tc.args, " "), err, out)
			}
		})
	}
}
