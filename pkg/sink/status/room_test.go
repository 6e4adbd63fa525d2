package status_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/strata-dev/strata/internal/testenv"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/sink/status"
)

// letters names the policy kinds of roomWorld: APolicy, BPolicy, ...
var letters = strings.Split("ABCDEFGHIJ", "")

// roomWorld: one policy kind per letter of kinds ("A" is APolicy), each
// with one policy affecting the effective target kind eff ("Gateway",
// "HTTPRoute" or "Service"); the policies of the kinds in problems also
// name a Gateway that does not exist (TargetNotFound: a problem). The
// Gateway g1 and the route r carry status (YAML under status:) as
// stored: gwStatus and routeStatus.
func roomWorld(kinds []string, eff string, problems []string, target, gwStatus, routeStatus string) []string {
	effGroup := "gateway.networking.k8s.io"
	if eff == "Service" {
		effGroup = ""
	}
	docs := []string{`apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: c}
spec: {controllerName: example.com/gateway}`,
		`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g1, namespace: ns, generation: 3}
spec:
  gatewayClassName: c
  listeners: [{name: http, protocol: HTTP, port: 80}]` + gwStatus,
		`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns, generation: 4}
spec:
  parentRefs: [{name: g1}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]` + routeStatus,
		`apiVersion: v1
kind: Service
metadata: {name: svc, namespace: ns}
spec: {ports: [{port: 80}]}`,
	}
	for _, k := range kinds {
		docs = append(docs, fmt.Sprintf(`apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: %[1]s}
spec:
  group: example.io
  kind: %[1]sPolicy
  managed: true
  targetKinds:
  - {group: gateway.networking.k8s.io, kind: Gateway}
  effectiveTargetKind: {group: %[2]q, kind: %[3]s}`, k, effGroup, eff))
		refs := "[" + target
		if slices.Contains(problems, k) {
			refs += ", {group: gateway.networking.k8s.io, kind: Gateway, name: zz-missing}"
		}
		docs = append(docs, fmt.Sprintf(`apiVersion: example.io/v1
kind: %[1]sPolicy
metadata: {name: p, namespace: ns}
spec:
  targetRefs: %[2]s]
  a: 1`, k, refs))
	}
	return docs
}

// conditionsStatus is a status: stanza with conditions of types.
func conditionsStatus(types ...string) string {
	s := "\nstatus:\n  conditions:\n"
	for _, t := range types {
		s += fmt.Sprintf("  - {type: %s, status: \"True\", reason: Ok, message: ok, lastTransitionTime: \"2020-01-01T00:00:00Z\"}\n", t)
	}
	return s
}

// affected is the condition types of kinds, in order.
func affected(kinds ...string) []string {
	var out []string
	for _, k := range kinds {
		out = append(out, "strata.dev/"+k+"PolicyAffected")
	}
	return out
}

func types(list []any) []string {
	var out []string
	for _, c := range list {
		out = append(out, c.(map[string]any)["type"].(string))
	}
	return out
}

// TestConditionsFitTheRoom: each list of conditions of a Gateway API
// object holds at most its CRD's maxItems (8); Strata's <Kind>Affected
// conditions fill what other controllers' conditions leave, problems
// first, then by kind name, and the annotation strata.dev/omitted-conditions
// names the rest; a Service's status.conditions has no bound (issue 43,
// "Status the API accepts").
func TestConditionsFitTheRoom(t *testing.T) {
	const gwRef = "{group: gateway.networking.k8s.io, kind: Gateway, name: g1}"
	const listenerRef = "{group: gateway.networking.k8s.io, kind: Gateway, name: g1, sectionName: http}"
	listenerStatus := func(types ...string) string {
		s := "\nstatus:\n  listeners:\n  - name: http\n    attachedRoutes: 1\n    supportedKinds: [{kind: HTTPRoute}]\n    conditions:\n"
		for _, t := range types {
			s += fmt.Sprintf("    - {type: %s, status: \"True\", reason: Ok, message: ok, lastTransitionTime: \"2020-01-01T00:00:00Z\"}\n", t)
		}
		return s
	}
	parentStatus := func(types ...string) string {
		s := "\nstatus:\n  parents:\n  - parentRef: {name: g1}\n    controllerName: example.com/gateway\n    conditions:\n"
		for _, t := range types {
			s += fmt.Sprintf("    - {type: %s, status: \"True\", reason: Ok, message: ok, lastTransitionTime: \"2020-01-01T00:00:00Z\"}\n", t)
		}
		return s
	}
	for _, c := range []struct {
		name     string
		docs     []string
		kind     string   // of the object checked
		path     []string // of its list of conditions
		want     []string // Strata's conditions in that list, in order
		wantNote string   // the annotation; "" none
	}{{
		name: "all fit: no annotation",
		docs: roomWorld(letters[:6], "Gateway", nil, gwRef, conditionsStatus("Accepted", "Programmed"), ""),
		kind: "Gateway", path: []string{"status", "conditions"},
		want: affected(letters[:6]...),
	}, {
		name: "8 less the other controller's 2: the first 6 by kind name",
		docs: roomWorld(letters, "Gateway", nil, gwRef, conditionsStatus("Accepted", "Programmed"), ""),
		kind: "Gateway", path: []string{"status", "conditions"},
		want:     affected("A", "B", "C", "D", "E", "F"),
		wantNote: "status.conditions: strata.dev/GPolicyAffected, strata.dev/HPolicyAffected, strata.dev/IPolicyAffected, strata.dev/JPolicyAffected",
	}, {
		name: "no other controller: 8 of 10",
		docs: roomWorld(letters, "Gateway", nil, gwRef, "", ""),
		kind: "Gateway", path: []string{"status", "conditions"},
		want:     affected("A", "B", "C", "D", "E", "F", "G", "H"),
		wantNote: "status.conditions: strata.dev/IPolicyAffected, strata.dev/JPolicyAffected",
	}, {
		name: "problems first, kept in kind order",
		docs: roomWorld(letters, "Gateway", []string{"J", "H"}, gwRef, conditionsStatus("Accepted", "Programmed"), ""),
		kind: "Gateway", path: []string{"status", "conditions"},
		want:     affected("A", "B", "C", "D", "H", "J"),
		wantNote: "status.conditions: strata.dev/EPolicyAffected, strata.dev/FPolicyAffected, strata.dev/GPolicyAffected, strata.dev/IPolicyAffected",
	}, {
		name: "Strata's own stored conditions are not others'",
		docs: roomWorld(letters, "Gateway", nil, gwRef, conditionsStatus("Accepted", "Programmed", "strata.dev/APolicyAffected", "strata.dev/JPolicyAffected"), ""),
		kind: "Gateway", path: []string{"status", "conditions"},
		want:     affected("A", "B", "C", "D", "E", "F"),
		wantNote: "status.conditions: strata.dev/GPolicyAffected, strata.dev/HPolicyAffected, strata.dev/IPolicyAffected, strata.dev/JPolicyAffected",
	}, {
		name: "other controllers hold all 8: none written",
		docs: roomWorld(letters[:2], "Gateway", nil, gwRef, conditionsStatus("C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"), ""),
		kind: "Gateway", path: []string{"status", "conditions"},
		wantNote: "status.conditions: strata.dev/APolicyAffected, strata.dev/BPolicyAffected",
	}, {
		name: "a listener's conditions",
		docs: roomWorld(letters, "Gateway", nil, listenerRef, listenerStatus("Accepted", "Programmed", "ResolvedRefs"), ""),
		kind: "Gateway", path: []string{"status", "listeners"},
		want:     affected("A", "B", "C", "D", "E"),
		wantNote: "status.listeners[http].conditions: strata.dev/FPolicyAffected, strata.dev/GPolicyAffected, strata.dev/HPolicyAffected, strata.dev/IPolicyAffected, strata.dev/JPolicyAffected",
	}, {
		name: "a route's parent entry",
		docs: roomWorld(letters, "HTTPRoute", nil, gwRef, "", parentStatus("Accepted", "ResolvedRefs")),
		kind: "HTTPRoute", path: []string{"status", "parents"},
		want:     affected("A", "B", "C", "D", "E", "F"),
		wantNote: "status.parents[Gateway g1].conditions: strata.dev/GPolicyAffected, strata.dev/HPolicyAffected, strata.dev/IPolicyAffected, strata.dev/JPolicyAffected",
	}, {
		name: "a Service has no bound",
		docs: roomWorld(letters, "Service", nil, gwRef, "", ""),
		kind: "Service", path: []string{"status", "conditions"},
		want: affected(letters...),
	}} {
		t.Run(c.name, func(t *testing.T) {
			res := runYAML(t, c.docs...)
			var got *unstructured.Unstructured
			var frag *status.Fragment
			for i, o := range status.Targets(res, now) {
				if o.GetKind() == c.kind {
					got, frag = o, status.Fragments(res, now)[i]
				}
			}
			if got == nil {
				t.Fatalf("no %s among the targets", c.kind)
			}
			list, _, _ := unstructured.NestedSlice(got.Object, c.path...)
			if c.path[1] != "conditions" && len(list) > 0 {
				list, _ = list[0].(map[string]any)["conditions"].([]any)
			}
			if d := cmp.Diff(c.want, types(list)); d != "" {
				t.Errorf("conditions (-want +got):\n%s", d)
			}
			if note := got.GetAnnotations()[hierarchy.OmittedAnnotation]; note != c.wantNote {
				t.Errorf("annotation:\n got %q\nwant %q", note, c.wantNote)
			}
			// The annotation reads back as the fragment's omissions
			// (describe reads it), and the controller's merge into the
			// object as stored writes the same.
			ref := map[string]topology.Ref{
				"Gateway":   {Group: hierarchy.GatewayGroup, Kind: "Gateway", Namespace: "ns", Name: "g1"},
				"HTTPRoute": {Group: hierarchy.GatewayGroup, Kind: "HTTPRoute", Namespace: "ns", Name: "r"},
				"Service":   {Kind: "Service", Namespace: "ns", Name: "svc"},
			}[c.kind]
			id := res.Graph.Lookup(ref)
			if d := cmp.Diff(frag.Omitted, hierarchy.ParseOmissions(c.wantNote, hierarchy.Kinds[ref.GroupKind()].MaxConditions)); d != "" {
				t.Errorf("the annotation does not read back as the fragment's omissions (-fragment +read):\n%s", d)
			}
			stored := storedObject(t, res, id)
			merged, _ := status.Merge(stored, frag, status.OwnedBy(res.PolicyKinds()))
			if note := merged.GetAnnotations()[hierarchy.OmittedAnnotation]; note != c.wantNote {
				t.Errorf("merged annotation:\n got %q\nwant %q", note, c.wantNote)
			}
			all, _, _ := unstructured.NestedSlice(merged.Object, c.path...)
			if c.path[1] != "conditions" && len(all) > 0 {
				all, _ = all[0].(map[string]any)["conditions"].([]any)
			}
			if max := hierarchy.Kinds[ref.GroupKind()].MaxConditions; max > 0 && len(all) > max {
				t.Errorf("merged list holds %d conditions, more than %d", len(all), max)
			}
		})
	}
}

// storedObject is the snapshot's object of node id, as the controller
// reads it (unstructured, with its kind).
func storedObject(t *testing.T, res *engine.Result, id topology.NodeID) *unstructured.Unstructured {
	t.Helper()
	n := res.Graph.Node(id)
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(n.Object)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	version := "v1"
	if n.Ref.Group != "" {
		version = n.Ref.Group + "/v1"
	}
	u.SetAPIVersion(version)
	u.SetKind(n.Ref.Kind)
	return u
}

// TestMergeFitsTheRoom: Merge fits Strata's conditions into the room the
// object as stored at write time leaves, which may be less than the
// snapshot's: the annotation names what the fragment left out and what
// Merge cut; it goes when everything fits, and with the fragment.
func TestMergeFitsTheRoom(t *testing.T) {
	owned := status.Owned{Types: map[string]bool{}, Controllers: map[string]bool{"strata.dev/policy-controller": true}}
	for _, k := range letters {
		owned.Types["strata.dev/"+k+"PolicyAffected"] = true
	}
	conds := func(kinds ...string) []metav1.Condition {
		var out []metav1.Condition
		for _, typ := range affected(kinds...) {
			out = append(out, metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: "Affected", Message: "affected", LastTransitionTime: now})
		}
		return out
	}
	gw := func(extra string) *unstructured.Unstructured {
		return obj(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g, namespace: ns`+extra+`}
`+conditionsStatus("Accepted", "Programmed", "ResolvedRefs"))
	}
	for _, c := range []struct {
		name     string
		current  *unstructured.Unstructured
		fragment *status.Fragment
		want     []string
		wantNote string
	}{{
		name:    "a third condition since the snapshot: one more left out",
		current: gw(""),
		fragment: &status.Fragment{Conditions: conds("A", "B", "C", "D", "E", "F"),
			Omitted: []hierarchy.Omission{{Place: "status.conditions", Types: affected("G", "H")}}},
		want:     affected("A", "B", "C", "D", "E"),
		wantNote: "status.conditions: strata.dev/FPolicyAffected, strata.dev/GPolicyAffected, strata.dev/HPolicyAffected",
	}, {
		name:     "problems first at write time too",
		current:  gw(""),
		fragment: &status.Fragment{Conditions: conds("A", "B", "C", "D", "E", "F"), Problems: affected("F")},
		want:     affected("A", "B", "C", "D", "F"),
		wantNote: "status.conditions: strata.dev/EPolicyAffected",
	}, {
		name:     "everything fits: the annotation goes",
		current:  gw(", annotations: {strata.dev/omitted-conditions: 'status.conditions: strata.dev/FPolicyAffected', keep: me}"),
		fragment: &status.Fragment{Conditions: conds("A", "B")},
		want:     affected("A", "B"),
	}, {
		name:    "no longer affected: the annotation goes",
		current: gw(", annotations: {strata.dev/omitted-conditions: 'status.conditions: strata.dev/FPolicyAffected', keep: me}"),
	}} {
		t.Run(c.name, func(t *testing.T) {
			merged, _ := status.Merge(c.current, c.fragment, owned)
			all, _, _ := unstructured.NestedSlice(merged.Object, "status", "conditions")
			if got := types(all); !slices.Equal(got[:3], []string{"Accepted", "Programmed", "ResolvedRefs"}) {
				t.Errorf("other controller's conditions not kept first: %v", got)
			} else if d := cmp.Diff(c.want, got[3:], cmpopts.EquateEmpty()); d != "" {
				t.Errorf("Strata's conditions (-want +got):\n%s", d)
			}
			if len(all) > hierarchy.GatewayAPIMaxConditions {
				t.Errorf("%d conditions", len(all))
			}
			ann := merged.GetAnnotations()
			if ann[hierarchy.OmittedAnnotation] != c.wantNote {
				t.Errorf("annotation:\n got %q\nwant %q", ann[hierarchy.OmittedAnnotation], c.wantNote)
			}
			if _, present := ann[hierarchy.OmittedAnnotation]; present != (c.wantNote != "") {
				t.Errorf("annotation present: %v", present)
			}
			if c.current.GetAnnotations()["keep"] != "" && ann["keep"] != "me" {
				t.Errorf("others' annotations not kept: %v", ann)
			}
		})
	}
}

// TestMaxConditionsAreTheCRDs: the bound of every list of conditions in
// the table of kinds is the maxItems of the Gateway API CRDs Strata is
// built with, in both channels and every served version.
func TestMaxConditionsAreTheCRDs(t *testing.T) {
	for _, channel := range []string{"standard", "experimental"} {
		paths, err := testenv.ChannelCRDPaths(channel)
		if err != nil {
			t.Fatal(err)
		}
		files, err := filepath.Glob(filepath.Join(paths[0], "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no CRDs in %s: %v", paths[0], err)
		}
		seen := map[schema.GroupKind]bool{}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := utilyaml.Unmarshal(b, crd); err != nil || crd.Kind != "CustomResourceDefinition" {
				continue
			}
			gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
			info, ok := hierarchy.Kinds[gk]
			if !ok || info.Conditions == hierarchy.InAnnotation {
				continue
			}
			seen[gk] = true
			for _, v := range crd.Spec.Versions {
				if !v.Served || v.Schema == nil {
					continue
				}
				st := v.Schema.OpenAPIV3Schema.Properties["status"]
				lists := map[string]apiextensionsv1.JSONSchemaProps{}
				if c, ok := st.Properties["conditions"]; ok {
					lists["status.conditions"] = c
				}
				for _, entries := range []string{"listeners", "parents"} {
					if e, ok := st.Properties[entries]; ok && e.Items != nil && e.Items.Schema != nil {
						lists["status."+entries+"[].conditions"] = e.Items.Schema.Properties["conditions"]
					}
				}
				if len(lists) == 0 {
					t.Errorf("%s %s %s: no list of conditions in its status", channel, gk.Kind, v.Name)
				}
				for path, l := range lists {
					var got int
					if l.MaxItems != nil {
						got = int(*l.MaxItems)
					}
					if got != info.MaxConditions {
						t.Errorf("%s %s %s %s: maxItems %d, the table says %d", channel, gk.Kind, v.Name, path, got, info.MaxConditions)
					}
				}
			}
		}
		for gk, info := range hierarchy.Kinds {
			if info.MaxConditions > 0 && !seen[gk] {
				t.Errorf("%s: bounded in the table, no CRD in the %s channel", gk.Kind, channel)
			}
		}
	}
}
