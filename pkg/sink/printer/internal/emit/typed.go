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

// The emitter writes an EffectivePolicy straight from its Go fields: the
// bytes of its JSON read back (jsonTree) and emitted, without the JSON.
// It passes the rule for a fast path: with EffectivePolicies and Impacts
// going through their JSON (jsonTree), `strata effective` of the
// 20,000-route world took 2.6x the CPU and 1.9x the peak memory,
// `strata effective -o json` 1.9x (the JSON writer's twin below) and
// `strata impact -o yaml` of the widest policy 1.9x and 2.1x. Each
// function below writes one type's members as encoding/json would (its
// json tags: omitempty members left out when empty, nil slices and
// pointers as null) in go-yaml's key order, which for these fixed names
// is the order written here. TestIsLibrary compares the bytes with
// go-yaml's for filled ones.

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

// items emits a block sequence of n items, or [] when empty, as sequence
// does; item emits the i-th in the sequence's context.
func (e *yamlEmitter) items(n int, item func(i int) error) error {
	if n == 0 {
		e.emptyFlow("[", "]")
		return nil
	}
	saved := e.increaseIndent(false, e.mappingContext && !e.indention)
	for i := range n {
		e.writeIndent()
		e.writeIndicator("-", true, false, true)
		e.sequenceContext, e.mappingContext, e.simpleKeyContext = true, false, false
		if err := item(i); err != nil {
			return err
		}
		if err := e.flush(false); err != nil {
			return err
		}
	}
	e.indent = saved
	return nil
}

// slice emits a slice member's value as encoding/json writes a Go slice:
// null when it is nil (null true), else its n items (items).
func (e *yamlEmitter) slice(null bool, n int, item func(i int) error) error {
	if null {
		e.null()
		return nil
	}
	return e.items(n, item)
}

// stringMap emits a map[string]string (not empty: every caller's member
// is omitempty) with its keys in go-yaml's order.
func (e *yamlEmitter) stringMap(m map[string]string, depth int) error {
	return emitMap(e, m, depth, e.field)
}

// emitMap emits a map of strings' keys with its keys in go-yaml's order,
// each member by member. A map with a key that is not UTF-8 goes the
// generic way: two keys could become one.
func emitMap[V any](e *yamlEmitter, m map[string]V, depth int, member func(k string, v V)) error {
	// The keys in the scratch list of the depth, as mapping's: a list
	// made for each context's fieldSources was a third of what the
	// emitter allocated for `strata effective` on the performance world.
	keys := e.scratchKeys(depth)
	for k := range m {
		if !utf8.ValidString(k) {
			return e.generic(m, false, true, false, depth)
		}
		keys = append(keys, k)
	}
	sort.Sort(&keys) // a pointer: a sort.Interface made without allocating
	e.keys[depth] = keys
	saved := e.increaseIndent(false, false)
	for _, k := range keys {
		member(k, m[k])
	}
	e.indent = saved
	return nil
}

func (e *yamlEmitter) effectivePolicy(p *strata.EffectivePolicy, depth int) error {
	saved := e.increaseIndent(false, false)
	e.optField("apiVersion", p.APIVersion)
	e.optField("kind", p.Kind)
	e.member("metadata")
	if err := e.meta(&p.ObjectMeta, depth+1); err != nil {
		return err
	}
	e.member("policies")
	if err := e.slice(p.Policies == nil, len(p.Policies), func(i int) error { return e.kindPolicies(&p.Policies[i], depth+1) }); err != nil {
		return err
	}
	e.member("target")
	e.ref(&p.Target)
	e.indent = saved
	return nil
}

// meta emits what effectivepolicy.SimpleMeta allows.
func (e *yamlEmitter) meta(m *metav1.ObjectMeta, depth int) error {
	if len(m.Labels) == 0 && m.Name == "" && m.Namespace == "" {
		e.emptyFlow("{", "}")
		return nil
	}
	saved := e.increaseIndent(false, false)
	if len(m.Labels) > 0 {
		e.member("labels")
		if err := e.stringMap(m.Labels, depth+1); err != nil {
			return err
		}
	}
	e.optField("name", m.Name)
	e.optField("namespace", m.Namespace)
	e.indent = saved
	return nil
}

// mapIdentity is what identifies a map, the address of its header: two
// contexts given one map hold the same fields. A remembered key keeps its
// map alive, so no other map gets its address meanwhile.
func mapIdentity(m map[string]string) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&m))
}

// ref emits a ref, again when it wrote it in the same state before
// (again.go).
func (e *yamlEmitter) ref(r *strata.Ref) {
	_ = again(e, e.refText[:], *r, func() error { e.writeRef(r); return nil })
}

// writeRef writes a ref's fields (ref).
func (e *yamlEmitter) writeRef(r *strata.Ref) {
	e.refFields(r.Group, r.Kind, r.Name, r.Namespace, r.Role, r.SectionName)
}

// refFields writes the members of a Ref or a PolicyRef.
func (e *yamlEmitter) refFields(group, kind, name, namespace, role, section string) {
	saved := e.increaseIndent(false, false)
	e.field("group", group)
	e.field("kind", kind)
	e.field("name", name)
	e.optField("namespace", namespace)
	e.optField("role", role)
	e.optField("sectionName", section)
	e.indent = saved
}

// refs emits a []Ref member's value.
func (e *yamlEmitter) refs(rs []strata.Ref) error {
	return e.slice(rs == nil, len(rs), func(i int) error { e.ref(&rs[i]); return nil })
}

func (e *yamlEmitter) kindPolicies(k *strata.KindPolicies, depth int) error {
	saved := e.increaseIndent(false, false)
	if len(k.ConditionOmittedFrom) > 0 {
		e.member("conditionOmittedFrom")
		if err := e.items(len(k.ConditionOmittedFrom), func(i int) error { e.stringScalar(validUTF8(k.ConditionOmittedFrom[i])); return nil }); err != nil {
			return err
		}
	}
	e.member("contexts")
	if err := e.slice(k.Contexts == nil, len(k.Contexts), func(i int) error { return e.context(&k.Contexts[i], depth+1) }); err != nil {
		return err
	}
	e.field("controllerName", k.ControllerName)
	e.field("group", k.Group)
	e.field("kind", k.Kind)
	if k.OmittedContexts != 0 {
		e.intField("omittedContexts", int64(k.OmittedContexts))
	}
	if k.PolicyCount != 0 {
		e.intField("policyCount", int64(k.PolicyCount))
	}
	e.optField("visibility", k.Visibility)
	e.indent = saved
	return nil
}

func (e *yamlEmitter) context(c *strata.Context, depth int) error {
	saved := e.increaseIndent(false, false)
	// Contexts with one folded stack share their field sources and
	// resultant policy (effectivepolicy.Indexed): each is written again
	// by identity when it was written in the same state (again.go).
	if len(c.FieldSources) > 0 {
		e.member("fieldSources")
		if err := again(e, e.parts[:], mapIdentity(c.FieldSources), func() error { return e.stringMap(c.FieldSources, depth+1) }); err != nil {
			return err
		}
	}
	e.member("path")
	if err := e.refs(c.Path); err != nil {
		return err
	}
	e.member("resultantPolicy")
	if err := again(e, e.parts[:], unsafe.Pointer(c.ResultantPolicy), func() error { return e.rawJSON(c.ResultantPolicy, depth+1) }); err != nil {
		return err
	}
	e.member("sources")
	if err := e.slice(c.Sources == nil, len(c.Sources), func(i int) error { return e.source(&c.Sources[i]) }); err != nil {
		return err
	}
	e.indent = saved
	return nil
}

// source emits a context's source. The contexts of a world name the
// same few policies with the same results: a source without attachedTo
// is written again when it was written in the same state (again.go).
func (e *yamlEmitter) source(s *strata.Source) error {
	if len(s.AttachedTo) == 0 {
		return again(e, e.sources[:], sourceKey{s.Namespace, s.Name, s.Result}, func() error { return e.writeSource(s) })
	}
	return e.writeSource(s)
}

// sourceKey is what a source without attachedTo writes.
type sourceKey struct{ namespace, name, result string }

// writeSource writes a source's fields (source).
func (e *yamlEmitter) writeSource(s *strata.Source) error {
	saved := e.increaseIndent(false, false)
	if len(s.AttachedTo) > 0 {
		e.member("attachedTo")
		if err := e.refs(s.AttachedTo); err != nil {
			return err
		}
	}
	e.field("name", s.Name)
	e.optField("namespace", s.Namespace)
	e.field("result", s.Result)
	e.indent = saved
	return nil
}

// rawJSON emits a free-form field (apiextensionsv1.JSON: its MarshalJSON
// writes Raw, or null when empty) in the mapping-value context. encoding/json
// compacts what a marshaler writes; Raw is usually compact already
// (json.Marshal's), so it is read as it is and compacted only when the
// compact reader refuses it.
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

// seenTree is a raw JSON value an emitter read, by its address: the
// contexts of an EffectivePolicy List that share a folded stack share its
// resultant policy (effectivepolicy.Indexed), which was otherwise read
// back once per context. The
// tree is only read once made (object sorts its members the first time,
// in place, to the same order every time), and the JSON it was read from
// is frozen, as every record Indexed makes is.
type seenTree struct {
	j *apiextensionsv1.JSON
	v any
}

// treesSize is how many raw JSON values an emitter remembers.
const treesSize = 256
