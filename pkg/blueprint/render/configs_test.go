package render

import (
	"encoding/json"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint/values"
)

// The configs a render test merges values from: the render tests put a
// tenant's values at one of 002's levels and check what the render makes
// of them (values_test.go in package values checks the merge itself).

const ctrlNS = "strata-system"

var (
	t0    = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	gwPar = values.Parent{Kind: "Gateway", Namespace: "team", Name: "web", Class: "internet"}
)

func js(t *testing.T, v map[string]any) *apiextensionsv1.JSON {
	t.Helper()
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return &apiextensionsv1.JSON{Raw: b}
}

func blueprintWith(t *testing.T, def, ov map[string]any) *bpv1.GatewayClassBlueprint {
	return &bpv1.GatewayClassBlueprint{
		ObjectMeta: metav1.ObjectMeta{Name: "bp"},
		Spec:       bpv1.BlueprintSpec{Values: bpv1.Values{Default: js(t, def), Override: js(t, ov)}},
	}
}

func ref(group, kind, name string) gwv1.LocalPolicyTargetReference {
	return gwv1.LocalPolicyTargetReference{Group: gwv1.Group(group), Kind: gwv1.Kind(kind), Name: gwv1.ObjectName(name)}
}

// atLevel builds a config that applies to gwPar at level l.
func atLevel(t *testing.T, l values.Level, name string, age int, def, ov map[string]any) *values.Config {
	t.Helper()
	var kind, ns string
	var r gwv1.LocalPolicyTargetReference
	switch l {
	case values.LevelGlobal:
		kind, ns, r = bpv1.ClassConfigKind, ctrlNS, ref(gwv1.GroupName, "GatewayClass", "internet")
	case values.LevelClassConfigNamespace:
		kind, ns, r = bpv1.ClassConfigKind, "team", ref("", "Namespace", "team")
	case values.LevelClassConfigClass:
		kind, ns, r = bpv1.ClassConfigKind, "team", ref(gwv1.GroupName, "GatewayClass", "internet")
	case values.LevelConfigNamespace:
		kind, ns, r = bpv1.ConfigKind, "team", ref("", "Namespace", "team")
	case values.LevelConfigParent:
		kind, ns, r = bpv1.ConfigKind, "team", ref(gwv1.GroupName, "Gateway", "web")
	default:
		t.Fatalf("no config at level %v", l)
	}
	meta := metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(age) * time.Hour))}
	spec := bpv1.ConfigSpec{TargetRefs: []gwv1.LocalPolicyTargetReference{r}, Default: js(t, def), Override: js(t, ov)}
	if kind == bpv1.ClassConfigKind {
		return values.ClassConfig(&bpv1.GatewayClassConfig{ObjectMeta: meta, Spec: spec})
	}
	return values.GatewayConfig(&bpv1.GatewayConfig{ObjectMeta: meta, Spec: spec})
}

// testKinds are the kinds of testScope, type-checked with client-go's
// scheme as the controller and `strata render` do.
var testKinds = kindsOf(testScope)

func kindsOf(s Scope) Kinds { return Kinds{Scope: s, Types: clientgoscheme.Scheme} }
