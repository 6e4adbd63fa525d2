package query

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// kindNames maps the lower-case names a user may type to the kinds of the hierarchy.
var kindNames = func() map[string]schema.GroupKind {
	m := map[string]schema.GroupKind{}
	for _, row := range hierarchy.Table {
		if !row.Targetable {
			continue
		}
		for _, n := range row.Names {
			m[n] = row.GroupKind
		}
		if row.Group != "" {
			m[strings.ToLower(row.Kind)+"."+row.Group] = row.GroupKind
			m[row.Resource+"."+row.Group] = row.GroupKind
		}
	}
	// The short name of Gateway API's Gateway CRD, which kubectl reads.
	m["gtw"] = hierarchy.GatewayKind
	return m
}()

// HierarchyKind is ResolveKind without policy kinds, for commands that run no engine.
func HierarchyKind(name string) (schema.GroupKind, bool) {
	gk, ok, _ := lookupKind(nil, name)
	return gk, ok
}

// lookupKind finds a kind of the hierarchy (ok), else the policy kinds named.
func lookupKind(res *engine.Result, name string) (gk schema.GroupKind, ok bool, found []*policykind.Kind) {
	lower := strings.ToLower(name)
	if gk, ok, found = lookupName(res, lower); ok || len(found) > 0 {
		return gk, ok, found
	}
	if unversioned, versioned := withoutVersion(lower); versioned {
		return lookupName(res, unversioned)
	}
	return gk, ok, found
}

// lookupName is lookupKind for one lower-case name, as it stands.
func lookupName(res *engine.Result, name string) (schema.GroupKind, bool, []*policykind.Kind) {
	if gk, ok := kindNames[name]; ok {
		return gk, true, nil
	}
	if res == nil {
		return schema.GroupKind{}, false, nil
	}
	return schema.GroupKind{}, false, policyKindsNamed(res, name)
}

// apiVersion is the form of a Kubernetes API version (v1, v1beta1, v2alpha3).
var apiVersion = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)

// withoutVersion reads kubectl's resource.version.group form as resource.group.
func withoutVersion(name string) (unversioned string, versioned bool) {
	gvr, _ := schema.ParseResourceArg(name)
	if gvr == nil || gvr.Group == "" || !apiVersion.MatchString(gvr.Version) {
		return name, false
	}
	return gvr.Resource + "." + gvr.Group, true
}

// KindName is a kind a user named: a kind of the hierarchy or a policy kind.
type KindName struct {
	Topology schema.GroupKind
	Policy   *policykind.Kind
}

// GroupKind is the group and kind named.
func (k KindName) GroupKind() schema.GroupKind {
	if k.Policy != nil {
		return k.Policy.Key()
	}
	return k.Topology
}

// ResolveKind reads a kind as typed on the command line, case-insensitively.
func ResolveKind(res *engine.Result, name string) (KindName, error) {
	gk, ok, found := lookupKind(res, name)
	switch {
	case ok:
		return KindName{Topology: gk}, nil
	case len(found) == 1:
		return KindName{Policy: found[0]}, nil
	case len(found) > 1:
		return KindName{}, ambiguousKind(name, found)
	}
	if hint := suggestKindsOf(res, name, true); hint != "" {
		return KindName{}, fmt.Errorf("unknown kind %q%s (kinds: %s)", name, hint, strings.Join(knownKinds(res), ", "))
	}
	return KindName{}, fmt.Errorf("unknown kind %q: want one of %s", name, strings.Join(knownKinds(res), ", "))
}

// ambiguousKind is the error for a name several policy kinds answer to.
func ambiguousKind(name string, found []*policykind.Kind) error {
	var qualified []string
	for _, k := range found {
		qualified = append(qualified, strings.ToLower(k.Kind+"."+k.Group))
	}
	return fmt.Errorf("kind %q is ambiguous: write one of %s", name, strings.Join(qualified, ", "))
}

// policyKindsNamed returns the run's policy kinds that answer to name.
func policyKindsNamed(res *engine.Result, name string) []*policykind.Kind {
	var found []*policykind.Kind
	for _, k := range res.PolicyKinds() {
		if slices.Contains(policyKindNames(k), name) {
			found = append(found, k)
		}
	}
	return found
}

// policyKindNames are the names a policy kind answers to.
func policyKindNames(k *policykind.Kind) []string {
	kind := strings.ToLower(k.Kind)
	plural := Resource(k)
	group := strings.ToLower(k.Group)
	return []string{kind, plural, kind + "." + group, plural + "." + group}
}

// Resource is a policy kind's resource: its CRD's plural, else Plural of its kind.
func Resource(k *policykind.Kind) string {
	if k.Plural != "" {
		return strings.ToLower(k.Plural)
	}
	return Plural(k.Kind)
}

// Plural is the lower-case English plural of a kind (retrypolicies, gateways, gatewayclasses).
func Plural(kind string) string {
	kind = strings.ToLower(kind)
	switch {
	case strings.HasSuffix(kind, "y") && len(kind) > 1 && !strings.ContainsRune("aeiou", rune(kind[len(kind)-2])):
		return strings.TrimSuffix(kind, "y") + "ies"
	case strings.HasSuffix(kind, "s"), strings.HasSuffix(kind, "x"), strings.HasSuffix(kind, "z"), strings.HasSuffix(kind, "ch"), strings.HasSuffix(kind, "sh"):
		return kind + "es"
	}
	return kind + "s"
}

// ResolvePolicyKind is ResolveKind where only a policy kind will do.
func ResolvePolicyKind(res *engine.Result, name string) (*policykind.Kind, error) {
	gk, ok, found := lookupKind(res, name)
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return nil, ambiguousKind(name, found)
	}
	policies := policyKindList(res)
	switch {
	case ok:
		return nil, fmt.Errorf("%s is not a policy kind (policy kinds: %s)", gk.Kind, strings.Join(policies, ", "))
	case len(policies) == 0:
		return nil, fmt.Errorf("unknown policy kind %q: the input declares none (strata kinds lists what it reads)", name)
	}
	return nil, fmt.Errorf("unknown policy kind %q%s (policy kinds: %s)", name, suggestKindsOf(res, name, false), strings.Join(policies, ", "))
}

// policyKindList is the run's policy kinds' lower-case names, sorted.
func policyKindList(res *engine.Result) []string {
	var out []string
	for _, k := range res.PolicyKinds() {
		out = append(out, strings.ToLower(k.Kind))
	}
	sort.Strings(out)
	return out
}

// suggestKindsOf is the "did you mean" of a mistyped kind.
func suggestKindsOf(res *engine.Result, typed string, hierarchy bool) string {
	canonical := map[string]string{}
	for n, gk := range kindNames {
		if hierarchy {
			canonical[n] = strings.ToLower(gk.Kind)
		}
	}
	for _, k := range res.PolicyKinds() {
		for _, n := range policyKindNames(k) {
			canonical[n] = strings.ToLower(k.Kind)
		}
	}
	var kinds []string
	for _, n := range Suggest(typed, slices.Sorted(maps.Keys(canonical))) {
		if !slices.Contains(kinds, canonical[n]) {
			kinds = append(kinds, canonical[n])
		}
	}
	return DidYouMean(typed, kinds)
}

// KindNames are the kinds' lower-case singular names, for shell completion.
func KindNames(res *engine.Result) []string {
	out := []string{}
	for _, row := range hierarchy.Table {
		if row.Targetable {
			out = append(out, strings.ToLower(row.Kind))
		}
	}
	for _, k := range res.PolicyKinds() {
		out = append(out, strings.ToLower(k.Kind))
	}
	return out
}

// knownKinds lists what an unknown kind's error lists.
func knownKinds(res *engine.Result) []string {
	var out []string
	for _, row := range hierarchy.Table {
		if !row.Targetable {
			continue
		}
		name := strings.ToLower(row.Kind)
		for _, n := range row.Names {
			if n != name && n != row.Resource {
				name += " (" + n + ")"
				break
			}
		}
		out = append(out, name)
	}
	return append(out, policyKindList(res)...)
}

// Resolve finds what "KIND/NAME[#SECTION]" names, in namespace ns.
func Resolve(res *engine.Result, arg, ns string) (Subject, error) {
	if err := CheckSubject(arg); err != nil {
		return Subject{}, err
	}
	kind, name, _ := strings.Cut(arg, "/")
	k, err := ResolveKind(res, kind)
	if err != nil {
		return Subject{}, err
	}
	if k.Policy != nil {
		if strings.Contains(name, "#") {
			return Subject{}, fmt.Errorf("%q: a policy has no sections", arg)
		}
		if p := FindPolicy(res, k.Policy, ns, name); p != nil {
			return Subject{Node: topology.None, Policy: p}, nil
		}
		var here []string
		for _, p := range res.Policies {
			if p.Kind.Key() == k.Policy.Key() && (p.Namespace == ns || p.Namespace == "") {
				here = append(here, p.Name)
			}
		}
		return Subject{}, fmt.Errorf("%s %s not found%s", k.Policy.Kind, id(ns, name), notFoundHint(res, k, name, foundIn(namesWhere(res, k)[name]), here))
	}
	name, section, _ := strings.Cut(name, "#")
	info := hierarchy.Kinds[k.Topology]
	ref := topology.Ref{Group: k.Topology.Group, Kind: k.Topology.Kind, Name: name, Section: section}
	if info.Namespaced {
		ref.Namespace = ns
	}
	if section != "" && info.Section == "" {
		return Subject{}, fmt.Errorf("%q: %s has no sections", arg, k.Topology.Kind)
	}
	n := res.Graph.Lookup(ref)
	if n == topology.None {
		if section != "" && res.Graph.Lookup(ref.Object()) != topology.None {
			return Subject{}, fmt.Errorf("%s has no %s named %q%s", ref.Object(), info.Section, section, DidYouMean(section, Sections(res, ref.Object())))
		}
		var here []string
		for _, id := range res.Graph.ByKindIn(k.Topology, ref.Namespace) {
			here = append(here, res.Graph.Node(id).Ref.Name)
		}
		return Subject{}, fmt.Errorf("%s not found%s", ref, notFoundHint(res, k, name, foundIn(namesWhere(res, k)[name]), here))
	}
	return Subject{Node: n}, nil
}

// CheckSubject checks the form of a KIND/NAME[#SECTION] argument before any look-up.
func CheckSubject(arg string) error {
	kind, name, ok := strings.Cut(arg, "/")
	if !ok || kind == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("%q: want KIND/NAME, e.g. httproute/baker (the namespace comes from -n)", arg)
	}
	if object, section, _ := strings.Cut(name, "#"); object == "" {
		return fmt.Errorf("%q: the name is empty: want KIND/NAME#SECTION, e.g. %s/NAME#%s", arg, kind, section)
	}
	return nil
}

// NotFoundAnywhere is the error for KIND/NAME -A that names nothing anywhere.
func NotFoundAnywhere(res *engine.Result, k KindName, name string) error {
	object, _, _ := strings.Cut(name, "#")
	return fmt.Errorf("%s %s not found in any namespace%s", k.GroupKind().Kind, object, suggestWhere(object, namesWhere(res, k)))
}

// namesWhere maps the names of the objects or policies of kind k to the namespaces that hold them.
func namesWhere(res *engine.Result, k KindName) map[string][]string {
	where := map[string][]string{}
	if k.Policy != nil {
		for _, p := range res.Policies {
			if p.Kind.Key() == k.Policy.Key() {
				where[p.Name] = append(where[p.Name], p.Namespace)
			}
		}
		return where
	}
	for _, id := range res.Graph.ByKind(k.Topology) {
		r := res.Graph.Node(id).Ref
		where[r.Name] = append(where[r.Name], r.Namespace)
	}
	return where
}

// notFoundHint is what follows "not found": where the name is, or names close to it.
func notFoundHint(res *engine.Result, k KindName, name, found string, here []string) string {
	mean := DidYouMean(name, here)
	if found == "" && mean == "" {
		mean = suggestWhere(name, namesWhere(res, k))
	}
	return found + mean
}

// suggestWhere is DidYouMean over the names of where, each with its namespaces.
func suggestWhere(typed string, where map[string][]string) string {
	s := Suggest(typed, slices.Sorted(maps.Keys(where)))
	for i, name := range s {
		if ns := slices.Compact(slices.Sorted(slices.Values(where[name]))); len(ns) > 0 && ns[0] != "" {
			s[i] = fmt.Sprintf("%s (in %s)", name, strings.Join(ns, ", "))
		}
	}
	return didYouMean(s)
}

// Sections are the section names of an object, sorted.
func Sections(res *engine.Result, object topology.Ref) []string {
	var out []string
	for i := range res.Graph.Nodes {
		if r := res.Graph.Nodes[i].Ref; r.Section != "" && r.Object() == object {
			out = append(out, r.Section)
		}
	}
	slices.Sort(out)
	return out
}

// foundIn is the hint of a "not found" message when the object exists in other namespaces.
func foundIn(namespaces []string) string {
	if len(namespaces) == 0 {
		return ""
	}
	sort.Strings(namespaces)
	return fmt.Sprintf(" (found in namespace %s: use -n)", strings.Join(namespaces, ", "))
}

// Namespaces are the namespaces holding an object or policy of kind k named name, sorted.
func Namespaces(res *engine.Result, k KindName, name string) []string {
	seen := map[string]bool{}
	for _, s := range Subjects(res, k, name, "", true, Selector{}) {
		if s.Policy != nil {
			seen[s.Policy.Namespace] = true
		} else {
			seen[res.Graph.Node(s.Node).Ref.Namespace] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// FindPolicy finds a policy of kind k named name in namespace ns, else a cluster-scoped one.
func FindPolicy(res *engine.Result, k *policykind.Kind, ns, name string) *policykind.Policy {
	var clusterScoped *policykind.Policy
	for _, p := range res.Policies {
		if p.Kind.Key() != k.Key() || p.Name != name {
			continue
		}
		if p.Namespace == ns {
			return p
		}
		if p.Namespace == "" {
			clusterScoped = p
		}
	}
	return clusterScoped
}

func id(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}
