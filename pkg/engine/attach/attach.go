package attach

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Reasons of a rejected target reference (001, "Conditions: On Policy
// objects").
const (
	ReasonTargetNotFound = string(gwv1.PolicyReasonTargetNotFound)
	ReasonInvalid        = string(gwv1.PolicyReasonInvalid)
)

// Attachment is a policy attached to a node.
type Attachment struct {
	Policy *policykind.Policy
	Node   topology.NodeID
	// Field of the targetRef that made it, e.g. spec.targetRefs[0].
	Field string
	// Scope, when set, limits a namespaced policy attached to a
	// GatewayClass to Gateways in that namespace (002).
	Scope string
	// Referral marks an attachment made by the node naming the policy
	// (policykind.Spec.ReferencedBy), not by a targetRef.
	Referral bool
	// Global marks a policy of a global namespace attached to a
	// GatewayClass, which 002 ranks below the Namespace level.
	Global bool
}

// Rejection is a targetRef that could not be attached, with the ref to
// report it against (the policy's ancestor for that target).
type Rejection struct {
	Policy  *policykind.Policy
	Field   string
	Target  topology.Ref
	Reason  string
	Message string
}

// Result is the attachment of the policies of one kind.
type Result struct {
	// ByNode lists attachments per node, in GEP-713 conflict order.
	ByNode map[topology.NodeID][]*Attachment
	// ByPolicy lists attachments per policy, in targetRef order.
	ByPolicy map[*policykind.Policy][]*Attachment
	// Rejections in policy then targetRef order.
	Rejections []Rejection
	// attached has a bit set for each node in ByNode (At); nil in a
	// Result not made by Resolve or Of.
	attached []uint64
}

// At returns the attachments at node n, ByNode[n], answering for the many
// nodes without any by a bit per node.
func (r *Result) At(n topology.NodeID) []*Attachment {
	if i := int(n) / 64; r.attached != nil && n >= 0 && i < len(r.attached) && r.attached[i]&(1<<(uint(n)%64)) == 0 {
		return nil
	}
	return r.ByNode[n]
}

// index sets At's bits for the nodes of ByNode below nodes.
func (r *Result) index(nodes int) {
	r.attached = make([]uint64, (nodes+63)/64)
	for n := range r.ByNode {
		if n >= 0 && int(n) < nodes {
			r.attached[n/64] |= 1 << (uint(n) % 64)
		}
	}
}

// Resolve attaches the valid policies of one kind to the graph; the
// targets of Invalid ones are rejections, so they still get a status. The
// graph must hold the virtual objects the policies target
// (VirtualTargets).
func Resolve(g *topology.Graph, policies []*policykind.Policy) *Result {
	res := &Result{ByNode: map[topology.NodeID][]*Attachment{}, ByPolicy: map[*policykind.Policy][]*Attachment{}}
	refs := referrals(g, policies)
	sels := newSelectors(g)
	for _, p := range policies {
		if len(p.Invalid) > 0 {
			msg := strings.Join(p.Invalid, "; ")
			for _, t := range p.TargetRefs {
				res.Rejections = append(res.Rejections, Rejection{Policy: p, Field: t.Field, Target: declared(p, t), Reason: ReasonInvalid, Message: msg})
			}
			if len(p.TargetRefs) == 0 {
				// No target to report against: the policy itself is.
				self := topology.Ref{Group: p.Kind.Group, Kind: p.Kind.Kind, Namespace: p.Namespace, Name: p.Name}
				res.Rejections = append(res.Rejections, Rejection{Policy: p, Field: p.Kind.Fields.Spec, Target: self, Reason: ReasonInvalid, Message: msg})
			}
			continue
		}
		seen := map[topology.NodeID]bool{}
		for _, r := range refs.of(p) {
			if !seen[r.node] {
				seen[r.node] = true
				res.attach(g, p, r.node, r.field).Referral = true
			}
		}
		for _, t := range p.TargetRefs {
			nodes, rej := resolveRef(g, sels, p, t)
			if rej != nil {
				res.Rejections = append(res.Rejections, *rej)
				continue
			}
			for _, n := range nodes {
				if seen[n] {
					continue
				}
				seen[n] = true
				res.attach(g, p, n, t.Field)
			}
		}
	}
	res.index(len(g.Nodes))
	for _, as := range res.ByNode {
		slices.SortFunc(as, conflictOrder)
	}
	return res
}

// conflictOrder is GEP-713's conflict order of attachments: the older
// policy first, then by namespace/name (policykind.Policy.Before).
func conflictOrder(a, b *Attachment) int {
	if a.Policy.Before(b.Policy) {
		return -1
	}
	if b.Policy.Before(a.Policy) {
		return 1
	}
	return 0
}

// attach records p attached at n through field.
func (res *Result) attach(g *topology.Graph, p *policykind.Policy, n topology.NodeID, field string) *Attachment {
	a := &Attachment{Policy: p, Node: n, Field: field}
	if g.Node(n).Ref.GroupKind() == hierarchy.GatewayClassKind && p.Namespace != "" {
		if slices.Contains(p.Kind.GlobalNamespaces, p.Namespace) {
			a.Global = true
		} else {
			a.Scope = p.Namespace
		}
	}
	res.ByNode[n] = append(res.ByNode[n], a)
	res.ByPolicy[p] = append(res.ByPolicy[p], a)
	return a
}

// referral is an object naming a policy in a reference field of its kind
// (policykind.Spec.ReferencedBy).
type referral struct {
	node  topology.NodeID
	field string // for messages: GatewayClass internet spec.parametersRef
}

type referralIndex map[topology.Ref][]referral

// of lists the objects naming p, in node order.
func (ix referralIndex) of(p *policykind.Policy) []referral {
	if ix == nil || len(p.Kind.ReferencedBy) == 0 {
		return nil
	}
	return ix[topology.Ref{Group: p.Kind.Group, Kind: p.Kind.Kind, Namespace: p.Namespace, Name: p.Name}]
}

// referrals reads, in one pass over the objects, the policy each object
// names in a reference field the policies' kinds declare
// (policykind.Spec.ReferencedBy).
func referrals(g *topology.Graph, policies []*policykind.Policy) referralIndex {
	fields := map[policykind.ReferenceField]bool{}
	for _, p := range policies {
		for _, r := range p.Kind.ReferencedBy {
			fields[r] = true
		}
	}
	if len(fields) == 0 {
		return nil
	}
	ix := referralIndex{}
	for id := range g.Nodes {
		n := g.Nodes[id]
		if n.Object == nil || n.Ref.Section != "" {
			continue
		}
		var obj map[string]any // converted once per object, on first need
		for r := range fields {
			if n.Ref.Group != r.Group || n.Ref.Kind != r.Kind {
				continue
			}
			if obj == nil {
				var err error
				if obj, err = runtime.DefaultUnstructuredConverter.ToUnstructured(n.Object); err != nil {
					break
				}
			}
			ref, found, err := unstructured.NestedMap(obj, strings.Split(r.Field, ".")...)
			if err != nil || !found {
				continue
			}
			str := func(k string) string { v, _ := ref[k].(string); return v }
			named := topology.Ref{Group: str("group"), Kind: str("kind"), Name: str("name"), Namespace: str("namespace")}
			if named.Namespace == "" {
				named.Namespace = n.Ref.Namespace // a local reference
			}
			ix[named] = append(ix[named], referral{node: topology.NodeID(id), field: n.Ref.String() + " " + r.Field})
		}
	}
	for k, rs := range ix {
		slices.SortFunc(rs, func(a, b referral) int { return int(a.node) - int(b.node) })
		ix[k] = slices.CompactFunc(rs, func(a, b referral) bool { return a.node == b.node })
	}
	return ix
}

// declared is the ref a targetRef names, defaulted, for reporting.
func declared(p *policykind.Policy, t policykind.TargetRef) topology.Ref {
	r := topology.Ref{Group: t.Group, Kind: t.Kind, Name: t.Name, Namespace: t.Namespace, Section: t.Section}
	info, modelled := hierarchy.Kinds[r.GroupKind()]
	if r.Namespace == "" && (!modelled || info.Namespaced) {
		r.Namespace = p.Namespace
	}
	if modelled && !info.Namespaced {
		r.Namespace = ""
	}
	return r
}

// checked is a targetRef that passed the checks that need no graph:
// the ref it names, and how to find its nodes.
type checked struct {
	gk      schema.GroupKind
	info    hierarchy.KindInfo
	target  topology.Ref
	virtual bool
	// sel, when set, selects the targets by label (crossNS says which
	// of them the policy may not refer to).
	sel    labels.Selector
	p      *policykind.Policy
	grants topology.Grants
}

// crossNS reports whether r (or a Namespace r) is in another namespace
// than the policy without a ReferenceGrant (Memorandum "Cross namespace
// references").
func (c *checked) crossNS(r topology.Ref) bool {
	p := c.p
	if p.Namespace == "" {
		return false
	}
	policyGK := p.Kind.Key()
	if c.gk == hierarchy.NamespaceKind {
		return r.Name != p.Namespace && !c.grants.Granted(policyGK, p.Namespace, topology.Ref{Group: r.Group, Kind: r.Kind, Namespace: r.Name, Name: r.Name})
	}
	return r.Namespace != "" && r.Namespace != p.Namespace && !c.grants.Granted(policyGK, p.Namespace, r.Object())
}

// rejection of targetRef t of p, naming the field at fault.
func rejection(p *policykind.Policy, t policykind.TargetRef, target topology.Ref, reason, field, format string, a ...any) *Rejection {
	return &Rejection{Policy: p, Field: t.Field, Target: target, Reason: reason, Message: fmt.Sprintf("%s: %s", field, fmt.Sprintf(format, a...))}
}

// check validates a targetRef against its policy's kind, the hierarchy
// and the ReferenceGrants, without the graph, so that the virtual objects
// a policy names are known before the graph is built (VirtualTargets).
func check(grants topology.Grants, p *policykind.Policy, t policykind.TargetRef) (checked, *Rejection) {
	k := p.Kind
	gk := schema.GroupKind{Group: t.Group, Kind: t.Kind}
	target := declared(p, t)
	reject := func(reason, field, format string, a ...any) (checked, *Rejection) {
		return checked{}, rejection(p, t, target, reason, field, format, a...)
	}
	if !k.AllowsTarget(gk) {
		allowed := make([]string, len(k.TargetKinds))
		for i, tk := range k.TargetKinds {
			allowed[i] = tk.String()
		}
		return reject(ReasonInvalid, t.Field+".kind", "%s is not a target kind of %s (allowed: %s)", gk, k.Kind, strings.Join(allowed, ", "))
	}
	info, modelled := hierarchy.Kinds[gk]
	virtual := !hierarchy.IsKnownGroup(gk.Group)
	if !modelled && !virtual {
		return reject(ReasonInvalid, t.Field+".kind", "%s is not part of Strata's hierarchy", gk)
	}
	if modelled && !info.Namespaced && t.Namespace != "" {
		return reject(ReasonInvalid, t.Field+".namespace", "%s is cluster-scoped", gk)
	}
	if (virtual || info.Namespaced) && p.Namespace == "" && t.Namespace == "" {
		return reject(ReasonInvalid, t.Field+".namespace", "required: the policy is cluster-scoped and %s is namespaced", gk)
	}
	if t.Section != "" && (virtual || info.Section == "") {
		return reject(ReasonInvalid, t.Field+".sectionName", "%s has no named sections", gk)
	}
	c := checked{gk: gk, info: info, target: target, virtual: virtual, p: p, grants: grants}
	if t.Selector != nil {
		if virtual {
			return reject(ReasonInvalid, t.Field+".selector", "virtual kinds cannot be selected by labels")
		}
		sel, err := metav1.LabelSelectorAsSelector(t.Selector)
		if err != nil {
			return reject(ReasonInvalid, t.Field+".selector", "%v", err)
		}
		c.sel = sel
		return c, nil
	}
	if c.crossNS(target) {
		where := target.Namespace
		if gk == hierarchy.NamespaceKind {
			where = target.Name
		}
		return reject(ReasonInvalid, t.Field+".namespace", "%s is in another namespace and no ReferenceGrant in namespace %s allows %s from namespace %s to refer to it", target.Object(), where, k.Kind, p.Namespace)
	}
	return c, nil
}

// VirtualTargets lists the virtual objects (GEP-713 "Targeting virtual
// types") the valid policies' targetRefs would attach to, in order, for
// the graph to hold them from the start (topology.Extra).
func VirtualTargets(grants topology.Grants, policies []*policykind.Policy) []topology.Ref {
	var out []topology.Ref
	for _, p := range policies {
		if len(p.Invalid) > 0 {
			continue
		}
		for _, t := range p.TargetRefs {
			if hierarchy.IsKnownGroup(t.Group) {
				continue // not virtual: no need to check it twice
			}
			if c, rej := check(grants, p, t); rej == nil && c.virtual {
				out = append(out, c.target)
			}
		}
	}
	return out
}

func resolveRef(g *topology.Graph, sels *selectors, p *policykind.Policy, t policykind.TargetRef) ([]topology.NodeID, *Rejection) {
	c, rej := check(g.Grants(), p, t)
	if rej != nil {
		return nil, rej
	}
	target, info := c.target, c.info
	if c.sel != nil {
		return inRoles(g, p.Kind, c.gk, t.Section, sels.nodes(c.gk, info, target, t.Section, c.sel, c.crossNS)), nil
	}
	id := g.Lookup(target.Object())
	if id == topology.None {
		return nil, rejection(p, t, target, ReasonTargetNotFound, t.Field, "%s not found", target.Object())
	}
	if c.virtual || t.Section == "" {
		return inRoles(g, p.Kind, c.gk, t.Section, []topology.NodeID{id}), nil
	}
	n := g.Node(id)
	if n.Ambiguous[t.Section] {
		return nil, rejection(p, t, target, ReasonInvalid, t.Field+".sectionName", "%s %q is declared more than once in %s", info.Section, t.Section, n.Ref)
	}
	sec, ok := n.Sections.Get(t.Section)
	if !ok {
		return nil, rejection(p, t, target, ReasonTargetNotFound, t.Field+".sectionName", "%s has no %s named %q", n.Ref, info.Section, t.Section)
	}
	return []topology.NodeID{sec}, nil
}

// inRoles maps the object nodes a targetRef names to the nodes of the
// roles the policy's kind acts in (hierarchy.Roles): a Service's own node
// and, for a kind whose effective targets are routes, its frontend
// (GEP-1426); without a frontend the Service's node stays the target. A
// sectionName names a port of the Service itself.
func inRoles(g *topology.Graph, k *policykind.Kind, gk schema.GroupKind, section string, ids []topology.NodeID) []topology.NodeID {
	if section != "" || !hierarchy.Kinds[gk].Frontend {
		return ids
	}
	backend, frontend := hierarchy.Roles(gk, k.EffectiveKinds())
	if !frontend {
		return ids
	}
	out := make([]topology.NodeID, 0, 2*len(ids))
	for _, id := range ids {
		r := g.Node(id).Ref
		r.Role = hierarchy.RoleFrontend
		fe := g.Lookup(r)
		if backend || fe == topology.None {
			out = append(out, id)
		}
		if fe != topology.None {
			out = append(out, fe)
		}
	}
	return out
}

// Of is the part of r about the policies of one kind, sharing r's
// attachments (a value space's kind's view).
func (r *Result) Of(k *policykind.Kind) *Result {
	out := &Result{ByNode: map[topology.NodeID][]*Attachment{}, ByPolicy: map[*policykind.Policy][]*Attachment{}}
	for n, as := range r.ByNode {
		var mine []*Attachment
		for _, a := range as {
			if a.Policy.Kind == k {
				mine = append(mine, a)
			}
		}
		if len(mine) > 0 {
			out.ByNode[n] = mine
		}
	}
	for p, as := range r.ByPolicy {
		if p.Kind == k {
			out.ByPolicy[p] = as
		}
	}
	for _, rj := range r.Rejections {
		if rj.Policy.Kind == k {
			out.Rejections = append(out.Rejections, rj)
		}
	}
	if r.attached != nil {
		out.index(len(r.attached) * 64)
	}
	return out
}

// With is r after a change to some of its policies: the attachments and
// rejections of drop are removed and those of add resolved on g, which
// holds r's graph (topology.Graph.Holds). order is the kind's policies
// after the change, in the order Resolve would take them, which orders the
// rejections. r is not changed; the result shares the lists of the nodes
// and policies the change does not touch, so that its cost is the
// change's attachments, not the kind's (docs/live-model.md).
func (r *Result) With(g *topology.Graph, drop, add, order []*policykind.Policy) *Result {
	out := &Result{ByNode: maps.Clone(r.ByNode), ByPolicy: maps.Clone(r.ByPolicy)}
	gone := make(map[*policykind.Policy]bool, len(drop))
	for _, p := range drop {
		gone[p] = true
	}
	cleared := map[topology.NodeID]bool{}
	for _, p := range drop {
		for _, a := range r.ByPolicy[p] {
			cleared[a.Node] = true
		}
		delete(out.ByPolicy, p)
	}
	for n := range cleared {
		as := slices.DeleteFunc(slices.Clone(out.ByNode[n]), func(a *Attachment) bool { return gone[a.Policy] })
		if len(as) == 0 {
			delete(out.ByNode, n)
		} else {
			out.ByNode[n] = as
		}
	}
	fresh := Resolve(g, add)
	maps.Copy(out.ByPolicy, fresh.ByPolicy)
	for n, as := range fresh.ByNode {
		all := append(slices.Clone(out.ByNode[n]), as...)
		slices.SortStableFunc(all, conflictOrder)
		out.ByNode[n] = all
	}
	// The rejections, in policy order.
	rejected := map[*policykind.Policy][]Rejection{}
	for _, rs := range [][]Rejection{r.Rejections, fresh.Rejections} {
		for _, rj := range rs {
			if !gone[rj.Policy] {
				rejected[rj.Policy] = append(rejected[rj.Policy], rj)
			}
		}
	}
	if len(rejected) > 0 {
		for _, p := range order {
			out.Rejections = append(out.Rejections, rejected[p]...)
		}
	}
	// At's bits: r's, less the nodes left without any, plus the new.
	if r.attached == nil {
		out.index(len(g.Nodes))
		return out
	}
	out.attached = make([]uint64, (len(g.Nodes)+63)/64)
	copy(out.attached, r.attached)
	for n := range cleared {
		if _, ok := out.ByNode[n]; !ok && int(n)/64 < len(out.attached) {
			out.attached[n/64] &^= 1 << (uint(n) % 64)
		}
	}
	for n := range fresh.ByNode {
		out.attached[n/64] |= 1 << (uint(n) % 64)
	}
	return out
}
