// Package objchange tells whether an update of a Kubernetes object changed
// what a controller reads, so that status writes, server bookkeeping and a
// controller's own annotations do not trigger work (GEP-713 "the fanout
// problem": a controller that reacts to its own writes never settles).
package objchange

import (
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Changed compares two versions of an object without status,
// resourceVersion, managedFields and the annotations ignore says to
// ignore (nil ignores none). An object that cannot be converted counts as
// changed: better one reconcile too many than a change missed.
func Changed(o, n client.Object, ignore func(annotation string) bool) bool {
	if o.GetResourceVersion() == n.GetResourceVersion() {
		return false
	}
	a, b := strip(o, ignore), strip(n, ignore)
	return a == nil || b == nil || !equality.Semantic.DeepEqual(a, b)
}

// All ignores every annotation.
func All(string) bool { return true }

func strip(obj client.Object, ignore func(string) bool) map[string]any {
	// A copy: for unstructured objects the converter returns the very map
	// the informer's store holds.
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj.DeepCopyObject())
	if err != nil {
		return nil
	}
	delete(m, "status")
	md, ok := m["metadata"].(map[string]any)
	if !ok {
		return m
	}
	delete(md, "resourceVersion")
	delete(md, "managedFields")
	if ann, ok := md["annotations"].(map[string]any); ok && ignore != nil {
		for k := range ann {
			if ignore(k) {
				delete(ann, k)
			}
		}
		if len(ann) == 0 {
			delete(md, "annotations")
		}
	}
	return m
}
