package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"sort"
	"strconv"
	"unicode/utf8"
	"unsafe"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
)

// The emitter writes an EffectivePolicy from its Go fields: the bytes of
// its JSON read back, without the JSON. Each function writes one type's
// members as encoding/json would (omitempty left out, nil as null) in
// go-yaml's key order, the order written here.

// typedWriter is what the YAML emitter and the JSON writer share, so that
// a type's writer is written once for both (writeFragment, writeImpact):
// begin and end a mapping, list starts a sequence (ok false when it is
// null or, in YAML, empty: nothing more to write), next starts an item.
type typedWriter interface {
	begin() int
	end(saved int)
	member(k string)
	field(k, v string)
	optField(k, v string)
	intField(k string, v int64)
	list(null bool, n int) (saved int, ok bool)
	next()
	endList(saved int)
	keep(err error)
	str(s string)
	context(c *strata.Context, depth int) error
	ref(r *strata.Ref)
	refs(rs []strata.Ref) error
	conditions(cs []metav1.Condition)
	metadata(mapKey string, m map[string]string, name, namespace string, depth int) error
	anyField(k string, v any, depth int) error
}

func (e *yamlEmitter) str(s string) { e.stringScalar(validUTF8(s)) }

func (e *yamlEmitter) begin() int    { return e.increaseIndent(false, false) }
func (e *yamlEmitter) end(saved int) { e.indent = saved }

func (e *yamlEmitter) list(null bool, n int) (int, bool) {
	switch {
	case null:
		e.null()
		return 0, false
	case n == 0:
		e.emptyFlow("[", "]")
		return 0, false
	}
	return e.increaseIndent(false, e.mappingContext && !e.indention), true
}

func (e *yamlEmitter) next() {
	e.keep(e.flush(false))
	e.writeIndent()
	e.writeIndicator("-", true, false, true)
	e.sequenceContext, e.mappingContext, e.simpleKeyContext = true, false, false
}

func (e *yamlEmitter) endList(saved int) {
	e.keep(e.flush(false))
	e.indent = saved
}

// member emits a mapping's key and sets the context of its value.
func (e *yamlEmitter) member(k string) {
	e.key(k)
	e.sequenceContext, e.mappingContext, e.simpleKeyContext = false, true, false
}

// field emits a string member.
func (e *yamlEmitter) field(k, v string) {
	e.member(k)
	e.stringScalar(validUTF8(v))
}

// optField emits a string member left out when empty (omitempty).
func (e *yamlEmitter) optField(k, v string) {
	if v != "" {
		e.field(k, v)
	}
}

// intField emits an integer member.
func (e *yamlEmitter) intField(k string, v int64) {
	e.member(k)
	e.plainScalar(strconv.FormatInt(v, 10))
}

// null emits a nil slice or pointer.
func (e *yamlEmitter) null() {
	e.plainScalar("null")
}

// keep keeps the first error of a write, which ends the document: the
// buffer is no longer flushed.
func (e *yamlEmitter) keep(err error) {
	if e.err == nil {
		e.err = err
	}
}

// orNull emits null for a nil pointer, else what write writes.
func (e *yamlEmitter) orNull(null bool, write func() error) error {
	if null {
		e.null()
		return nil
	}
	return write()
}

// slice emits a slice member's value: null when it is nil (null true),
// else a block sequence of n items, or [] when empty, as sequence does;
// item emits the i-th in the sequence's context.
func (e *yamlEmitter) slice(null bool, n int, item func(i int) error) error {
	if saved, ok := e.list(null, n); ok {
		for i := range n {
			e.next()
			e.keep(item(i))
		}
		e.endList(saved)
	}
	return e.err
}

// items emits a sequence that is not null (slice).
func (e *yamlEmitter) items(n int, item func(i int) error) error { return e.slice(false, n, item) }

// stringMap emits a map[string]string (not empty: every caller's member
// is omitempty) with its keys in go-yaml's order.
func (e *yamlEmitter) stringMap(m map[string]string, depth int) error {
	return emitMap(e, m, depth, e.field)
}

// emitMap emits a map with its keys in go-yaml's order, each member by
// member. A map with a key that is not UTF-8 goes the generic way: two
// keys could become one.
func emitMap[V any](e *yamlEmitter, m map[string]V, depth int, member func(k string, v V)) error {
	keys := e.scratchKeys(depth)
	for k := range m {
		if !utf8.ValidString(k) {
			return e.generic(m, false, true, false, depth)
		}
		keys = append(keys, k)
	}
	sort.Sort(&keys)
	e.keys[depth] = keys
	saved := e.increaseIndent(false, false)
	for _, k := range keys {
		member(k, m[k])
	}
	e.indent = saved
	return nil
}

func writeEffectivePolicy(w typedWriter, p *strata.EffectivePolicy, depth int) {
	saved := w.begin()
	w.optField("apiVersion", p.APIVersion)
	w.optField("kind", p.Kind)
	w.member("metadata")
	// What effectivepolicy.SimpleMeta allows.
	w.keep(w.metadata("labels", p.Labels, p.Name, p.Namespace, depth+1))
	w.member("policies")
	if ls, ok := w.list(p.Policies == nil, len(p.Policies)); ok {
		for i := range p.Policies {
			w.next()
			writeKindPolicies(w, &p.Policies[i], depth+1)
		}
		w.endList(ls)
	}
	w.member("target")
	w.ref(&p.Target)
	w.end(saved)
}

// metadata emits an object's metadata of a map (labels or annotations,
// named by mapKey), a name and a namespace, each left out when empty.
func (e *yamlEmitter) metadata(mapKey string, m map[string]string, name, namespace string, depth int) error {
	if len(m) == 0 && name == "" && namespace == "" {
		e.emptyFlow("{", "}")
		return nil
	}
	saved := e.increaseIndent(false, false)
	if len(m) > 0 {
		e.member(mapKey)
		e.keep(e.stringMap(m, depth+1))
	}
	e.optField("name", name)
	e.optField("namespace", namespace)
	e.indent = saved
	return e.err
}

// mapIdentity is the address of a map's header: two contexts given one map
// hold the same fields.
func mapIdentity(m map[string]string) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&m))
}

// ref emits a ref, again when it wrote it from the same state (again.go).
func (e *yamlEmitter) ref(r *strata.Ref) {
	_ = again(e, e.refText[:], *r, func() error { writeRef(e, r); return nil })
}

func writeRef(w typedWriter, r *strata.Ref) {
	writeRefFields(w, r.Group, r.Kind, r.Name, r.Namespace, r.Role, r.SectionName)
}

// writeRefFields writes the members of a Ref or a PolicyRef.
func writeRefFields(w typedWriter, group, kind, name, namespace, role, section string) {
	saved := w.begin()
	w.field("group", group)
	w.field("kind", kind)
	w.field("name", name)
	w.optField("namespace", namespace)
	w.optField("role", role)
	w.optField("sectionName", section)
	w.end(saved)
}

// refs emits a []Ref member's value.
func (e *yamlEmitter) refs(rs []strata.Ref) error {
	return e.slice(rs == nil, len(rs), func(i int) error { e.ref(&rs[i]); return nil })
}

func writeKindPolicies(w typedWriter, k *strata.KindPolicies, depth int) {
	saved := w.begin()
	if len(k.ConditionOmittedFrom) > 0 {
		w.member("conditionOmittedFrom")
		ls, _ := w.list(false, len(k.ConditionOmittedFrom))
		for _, s := range k.ConditionOmittedFrom {
			w.next()
			w.str(s)
		}
		w.endList(ls)
	}
	w.member("contexts")
	if ls, ok := w.list(k.Contexts == nil, len(k.Contexts)); ok {
		for i := range k.Contexts {
			w.next()
			w.keep(w.context(&k.Contexts[i], depth+1))
		}
		w.endList(ls)
	}
	w.field("controllerName", k.ControllerName)
	w.field("group", k.Group)
	w.field("kind", k.Kind)
	if k.OmittedContexts != 0 {
		w.intField("omittedContexts", int64(k.OmittedContexts))
	}
	if k.PolicyCount != 0 {
		w.intField("policyCount", int64(k.PolicyCount))
	}
	w.optField("visibility", k.Visibility)
	w.end(saved)
}

func (e *yamlEmitter) context(c *strata.Context, depth int) error {
	saved := e.increaseIndent(false, false)
	// Contexts with one folded stack share field sources and resultant
	// policy (effectivepolicy.Indexed): written again by identity.
	if len(c.FieldSources) > 0 {
		e.member("fieldSources")
		e.keep(again(e, e.parts[:], mapIdentity(c.FieldSources), func() error { return e.stringMap(c.FieldSources, depth+1) }))
	}
	e.member("path")
	e.keep(e.refs(c.Path))
	e.member("resultantPolicy")
	e.keep(again(e, e.parts[:], unsafe.Pointer(c.ResultantPolicy), func() error { return e.rawJSON(c.ResultantPolicy, depth+1) }))
	e.member("sources")
	e.keep(e.slice(c.Sources == nil, len(c.Sources), func(i int) error { return e.source(&c.Sources[i]) }))
	e.indent = saved
	return e.err
}

// source emits a context's source, again when it has no attachedTo.
func (e *yamlEmitter) source(s *strata.Source) error {
	write := func() error { writeSource(e, s); return e.err }
	if len(s.AttachedTo) == 0 {
		return again(e, e.sources[:], sourceKey{s.Namespace, s.Name, s.Result}, write)
	}
	return write()
}

// sourceKey is what a source without attachedTo writes.
type sourceKey struct{ namespace, name, result string }

func writeSource(w typedWriter, s *strata.Source) {
	saved := w.begin()
	if len(s.AttachedTo) > 0 {
		w.member("attachedTo")
		w.keep(w.refs(s.AttachedTo))
	}
	w.field("name", s.Name)
	w.optField("namespace", s.Namespace)
	w.field("result", s.Result)
	w.end(saved)
}

// rawJSON emits a free-form field (apiextensionsv1.JSON) as a mapping's
// value; Raw is compacted, as encoding/json does, only when the compact
// reader refuses it.
func (e *yamlEmitter) rawJSON(j *apiextensionsv1.JSON, depth int) error {
	if j == nil {
		e.null()
		return nil
	}
	slot := &e.trees[maphash.Comparable(e.seed, j)%treesSize]
	if slot.j == j {
		return e.node(slot.v, false, true, false, depth)
	}
	raw, err := j.MarshalJSON()
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	v, err := readCompact(string(raw))
	if err != nil {
		var buf bytes.Buffer
		if cerr := json.Compact(&buf, raw); cerr != nil {
			return fmt.Errorf("encode output: %w", cerr)
		}
		if v, err = readCompact(buf.String()); err != nil {
			return fmt.Errorf("encode output: read back JSON: %w", err)
		}
	}
	*slot = seenTree{j, v}
	return e.node(v, false, true, false, depth)
}

// seenTree is a raw JSON value an emitter read, by its address (contexts
// of one folded stack share it). The tree is only read once made, and the
// JSON is frozen, as every record effectivepolicy.Indexed makes is.
type seenTree struct {
	j *apiextensionsv1.JSON
	v any
}

// treesSize is how many raw JSON values an emitter remembers.
const treesSize = 256
