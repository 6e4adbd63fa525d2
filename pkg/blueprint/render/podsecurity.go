package render

import (
	"fmt"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
)

// podTemplateFunc decodes an object of a workload kind into its typed
// form and returns the metadata and spec of the pod it makes; nil, nil
// when it has no pod template to check.
type podTemplateFunc func(obj map[string]any) (*metav1.ObjectMeta, *corev1.PodSpec, error)

// podTemplates is every kind whose objects carry a pod template, the same
// kinds Pod Security Admission checks (admission.DefaultPodSpecExtractor).
// Each row decodes into the kind's stable version, whose pod template sits
// where the older versions have it.
var podTemplates = map[schema.GroupKind]podTemplateFunc{
	{Kind: "Pod"}: podTemplate(func(o *corev1.Pod) *corev1.PodTemplateSpec {
		return &corev1.PodTemplateSpec{ObjectMeta: o.ObjectMeta, Spec: o.Spec}
	}),
	{Kind: "PodTemplate"}:                podTemplate(func(o *corev1.PodTemplate) *corev1.PodTemplateSpec { return &o.Template }),
	{Kind: "ReplicationController"}:      podTemplate(func(o *corev1.ReplicationController) *corev1.PodTemplateSpec { return o.Spec.Template }),
	{Group: "apps", Kind: "Deployment"}:  podTemplate(func(o *appsv1.Deployment) *corev1.PodTemplateSpec { return &o.Spec.Template }),
	{Group: "apps", Kind: "ReplicaSet"}:  podTemplate(func(o *appsv1.ReplicaSet) *corev1.PodTemplateSpec { return &o.Spec.Template }),
	{Group: "apps", Kind: "StatefulSet"}: podTemplate(func(o *appsv1.StatefulSet) *corev1.PodTemplateSpec { return &o.Spec.Template }),
	{Group: "apps", Kind: "DaemonSet"}:   podTemplate(func(o *appsv1.DaemonSet) *corev1.PodTemplateSpec { return &o.Spec.Template }),
	{Group: "batch", Kind: "Job"}:        podTemplate(func(o *batchv1.Job) *corev1.PodTemplateSpec { return &o.Spec.Template }),
	{Group: "batch", Kind: "CronJob"}:    podTemplate(func(o *batchv1.CronJob) *corev1.PodTemplateSpec { return &o.Spec.JobTemplate.Spec.Template }),
}

// podTemplate makes the row of kind T: decode with
// runtime.DefaultUnstructuredConverter, then take the pod template.
func podTemplate[T any](get func(*T) *corev1.PodTemplateSpec) podTemplateFunc {
	return func(obj map[string]any) (*metav1.ObjectMeta, *corev1.PodSpec, error) {
		typed := new(T)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
			return nil, nil, err
		}
		if t := get(typed); t != nil {
			return &t.ObjectMeta, &t.Spec, nil
		}
		return nil, nil, nil
	}
}

// podSecurityEvaluator holds the checks of the Pod Security Standards, as
// Pod Security Admission runs them, built at the first render that checks
// a pod and only read afterwards.
var podSecurityEvaluator = sync.OnceValue(func() policy.Evaluator {
	e, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		// DefaultChecks is the library's own, valid list.
		panic(fmt.Sprintf("pod security checks: %v", err))
	}
	return e
})

// PodSecurityViolation is one failed check of the Pod Security
// Standards, as Pod Security Admission reports it.
type PodSecurityViolation struct {
	// Reason is the check's short reason, e.g. `allowPrivilegeEscalation != false`.
	Reason string
	// Detail says which containers or values fail it, e.g. `container
	// "nginx" must set securityContext.allowPrivilegeEscalation=false`;
	// it may be empty.
	Detail string
}

// PodSecurityError is a rendered object whose pod template fails the
// blueprint's level of the Pod Security Standards (spec.podSecurity). It
// is a tenant-safety refusal: the renderer reports it with Reason
// NotAllowed.
type PodSecurityError struct {
	// Kind and Name of the object, e.g. Deployment shop-nginx.
	Kind, Name string
	// Level is the level checked, with the version of the standards, as
	// Pod Security Admission names it: restricted:latest.
	Level string
	// Violations are the failed checks, in the library's order
	// (baseline checks first, then restricted, each by check ID).
	Violations []PodSecurityViolation
}

// Error prints what the API server prints for a pod that would fail
// PodSecurity: `Deployment shop-nginx violates PodSecurity
// "restricted:latest": allowPrivilegeEscalation != false (container ...)`.
func (e *PodSecurityError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s violates PodSecurity %q: ", e.Kind, e.Name, e.Level)
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v.Reason)
		if v.Detail != "" {
			b.WriteString(" (" + v.Detail + ")")
		}
	}
	return b.String()
}

// CheckPodSecurity checks the pod template of a rendered object against
// level of the Pod Security Standards, with Pod Security Admission's
// checks at the latest version (a blueprint's spec.podSecurity). Kinds
// without a pod template pass. An empty level is "restricted", the API's
// default; any level but restricted and baseline is an error. A failing
// pod template returns a *PodSecurityError; an object that does not decode
// into its typed form, a plain error naming it.
func CheckPodSecurity(obj *unstructured.Unstructured, level bpv1.PodSecurityLevel) error {
	if level == "" {
		level = bpv1.PodSecurityRestricted
	}
	if level != bpv1.PodSecurityRestricted && level != bpv1.PodSecurityBaseline {
		return fmt.Errorf("spec.podSecurity %q is not a level blueprints offer; use %q or %q",
			level, bpv1.PodSecurityRestricted, bpv1.PodSecurityBaseline)
	}
	gvk := obj.GroupVersionKind()
	template, ok := podTemplates[gvk.GroupKind()]
	if !ok {
		return nil
	}
	meta, spec, err := template(obj.Object)
	if err != nil {
		return fmt.Errorf("%s %s: cannot check its pod template against PodSecurity %q: not a valid %s: %w",
			gvk.Kind, obj.GetName(), level, gvk.GroupKind(), err)
	}
	if spec == nil {
		return nil
	}
	lv := psaapi.LevelVersion{Level: psaapi.Level(level), Version: psaapi.LatestVersion()}
	result := policy.AggregateCheckResults(podSecurityEvaluator().EvaluatePod(lv, meta, spec))
	if result.Allowed {
		return nil
	}
	e := &PodSecurityError{Kind: gvk.Kind, Name: obj.GetName(), Level: lv.String()}
	for i, reason := range result.ForbiddenReasons {
		e.Violations = append(e.Violations, PodSecurityViolation{Reason: reason, Detail: result.ForbiddenDetails[i]})
	}
	return e
}
