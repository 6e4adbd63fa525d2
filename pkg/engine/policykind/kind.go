package policykind

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
)

// DefaultControllerName is written in PolicyAncestorStatus.controllerName.
const DefaultControllerName = "strata.dev/policy-controller"

// ControllerNamePattern is Gateway API's GatewayController form
// (DOMAIN/PATH), which PolicyAncestorStatus.controllerName must match; the
// PolicyKind CRD's marker (a test keeps the two equal) refuses other names
// at admission, Compile offline.
const ControllerNamePattern = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9\/\-._~%!$&'()*+,;=:]+$`

var controllerName = regexp.MustCompile(ControllerNamePattern)

// Base is the basic merge strategy (GEP-713 "Merge strategies").
type Base string

const (
	None      Base = "None"
	Defaults  Base = "Defaults"
	Overrides Base = "Overrides"
)

// Built-in atomicities (GEP-713 "Atomicity of merging specs").
const (
	Atomic = "Atomic"
	Patch  = "Patch"
	// StrategicMergePatch is Kubernetes' strategic merge patch (spec.childMerge only).
	StrategicMergePatch = "StrategicMergePatch"
)

// Strategy is a combined merge strategy: a base and an atomicity. None has
// no atomicity.
type Strategy struct {
	Base      Base
	Atomicity string
}

// String writes the strategy as AtomicDefaults, PatchOverrides, None, ...
func (s Strategy) String() string {
	if s.Base == None {
		return string(None)
	}
	return s.Atomicity + string(s.Base)
}

// ParseStrategy reads AtomicDefaults, PatchOverrides, <Custom>Defaults, None.
func ParseStrategy(s string) (Strategy, error) {
	if s == string(None) {
		return Strategy{Base: None}, nil
	}
	for _, b := range []Base{Defaults, Overrides} {
		if a, ok := strings.CutSuffix(s, string(b)); ok && a != "" {
			return Strategy{Base: b, Atomicity: a}, nil
		}
	}
	return Strategy{}, fmt.Errorf("strategy %q: want None or <Atomicity>Defaults/<Atomicity>Overrides, e.g. AtomicDefaults", s)
}

// Kind is a validated declaration, ready for the engine.
type Kind struct {
	Spec
	// Default strategy of instances that choose none.
	Default Strategy
	// Supported strategies, by String().
	Supported map[string]bool
	// Custom atomicities, by name.
	Custom map[string]CustomStrategy
	// Source says where the declaration came from, for messages.
	Source string
	// Labels are the labels of the object that declared the kind.
	Labels map[string]string
	// MaxAncestors is its CRD's status.ancestors maxItems, else 0.
	MaxAncestors int
	// Plural is the kind's CRD's spec.names.plural when known, else "".
	Plural string

	specPath []string
	// childPath is spec.childMerge.field; childName its name at the spec root.
	childPath []string
	childName string
	// targets and effective are the declared kinds as schema.GroupKind.
	targets   []schema.GroupKind
	effective []schema.GroupKind
}

// Key is the kind's group/kind, the key of a kind in maps.
func (k *Kind) Key() schema.GroupKind { return schema.GroupKind{Group: k.Group, Kind: k.Kind} }

// EffectiveKinds returns the effective target kinds, or nil when the
// declared targets are the effective ones.
func (k *Kind) EffectiveKinds() []schema.GroupKind { return k.effective }

// MaxRank bounds ValueSpace.Rank, so that a rank and a hierarchy level
// combine into one ordering key.
const MaxRank = 100

// Space returns the kind's value space, or "" when it folds alone.
func (k *Kind) Space() string {
	if k == nil || k.ValueSpace == nil {
		return ""
	}
	return k.ValueSpace.Name
}

// Rank is the kind's rung in its value space (0 without one).
func (k *Kind) Rank() int {
	if k == nil || k.ValueSpace == nil {
		return 0
	}
	return int(k.ValueSpace.Rank)
}

// Vocabulary is the set of conditions the kind's policy status uses
// (spec.status.vocabulary, Enforced by default).
func (k *Kind) Vocabulary() Vocabulary {
	if k == nil || k.Status == nil || k.Status.Vocabulary == "" {
		return VocabularyEnforced
	}
	return k.Status.Vocabulary
}

// AllowsTarget reports whether a policy of this kind may target gk.
func (k *Kind) AllowsTarget(gk schema.GroupKind) bool {
	return len(k.targets) == 0 || slices.Contains(k.targets, gk)
}

// SpecPath is the path of the spec from the object root, as fields
// (["spec"]).
func (k *Kind) SpecPath() []string { return slices.Clone(k.specPath) }

// SpecOf returns the object at Fields.Spec of a policy, or nil: the
// policy's own, not a copy, which nothing writes (TestRunLeavesPolicies).
func (k *Kind) SpecOf(p *unstructured.Unstructured) (map[string]any, bool) {
	v, ok, _ := unstructured.NestedFieldNoCopy(p.Object, k.specPath...)
	m, isMap := v.(map[string]any)
	return m, ok && isMap
}

// Compile validates a declaration and fills its defaults. Errors name the
// field, e.g. `spec.class: "Sometimes" is not Direct or Inherited`.
func Compile(d *Declaration) (*Kind, error) {
	s := d.Spec
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, a...)))
	}
	if s.Kind == "" {
		bad("spec.kind", "required")
	}
	oneOf(bad, "spec.class", &s.Class, Inherited, Direct, Inherited)
	if s.ControllerName == "" {
		s.ControllerName = DefaultControllerName
	} else if len(s.ControllerName) > 253 || !controllerName.MatchString(s.ControllerName) {
		bad("spec.controllerName", "%q must be DOMAIN/PATH of at most 253 characters (Gateway API's controller name form, e.g. example.com/gateway-controller)", s.ControllerName)
	}
	def := func(p *string, v string) {
		if *p == "" {
			*p = v
		}
	}
	def(&s.Fields.Spec, "spec")
	def(&s.Fields.Defaults, "defaults")
	def(&s.Fields.Overrides, "overrides")
	def(&s.Fields.Strategy, "strategy")
	for i, tk := range s.TargetKinds {
		if err := checkKind(tk); err != nil {
			bad(fmt.Sprintf("spec.targetKinds[%d]", i), "%v", err)
		}
	}
	effs := s.EffectiveTargetKinds
	effField := func(i int) string { return fmt.Sprintf("spec.effectiveTargetKinds[%d]", i) }
	if e := s.EffectiveTargetKind; e != nil {
		if len(effs) > 0 {
			bad("spec.effectiveTargetKinds", "set this or spec.effectiveTargetKind, not both")
		}
		effs = []strata.GroupKind{*e}
		effField = func(int) string { return "spec.effectiveTargetKind" }
	}
	effsOK := true
	for i, e := range effs {
		if err := checkKind(e); err != nil {
			effsOK = false
			bad(effField(i), "%v", err)
		} else if j := slices.Index(effs, e); j < i {
			bad(effField(i), "%s is listed twice", e)
		}
	}
	if len(effs) > 0 && effsOK && s.Class != Direct {
		var unreached []string
		for _, tk := range s.TargetKinds {
			if !reachesAny(tk, effs) {
				unreached = append(unreached, tk.String())
			}
		}
		field, what := effField(0), effs[0].String()
		if len(effs) > 1 {
			field, what = "spec.effectiveTargetKinds", "any of "+kindList(effs)
		}
		switch {
		case len(unreached) == 0:
		case len(unreached) == len(s.TargetKinds):
			verb := "is"
			if len(unreached) > 1 {
				verb = "are"
			}
			bad(field, "no declared target kind can reach %s (%s %s neither it nor above it in the hierarchy)", what, strings.Join(unreached, ", "), verb)
		default:
			for i, tk := range s.TargetKinds {
				if !reachesAny(tk, effs) {
					bad(fmt.Sprintf("spec.targetKinds[%d]", i), "%s is neither the effective target kind %s nor above it in the hierarchy: it could never reach it", tk, what)
				}
			}
		}
	}
	for i, r := range s.ReferencedBy {
		field := fmt.Sprintf("spec.referencedBy[%d]", i)
		gk := strata.GroupKind{Group: r.Group, Kind: r.Kind}
		if _, modelled := hierarchy.Kinds[gk.Schema()]; !modelled {
			bad(field, "%s is not a kind of Strata's hierarchy; only its objects are read for references", gk)
		} else if !(len(s.TargetKinds) == 0 || slices.Contains(s.TargetKinds, gk)) {
			bad(field, "%s is not in spec.targetKinds", gk)
		}
		if err := checkPath(r.Field, false); err != nil {
			bad(field+".field", "%q is not a dotted path: %v", r.Field, err)
		}
	}
	// An empty visibility or vocabulary stays empty: kinds are printed.
	oneOf(bad, "spec.visibility", &s.Visibility, "", VisibilitySettings, VisibilityNames, VisibilityKind)
	if st := s.Status; st != nil {
		oneOf(bad, "spec.status.vocabulary", &st.Vocabulary, "", VocabularyEnforced, VocabularyProgrammed)
	}
	oneOf(bad, "spec.contexts", &s.Contexts, ContextPath, ContextPath, ContextTarget)
	if vs := s.ValueSpace; vs != nil {
		if vs.Name == "" {
			bad("spec.valueSpace.name", "required")
		}
		if vs.Rank < 0 || vs.Rank > MaxRank {
			bad("spec.valueSpace.rank", "%d is not between 0 and %d", vs.Rank, MaxRank)
		}
	}
	checkFields(s.Fields, bad)
	childName := checkChildMerge(&s, bad)
	for _, field := range sortedKeys(s.TargetFields) {
		if !isName(field) {
			bad("spec.targetFields", "key %q must be one field name of the spec proper", field)
			continue
		}
		if err := checkPath(s.TargetFields[field], true); err != nil {
			bad("spec.targetFields["+field+"]", "%q is not a dotted path: %v", s.TargetFields[field], err)
		}
	}
	k := &Kind{Custom: map[string]CustomStrategy{}, Supported: map[string]bool{}}
	for i, c := range s.Strategies.Custom {
		switch {
		case c.Name == "" || c.Name == Atomic || c.Name == Patch:
			bad(fmt.Sprintf("spec.strategies.custom[%d].name", i), "%q must be a new atomicity name", c.Name)
		case c.Function == "":
			bad(fmt.Sprintf("spec.strategies.custom[%d].function", i), "required")
		}
		k.Custom[c.Name] = c
	}
	if s.Class == Direct {
		if len(s.TargetKinds) != 1 {
			bad("spec.targetKinds", "a Direct kind targets exactly one kind (GEP-713 \"Classes of metaresources\")")
		} else if len(effs) > 1 || len(effs) == 1 && effs[0] != s.TargetKinds[0] {
			bad(effField(0), "a Direct kind's effective target kind is its declared target kind")
		}
		if len(s.Strategies.Supported) > 0 && !slices.Equal(s.Strategies.Supported, []string{string(None)}) {
			bad("spec.strategies.supported", "a Direct kind supports only None")
		}
		s.Strategies.Supported = []string{string(None)}
		def(&s.Strategies.Default, string(None))
		if len(s.TargetKinds) == 1 {
			tk := s.TargetKinds[0]
			s.EffectiveTargetKind = &tk
			effs = []strata.GroupKind{tk}
		}
	} else if len(s.Strategies.Supported) == 0 && s.Strategies.Default == "" && len(s.Strategies.Custom) == 0 && declaredIsEffective(&s) {
		// GEP-713 "Merge strategies": "Metaresource kinds that do not
		// specify any merge strategy and only support targeting a single
		// kind (with Declared target = Effective target), by default MUST
		// implement the None merge strategy."
		s.Strategies.Supported = []string{string(None)}
		s.Strategies.Default = string(None)
	} else {
		// GEP-713 "Merge strategies": otherwise Atomic Defaults.
		if len(s.Strategies.Supported) == 0 {
			s.Strategies.Supported = []string{"AtomicDefaults", "AtomicOverrides", "PatchDefaults", "PatchOverrides"}
		}
		def(&s.Strategies.Default, "AtomicDefaults")
	}
	for i, name := range s.Strategies.Supported {
		st, err := ParseStrategy(name)
		if err != nil {
			bad(fmt.Sprintf("spec.strategies.supported[%d]", i), "%v", err)
			continue
		}
		if st.Base != None && st.Atomicity != Atomic && st.Atomicity != Patch {
			if _, ok := k.Custom[st.Atomicity]; !ok {
				bad(fmt.Sprintf("spec.strategies.supported[%d]", i), "atomicity %q is not Atomic, Patch or declared in spec.strategies.custom", st.Atomicity)
			}
		}
		k.Supported[st.String()] = true
	}
	if st, err := ParseStrategy(s.Strategies.Default); err != nil {
		bad("spec.strategies.default", "%v", err)
	} else if !k.Supported[st.String()] {
		bad("spec.strategies.default", "%s is not in spec.strategies.supported", st)
	} else {
		k.Default = st
	}
	if s.Strategies.Values == nil {
		s.Strategies.Values = map[string]string{"atomic": Atomic, "patch": Patch}
		for name := range k.Custom {
			s.Strategies.Values[strings.ToLower(name)] = name
		}
	}
	for _, v := range sortedKeys(s.Strategies.Values) {
		a := s.Strategies.Values[v]
		if _, custom := k.Custom[a]; a != Atomic && a != Patch && !custom {
			bad("spec.strategies.values["+v+"]", "atomicity %q is not Atomic, Patch or a custom one", a)
		}
	}
	if cm := s.ChildMerge; cm != nil {
		for _, v := range sortedKeys(cm.Values) {
			a := cm.Values[v]
			if _, custom := k.Custom[a]; a != Atomic && a != Patch && a != StrategicMergePatch && !custom {
				bad("spec.childMerge.values["+v+"]", "atomicity %q is not Atomic, Patch, StrategicMergePatch or declared in spec.strategies.custom", a)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("PolicyKind %s: %w", d.Name, err)
	}
	k.Spec = s
	if s.ChildMerge != nil {
		k.childPath, k.childName = strings.Split(s.ChildMerge.Field, "."), childName
	}
	k.targets = schemaKinds(k.TargetKinds)
	k.effective = schemaKinds(effs)
	k.specPath = strings.Split(s.Fields.Spec, ".")
	return k, nil
}

// oneOf checks an enumerated field: "" becomes def, any other value must
// be one of allowed.
func oneOf[T ~string](bad func(field, format string, a ...any), field string, v *T, def T, allowed ...T) {
	switch {
	case *v == "" && def != "":
		*v = def // not written when def is "": v may be the declaration's
	case *v != "" && !slices.Contains(allowed, *v):
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = string(a)
		}
		bad(field, "%q is not %s or %s", *v, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
}

// declaredIsEffective reports whether a kind targets a single kind that is
// also its effective kind.
func declaredIsEffective(s *Spec) bool {
	return len(s.TargetKinds) == 1 && (s.EffectiveTargetKind == nil || *s.EffectiveTargetKind == s.TargetKinds[0])
}

// reachesAny reports whether policies targeting t can reach one of effs.
func reachesAny(t strata.GroupKind, effs []strata.GroupKind) bool {
	return slices.ContainsFunc(effs, func(e strata.GroupKind) bool { return reaches(t, e) })
}

// schemaKinds converts declared kinds to the engine's keys; nil stays nil.
func schemaKinds(gks []strata.GroupKind) []schema.GroupKind {
	if gks == nil {
		return nil
	}
	out := make([]schema.GroupKind, len(gks))
	for i, gk := range gks {
		out[i] = gk.Schema()
	}
	return out
}

func kindList(gks []strata.GroupKind) string {
	s := make([]string, len(gks))
	for i, gk := range gks {
		s[i] = gk.String()
	}
	return strings.Join(s, ", ")
}

// reaches reports whether policies targeting kind t can reach objects of
// the effective kind e: e is t, or t is above e in the hierarchy (a
// Namespace holds only namespaced kinds). Kinds outside the hierarchy are
// not judged.
func reaches(t, e strata.GroupKind) bool {
	tInfo, tOK := hierarchy.Kinds[t.Schema()]
	eInfo, eOK := hierarchy.Kinds[e.Schema()]
	switch {
	case t == e || !tOK || !eOK:
		return true
	case tInfo.Level == hierarchy.LevelNamespace:
		return eInfo.Namespaced
	case tInfo.Frontend && eInfo.Level >= hierarchy.LevelRoute:
		// A Service reaches the routes below its mesh frontend.
		return true
	}
	return tInfo.Level < eInfo.Level
}

// notSpec names the fields at an object's root that are not where a
// policy's spec can live.
var notSpec = map[string]string{
	"apiVersion": "the object's apiVersion",
	"kind":       "the object's kind",
	"metadata":   "the object's metadata",
	"status":     "the object's status",
}

// checkFields checks spec.fields (after defaulting): spec is a dotted path
// other than metadata or status; the others are distinct field names of
// that object.
func checkFields(f Fields, bad func(field, format string, a ...any)) {
	if err := checkPath(f.Spec, false); err != nil {
		bad("spec.fields.spec", "%q is not a dotted path: %v", f.Spec, err)
	} else if root, _, _ := strings.Cut(f.Spec, "."); notSpec[root] != "" {
		bad("spec.fields.spec", "%q is %s, not where its spec lives", f.Spec, notSpec[root])
	}
	notName := func(field, name string) {
		bad(field, "%q must be one field name of the object at spec.fields.spec (%q); nested paths are not read", name, f.Spec)
	}
	parts := map[string]string{"targetRef": "", "targetRefs": ""}
	for _, p := range []struct{ field, name string }{
		{"spec.fields.defaults", f.Defaults},
		{"spec.fields.overrides", f.Overrides},
		{"spec.fields.strategy", f.Strategy},
	} {
		prev, taken := parts[p.name]
		switch {
		case !isName(p.name):
			notName(p.field, p.name)
		case taken && prev == "":
			bad(p.field, "%q is where a policy's targets live; each part of a policy needs its own field", p.name)
		case taken:
			bad(p.field, "%q is also %s; each part of a policy needs its own field", p.name, prev)
		default:
			parts[p.name] = p.field
		}
	}
	for i, name := range f.Ignored {
		if !isName(name) {
			notName(fmt.Sprintf("spec.fields.ignored[%d]", i), name)
		}
	}
}

// checkChildMerge checks spec.childMerge (after spec.fields is defaulted)
// and returns its field's name when that field is at the root of the
// spec. The field must not be spec proper: a policy's choice of how to
// merge is not one of its settings.
func checkChildMerge(s *Spec, bad func(field, format string, a ...any)) string {
	cm := s.ChildMerge
	if cm == nil {
		return ""
	}
	if s.Class == Direct {
		bad("spec.childMerge", "a Direct kind merges with None only (GEP-713 \"Classes of metaresources\")")
	}
	if len(cm.Values) == 0 {
		bad("spec.childMerge.values", "required: map each value of %s to an atomicity", cm.Field)
	}
	for _, list := range sortedKeys(cm.ListKeys) {
		if err := checkPath(list, false); err != nil {
			bad("spec.childMerge.listKeys", "key %q is not a dotted path: %v", list, err)
		} else if key := cm.ListKeys[list]; !isName(key) {
			bad("spec.childMerge.listKeys["+list+"]", "%q must be one field name of the list's items", key)
		}
	}
	if err := checkPath(cm.Field, false); err != nil {
		bad("spec.childMerge.field", "%q is not a dotted path: %v", cm.Field, err)
		return ""
	}
	if root, _, _ := strings.Cut(cm.Field, "."); notSpec[root] != "" {
		bad("spec.childMerge.field", "%q is %s, not a field of the policy's spec", cm.Field, notSpec[root])
		return ""
	}
	rest, inSpec := strings.CutPrefix(cm.Field, s.Fields.Spec+".")
	if cm.Field == s.Fields.Spec {
		bad("spec.childMerge.field", "%q is the spec itself (spec.fields.spec), not one field of it", cm.Field)
		return ""
	}
	if !inSpec {
		return ""
	}
	name, below, _ := strings.Cut(rest, ".")
	parts := map[string]string{
		"targetRef": "the policy's targets", "targetRefs": "the policy's targets",
		s.Fields.Defaults: "spec.fields.defaults", s.Fields.Overrides: "spec.fields.overrides", s.Fields.Strategy: "spec.fields.strategy",
	}
	switch {
	case parts[name] != "":
		bad("spec.childMerge.field", "%q is in %s; the field that chooses the merge needs its own field", cm.Field, parts[name])
	case below == "":
		return name
	case !slices.Contains(s.Fields.Ignored, name):
		bad("spec.childMerge.field", "%q is inside the spec proper (%s.%s); put it at the root of the spec or below a field of spec.fields.ignored", cm.Field, s.Fields.Spec, name)
	}
	return ""
}

// isName reports whether s is one field name: not empty, not a path.
func isName(s string) bool { return s != "" && !strings.ContainsAny(s, ".[]/") }

// itemSegment is a list item chosen by a field's value, rules[name=login],
// which targetFields paths may use as merge.Get reads it.
var itemSegment = regexp.MustCompile(`^[^\[\]=]+\[[^\[\]=]+=[^\[\]]+\]$`)

// checkPath checks a dotted path: no empty segment, no "/", no negative
// index, and brackets only for list items (rules[name=login]) with items.
func checkPath(p string, items bool) error {
	if p == "" {
		return errors.New("it is empty")
	}
	for i, seg := range strings.Split(p, ".") {
		switch {
		case seg == "":
			return fmt.Errorf("segment %d is empty", i+1)
		case strings.Contains(seg, "/"):
			return fmt.Errorf("segment %q has a \"/\"; paths are dotted", seg)
		case strings.ContainsAny(seg, "[]") && !(items && itemSegment.MatchString(seg)):
			return fmt.Errorf("segment %q has brackets; write a list index as a segment of its own (rules.0)", seg)
		case len(seg) > 1 && seg[0] == '-' && strings.Trim(seg[1:], "0123456789") == "":
			return fmt.Errorf("segment %q is a negative index", seg)
		}
	}
	return nil
}

// checkKind rejects kinds in groups Strata models that are not part of its
// hierarchy (a Secret): they would never match. Other groups are virtual.
func checkKind(gk strata.GroupKind) error {
	if gk.Kind == "" {
		return errors.New("kind is required")
	}
	if hierarchy.IsKnownGroup(gk.Group) && !hierarchy.IsModelled(gk.Schema()) {
		return fmt.Errorf("%s is not part of Strata's hierarchy (Namespace, GatewayClass, Gateway, xRoutes, Service); kinds of other groups are virtual", gk)
	}
	return nil
}

// FromCRD derives a declaration from a CustomResourceDefinition labelled
// gateway.networking.k8s.io/policy (GEP-713 "Standard label on CRD
// objects"), read for discoverability only: any kind may be targeted, and
// the class comes from the label value (direct; anything else Inherited).
func FromCRD(crd *unstructured.Unstructured) (*Declaration, error) {
	gk := DefinedKind(crd)
	group, kind := gk.Group, gk.Kind
	if group == "" || kind == "" {
		return nil, fmt.Errorf("CustomResourceDefinition %s: spec.group and spec.names.kind are required", crd.GetName())
	}
	class := Inherited
	if strings.EqualFold(crd.GetLabels()[CRDLabel], "direct") {
		class = Direct
	}
	d := &Declaration{Spec: Spec{Group: group, Kind: kind, Class: class}}
	d.Name = crd.GetName()
	if class == Direct {
		// A labelled CRD does not say a Direct kind's one target kind:
		// Inherited with None behaves the same for discoverability.
		d.Spec.Class = Inherited
		d.Spec.Strategies = Strategies{Supported: []string{string(None)}, Default: string(None)}
	}
	return d, nil
}

// DefinedKind is the kind a CustomResourceDefinition defines: spec.group
// and spec.names.kind, "" where missing or not a string.
func DefinedKind(crd *unstructured.Unstructured) schema.GroupKind {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	return schema.GroupKind{Group: group, Kind: kind}
}

// CRDPlural reads a CustomResourceDefinition's resource, its
// spec.names.plural ("" when it has none).
func CRDPlural(crd *unstructured.Unstructured) string {
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	return plural
}

// AncestorsMaxItems reads the maxItems of status.ancestors from a
// CustomResourceDefinition, the smallest over its served versions; false
// when none declares one.
func AncestorsMaxItems(crd *unstructured.Unstructured) (int, bool) {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	least, found := 0, false
	for _, v := range versions {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		if served, ok := m["served"].(bool); ok && !served {
			continue
		}
		n, ok, _ := unstructured.NestedFieldNoCopy(m, "schema", "openAPIV3Schema", "properties", "status", "properties", "ancestors", "maxItems")
		if !ok {
			continue
		}
		var max int
		switch x := n.(type) {
		case int64:
			max = int(x)
		case float64:
			max = int(x)
		case int:
			max = x
		default:
			continue
		}
		if max >= 0 && (!found || max < least) {
			least, found = max, true
		}
	}
	return least, found
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
