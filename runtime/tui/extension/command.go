// Package extension is the learner's control of kubewalk's aggregated API server: the
// :extension command, which stops the extension server (as if its pod went away) and starts it
// again, and says what the aggregator's availability controller made of it.
package extension

import (
	"context"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/cmdline"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
	"github.com/kubewalk/kubewalk/server"
)

// Control is what :extension needs of the server; *server.Server has it. A screen whose server
// lacks it (a test's fake) has no :extension.
type Control interface {
	StopExtension() error
	StartExtension(ctx context.Context) error
	ExtensionRunning() bool
	ExtensionAddress() string
	ServeStatus() server.ServeStatus
	RESTConfig(contextName string) (*rest.Config, error)
}

// AvailabilityBound bounds the wait for the aggregator's availability controller to see the
// change (it checks each APIService on every change of its endpoints, and every 30 s).
const AvailabilityBound = 60 * time.Second

// userAgent marks the command's own reads of the APIService as kubewalk's: the Requests view
// hides them with the rest of kubewalk's traffic (tracing.HiddenAgentPrefix).
const userAgent = "kubewalk-extension-control"

// Command is the :extension [stop|start] row of the : command table. Alone it says whether the
// extension server runs and what its APIService's Available condition is; stop stops it, start
// starts it again; each then waits (bounded) for the availability controller and says what it
// decided. The notes are in tr's language.
func Command(tr *i18n.Strings, ctl Control) cmdline.Command {
	return cmdline.Command{
		Name: "extension", Args: "[stop|start]",
		Desc: func(t *i18n.Strings) string { return t.CmdExtension },
		Complete: func(args []string, _ string) []cmdline.Suggestion {
			if len(args) > 0 {
				return nil
			}
			return []cmdline.Suggestion{{Text: "stop", Desc: tr.SuggestExtensionStop}, {Text: "start", Desc: tr.SuggestExtensionStart}}
		},
		Run: func(args string) cmdline.Action {
			if args != "" && args != "stop" && args != "start" {
				return cmdline.Action{Problem: fmt.Sprintf(tr.CmdExtensionArg, args)}
			}
			if ctl.ServeStatus() != server.Serving {
				return cmdline.Action{Problem: tr.ExtensionNotServing}
			}
			running := ctl.ExtensionRunning()
			switch {
			case args == "":
				return cmdline.Action{Cmd: status(tr, ctl)}
			case args == "stop" && !running:
				return cmdline.Action{Problem: tr.ExtensionAlreadyStopped}
			case args == "start" && running:
				return cmdline.Action{Problem: fmt.Sprintf(tr.ExtensionAlreadyRunning, ctl.ExtensionAddress())}
			case args == "stop":
				return cmdline.Action{Cmd: tea.Sequence(note(tr.ExtensionStopping), stop(tr, ctl))}
			}
			return cmdline.Action{Cmd: tea.Sequence(note(tr.ExtensionStarting), start(tr, ctl))}
		},
	}
}

func note(s string) tea.Cmd { return func() tea.Msg { return view.NoteMsg(s) } }

// stop stops the extension server and waits for its APIService to turn unavailable.
func stop(tr *i18n.Strings, ctl Control) tea.Cmd {
	return func() tea.Msg {
		if err := ctl.StopExtension(); err != nil {
			return view.NoteMsg(fmt.Sprintf(tr.ExtensionStopFailed, err))
		}
		cond, err := waitAvailable(ctl, apiregistrationv1.ConditionFalse)
		if err != nil {
			return view.NoteMsg(fmt.Sprintf(tr.ExtensionStoppedWaiting, server.ExtensionAPIService, err))
		}
		return view.NoteMsg(fmt.Sprintf(tr.ExtensionStopped, server.ExtensionAPIService, cond.Reason))
	}
}

// start starts the extension server again and waits for its APIService to turn available.
func start(tr *i18n.Strings, ctl Control) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), AvailabilityBound)
		defer cancel()
		if err := ctl.StartExtension(ctx); err != nil {
			return view.NoteMsg(fmt.Sprintf(tr.ExtensionStartFailed, err))
		}
		if _, err := waitAvailable(ctl, apiregistrationv1.ConditionTrue); err != nil {
			return view.NoteMsg(fmt.Sprintf(tr.ExtensionStartedWaiting, ctl.ExtensionAddress(), server.ExtensionAPIService, err))
		}
		return view.NoteMsg(fmt.Sprintf(tr.ExtensionStarted, ctl.ExtensionAddress(), server.ExtensionAPIService))
	}
}

// status says whether the extension runs and what its APIService's condition is.
func status(tr *i18n.Strings, ctl Control) tea.Cmd {
	return func() tea.Msg {
		state := tr.ExtensionStateStopped
		if ctl.ExtensionRunning() {
			state = fmt.Sprintf(tr.ExtensionStateRunning, ctl.ExtensionAddress())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cond, err := condition(ctx, ctl)
		if err != nil {
			return view.NoteMsg(fmt.Sprintf(tr.ExtensionStatusErr, state, err))
		}
		return view.NoteMsg(fmt.Sprintf(tr.ExtensionStatus, state, server.ExtensionAPIService, cond.Status, cond.Reason))
	}
}

// waitAvailable waits, bounded, until the APIService's Available condition is want.
func waitAvailable(ctl Control, want apiregistrationv1.ConditionStatus) (apiregistrationv1.APIServiceCondition, error) {
	ctx, cancel := context.WithTimeout(context.Background(), AvailabilityBound)
	defer cancel()
	var last apiregistrationv1.APIServiceCondition
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		c, err := condition(ctx, ctl)
		if err != nil {
			return false, nil //nolint:nilerr // the server may answer again in a moment
		}
		last = c
		return c.Status == want, nil
	})
	return last, err
}

// condition reads the APIService's Available condition as kubectl get apiservices shows it.
func condition(ctx context.Context, ctl Control) (apiregistrationv1.APIServiceCondition, error) {
	cfg, err := ctl.RESTConfig("admin")
	if err != nil {
		return apiregistrationv1.APIServiceCondition{}, err
	}
	cfg.UserAgent = userAgent
	client, err := aggregatorclient.NewForConfig(cfg)
	if err != nil {
		return apiregistrationv1.APIServiceCondition{}, err
	}
	svc, err := client.ApiregistrationV1().APIServices().Get(ctx, server.ExtensionAPIService, metav1.GetOptions{})
	if err != nil {
		return apiregistrationv1.APIServiceCondition{}, err
	}
	c := v1helper.GetAPIServiceConditionByType(svc, apiregistrationv1.Available)
	if c == nil {
		return apiregistrationv1.APIServiceCondition{Status: apiregistrationv1.ConditionUnknown}, nil
	}
	return *c, nil
}
