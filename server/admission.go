package server

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle"
	utilfeature "k8s.io/apiserver/pkg/util/feature"

	"github.com/kubewalk/kubewalk/server/admit"
)

var admissionCheckpoints = []Checkpoint{
	{PhaseAdmission, "plugins", "Admission plugins constructed: NamespaceLifecycle, CreatedBy, PinnedImages"},
	{PhaseAdmission, "initialize", "Plugin initializer hands each plugin the clients and informers it asks for"},
	{PhaseAdmission, "chain", "Ordered admission chain set on the config; it runs inside each write handler"},
}

// Admission runs the admission phase. kube-apiserver registers all plugins, then builds the
// enabled ones (pkg/kubeapiserver/options/admission.go ApplyTo, which calls the generic
// AdmissionOptions.ApplyTo) in a fixed order: enabledPluginNames walks RecommendedPluginOrder,
// which kube-apiserver sets to AllOrderedPlugins (pkg/kubeapiserver/options/plugins.go), so the
// order of --enable-admission-plugins does not matter. kubewalk's chain is fixed: the
// library's NamespaceLifecycle, then its own mutating CreatedBy and validating PinnedImages.
// The chain runs every mutating plugin in order, then every validating plugin in order.
func (s *Server) Admission(ctx context.Context) error {
	return s.inPhase(ctx, PhaseAdmission, func(ctx context.Context, run *phaseRun) error {
		a := &admissionState{stopCh: make(chan struct{})}
		s.ad = a

		nsLifecycle, err := lifecycle.NewLifecycle(sets.New(metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic))
		if err != nil {
			return fmt.Errorf("%s: %w", lifecycle.PluginName, err)
		}
		a.plugins = []admissionPlugin{
			{lifecycle.PluginName, nsLifecycle},
			{admit.CreatedByName, admit.NewCreatedBy()},
			{admit.PinnedImagesName, admit.NewPinnedImages()},
		}
		if err := run.reach(ctx, "plugins"); err != nil {
			return err
		}

		init := initializer.New(s.az.client, nil, s.az.informers, s.az.final,
			utilfeature.DefaultFeatureGate, s.c.version, a.stopCh, nil)
		handlers := make([]admission.Interface, 0, len(a.plugins))
		for _, p := range a.plugins {
			init.Initialize(p.Plugin)
			if v, ok := p.Plugin.(admission.InitializationValidator); ok {
				if err := v.ValidateInitialization(); err != nil {
					return fmt.Errorf("%s: %w", p.Name, err)
				}
			}
			handlers = append(handlers, p.Plugin)
		}
		if err := run.reach(ctx, "initialize"); err != nil {
			return err
		}

		a.chain = admission.NewChainHandler(handlers...)
		s.c.generic.AdmissionControl = a.chain
		s.observeAdmission(handlers) // recording or holding requests: the same chain, decorated (recording.go)
		return run.reach(ctx, "chain")
	})
}

// stop closes the channel admission plugins watch for server drain.
func (a *admissionState) stop() { close(a.stopCh) }
