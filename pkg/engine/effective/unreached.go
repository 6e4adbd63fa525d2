package effective

import (
	"slices"

	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Conflicts says which policies attached at one node the None strategy
// rejects there, and who wins each, whether or not any context reaches
// the node yet (GEP-713 "Merge strategies": under None "the metaresource
// with the oldest creation timestamp that is attached to a target wins").
// scope is the namespace of a scoped GatewayClass attachment ("" for
// none). The answer is the one fold gives in any context.
func Conflicts(g *topology.Graph, k *policykind.Kind, att *attach.Result, node topology.NodeID, scope string) map[*policykind.Policy]*policykind.Policy {
	var atts []*attach.Attachment
	for _, a := range att.ByNode[node] {
		if a.Scope == "" || a.Scope == scope {
			atts = append(atts, a)
		}
	}
	if len(atts) < 2 {
		return nil
	}
	c := newComputer(g, k, att, nil)
	entries := slices.DeleteFunc(c.stack(atts), func(e *Entry) bool { return e.Block.Strategy.Base != policykind.None })
	if len(entries) < 2 {
		return nil
	}
	return c.fold(entries, nil).Conflicted
}
