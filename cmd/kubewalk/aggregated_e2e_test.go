package main_test

import (
	"strings"
	"testing"
	"time"
)

// TestAggregatedAPIKubectl drives the aggregated API with the real kubectl: the APIService
// kubewalk registers for its extension server turns Available, callers are served through the
// aggregator by the extension (which sees the caller kubectl authenticated as), bob is refused
// by the extension's SubjectAccessReview, and explain reads the schema the aggregator proxies.
func TestAggregatedAPIKubectl(t *testing.T) {
	requireKubectl(t)
	s := startServe(t)

	// The extension starts after /readyz, in the background; wait, bounded, for the
	// availability controller.
	const apiService = "v1alpha1.extension.learn.kubewalk.io"
	deadline := time.Now().Add(time.Minute)
	for {
		out, err := s.kubectl(t, "", "get", "apiservice", apiService, "-o", `jsonpath={.status.conditions[?(@.type=="Available")].status}`)
		if err == nil && out == "True" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("APIService %s not Available after a minute: %v %s", apiService, err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}

	steps := []struct {
		name    string
		args    []string
		want    []string
		notWant []string
		wantErr bool
	}{
		{"get apiservices", []string{"get", "apiservices"},
			[]string{"NAME", "SERVICE", "AVAILABLE", apiService, "kube-system/kubewalk-extension", "True", "v1.apps", "Local"}, nil, false},
		{"get apiservice yaml", []string{"get", "apiservice", apiService, "-o", "yaml"},
			[]string{"caBundle:", "groupPriorityMinimum: 1000", "name: kubewalk-extension", "namespace: kube-system", "port: 443", "reason: Passed"}, nil, false},
		{"api-resources", []string{"api-resources", "--api-group=extension.learn.kubewalk.io"},
			[]string{"callers", "extension.learn.kubewalk.io/v1alpha1", "false", "Caller"}, nil, false},
		{"get callers as admin", []string{"get", "callers"},
			[]string{"NAME", "GROUPS", "REQUESTS", "LAST SEEN", "kubewalk-admin", "system:masters,system:authenticated"}, nil, false},
		{"get one caller", []string{"get", "caller", "kubewalk-admin", "-o", "jsonpath={.user} {.requests}"},
			[]string{"kubewalk-admin 2"}, nil, false},
		{"bob is refused by the extension", []string{"--context", "bob", "get", "callers"},
			[]string{`callers.extension.learn.kubewalk.io is forbidden: User "bob" cannot list resource "callers" in API group "extension.learn.kubewalk.io" at the cluster scope`}, nil, true},
		{"read-only", []string{"delete", "caller", "kubewalk-admin"},
			[]string{"MethodNotAllowed"}, nil, true},
		{"explain", []string{"explain", "callers"},
			[]string{"GROUP:      extension.learn.kubewalk.io", "KIND:       Caller", "VERSION:    v1alpha1", "requests\t<integer> -required-"}, nil, false},
		// The Service the APIService names is a stand-in the aggregator reads in memory;
		// kubewalk serves no Services.
		{"no Services behind it", []string{"get", "services", "-A"}, []string{`the server doesn't have a resource type "services"`}, nil, true},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			out, err := s.kubectl(t, "", st.args...)
			if (err != nil) != st.wantErr {
				t.Fatalf("kubectl %s: err = %v, want error %v\n%s", strings.Join(st.args, " "), err, st.wantErr, out)
			}
			for _, w := range st.want {
				if !strings.Contains(out, w) {
					t.Fatalf("kubectl %s: output lacks %q:\n%s", strings.Join(st.args, " "), w, out)
				}
			}
			for _, w := range st.notWant {
				if strings.Contains(out, w) {
					t.Fatalf("kubectl %s: output has %q:\n%s", strings.Join(st.args, " "), w, out)
				}
			}
		})
	}
}
