package observe

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"time"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/registry/rest"
)

// Strategies decorates REST strategies so that the Recorder learns each validation's verdict:
// the field errors the strategy's Validate or ValidateUpdate returned, and which function
// that was. A genericregistry.Store calls them from rest.BeforeCreate / BeforeUpdate, after
// mutating admission and before validating admission.
type Strategies struct {
	record recordFunc
}

// NewStrategies returns strategy decorators recording to rec.
func NewStrategies(rec Recorder) Strategies { return Strategies{record: recorderFunc(rec)} }

// DecorateCreate returns s decorated for resource. A strategy that validates declaratively
// (rest.DeclarativeValidationStrategy, which the decorator would hide) is returned as it is.
func (d Strategies) DecorateCreate(resource schema.GroupResource, s rest.RESTCreateStrategy) rest.RESTCreateStrategy {
	if s == nil || d.record == nil {
		return s
	}
	if _, ok := s.(rest.DeclarativeValidationStrategy); ok {
		return s
	}
	if _, ok := s.(*createStrategy); ok {
		return s
	}
	return &createStrategy{RESTCreateStrategy: s, record: d.record, resource: resource.Resource, anchor: MethodAnchor(s, "Validate")}
}

// DecorateUpdate returns s decorated for resource, as DecorateCreate.
func (d Strategies) DecorateUpdate(resource schema.GroupResource, s rest.RESTUpdateStrategy) rest.RESTUpdateStrategy {
	if s == nil || d.record == nil {
		return s
	}
	if _, ok := s.(rest.DeclarativeValidationStrategy); ok {
		return s
	}
	if _, ok := s.(*updateStrategy); ok {
		return s
	}
	return &updateStrategy{RESTUpdateStrategy: s, record: d.record, resource: resource.Resource, anchor: MethodAnchor(s, "ValidateUpdate")}
}

type createStrategy struct {
	rest.RESTCreateStrategy
	record   recordFunc
	resource string
	anchor   string
}

// Validate runs the strategy's Validate and records its verdict.
func (s *createStrategy) Validate(ctx context.Context, obj k8sruntime.Object) field.ErrorList {
	start := time.Now()
	errs := s.RESTCreateStrategy.Validate(ctx, obj)
	recordValidation(ctx, s.record, s.anchor, "create", s.resource, start, errs)
	return errs
}

type updateStrategy struct {
	rest.RESTUpdateStrategy
	record   recordFunc
	resource string
	anchor   string
}

// ValidateUpdate runs the strategy's ValidateUpdate and records its verdict.
func (s *updateStrategy) ValidateUpdate(ctx context.Context, obj, old k8sruntime.Object) field.ErrorList {
	start := time.Now()
	errs := s.RESTUpdateStrategy.ValidateUpdate(ctx, obj, old)
	recordValidation(ctx, s.record, s.anchor, "update", s.resource, start, errs)
	return errs
}

func recordValidation(ctx context.Context, record recordFunc, anchor, op, resource string, start time.Time, errs field.ErrorList) {
	id := audit.GetAuditIDTruncated(ctx)
	if id == "" {
		return
	}
	r := &Validation{ID: id, Strategy: anchor, Operation: op, Resource: resource, Start: start, Duration: time.Since(start)}
	for _, e := range errs {
		fe := FieldError{Field: e.Field, Type: e.Type.String(), Detail: e.Detail}
		if e.BadValue != nil && e.Type != field.ErrorTypeRequired && e.Type != field.ErrorTypeForbidden {
			fe.Value = fmt.Sprint(e.BadValue)
			if len(fe.Value) > maxValueLen {
				fe.Value = fe.Value[:maxValueLen] + "…"
			}
			if IsSecretResource(resource) {
				fe.Value = Redacted
			}
		}
		r.Errors = append(r.Errors, fe)
	}
	record(r)
}

// maxValueLen bounds a field error's bad value in a record (a too-long value may be 1 MiB).
const maxValueLen = 200

// serverPackage is the import path of kubewalk's server; anchors are relative to it.
const serverPackage = "github.com/kubewalk/kubewalk/server"

// MethodAnchor names the function that implements method of v's type, in the lessons'
// anchor form: relative to server/ for kubewalk's own code ("registry/core/configmap.strategy.Validate",
// "admit.(*CreatedBy).Admit", "registry/internal/store.BaseStrategy.X" for a method promoted
// from an embedded type), and with the full import path for anything else
// ("k8s.io/apiserver/pkg/authorization/authorizerfactory.(*privilegedGroupAuthorizer).Authorize").
// It follows embedding to the type that declares the method.
func MethodAnchor(v any, method string) string {
	t := reflect.TypeOf(v)
	if t == nil {
		return ""
	}
	for range 8 { // embedding depth; a cycle is impossible, the bound is for safety
		owner, next, ok := declaringType(t, method)
		if !ok {
			return anchorFor(t, method)
		}
		if next == nil {
			return anchorFor(owner, method)
		}
		t = next
	}
	return anchorFor(t, method)
}

// declaringType reports whether t's method is declared on t itself (owner, next == nil; for a
// pointer type whose element declares it with a value receiver, owner is the element) or
// promoted from an embedded field of type next.
func declaringType(t reflect.Type, method string) (owner, next reflect.Type, ok bool) {
	m, ok := t.MethodByName(method)
	if !ok {
		return nil, nil, false
	}
	if declared(m) {
		return t, nil, true
	}
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
		if m, ok := st.MethodByName(method); ok && declared(m) {
			return st, nil, true
		}
	}
	if st.Kind() != reflect.Struct {
		return t, nil, true
	}
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		if !f.Anonymous {
			continue
		}
		if _, ok := f.Type.MethodByName(method); ok {
			return t, f.Type, true
		}
		if f.Type.Kind() != reflect.Pointer {
			if _, ok := reflect.PointerTo(f.Type).MethodByName(method); ok {
				return t, reflect.PointerTo(f.Type), true
			}
		}
	}
	return t, nil, true
}

// declared reports whether m's code is the method as written, not a wrapper the compiler
// generated (for a promoted method, or a value method called through a pointer).
func declared(m reflect.Method) bool {
	fn := runtime.FuncForPC(m.Func.Pointer())
	if fn == nil {
		return false
	}
	file, _ := fn.FileLine(fn.Entry())
	return file != "<autogenerated>"
}

func anchorFor(t reflect.Type, method string) string {
	ptr := t.Kind() == reflect.Pointer
	if ptr {
		t = t.Elem()
	}
	pkg, name := t.PkgPath(), t.Name()
	sym := name + "." + method
	if ptr {
		sym = "(*" + name + ")." + method
	}
	switch {
	case pkg == serverPackage:
		return sym
	case strings.HasPrefix(pkg, serverPackage+"/"):
		return strings.TrimPrefix(pkg, serverPackage+"/") + "." + sym
	}
	return pkg + "." + sym
}
