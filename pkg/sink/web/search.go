package web

import (
	"strings"

	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Hit is one search result.
type Hit struct {
	Ref       string `json:"ref"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Policy says the hit is a policy (its page is a policy's page).
	Policy   bool   `json:"policy,omitempty"`
	Standing string `json:"standing,omitempty"`
}

// Results are the first hits of a search and how many there were.
type Results struct {
	Query string `json:"query"`
	Hits  []Hit  `json:"hits"`
	Total int    `json:"total"`
}

// maxHits is how many hits a search returns.
const maxHits = 100

// term is one word of a query: kind:X, ns:X (namespace:X), label:K=V or
// K=V, or a piece of a name.
type term struct{ key, value string }

func parseQuery(q string) []term {
	var out []term
	for _, f := range strings.Fields(q) {
		k, v, ok := strings.Cut(f, ":")
		switch {
		case ok && (k == "kind" || k == "ns" || k == "namespace" || k == "label"):
			if k == "namespace" {
				k = "ns"
			}
			out = append(out, term{k, strings.ToLower(v)})
		case strings.Contains(f, "="):
			out = append(out, term{"label", f})
		default:
			out = append(out, term{"name", strings.ToLower(f)})
		}
	}
	return out
}

// matches reports whether an object or policy matches every term: names
// and kinds by substring, case-insensitively (kind:route finds HTTPRoutes
// and GRPCRoutes), namespaces exactly, labels K=V exactly (K alone: the
// label is set).
func matches(ts []term, kind, ns, name string, labels map[string]string) bool {
	for _, t := range ts {
		switch t.key {
		case "kind":
			if !strings.Contains(strings.ToLower(kind), t.value) {
				return false
			}
		case "ns":
			if strings.ToLower(ns) != t.value {
				return false
			}
		case "label":
			k, v, hasValue := strings.Cut(t.value, "=")
			got, ok := labels[k]
			if !ok || (hasValue && got != v) {
				return false
			}
		case "name":
			if !strings.Contains(strings.ToLower(name), t.value) {
				return false
			}
		}
	}
	return true
}

// Search finds the objects (not sections) and policies matching a query
// (see matches), objects first in the graph's order, then policies in
// the result's order; the first maxHits.
func (w *World) Search(q string) *Results {
	ts := parseQuery(q)
	r := &Results{Query: q, Hits: []Hit{}}
	if len(ts) == 0 {
		return r
	}
	hit := func(h Hit) {
		r.Total++
		if len(r.Hits) < maxHits {
			r.Hits = append(r.Hits, h)
		}
	}
	for i := range w.Res.Graph.Nodes {
		n := w.Res.Graph.Node(topology.NodeID(i))
		if n.Ref.Section != "" || n.Virtual {
			continue
		}
		if matches(ts, n.Ref.Kind, n.Ref.Namespace, n.Ref.Name, n.Labels) {
			hit(Hit{Ref: RefString(n.Ref), Kind: n.Ref.Kind, Namespace: n.Ref.Namespace, Name: n.Ref.Name})
		}
	}
	for _, p := range w.Res.Policies {
		var labels map[string]string
		if p.Object != nil {
			labels = p.Object.GetLabels()
		}
		if matches(ts, p.Kind.Kind, p.Namespace, p.Name, labels) {
			hit(Hit{Ref: PolicyString(p), Kind: p.Kind.Kind, Namespace: p.Namespace, Name: p.Name, Policy: true, Standing: w.Standing(p)})
		}
	}
	return r
}
