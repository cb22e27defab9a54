package extension

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
	"github.com/kubewalk/kubewalk/server"
)

// fakeControl is an extension server and its APIService as an HTTP server reports it: the
// APIService is Available exactly while the extension runs, as the availability controller
// would have it.
type fakeControl struct {
	mu      sync.Mutex
	running bool
	serving server.ServeStatus
	stopErr error
	api     *httptest.Server
	calls   []string
}

func newFake(t *testing.T, running bool) *fakeControl {
	f := &fakeControl{running: running, serving: server.Serving}
	f.api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/apiregistration.k8s.io/v1/apiservices/"+server.ExtensionAPIService {
			http.NotFound(w, r)
			return
		}
		cond := apiregistrationv1.APIServiceCondition{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionFalse, Reason: "MissingEndpoints"}
		if f.ExtensionRunning() {
			cond.Status, cond.Reason = apiregistrationv1.ConditionTrue, "Passed"
		}
		svc := apiregistrationv1.APIService{TypeMeta: metav1.TypeMeta{APIVersion: "apiregistration.k8s.io/v1", Kind: "APIService"},
			ObjectMeta: metav1.ObjectMeta{Name: server.ExtensionAPIService},
			Status:     apiregistrationv1.APIServiceStatus{Conditions: []apiregistrationv1.APIServiceCondition{cond}}}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&svc)
	}))
	t.Cleanup(f.api.Close)
	return f
}

func (f *fakeControl) StopExtension() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "stop")
	if f.stopErr != nil {
		return f.stopErr
	}
	f.running = false
	return nil
}

func (f *fakeControl) StartExtension(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "start")
	f.running = true
	return nil
}

func (f *fakeControl) ExtensionRunning() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.running
}

func (f *fakeControl) ExtensionAddress() string        { return "https://127.0.0.1:40123" }
func (f *fakeControl) ServeStatus() server.ServeStatus { return f.serving }
func (f *fakeControl) RESTConfig(string) (*rest.Config, error) {
	return &rest.Config{Host: f.api.URL}, nil
}

// notes runs cmd as bubbletea would (a sequence in order) and returns the notes it said.
func notes(cmd tea.Cmd) []string {
	if cmd == nil {
		return nil
	}
	var out []string
	var run func(msg tea.Msg)
	run = func(msg tea.Msg) {
		switch m := msg.(type) {
		case view.NoteMsg:
			out = append(out, string(m))
		case tea.BatchMsg:
			for _, c := range m {
				run(c())
			}
		default:
			// tea.Sequence's message is unexported: run its commands in order.
			if cmds, ok := sequence(msg); ok {
				for _, c := range cmds {
					if c != nil {
						run(c())
					}
				}
			}
		}
	}
	run(cmd())
	return out
}

// sequence reads tea.Sequence's message, a slice of commands under an unexported type.
func sequence(msg tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Slice || v.Type().Elem() != reflect.TypeFor[tea.Cmd]() {
		return nil, false
	}
	out := make([]tea.Cmd, v.Len())
	for i := range out {
		out[i] = v.Index(i).Interface().(tea.Cmd)
	}
	return out, true
}

func TestCommand(t *testing.T) {
	for _, lang := range i18n.Languages() {
		tr := i18n.For(lang)
		for _, tc := range []struct {
			name    string
			running bool
			serving server.ServeStatus
			stopErr error
			args    string
			problem string
			notes   []string
			calls   []string
			after   bool // running afterwards
		}{
			{name: "status running", running: true, args: "",
				notes: []string{"https://127.0.0.1:40123", "Available=True", "Passed"}, after: true},
			{name: "status stopped", args: "", notes: []string{"Available=False", "MissingEndpoints"}},
			{name: "stop", running: true, args: "stop",
				notes: []string{tr.ExtensionStopping, "Available=False", "MissingEndpoints", "503"}, calls: []string{"stop"}},
			{name: "stop fails", running: true, stopErr: errors.New("boom"), args: "stop",
				notes: []string{tr.ExtensionStopping, "boom"}, calls: []string{"stop"}, after: true},
			{name: "start", args: "start", notes: []string{tr.ExtensionStarting, "Available=True"}, calls: []string{"start"}, after: true},
			{name: "stop when stopped", args: "stop", problem: tr.ExtensionAlreadyStopped},
			{name: "start when running", running: true, args: "start", problem: "https://127.0.0.1:40123", after: true},
			{name: "bad argument", running: true, args: "restart", problem: `"restart"`, after: true},
			{name: "not serving", running: true, serving: server.Stopped, args: "stop", problem: tr.ExtensionNotServing, after: true},
		} {
			t.Run(lang+"/"+tc.name, func(t *testing.T) {
				f := newFake(t, tc.running)
				if tc.serving != 0 {
					f.serving = tc.serving
				}
				f.stopErr = tc.stopErr
				c := Command(tr, f)
				act := c.Run(tc.args)
				if tc.problem != "" {
					if !strings.Contains(act.Problem, tc.problem) || act.Cmd != nil {
						t.Fatalf("problem = %q (cmd %v), want it to say %q", act.Problem, act.Cmd != nil, tc.problem)
					}
				} else if act.Problem != "" {
					t.Fatalf("problem %q", act.Problem)
				}
				got := notes(act.Cmd)
				for i, want := range tc.notes {
					if !slicesContains(got, want) {
						t.Errorf("note %d: %q not in %q", i, want, got)
					}
				}
				if strings.Join(f.calls, ",") != strings.Join(tc.calls, ",") {
					t.Errorf("calls = %v, want %v", f.calls, tc.calls)
				}
				if f.ExtensionRunning() != tc.after {
					t.Errorf("running afterwards = %v, want %v", f.ExtensionRunning(), tc.after)
				}
			})
		}
	}
}

func slicesContains(notes []string, want string) bool {
	for _, n := range notes {
		if strings.Contains(n, want) {
			return true
		}
	}
	return false
}
