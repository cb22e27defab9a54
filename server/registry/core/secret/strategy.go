// Package secret provides the REST storage of core/v1 secrets.
package secret

import (
	"context"
	"crypto/tls"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubewalk/kubewalk/server/registry/internal/store"
	"github.com/kubewalk/kubewalk/server/registry/internal/validation"
)

// strategy implements create, update and delete behaviour for secrets.
type strategy struct{ store.BaseStrategy }

var _ store.Strategy = strategy{}

func newStrategy(typer runtime.ObjectTyper) strategy {
	return strategy{store.NewBaseStrategy(typer)}
}

// NamespaceScoped reports true: secrets live in namespaces.
func (strategy) NamespaceScoped() bool { return true }

// PrepareForCreate folds stringData into data.
func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	normalize(obj.(*corev1.Secret))
}

// PrepareForUpdate folds stringData into data.
func (strategy) PrepareForUpdate(_ context.Context, obj, _ runtime.Object) {
	normalize(obj.(*corev1.Secret))
}

// normalize does what kube-apiserver's conversion to its internal type does: stringData is a
// write-only convenience merged over data (its values win) and never stored. It also types an
// untyped secret Opaque, as the scheme's defaulter does for decoded requests.
func normalize(s *corev1.Secret) {
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = make(map[string][]byte, len(s.StringData))
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
	}
	s.StringData = nil
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
}

// Validate validates a new secret.
func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validate(obj.(*corev1.Secret))
}

// ValidateUpdate validates an updated secret: its type never changes, and an immutable secret
// keeps its data.
func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	s, oldS := obj.(*corev1.Secret), old.(*corev1.Secret)
	errs := apivalidation.ValidateObjectMetaUpdate(&s.ObjectMeta, &oldS.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, apivalidation.ValidateImmutableField(s.Type, oldS.Type, field.NewPath("type"))...)
	errs = append(errs, validation.ImmutableUpdate(s.Immutable, oldS.Immutable, map[string]bool{
		"data": !validation.BinaryDataEqual(s.Data, oldS.Data),
	})...)
	return append(errs, validate(s)...)
}

// WarningsOnCreate warns when a TLS secret's certificate and key do not form a key pair.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return warnings(obj.(*corev1.Secret))
}

// WarningsOnUpdate warns when a TLS secret's certificate and key do not form a key pair.
func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return warnings(obj.(*corev1.Secret))
}

func warnings(s *corev1.Secret) []string {
	if s.Type != corev1.SecretTypeTLS {
		return nil
	}
	if _, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// validate checks the name, the data keys, the total size and the keys each well-known secret
// type requires.
func validate(s *corev1.Secret) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&s.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	dataPath := field.NewPath("data")
	errs = append(errs, validation.DataKeys(s.Data, dataPath)...)
	size := 0
	for _, v := range s.Data {
		size += len(v)
	}
	if size > validation.MaxDataSize {
		errs = append(errs, field.TooLong(dataPath, "", validation.MaxDataSize))
	}
	return append(errs, validateType(s, dataPath)...)
}

func validateType(s *corev1.Secret, dataPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	require := func(keys ...string) {
		for _, k := range keys {
			if _, ok := s.Data[k]; !ok {
				errs = append(errs, field.Required(dataPath.Key(k), ""))
			}
		}
	}
	requireJSON := func(key string) {
		v, ok := s.Data[key]
		if !ok {
			errs = append(errs, field.Required(dataPath.Key(key), ""))
			return
		}
		var m map[string]any
		if err := json.Unmarshal(v, &m); err != nil {
			errs = append(errs, field.Invalid(dataPath.Key(key), "<secret contents redacted>", err.Error()))
		}
	}
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg:
		requireJSON(corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJson:
		requireJSON(corev1.DockerConfigJsonKey)
	case corev1.SecretTypeBasicAuth:
		_, user := s.Data[corev1.BasicAuthUsernameKey]
		_, password := s.Data[corev1.BasicAuthPasswordKey]
		if !user && !password {
			require(corev1.BasicAuthUsernameKey, corev1.BasicAuthPasswordKey)
		}
	case corev1.SecretTypeSSHAuth:
		require(corev1.SSHAuthPrivateKey)
	case corev1.SecretTypeTLS:
		require(corev1.TLSCertKey, corev1.TLSPrivateKeyKey)
	}
	return errs
}

var attrs = store.AttrFunc("secrets", true, func(s *corev1.Secret) fields.Set {
	return fields.Set{"type": string(s.Type)}
})

// GetAttrs returns the labels of a secret and its selectable fields: metadata.name,
// metadata.namespace and type.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }
