package policies

import (
	"encoding/json"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
)

// What one EffectivePolicy object may hold, well under etcd's 1.5 MiB.
// Past either bound the object is a summary: the first contexts in path
// order, and per kind the number left out (KindPolicies.OmittedContexts).
const (
	// MaxPublishedContexts is the most contexts one object holds, over
	// all its kinds.
	MaxPublishedContexts = 256
	// MaxPublishedBytes bounds the JSON of the contexts one object holds
	// (a context's merged spec may be large: a list of WAF rules).
	MaxPublishedBytes = 512 << 10
)

// withhold applies a kind's visibility (PolicyKind spec.visibility) to
// what is published about it: Settings (or unset) everything; Names the
// policies' names per context, without the merged spec; Kind only that
// the kind affects the target, and how many of its policies do.
func withhold(kp effectivepolicy.KindPolicies, v policykind.Visibility) effectivepolicy.KindPolicies {
	switch v {
	case policykind.VisibilityNames:
		ctxs := make([]effectivepolicy.Context, len(kp.Contexts))
		for i, c := range kp.Contexts {
			ctxs[i] = effectivepolicy.Context{Path: c.Path, ResultantPolicy: emptyObject(), Sources: c.Sources}
		}
		kp.Contexts = ctxs
		kp.Visibility = string(v)
	case policykind.VisibilityKind:
		seen := map[[2]string]bool{}
		for _, c := range kp.Contexts {
			for _, s := range c.Sources {
				seen[[2]string{s.Namespace, s.Name}] = true
			}
		}
		kp.Contexts = []effectivepolicy.Context{}
		kp.PolicyCount = int32(len(seen))
		kp.Visibility = string(v)
	}
	return kp
}

// bound cuts an object's contexts to MaxPublishedContexts and
// MaxPublishedBytes, kind by kind in order, counting what it leaves out;
// every kind is kept.
func bound(kinds []effectivepolicy.KindPolicies) []effectivepolicy.KindPolicies {
	n, size := 0, 0
	out := make([]effectivepolicy.KindPolicies, len(kinds))
	for i, kp := range kinds {
		out[i] = kp
		for j, c := range kp.Contexts {
			b, _ := json.Marshal(c) // Build's values always encode
			if n+1 > MaxPublishedContexts || size+len(b) > MaxPublishedBytes {
				out[i].Contexts = kp.Contexts[:j:j]
				out[i].OmittedContexts = int32(len(kp.Contexts) - j)
				break
			}
			n, size = n+1, size+len(b)
		}
	}
	return out
}

// emptyObject is the merged spec of a context whose settings are
// withheld: {} (the field is required), as for a context that sets none.
func emptyObject() *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte("{}")} }

// attachments says, per context of a run (keyed by target, kind and
// path), where each policy of its stack is attached: the Sources'
// AttachedTo, which Build leaves out.
type attachments map[string]map[[2]string][]effectivepolicy.Ref

func attachmentsOf(res *engine.Result) attachments {
	g := res.Graph
	out := attachments{}
	for i, kr := range res.Kinds {
		if res.SharedWith(i) != i {
			continue
		}
		r := kr.Effective
		for _, t := range r.Targets {
			for _, ctx := range t.Contexts {
				path := make([]effectivepolicy.Ref, len(ctx.Path))
				for j, n := range ctx.Path {
					path[j] = refOf(g.Node(n).Ref)
				}
				byPolicy := map[[2]string][]effectivepolicy.Ref{}
				for _, e := range ctx.Entries {
					p := e.Policy()
					k := [2]string{p.Namespace, p.Name}
					at := refOf(g.Node(e.Attachment.Node).Ref)
					if !slices.Contains(byPolicy[k], at) {
						byPolicy[k] = append(byPolicy[k], at)
					}
				}
				out[contextKey(refOf(g.Node(t.Node).Ref), r.Kind.Group, r.Kind.Kind, path)] = byPolicy
			}
		}
	}
	return out
}

// fill sets the AttachedTo of every source of an object's contexts.
func (a attachments) fill(ep *effectivepolicy.EffectivePolicy) {
	for _, kp := range ep.Policies {
		for _, c := range kp.Contexts {
			byPolicy := a[contextKey(ep.Target, kp.Group, kp.Kind, c.Path)]
			for i := range c.Sources {
				c.Sources[i].AttachedTo = byPolicy[[2]string{c.Sources[i].Namespace, c.Sources[i].Name}]
			}
		}
	}
}

func contextKey(target effectivepolicy.Ref, group, kind string, path []effectivepolicy.Ref) string {
	var b strings.Builder
	b.WriteString(group + "/" + kind + "|" + refKey(target) + "|")
	for _, r := range path {
		b.WriteString(refKey(r) + ">")
	}
	return b.String()
}

func refKey(r effectivepolicy.Ref) string {
	return topology.Ref{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, Section: r.SectionName}.Key()
}

func refOf(r topology.Ref) effectivepolicy.Ref {
	return effectivepolicy.Ref{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, SectionName: r.Section}
}
