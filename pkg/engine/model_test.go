package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind/builtin"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
	"github.com/strata-dev/strata/pkg/sink/status"
	"github.com/strata-dev/strata/pkg/source/files"
)

// TestModelEqualsRun is the live model's property (docs/live-model.md):
// after any sequence of changes of every input kind, the model's policy
// statuses, target statuses and effective policies are byte for byte
// those of a fresh Run of the snapshot the changes made, and an earlier
// model still says what it said.
func TestModelEqualsRun(t *testing.T) {
	worlds := map[string]*snapshot.Snapshot{
		"synthetic": synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 6, Routes: 40, Services: 40, Policies: 60}, 7),
	}
	for _, dir := range []string{"gep-713/example-1", "gep-713/example-3", "gep-713/listenerset", "gep-713/mesh", "parable", "catalogue", "childmerge"} {
		src, err := files.Read([]string{"../../examples/" + dir}, nil)
		if err != nil {
			t.Fatal(err)
		}
		worlds[dir] = src.Snapshot
	}
	src, err := files.Read([]string{"-"}, strings.NewReader(unreached))
	if err != nil {
		t.Fatal(err)
	}
	worlds["unreached"] = src.Snapshot
	// A value space (three kinds folding into one stack, a referral by
	// parametersRef, a global namespace) of TestValueSpace.
	src, err = files.Read([]string{"-"}, strings.NewReader(strings.Join([]string{
		spaceKind("Base", 0, "  referencedBy: [{group: gateway.networking.k8s.io, kind: GatewayClass, field: spec.parametersRef}]\n"),
		spaceKind("Infra", 1, "  globalNamespaces: [system]\n"),
		spaceKind("Tenant", 2, ""),
		spaceWorld,
		spacePolicy("Infra", "infra", "on-gw", "2026-01-01T00:00:00Z", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  defaults: {b: infra-gw, locked: infra-gw}"),
		spacePolicy("Tenant", "infra", "on-ns", "2026-01-01T00:00:00Z", "  targetRefs: [{group: \"\", kind: Namespace, name: infra}]\n  defaults: {b: tenant-ns}"),
		spacePolicy("Infra", "system", "global", "2026-01-01T00:00:00Z", "  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: shared}]\n  defaults: {c: global}"),
		spacePolicy("Tenant", "infra", "gw-only", "2026-01-01T00:00:00Z", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  defaults: {d: gw}"),
		spacePolicy("Tenant", "web", "route", "2026-01-01T00:00:00Z", "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]\n  defaults: {e: route}"),
	}, "\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	worlds["valuespace"] = src.Snapshot
	steps := 60
	if testing.Short() {
		steps = 15
	}
	for name, s := range worlds {
		incremental, topo, gateways, ran := 0, 0, 0, false
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("%s/%d", name, seed), func(t *testing.T) {
				ran = true
				n, r, g := checkModel(t, s, rand.New(rand.NewPCG(seed, 0x11fe)), steps)
				incremental, topo, gateways = incremental+n, topo+r, gateways+g
			})
		}
		if ran && incremental == 0 {
			t.Errorf("%s: no change of %d was applied without a full run", name, 3*steps)
		}
		if ran && name == "synthetic" && (topo == 0 || gateways == 0) {
			t.Errorf("%s: %d route and Gateway changes applied without a full run, %d of them with a Gateway; want some of each", name, topo, gateways)
		}
	}
}

// unreached is a world where policies of a None kind conflict on a
// Gateway without routes, so their status comes from the conflict alone
// (no context reaches them): a change to one changes the others'.
const unreached = `apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: locks}
spec:
  group: example.io
  kind: LockPolicy
  class: Inherited
  managed: true
  strategies: {supported: [None], default: None}
  targetKinds: [{group: gateway.networking.k8s.io, kind: Gateway}]
  effectiveTargetKinds: [{group: gateway.networking.k8s.io, kind: HTTPRoute}]
---
apiVersion: v1
kind: Namespace
metadata: {name: infra}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gc}
spec: {controllerName: example.io/gc}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: empty, namespace: infra}
spec:
  gatewayClassName: gc
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: full, namespace: infra}
spec:
  gatewayClassName: gc
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: full}]
` + lock + "l1" + lockAt + "01" + lockTo + "empty}]\n  mode: a\n" + lock + "l2" + lockAt + "02" + lockTo + "empty}]\n  mode: b\n" + lock + "l3" + lockAt + "03" + lockTo + "full}]\n  mode: c\n"

const (
	lock   = "---\napiVersion: example.io/v1\nkind: LockPolicy\nmetadata: {namespace: infra, name: "
	lockAt = ", creationTimestamp: \"2026-01-"
	lockTo = "T00:00:00Z\"}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: "
)

// FuzzModel is TestModelEqualsRun's property on change sequences chosen
// by the fuzzer, on the synthetic world.
func FuzzModel(f *testing.F) {
	s := synth.Generate(synth.Sizes{Namespaces: 3, Gateways: 4, Routes: 20, Services: 20, Policies: 30}, 3)
	f.Add(uint64(1), uint8(8))
	f.Add(uint64(99), uint8(30))
	f.Fuzz(func(t *testing.T, seed uint64, steps uint8) {
		_, _, _ = checkModel(t, s, rand.New(rand.NewPCG(seed, 0xf022)), int(steps%40))
	})
}

// checkModel applies steps random batches of changes to a model of s,
// checking each model against a fresh Run and the one before it against
// what it said; it returns how many were applied without a full run, how
// many of those changed only routes and Gateways, and how many a Gateway.
func checkModel(t *testing.T, s *snapshot.Snapshot, rng *rand.Rand, steps int) (incremental, topo, gateways int) {
	t.Helper()
	catalogue, err := builtin.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.Options{Lenient: true, Catalogue: catalogue}
	m, err := engine.NewModel(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	said := render(t, m.Result())
	for step := range steps {
		var changes []snapshot.Change
		// One batch in four moves routes and Gateways only, which the
		// model takes in place.
		topology := rng.IntN(4) == 0
		for range 1 + rng.IntN(3) {
			switch now := m.Snapshot(); {
			case topology && rng.IntN(3) == 0 && len(now.Gateways) > 0:
				changes = append(changes, randomGatewayChange(rng, now))
			case topology && len(now.HTTPRoutes) > 0:
				changes = append(changes, randomRouteChange(rng, now))
			default:
				changes = append(changes, randomChange(rng, now))
			}
		}
		next, delta, err := m.Apply(changes...)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		fresh, err := engine.Run(next.Snapshot(), opts)
		if err != nil {
			t.Fatalf("step %d: fresh run: %v", step, err)
		}
		got, want := render(t, next.Result()), render(t, fresh)
		for i, part := range []string{"policy status", "target status", "effective policies", "attachments", "graph"} {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("step %d (%s, full %v): %s differ:\nmodel: %s\nrun:   %s", step, describeChanges(changes), delta.Full, part, got[i], want[i])
			}
		}
		if again := render(t, m.Result()); !slices.EqualFunc(again, said, bytes.Equal) {
			t.Fatalf("step %d: the earlier model changed", step)
		}
		if !delta.Full {
			incremental++
			if !slices.ContainsFunc(changes, func(c snapshot.Change) bool { return snapshot.IsPolicy(c.Object) }) {
				topo++
			}
			if slices.ContainsFunc(changes, func(c snapshot.Change) bool { _, ok := c.Object.(*gwv1.Gateway); return ok }) {
				gateways++
			}
		}
		m, said = next, got
	}
	t.Logf("%d of %d changes applied without a full run, %d of them of routes and Gateways only, %d with a Gateway", incremental, steps, topo, gateways)
	return incremental, topo, gateways
}

// render is what a Result says: policy statuses, target statuses,
// effective policies and each kind's attachments, as JSON.
func render(t *testing.T, res *engine.Result) [][]byte {
	t.Helper()
	now := metav1.NewTime(time.Unix(0, 0))
	var attachments []string
	for _, kr := range res.Kinds {
		for _, p := range kr.Policies {
			for _, a := range kr.Attachments.ByPolicy[p] {
				attachments = append(attachments, fmt.Sprintf("%s %s %s %s", kr.Kind.Kind, p.ID(), res.Graph.Node(a.Node).Ref.Key(), a.Field))
			}
		}
		for n, as := range kr.Attachments.ByNode {
			for _, a := range as {
				attachments = append(attachments, fmt.Sprintf("%s at %s: %s", kr.Kind.Kind, res.Graph.Node(n).Ref.Key(), a.Policy.ID()))
			}
		}
		for _, rj := range kr.Attachments.Rejections {
			attachments = append(attachments, fmt.Sprintf("%s rejects %s %s: %s", kr.Kind.Kind, rj.Policy.ID(), rj.Field, rj.Message))
		}
	}
	slices.Sort(attachments)
	var out [][]byte
	for _, v := range []any{objects(status.Policies(res, now)), objects(status.Targets(res, now)), effectivepolicy.Build(res), attachments, edges(res.Graph)} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// edges are a graph's nodes and problems by key, not id (a model's
// graph numbers the nodes it adds in the order they came): each node
// with its generation and the keys of its parents and children.
func edges(g *topology.Graph) []string {
	keys := func(ids []topology.NodeID) []string {
		var out []string
		for _, id := range ids {
			out = append(out, g.Node(id).Ref.Key())
		}
		slices.Sort(out)
		return out
	}
	var out []string
	for _, n := range g.Nodes {
		out = append(out, fmt.Sprintf("%s gen=%d parents=%v children=%v", n.Ref.Key(), n.Generation, keys(n.Parents), keys(n.Children)))
	}
	slices.Sort(out)
	for _, p := range g.Problems {
		out = append(out, p.Error())
	}
	return out
}

func describeChanges(cs []snapshot.Change) string {
	var b bytes.Buffer
	for _, c := range cs {
		o := c.Object.(metav1.Object)
		verb := "put"
		if c.Deleted {
			verb = "delete"
		}
		fmt.Fprintf(&b, "%s %T %s/%s; ", verb, c.Object, o.GetNamespace(), o.GetName())
	}
	return b.String()
}

// randomChange is a change to s: mostly to policies (edit, retarget,
// add, delete), sometimes to the topology (a route's parents, a
// Namespace's labels, a Gateway's listeners, a deletion).
func randomChange(rng *rand.Rand, s *snapshot.Snapshot) snapshot.Change {
	pick := func(n int) int { return rng.IntN(max(n, 1)) }
	switch r := rng.IntN(20); {
	case r < 14 && len(s.Policies) > 0:
		u := s.Policies[pick(len(s.Policies))].DeepCopy()
		switch rng.IntN(6) {
		case 0:
			return snapshot.Change{Object: u, Deleted: true}
		case 1: // a new policy like it
			u.SetName(fmt.Sprintf("%s-x%d", u.GetName(), rng.IntN(1000)))
			u.SetCreationTimestamp(metav1.NewTime(time.Unix(int64(rng.IntN(1e6)), 0)))
			if len(s.Namespaces) > 0 && rng.IntN(2) == 0 {
				u.SetNamespace(s.Namespaces[pick(len(s.Namespaces))].Name)
			}
		case 2:
			retarget(rng, s, u)
		case 3: // defaults become overrides, or back
			spec, _, _ := unstructured.NestedMap(u.Object, "spec")
			d, hasD := spec["defaults"]
			o, hasO := spec["overrides"]
			delete(spec, "defaults")
			delete(spec, "overrides")
			if hasD {
				spec["overrides"] = d
			}
			if hasO {
				spec["defaults"] = o
			}
			_ = unstructured.SetNestedMap(u.Object, spec, "spec")
		case 4:
			u.SetCreationTimestamp(metav1.NewTime(time.Unix(int64(rng.IntN(1e6)), 0)))
		default:
			editLeaf(rng, u.Object["spec"])
		}
		return snapshot.Change{Object: u}
	case r < 16 && len(s.HTTPRoutes) > 0:
		return randomRouteChange(rng, s)
	case r < 17 && len(s.Namespaces) > 0:
		ns := s.Namespaces[pick(len(s.Namespaces))].DeepCopy()
		labels := map[string]string{}
		for k, v := range ns.Labels {
			if rng.IntN(2) == 0 {
				labels[k] = v
			}
		}
		if rng.IntN(2) == 0 {
			labels["env"] = []string{"prod", "dev"}[rng.IntN(2)]
		}
		ns.Labels = labels
		return snapshot.Change{Object: ns}
	case r < 18 && len(s.Gateways) > 0:
		return randomGatewayChange(rng, s)
	case r < 19 && len(s.Services) > 0:
		return snapshot.Change{Object: s.Services[pick(len(s.Services))].DeepCopy(), Deleted: true}
	default:
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("new-%d", rng.IntN(5)), Labels: map[string]string{"env": "prod"}}}
		return snapshot.Change{Object: ns}
	}
}

// randomRouteChange is a change to a route of s: a deletion, or a new
// version with another parent, listener (sectionName), backend,
// hostname, a parent of a kind outside the hierarchy, or other labels.
func randomRouteChange(rng *rand.Rand, s *snapshot.Snapshot) snapshot.Change {
	pick := func(n int) int { return rng.IntN(max(n, 1)) }
	rt := s.HTTPRoutes[pick(len(s.HTTPRoutes))].DeepCopy()
	rt.Generation++
	switch rng.IntN(7) {
	case 0:
		return snapshot.Change{Object: rt, Deleted: true}
	case 1, 2: // to a listener of another Gateway, or to all of its listeners
		if len(s.Gateways) > 0 && len(rt.Spec.ParentRefs) > 0 {
			gw := s.Gateways[pick(len(s.Gateways))]
			ns := gwv1.Namespace(gw.Namespace)
			rt.Spec.ParentRefs[0] = gwv1.ParentReference{Name: gwv1.ObjectName(gw.Name), Namespace: &ns}
			if ls := gw.Spec.Listeners; len(ls) > 0 && rng.IntN(2) == 0 {
				rt.Spec.ParentRefs[0].SectionName = &ls[pick(len(ls))].Name
			}
		}
	case 3: // a rule's backend to another Service
		if len(rt.Spec.Rules) > 0 && len(s.Services) > 0 {
			svc := s.Services[pick(len(s.Services))]
			ns := gwv1.Namespace(svc.Namespace)
			rule := &rt.Spec.Rules[pick(len(rt.Spec.Rules))]
			rule.BackendRefs = []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: gwv1.ObjectName(svc.Name), Namespace: &ns}}}}
		}
	case 4:
		rt.Spec.Hostnames = []gwv1.Hostname{[]gwv1.Hostname{"shop.example.com", "*.example.com", "elsewhere.test"}[rng.IntN(3)]}
	case 5: // a parent outside the hierarchy, or none
		if rng.IntN(2) == 0 {
			kind := gwv1.Kind("Mystery")
			rt.Spec.ParentRefs = append(rt.Spec.ParentRefs, gwv1.ParentReference{Name: "m", Kind: &kind})
		} else {
			rt.Spec.ParentRefs = nil
		}
	default:
		rt.Labels = map[string]string{"app": []string{"web", "api"}[rng.IntN(2)]}
	}
	return snapshot.Change{Object: rt}
}

// randomGatewayChange is a new version of a Gateway of s: a listener
// removed, or one with another hostname, port, protocol or
// allowedRoutes, or other labels.
func randomGatewayChange(rng *rand.Rand, s *snapshot.Snapshot) snapshot.Change {
	gw := s.Gateways[rng.IntN(len(s.Gateways))].DeepCopy()
	gw.Generation++
	ls := gw.Spec.Listeners
	if len(ls) == 0 {
		return snapshot.Change{Object: gw}
	}
	l := &ls[rng.IntN(len(ls))]
	switch rng.IntN(6) {
	case 0:
		if len(ls) > 1 {
			gw.Spec.Listeners = slices.Delete(ls, 0, 1)
		}
	case 1:
		h := []gwv1.Hostname{"shop.example.com", "*.example.com", "elsewhere.test"}[rng.IntN(3)]
		l.Hostname = &h
		if rng.IntN(3) == 0 {
			l.Hostname = nil
		}
	case 2:
		l.Port = []gwv1.PortNumber{80, 443, 8080}[rng.IntN(3)]
	case 3:
		l.Protocol = []gwv1.ProtocolType{gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType, gwv1.TCPProtocolType}[rng.IntN(3)]
	case 4:
		from := []gwv1.FromNamespaces{gwv1.NamespacesFromAll, gwv1.NamespacesFromSame, gwv1.NamespacesFromSelector}[rng.IntN(3)]
		l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: &from}}
		if from == gwv1.NamespacesFromSelector {
			l.AllowedRoutes.Namespaces.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
		}
	default:
		gw.Labels = map[string]string{"tier": []string{"edge", "core"}[rng.IntN(2)]}
	}
	return snapshot.Change{Object: gw}
}

// retarget points u's first targetRef at another object of the snapshot
// of the same kind, or at one that does not exist.
func retarget(rng *rand.Rand, s *snapshot.Snapshot, u *unstructured.Unstructured) {
	refs, found, _ := unstructured.NestedSlice(u.Object, "spec", "targetRefs")
	if !found || len(refs) == 0 {
		return
	}
	ref, ok := refs[0].(map[string]any)
	if !ok {
		return
	}
	var names []runtime.Object
	switch ref["kind"] {
	case "HTTPRoute":
		for _, o := range s.HTTPRoutes {
			names = append(names, o)
		}
	case "Gateway":
		for _, o := range s.Gateways {
			names = append(names, o)
		}
	case "Service":
		for _, o := range s.Services {
			names = append(names, o)
		}
	case "Namespace":
		for _, o := range s.Namespaces {
			names = append(names, o)
		}
	}
	if len(names) == 0 || rng.IntN(5) == 0 {
		ref["name"] = "nowhere"
	} else {
		o := names[rng.IntN(len(names))].(metav1.Object)
		ref["name"] = o.GetName()
		if o.GetNamespace() != "" && o.GetNamespace() != u.GetNamespace() && rng.IntN(2) == 0 {
			u.SetNamespace(o.GetNamespace())
		}
	}
	delete(ref, "selector")
	delete(ref, "sectionName")
	refs[0] = ref
	_ = unstructured.SetNestedSlice(u.Object, refs, "spec", "targetRefs")
}

// editLeaf changes one string or number under v, but not a targetRef.
func editLeaf(rng *rand.Rand, v any) {
	switch x := v.(type) {
	case map[string]any:
		var keys []string
		for k := range x {
			if k != "targetRefs" && k != "targetRef" {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			return
		}
		slices.Sort(keys)
		k := keys[rng.IntN(len(keys))]
		switch y := x[k].(type) {
		case string:
			x[k] = []string{"red", "blue", "green", y + "!"}[rng.IntN(4)]
		case int64:
			x[k] = y + 1
		case float64:
			x[k] = y + 1
		case bool:
			x[k] = !y
		default:
			editLeaf(rng, y)
		}
	case []any:
		if len(x) > 0 {
			editLeaf(rng, x[rng.IntN(len(x))])
		}
	}
}
