package emit

import (
	"strconv"

	"github.com/strata-dev/strata/pkg/query"
)

// The emitter writes a PolicyDescription and a PolicyList from their Go
// fields as it writes an EffectivePolicy (typed.go); a block's values go
// the generic way.

func (e *yamlEmitter) policyDescription(d *query.PolicyDescription, depth int) error {
	saved := e.increaseIndent(false, false)
	e.member("ancestors")
	e.keep(e.slice(d.Ancestors == nil, len(d.Ancestors), func(i int) error { e.ancestorStatus(&d.Ancestors[i]); return nil }))
	e.field("apiVersion", d.APIVersion)
	e.member("attachedTo")
	e.keep(e.refs(d.AttachedTo))
	e.member("blocks")
	e.keep(e.slice(d.Blocks == nil, len(d.Blocks), func(i int) error { return e.block(&d.Blocks[i], depth+1) }))
	e.field("kind", d.Kind)
	e.member("policy")
	e.policySummary(&d.Policy)
	e.member("reaches")
	e.keep(e.slice(d.Reaches == nil, len(d.Reaches), func(i int) error { return e.reach(&d.Reaches[i], depth+1) }))
	if len(d.Rejected) > 0 {
		e.member("rejected")
		e.keep(e.items(len(d.Rejected), func(i int) error { e.rejection(&d.Rejected[i]); return nil }))
	}
	e.indent = saved
	return e.err
}

// policyList emits `get policies -o yaml`'s PolicyList, whose items are
// the summaries a PolicyDescription holds (policySummary).
func (e *yamlEmitter) policyList(l *query.PolicyList) error {
	saved := e.increaseIndent(false, false)
	e.field("apiVersion", l.APIVersion)
	e.member("items")
	e.keep(e.slice(l.Items == nil, len(l.Items), func(i int) error { e.policySummary(&l.Items[i]); return nil }))
	e.field("kind", l.Kind)
	e.indent = saved
	return e.err
}

func (e *yamlEmitter) ancestorStatus(a *query.AncestorStatus) {
	saved := e.increaseIndent(false, false)
	e.member("ancestorRef")
	e.ref(&a.Ancestor)
	e.member("conditions")
	_ = e.slice(a.Conditions == nil, len(a.Conditions), func(i int) error {
		c := &a.Conditions[i]
		return again(e, e.ancestorConds[:], *c, func() error { e.writeAncestorCondition(c); return nil })
	})
	e.indent = saved
}

// writeAncestorCondition writes a description's condition (ancestorStatus).
func (e *yamlEmitter) writeAncestorCondition(c *query.Condition) {
	s := e.increaseIndent(false, false)
	e.field("message", c.Message)
	e.field("reason", c.Reason)
	e.field("status", c.Status)
	e.field("type", c.Type)
	e.indent = s
}

func (e *yamlEmitter) block(b *query.Block, depth int) error {
	saved := e.increaseIndent(false, false)
	e.field("field", b.Field)
	e.field("strategy", b.Strategy)
	e.member("values")
	e.keep(e.orNull(b.Values == nil, func() error { return e.generic(b.Values, false, true, false, depth+1) }))
	e.indent = saved
	return e.err
}

func (e *yamlEmitter) policySummary(s *query.PolicySummary) {
	saved := e.increaseIndent(false, false)
	e.member("affects")
	writeCount(e, &s.Affects)
	e.field("class", s.Class)
	e.optField("created", s.Created)
	e.field("group", s.Group)
	e.field("kind", s.Kind)
	e.member("managed")
	e.plainScalar(strconv.FormatBool(s.Managed))
	e.field("name", s.Name)
	e.optField("namespace", s.Namespace)
	e.member("status")
	inner := e.increaseIndent(false, false)
	e.field("accepted", s.Status.Accepted)
	e.optField("enforcement", s.Status.Enforcement)
	if len(s.Status.Reasons) > 0 {
		e.member("reasons")
		_ = e.items(len(s.Status.Reasons), func(i int) error { e.stringScalar(validUTF8(s.Status.Reasons[i])); return nil })
	}
	e.indent = inner
	e.member("targets")
	_ = e.slice(s.Targets == nil, len(s.Targets), func(i int) error { e.stringScalar(validUTF8(s.Targets[i])); return nil })
	e.indent = saved
}

func (e *yamlEmitter) reach(r *query.Reach, depth int) error {
	saved := e.increaseIndent(false, false)
	e.member("results")
	e.keep(e.intMap(r.Results, depth+1))
	e.member("target")
	e.ref(&r.Target)
	e.indent = saved
	return e.err
}

// intMap emits a map[string]int as encoding/json writes it (null when
// nil, {} when empty), its keys in go-yaml's order.
func (e *yamlEmitter) intMap(m map[string]int, depth int) error {
	switch {
	case m == nil:
		e.null()
		return nil
	case len(m) == 0:
		e.emptyFlow("{", "}")
		return nil
	}
	return emitMap(e, m, depth, func(k string, n int) { e.intField(k, int64(n)) })
}

func (e *yamlEmitter) rejection(r *query.Rejection) {
	saved := e.increaseIndent(false, false)
	e.field("field", r.Field)
	e.field("message", r.Message)
	e.member("policy")
	writePolicyRef(e, &r.Policy)
	e.field("reason", r.Reason)
	e.indent = saved
}
