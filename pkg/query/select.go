package query

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Selector chooses objects by labels (-l) and by metadata.name and metadata.namespace (--field-selector).
type Selector struct {
	Labels labels.Selector
	Fields fields.Selector
}

// selectableFields are the fields the API server accepts in a field selector for every kind.
var selectableFields = []string{"metadata.name", "metadata.namespace"}

// ParseSelector reads -l and --field-selector with kubectl's parsers.
func ParseSelector(label, field string) (Selector, error) {
	var s Selector
	if label != "" {
		l, err := labels.Parse(label)
		if err != nil {
			return Selector{}, fmt.Errorf("--selector %q: %w", label, err)
		}
		s.Labels = l
	}
	if field != "" {
		f, err := fields.ParseSelector(field)
		if err != nil {
			return Selector{}, fmt.Errorf("--field-selector %q: %w", field, err)
		}
		for _, r := range f.Requirements() {
			if !slices.Contains(selectableFields, r.Field) {
				return Selector{}, fmt.Errorf("--field-selector %q: field label not supported: %s (want %s)", field, r.Field, strings.Join(selectableFields, " or "))
			}
		}
		s.Fields = f
	}
	return s, nil
}

// Empty reports whether the selector chooses everything.
func (s Selector) Empty() bool {
	return (s.Labels == nil || s.Labels.Empty()) && (s.Fields == nil || s.Fields.Empty())
}

// Matches reports whether an object with these labels, namespace and name is chosen.
func (s Selector) Matches(lbls map[string]string, namespace, name string) bool {
	if s.Labels != nil && !s.Labels.Matches(labels.Set(lbls)) {
		return false
	}
	if s.Fields != nil && !s.Fields.Matches(fields.Set{"metadata.name": name, "metadata.namespace": namespace}) {
		return false
	}
	return true
}

// Subjects are the objects or policies of kind k chosen by selector.
func Subjects(res *engine.Result, k KindName, name, ns string, all bool, sel Selector) []Subject {
	in := func(namespace string) bool { return all || namespace == "" || namespace == ns }
	var out []Subject
	if k.Policy != nil {
		for _, p := range res.Policies {
			if p.Kind.Key() != k.Policy.Key() || !in(p.Namespace) || (name != "" && p.Name != name) {
				continue
			}
			if sel.Matches(policyLabels(p), p.Namespace, p.Name) {
				out = append(out, Subject{Node: topology.None, Policy: p})
			}
		}
		return out
	}
	var ids []topology.NodeID
	if info := hierarchy.Kinds[k.Topology]; all || !info.Namespaced {
		ids = res.Graph.ByKind(k.Topology)
	} else {
		ids = res.Graph.ByKindIn(k.Topology, ns)
	}
	for _, id := range ids {
		n := res.Graph.Node(id)
		if n.Virtual || (name != "" && n.Ref.Name != name) || !in(n.Ref.Namespace) {
			continue
		}
		if sel.Matches(n.Labels, n.Ref.Namespace, n.Ref.Name) {
			out = append(out, Subject{Node: id})
		}
	}
	slices.SortFunc(out, func(a, b Subject) int {
		return strings.Compare(res.Graph.Node(a.Node).Ref.String(), res.Graph.Node(b.Node).Ref.String())
	})
	return out
}

// policyLabels are a policy object's labels (none when the engine holds no object for it).
func policyLabels(p *policykind.Policy) map[string]string {
	if p.Object == nil {
		return nil
	}
	return p.Object.GetLabels()
}
