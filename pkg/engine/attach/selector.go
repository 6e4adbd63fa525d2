package attach

import (
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// selectors resolves label-selector targetRefs (GEP-713 allows a
// selector where a targetRef names one object) for one Resolve. A list of
// objects (a kind, in one namespace when the kind is namespaced) is
// scanned for its first selector and indexed by label for the rest, so
// that n selectors over m objects cost about m plus what they match, not
// n times m. It is used by one goroutine.
type selectors struct {
	g *topology.Graph
	// lists are the lists a selector read: nil until a second one does.
	lists map[listKey]*labelIndex
}

// listKey names a list of objects a selector chooses from.
type listKey struct {
	gk schema.GroupKind
	ns string // "" for a cluster-scoped kind
}

// labelIndex holds, for one list, the positions in it of the objects with
// each label key and with each key and value, in list order.
type labelIndex struct {
	byKey   map[string][]int32
	byValue map[string]map[string][]int32
}

func newSelectors(g *topology.Graph) *selectors {
	return &selectors{g: g, lists: map[listKey]*labelIndex{}}
}

// nodes are the objects (or their sections, when section is set) of kind
// gk that sel matches, in the target's namespace for a namespaced kind,
// in the order of the graph's lists.
func (s *selectors) nodes(gk schema.GroupKind, info hierarchy.KindInfo, target topology.Ref, section string, sel labels.Selector, crossNS func(topology.Ref) bool) []topology.NodeID {
	key := listKey{gk: gk}
	ids := s.g.ByKind(gk)
	if info.Namespaced {
		key.ns = target.Namespace
		ids = s.g.ByKindIn(gk, target.Namespace)
	}
	var out []topology.NodeID
	keep := func(id topology.NodeID) {
		n := s.g.Node(id)
		if crossNS(n.Ref) || !sel.Matches(labels.Set(n.Labels)) {
			return
		}
		if section == "" {
			out = append(out, id)
		} else if sec, ok := n.Sections.Get(section); ok && !n.Ambiguous[section] {
			out = append(out, sec)
		}
	}
	positions, all := []int32(nil), true
	if ix, read := s.lists[key]; !read {
		s.lists[key] = nil
	} else {
		if ix == nil {
			ix = s.index(ids)
			s.lists[key] = ix
		}
		positions, all = ix.candidates(sel)
	}
	if all {
		for _, id := range ids {
			keep(id)
		}
	}
	for _, p := range positions {
		keep(ids[p])
	}
	return out
}

// index makes the labelIndex of a list.
func (s *selectors) index(ids []topology.NodeID) *labelIndex {
	ix := &labelIndex{byKey: map[string][]int32{}, byValue: map[string]map[string][]int32{}}
	for p, id := range ids {
		for k, v := range s.g.Node(id).Labels {
			ix.byKey[k] = append(ix.byKey[k], int32(p))
			values := ix.byValue[k]
			if values == nil {
				values = map[string][]int32{}
				ix.byValue[k] = values
			}
			values[v] = append(values[v], int32(p))
		}
	}
	return ix
}

// candidates are the positions, ascending, of the objects that can match
// sel: those its most selective requirement that needs a label allows
// (=, == and in need one of their values; exists, gt and lt need the
// key). all is true when no requirement narrows the list (an empty
// selector, or only !=, notin and !key): every object is a candidate.
// sel.Matches still decides each candidate.
func (ix *labelIndex) candidates(sel labels.Selector) (positions []int32, all bool) {
	reqs, selectable := sel.Requirements()
	if !selectable {
		return nil, true
	}
	var best []int32
	found := false
	for _, r := range reqs {
		var ps []int32
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			values := ix.byValue[r.Key()]
			for v := range r.Values() {
				ps = append(ps, values[v]...)
			}
			slices.Sort(ps) // an object has one value per key: no repeats
		case selection.Exists, selection.GreaterThan, selection.LessThan:
			ps = ix.byKey[r.Key()]
		default:
			continue
		}
		if !found || len(ps) < len(best) {
			best, found = ps, true
		}
	}
	return best, !found
}
