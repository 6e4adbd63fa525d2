package outcome

import (
	"slices"
	"strings"

	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// targetList holds target statuses sorted by key (targetKey) in chunks of
// about chunkSize, so that a change copies the chunks it touches and
// shares the others with the list it came from (splice): the live model's
// outcome after one change costs that change, not the world's targets.
type targetList struct {
	chunks []chunk
	n      int
}

// chunk is a run of a targetList: statuses and their keys, sorted.
type chunk struct {
	ts   []TargetStatus
	keys []string
}

// chunkSize is the length of the chunks a targetList is cut into.
const chunkSize = 256

// newTargetList holds ts, sorted, with their keys; it shares their arrays.
func newTargetList(ts []TargetStatus, keys []string) targetList {
	l := targetList{n: len(ts)}
	for i := 0; i < len(ts); i += chunkSize {
		j := min(i+chunkSize, len(ts))
		l.chunks = append(l.chunks, chunk{ts: slices.Clip(ts[i:j]), keys: slices.Clip(keys[i:j])})
	}
	return l
}

// all returns the statuses and keys in order, in new slices.
func (l targetList) all() ([]TargetStatus, []string) {
	ts, keys := make([]TargetStatus, 0, l.n), make([]string, 0, l.n)
	for _, c := range l.chunks {
		ts, keys = append(ts, c.ts...), append(keys, c.keys...)
	}
	return ts, keys
}

// chunkOf is the index of the chunk where key is or would go: the last
// whose first key is not above it, or the first.
func (l targetList) chunkOf(key string) int {
	i, _ := slices.BinarySearchFunc(l.chunks, key, func(c chunk, k string) int {
		if c.keys[0] <= k {
			return -1
		}
		return 1
	})
	return max(i-1, 0)
}

// splice is l without the statuses whose keys are in drop and with ts
// (sorted, with their keys), each put where its key sorts; l is not
// changed, and the chunks no key falls in are shared.
func (l targetList) splice(drop []string, ts []TargetStatus, keys []string) targetList {
	if len(l.chunks) == 0 {
		return newTargetList(slices.Clone(ts), slices.Clone(keys))
	}
	type edit struct {
		drop []string
		ts   []TargetStatus
		keys []string
	}
	edits := map[int]*edit{}
	at := func(key string) *edit {
		c := l.chunkOf(key)
		e := edits[c]
		if e == nil {
			e = &edit{}
			edits[c] = e
		}
		return e
	}
	for _, k := range drop {
		e := at(k)
		e.drop = append(e.drop, k)
	}
	for i, k := range keys {
		e := at(k)
		e.ts, e.keys = append(e.ts, ts[i]), append(e.keys, k)
	}
	out := targetList{chunks: make([]chunk, 0, len(l.chunks)+len(edits))}
	for i, c := range l.chunks {
		e := edits[i]
		if e == nil {
			out.chunks = append(out.chunks, c)
			out.n += len(c.ts)
			continue
		}
		slices.Sort(e.drop)
		merged := chunk{ts: make([]TargetStatus, 0, len(c.ts)+len(e.ts)), keys: make([]string, 0, len(c.ts)+len(e.ts))}
		j := 0
		for x, k := range c.keys {
			for j < len(e.keys) && e.keys[j] < k {
				merged.ts, merged.keys = append(merged.ts, e.ts[j]), append(merged.keys, e.keys[j])
				j++
			}
			if _, gone := slices.BinarySearch(e.drop, k); !gone {
				merged.ts, merged.keys = append(merged.ts, c.ts[x]), append(merged.keys, k)
			}
		}
		merged.ts, merged.keys = append(merged.ts, e.ts[j:]...), append(merged.keys, e.keys[j:]...)
		out.n += len(merged.ts)
		// A chunk grown past twice the size is cut again.
		for len(merged.ts) > 2*chunkSize {
			out.chunks = append(out.chunks, chunk{ts: merged.ts[:chunkSize:chunkSize], keys: merged.keys[:chunkSize:chunkSize]})
			merged.ts, merged.keys = merged.ts[chunkSize:], merged.keys[chunkSize:]
		}
		if len(merged.ts) > 0 {
			out.chunks = append(out.chunks, merged)
		}
	}
	return out
}

// TargetKeys are the keys (targetKey) the targets of kinds at nodes would
// have, sorted, for Splice.
func TargetKeys(g *topology.Graph, kinds []*policykind.Kind, nodes []topology.NodeID) []string {
	out := make([]string, 0, len(nodes)*len(kinds))
	for _, n := range nodes {
		for _, k := range kinds {
			out = append(out, targetKey(g, TargetStatus{Node: n, Kind: k}))
		}
	}
	slices.Sort(out)
	return out
}

// Targets are the target statuses, sorted by node locator then kind, in a
// new slice.
func (o *Outcome) Targets() []TargetStatus {
	ts, _ := o.targets.all()
	return ts
}

// NumTargets is len(o.Targets()).
func (o *Outcome) NumTargets() int { return o.targets.n }

// Splice is o with the policy statuses policies and the target statuses
// whose keys are among drop (TargetKeys) replaced by the targets of part
// (from Update or Compute); o is not changed, and shares with the result
// the chunks of targets no key falls in.
func (o *Outcome) Splice(policies []PolicyStatus, drop []string, part *Outcome) *Outcome {
	ts, keys := part.targets.all()
	return &Outcome{Policies: policies, targets: o.targets.splice(drop, ts, keys)}
}

// TargetsAt are the target statuses of the nodes given, of every kind,
// in order: a search per node, however many targets o has.
func (o *Outcome) TargetsAt(g *topology.Graph, nodes []topology.NodeID) []TargetStatus {
	var out []TargetStatus
	for _, n := range nodes {
		prefix := g.Node(n).Ref.Key() + "\x00" // targetKey's node part
		for c := o.targets.chunkOf(prefix); c < len(o.targets.chunks); c++ {
			ch := o.targets.chunks[c]
			i, _ := slices.BinarySearch(ch.keys, prefix)
			for ; i < len(ch.keys) && strings.HasPrefix(ch.keys[i], prefix); i++ {
				out = append(out, ch.ts[i])
			}
			if i < len(ch.keys) {
				break
			}
		}
	}
	return out
}
