package policykind

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/pkg/engine/spelling"
)

// Policy is one policy object read through its kind's declaration: plain
// data the engine can order, attach and merge.
type Policy struct {
	Kind   *Kind
	Object *unstructured.Unstructured
	// Namespace and Name of the object ("" namespace for cluster-scoped).
	Namespace, Name string
	Created         time.Time
	TargetRefs      []TargetRef
	// Blocks are the policy's spec proper: overrides, defaults (explicit
	// or bare fields), or one None block.
	Blocks []Block
	// ChildMerge is the atomicity this policy chose (spec.childMerge) to
	// merge into the less specific policies with, or "".
	ChildMerge string
	// Invalid lists what makes the whole policy unusable (Accepted=False
	// Invalid), each naming the field.
	Invalid []string
	// Warnings name fields the author should look at (unknown, typos).
	Warnings []string

	// id is ID, made once by Read.
	id string
}

// ID is `namespace/name`, the form GEP-713's conflict rules sort by and
// messages name policies with.
func (p *Policy) ID() string {
	if p.id != "" {
		return p.id
	}
	if p.Namespace == "" {
		return p.Name
	}
	return p.Namespace + "/" + p.Name
}

// Before is GEP-713's conflict order between two policies at the same level
// ("Conflict resolution rules"): the older creationTimestamp wins, then the
// first by {namespace}/{name}.
func (p *Policy) Before(q *Policy) bool {
	if !p.Created.Equal(q.Created) {
		return p.Created.Before(q.Created)
	}
	return p.ID() < q.ID()
}

// TargetRef is one entry of targetRefs (or the legacy single targetRef).
type TargetRef struct {
	// Field is the path of the entry, for messages: spec.targetRefs[1].
	Field     string
	Group     string
	Kind      string
	Name      string
	Namespace string // "" = the policy's namespace
	Section   string
	Selector  *metav1.LabelSelector
}

// Block is a part of the spec proper with the strategy it merges with.
type Block struct {
	Strategy Strategy
	// Field is where the block is: spec.overrides, spec.defaults or spec.
	Field string
	// Values is the spec proper, without the strategy field.
	Values map[string]any
}

// Read parses a policy of this kind. It never fails: problems are listed in
// Policy.Invalid so the policy still gets a status that explains them.
func (k *Kind) Read(u *unstructured.Unstructured) *Policy {
	p := &Policy{Kind: k, Object: u, Namespace: u.GetNamespace(), Name: u.GetName(), Created: u.GetCreationTimestamp().Time}
	p.id = p.ID()
	spec, ok := k.SpecOf(u)
	if !ok && len(k.ReferencedBy) > 0 {
		// An object others refer to (a blueprint) need not carry values.
		spec, ok = map[string]any{}, true
	}
	if !ok {
		p.Invalid = append(p.Invalid, fmt.Sprintf("%s: required", k.Fields.Spec))
		return p
	}
	p.readTargets(spec)
	p.readBlocks(spec)
	p.readChildMerge()
	return p
}

// readChildMerge reads the field by which the policy chooses how it
// merges into the less specific ones (Spec.ChildMerge).
func (p *Policy) readChildMerge() {
	k := p.Kind
	if k.childPath == nil {
		return
	}
	v, _, _ := unstructured.NestedFieldNoCopy(p.Object.Object, k.childPath...)
	if v == nil {
		return
	}
	allowed := strings.Join(sortedKeys(k.ChildMerge.Values), ", ")
	s, ok := v.(string)
	if !ok {
		p.Invalid = append(p.Invalid, fmt.Sprintf("%s: must be a string, one of %s", k.ChildMerge.Field, allowed))
		return
	}
	a, known := k.ChildMerge.Values[s]
	if !known {
		p.Invalid = append(p.Invalid, fmt.Sprintf("%s: %q is not one of %s", k.ChildMerge.Field, s, allowed))
		return
	}
	p.ChildMerge = a
}

func (p *Policy) readTargets(spec map[string]any) {
	base := p.Kind.Fields.Spec
	var raw []any
	var fields []string
	if one, ok := spec["targetRef"]; ok {
		raw = append(raw, one)
		fields = append(fields, base+".targetRef")
	}
	if many, ok := spec["targetRefs"]; ok {
		list, isList := many.([]any)
		if !isList {
			p.Invalid = append(p.Invalid, base+".targetRefs: must be a list")
		}
		for i, e := range list {
			raw = append(raw, e)
			fields = append(fields, fmt.Sprintf("%s.targetRefs[%d]", base, i))
		}
	}
	if len(raw) == 0 && len(p.Kind.ReferencedBy) == 0 {
		p.Invalid = append(p.Invalid, base+".targetRefs: at least one target is required")
	}
	for i, r := range raw {
		t, err := readTargetRef(r)
		if err != nil {
			p.Invalid = append(p.Invalid, fmt.Sprintf("%s: %v", fields[i], err))
			continue
		}
		ref := TargetRef{Field: fields[i], Group: t.Group, Kind: t.Kind, Name: t.Name, Namespace: t.Namespace, Section: t.SectionName, Selector: t.Selector}
		// GEP-713's examples write the group with a version.
		ref.Group, _, _ = strings.Cut(ref.Group, "/")
		switch {
		case ref.Kind == "":
			p.Invalid = append(p.Invalid, fields[i]+".kind: required")
		case ref.Name == "" && ref.Selector == nil:
			p.Invalid = append(p.Invalid, fields[i]+": name or selector is required")
		case ref.Name != "" && ref.Selector != nil:
			p.Invalid = append(p.Invalid, fields[i]+": name and selector are exclusive")
		default:
			p.TargetRefs = append(p.TargetRefs, ref)
		}
	}
}

func (p *Policy) readBlocks(spec map[string]any) {
	k := p.Kind
	base := k.Fields.Spec
	ignored := append([]string{"targetRef", "targetRefs", k.Fields.Defaults, k.Fields.Overrides, k.Fields.Strategy}, k.Fields.Ignored...)
	if k.childName != "" {
		ignored = append(ignored, k.childName)
	}
	bare := map[string]any{}
	for key, v := range spec {
		if !slices.Contains(ignored, key) {
			bare[key] = v
		}
	}
	var blocks []Block
	add := func(b Base, field string, values map[string]any, strategy any) {
		if k.Class == Direct || len(k.Supported) == 1 && k.Supported[string(None)] {
			b = None
		}
		st, err := k.strategyOf(b, strategy)
		if err != "" {
			p.Invalid = append(p.Invalid, field+"."+k.Fields.Strategy+": "+err)
			return
		}
		vals := maps.Clone(values)
		delete(vals, k.Fields.Strategy)
		blocks = append(blocks, Block{Strategy: st, Field: field, Values: vals})
	}
	for _, b := range []struct {
		base  Base
		field string
	}{{Overrides, k.Fields.Overrides}, {Defaults, k.Fields.Defaults}} {
		raw, ok := spec[b.field]
		if !ok {
			continue
		}
		m, isMap := raw.(map[string]any)
		if !isMap {
			p.Invalid = append(p.Invalid, fmt.Sprintf("%s.%s: must be an object", base, b.field))
			continue
		}
		if k.Class == Direct {
			p.Invalid = append(p.Invalid, fmt.Sprintf("%s.%s: a Direct policy has no defaults or overrides", base, b.field))
			continue
		}
		add(b.base, base+"."+b.field, m, m[k.Fields.Strategy])
	}
	if len(bare) > 0 || len(blocks) == 0 {
		if len(blocks) > 0 {
			// Bare fields beside an explicit defaults block are ambiguous.
			for _, b := range blocks {
				if b.Strategy.Base == Defaults {
					p.Invalid = append(p.Invalid, fmt.Sprintf("%s: fields %s are set both bare and in %s", base, strings.Join(sortedKeys(bare), ", "), b.Field))
					return
				}
			}
		}
		add(Defaults, base, bare, spec[k.Fields.Strategy])
	}
	if k.Strategies.Exclusive && len(blocks) > 1 {
		p.Invalid = append(p.Invalid, fmt.Sprintf("%s: sets both %s and %s; a %s declares one merge strategy at a time (GEP-713 \"Merge strategies\")", base, k.Fields.Defaults, k.Fields.Overrides, k.Kind))
	}
	p.Blocks = blocks
}

// strategyOf resolves the strategy of a block from its base and the value
// of its strategy field (nil: the kind's default atomicity).
func (k *Kind) strategyOf(b Base, v any) (Strategy, string) {
	if b == None {
		if v != nil {
			return Strategy{}, fmt.Sprintf("%s supports only the None merge strategy", k.Kind)
		}
		return Strategy{Base: None}, ""
	}
	st := Strategy{Base: b, Atomicity: k.Default.Atomicity}
	if k.Default.Base == None || st.Atomicity == "" {
		st.Atomicity = Atomic
	}
	if v != nil {
		s, ok := v.(string)
		if !ok {
			return Strategy{}, "must be a string"
		}
		a, known := k.Strategies.Values[s]
		if !known {
			return Strategy{}, fmt.Sprintf("%q is not one of %s", s, strings.Join(sortedKeys(k.Strategies.Values), ", "))
		}
		st.Atomicity = a
	}
	if !k.Supported[st.String()] {
		return Strategy{}, fmt.Sprintf("strategy %s is not supported by %s (supported: %s)", st, k.Kind, strings.Join(sortedKeys(k.Supported), ", "))
	}
	return st, ""
}

// Unexpected lists the fields at the root of u's spec that its kind does
// not expect, for a policy without a schema to prune them: a name near
// one the kind declares (`default` for `defaults`), likely a typo, and
// bare fields next to an explicit overrides block. Each names the field.
func (k *Kind) Unexpected(u *unstructured.Unstructured) []string {
	raw, _, _ := unstructured.NestedFieldNoCopy(u.Object, k.specPath...)
	spec, ok := raw.(map[string]any)
	if !ok {
		return nil
	}
	declared := [...]string{"targetRef", "targetRefs", k.Fields.Defaults, k.Fields.Overrides, k.Fields.Strategy}
	expected := func(key string) bool {
		return slices.Contains(declared[:], key) || key != "" && key == k.childName || slices.Contains(k.Fields.Ignored, key)
	}
	_, hasOverrides := spec[k.Fields.Overrides]
	suspect := func(key string) bool {
		return !expected(key) && (hasOverrides && k.Class != Direct || nearest(key, declared[:]) != "")
	}
	// Most policies have nothing to say: look before allocating.
	found := false
	for key := range spec {
		if suspect(key) {
			found = true
			break
		}
	}
	if !found {
		return nil
	}
	base := k.Fields.Spec
	var out []string
	for _, key := range sortedKeys(spec) {
		if !suspect(key) {
			continue
		}
		if near := nearest(key, declared[:]); near != "" {
			out = append(out, fmt.Sprintf("%s.%s: not a field %s declares; did you mean %s? (read as a default field)", base, key, k.Kind, near))
		} else {
			out = append(out, fmt.Sprintf("%s.%s: a field beside %s.%s is read as a default; put it in %s.%s to say so", base, key, base, k.Fields.Overrides, base, k.Fields.Defaults))
		}
	}
	return out
}

// nearest is the name among names within two edits of key (ignoring
// case; a swapped pair of letters is one edit), or "".
func nearest(key string, names []string) string {
	best, dist := "", 3
	for _, n := range names {
		if n == "" || len(key) > len(n)+2 || len(n) > len(key)+2 {
			continue // too far apart to be a typo, whatever the letters
		}
		if d := spelling.Distance(strings.ToLower(key), strings.ToLower(n)); d < dist {
			best, dist = n, d
		}
	}
	return best
}

// targetRefFields is a targetRef entry as its JSON decoder sees it.
type targetRefFields struct {
	Group       string                `json:"group"`
	Kind        string                `json:"kind"`
	Name        string                `json:"name"`
	Namespace   string                `json:"namespace"`
	SectionName string                `json:"sectionName"`
	Selector    *metav1.LabelSelector `json:"selector"`
}

// readTargetRef reads one targetRef entry field by field. An entry that
// is not a plain object of strings (a field of another type, a selector,
// a key in another case) goes through the JSON decoder instead, which
// defines its meaning and error messages there.
func readTargetRef(r any) (targetRefFields, error) {
	var t targetRefFields
	decode := func() (targetRefFields, error) {
		var d targetRefFields
		err := decodeJSON(r, &d)
		return d, err
	}
	m, ok := r.(map[string]any)
	if !ok {
		return decode()
	}
	for key, v := range m {
		if v == nil {
			continue
		}
		s, isString := v.(string)
		var dst *string
		switch key {
		case "group":
			dst = &t.Group
		case "kind":
			dst = &t.Kind
		case "name":
			dst = &t.Name
		case "namespace":
			dst = &t.Namespace
		case "sectionName":
			dst = &t.SectionName
		default:
			if key == "selector" || foldsToField(key) {
				return decode()
			}
			continue // unknown fields are ignored, as the decoder does
		}
		if !isString {
			return decode()
		}
		*dst = s
	}
	return t, nil
}

// foldsToField says whether key is a targetRef field's name in another
// case (the JSON decoder matches those).
func foldsToField(key string) bool {
	return slices.ContainsFunc([]string{"group", "kind", "name", "namespace", "sectionName", "selector"}, func(f string) bool { return strings.EqualFold(key, f) })
}

// decodeJSON decodes in (a JSON value) into out through encoding/json.
func decodeJSON(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
