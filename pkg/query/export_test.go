package query

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Replacing recomputes a run as if policy p were replaced by the object u,
// which must be the same policy (group, kind, name; an empty namespace is
// p's).
func Replacing(res *engine.Result, p *policykind.Policy, u *unstructured.Unstructured) (*engine.Result, error) {
	u, err := replacement(p, u)
	if err != nil {
		return nil, err
	}
	return res.Recompute(instances(res, p, u), map[schema.GroupKind]bool{p.Kind.Key(): true})
}

// Adding recomputes a run as if the object u, a policy of a kind the run
// knows that is not among its policies, were created.
func Adding(res *engine.Result, u *unstructured.Unstructured) (*engine.Result, error) {
	k, err := newPolicyKind(res, u)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, q := range res.Policies {
		if q.Kind.Key() == k.Key() {
			out = append(out, q.Object)
		}
	}
	return res.Recompute(append(out, u), map[schema.GroupKind]bool{k.Key(): true})
}

// Check lists the findings of every policy of the result, in engine order
// (kind, then namespace/name), each policy's in FindingClasses order.
func Check(res *engine.Result) []Finding {
	out, _ := CheckOnly(res, Filter{AllNamespaces: true}) // a complete run has every status
	return out
}

// pathKey is a path's locator: its nodes' keys (nodeKey), each followed
// by '>'.
func (q *query) pathKey(path []topology.NodeID) string {
	return string(q.appendPathKey(nil, path))
}
