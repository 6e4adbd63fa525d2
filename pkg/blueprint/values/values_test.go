package values

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
)

const ctrlNS = "strata-system"

var (
	t0    = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	gwPar = Parent{Kind: "Gateway", Namespace: "team", Name: "web", Class: "internet"}
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

// level builds a config that applies to gwPar at level l.
func atLevel(t *testing.T, l Level, name string, age int, def, ov map[string]any) *Config {
	t.Helper()
	var kind, ns string
	var r gwv1.LocalPolicyTargetReference
	switch l {
	case LevelGlobal:
		kind, ns, r = bpv1.ClassConfigKind, ctrlNS, ref(gatewayGroup, "GatewayClass", "internet")
	case LevelClassConfigNamespace:
		kind, ns, r = bpv1.ClassConfigKind, "team", ref("", "Namespace", "team")
	case LevelClassConfigClass:
		kind, ns, r = bpv1.ClassConfigKind, "team", ref(gatewayGroup, "GatewayClass", "internet")
	case LevelConfigNamespace:
		kind, ns, r = bpv1.ConfigKind, "team", ref("", "Namespace", "team")
	case LevelConfigParent:
		kind, ns, r = bpv1.ConfigKind, "team", ref(gatewayGroup, "Gateway", "web")
	default:
		t.Fatalf("no config at level %v", l)
	}
	meta := metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(age) * time.Hour))}
	spec := bpv1.ConfigSpec{TargetRefs: []gwv1.LocalPolicyTargetReference{r}, Default: js(t, def), Override: js(t, ov)}
	if kind == bpv1.ClassConfigKind {
		return ClassConfig(&bpv1.GatewayClassConfig{ObjectMeta: meta, Spec: spec})
	}
	return GatewayConfig(&bpv1.GatewayConfig{ObjectMeta: meta, Spec: spec})
}

var configLevels = []Level{LevelGlobal, LevelClassConfigNamespace, LevelClassConfigClass, LevelConfigNamespace, LevelConfigParent}

// TestPrecedenceMatrix sets one value at every level of 002's list, as a
// default and as an override, for every subset of levels present, and
// checks the winner: the most specific default, the least specific
// override, an override beating every default.
func TestPrecedenceMatrix(t *testing.T) {
	all := append([]Level{LevelBlueprint}, configLevels...)
	for mask := 1; mask < 1<<len(all); mask++ {
		for _, block := range []string{"default", "override"} {
			var present []Level
			for i, l := range all {
				if mask&(1<<i) != 0 {
					present = append(present, l)
				}
			}
			var bpDef, bpOv map[string]any
			var configs []*Config
			for _, l := range present {
				v := map[string]any{"v": l.String()}
				if l == LevelBlueprint {
					if block == "default" {
						bpDef = v
					} else {
						bpOv = v
					}
					continue
				}
				if block == "default" {
					configs = append(configs, atLevel(t, l, "c", 0, v, nil))
				} else {
					configs = append(configs, atLevel(t, l, "c", 0, nil, v))
				}
			}
			got, err := Merge(blueprintWith(t, bpDef, bpOv), gwPar, configs, ctrlNS)
			if err != nil {
				t.Fatal(err)
			}
			want := present[len(present)-1]
			if block == "override" {
				want = present[0]
			}
			if got.Values["v"] != want.String() {
				t.Errorf("%s at %v: got %v, want %v", block, present, got.Values["v"], want)
			}
			if len(got.Leaves) != 1 || got.Leaves[0].Source.Level != want || got.Leaves[0].Source.Block != block {
				t.Errorf("%s at %v: leaves %+v", block, present, got.Leaves)
			}
			if len(got.Leaves[0].Beaten) != len(present)-1 {
				t.Errorf("%s at %v: beaten %+v", block, present, got.Leaves[0].Beaten)
			}
		}
	}
}

// TestOverrideBeatsEveryDefault: an override at the most specific level
// still beats a default at the same level and the blueprint's default.
func TestOverrideBeatsEveryDefault(t *testing.T) {
	configs := []*Config{atLevel(t, LevelConfigParent, "c", 0, map[string]any{"v": "default"}, map[string]any{"v": "override"})}
	got, err := Merge(blueprintWith(t, map[string]any{"v": "bp"}, nil), gwPar, configs, ctrlNS)
	if err != nil {
		t.Fatal(err)
	}
	if got.Values["v"] != "override" {
		t.Fatalf("got %v", got.Values["v"])
	}
}

func TestMapsMergeScalarsAndListsReplace(t *testing.T) {
	bp := blueprintWith(t, map[string]any{
		"tags":     map[string]any{"team": "infra", "env": "prod"},
		"replicas": 1.0,
		"ports":    []any{80.0, 443.0},
	}, nil)
	configs := []*Config{
		atLevel(t, LevelConfigNamespace, "ns", 0, map[string]any{"tags": map[string]any{"env": "dev", "cost": "42"}, "ports": []any{8080.0}}, nil),
		atLevel(t, LevelConfigParent, "gw", 0, map[string]any{"replicas": 3.0, "tags": map[string]any{"team": nil}}, nil),
	}
	got, err := Merge(bp, gwPar, configs, ctrlNS)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"tags":     map[string]any{"env": "dev", "cost": "42"},
		"replicas": 3.0,
		"ports":    []any{8080.0},
	}
	if !reflect.DeepEqual(got.Values, want) {
		t.Fatalf("values %v, want %v", got.Values, want)
	}
	src := map[string]string{}
	for _, l := range got.Leaves {
		src[l.Pointer] = l.Source.Name
	}
	wantSrc := map[string]string{"/tags/env": "ns", "/tags/cost": "ns", "/ports": "ns", "/replicas": "gw"}
	if !reflect.DeepEqual(src, wantSrc) {
		t.Fatalf("sources %v, want %v", src, wantSrc)
	}
}

// TestConflictAtOneLevel: two configs at one level set the same value;
// the older wins, then the first by namespace/name; the loser is
// PartiallyEnforced or Overridden and says which value it lost to whom.
func TestConflictAtOneLevel(t *testing.T) {
	for _, tc := range []struct {
		name             string
		ageA, ageB       int
		wantV            string
		wantLoser        string
		wantLoserOutcome string
	}{
		{"older wins", 1, 0, "b", "a", "PartiallyEnforced"},
		{"tie: name order", 0, 0, "a", "b", "Overridden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, block := range []string{"default", "override"} {
				mk := func(name string, age int, v map[string]any) *Config {
					if block == "default" {
						return atLevel(t, LevelClassConfigClass, name, age, v, nil)
					}
					return atLevel(t, LevelClassConfigClass, name, age, nil, v)
				}
				a := mk("a", tc.ageA, map[string]any{"v": "a", "onlyA": true})
				b := mk("b", tc.ageB, map[string]any{"v": "b"})
				if tc.wantLoser == "b" {
					a = mk("a", tc.ageA, map[string]any{"v": "a"})
					b = mk("b", tc.ageB, map[string]any{"v": "b"})
				}
				got, err := Merge(blueprintWith(t, nil, nil), gwPar, []*Config{b, a}, ctrlNS)
				if err != nil {
					t.Fatal(err)
				}
				if got.Values["v"] != tc.wantV {
					t.Fatalf("%s: v = %v, want %v", block, got.Values["v"], tc.wantV)
				}
				for _, ap := range got.Applied {
					if ap.Config.Name != tc.wantLoser {
						if ap.Result() != "Enforced" {
							t.Errorf("%s: winner %s is %s", block, ap.Config.Name, ap.Result())
						}
						continue
					}
					if ap.Result() != tc.wantLoserOutcome {
						t.Errorf("%s: loser %s is %s, want %s", block, ap.Config.Name, ap.Result(), tc.wantLoserOutcome)
					}
					if len(ap.Lost) != 1 || ap.Lost[0].Pointer != "/v" || ap.Lost[0].By == nil || ap.Lost[0].By.Name == tc.wantLoser {
						t.Errorf("%s: lost %+v", block, ap.Lost)
					}
				}
			}
		})
	}
}

func TestLevelOf(t *testing.T) {
	route := Parent{Kind: "HTTPRoute", Namespace: "team", Name: "shop", Class: "internet"}
	for _, tc := range []struct {
		name   string
		c      *Config
		parent Parent
		want   Level
	}{
		{"global", &Config{Kind: bpv1.ClassConfigKind, Namespace: ctrlNS, TargetRefs: []Ref{{Group: gatewayGroup, Kind: "GatewayClass", Name: "internet"}}}, gwPar, LevelGlobal},
		{"global other class", &Config{Kind: bpv1.ClassConfigKind, Namespace: ctrlNS, TargetRefs: []Ref{{Group: gatewayGroup, Kind: "GatewayClass", Name: "internal"}}}, gwPar, 0},
		{"other tenant's class config", &Config{Kind: bpv1.ClassConfigKind, Namespace: "other", TargetRefs: []Ref{{Group: gatewayGroup, Kind: "GatewayClass", Name: "internet"}}}, gwPar, 0},
		{"other tenant's namespace config", &Config{Kind: bpv1.ConfigKind, Namespace: "other", TargetRefs: []Ref{{Kind: "Namespace", Name: "other"}}}, gwPar, 0},
		{"most specific of several refs", &Config{Kind: bpv1.ClassConfigKind, Namespace: "team", TargetRefs: []Ref{{Kind: "Namespace", Name: "team"}, {Group: gatewayGroup, Kind: "GatewayClass", Name: "internet"}}}, gwPar, LevelClassConfigClass},
		{"gateway config on route", &Config{Kind: bpv1.ConfigKind, Namespace: "team", TargetRefs: []Ref{{Group: gatewayGroup, Kind: "HTTPRoute", Name: "shop"}}}, route, LevelConfigParent},
		{"gateway config on gateway does not reach route", &Config{Kind: bpv1.ConfigKind, Namespace: "team", TargetRefs: []Ref{{Group: gatewayGroup, Kind: "Gateway", Name: "web"}}}, route, 0},
		{"controller namespace gateway: local beats global", &Config{Kind: bpv1.ClassConfigKind, Namespace: ctrlNS, TargetRefs: []Ref{{Group: gatewayGroup, Kind: "GatewayClass", Name: "internet"}}}, Parent{Kind: "Gateway", Namespace: ctrlNS, Name: "x", Class: "internet"}, LevelClassConfigClass},
		{"invalid", &Config{Kind: bpv1.ConfigKind, Namespace: "team", Invalid: []string{"x"}, TargetRefs: []Ref{{Kind: "Namespace", Name: "team"}}}, gwPar, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.c.Level(tc.parent, ctrlNS)
			if got != tc.want || ok != (tc.want > 0) {
				t.Fatalf("level %v %v, want %v", got, ok, tc.want)
			}
		})
	}
}

func TestInvalidConfigs(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  *Config
		want string
	}{
		{"other namespace", ClassConfig(&bpv1.GatewayClassConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "x"}, Spec: bpv1.ConfigSpec{TargetRefs: []gwv1.LocalPolicyTargetReference{ref("", "Namespace", "other")}}}),
			`spec.targetRefs[0]: a Namespace target must be the config's own namespace "team", not "other"`},
		{"class config on gateway", ClassConfig(&bpv1.GatewayClassConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "x"}, Spec: bpv1.ConfigSpec{TargetRefs: []gwv1.LocalPolicyTargetReference{ref(gatewayGroup, "Gateway", "web")}}}),
			"spec.targetRefs[0]: a GatewayClassConfig cannot target Gateway.gateway.networking.k8s.io"},
		{"gateway config on class", GatewayConfig(&bpv1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "x"}, Spec: bpv1.ConfigSpec{TargetRefs: []gwv1.LocalPolicyTargetReference{ref(gatewayGroup, "GatewayClass", "internet")}}}),
			"spec.targetRefs[0]: a GatewayConfig cannot target GatewayClass.gateway.networking.k8s.io"},
		{"no targets", GatewayConfig(&bpv1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "x"}}), "spec.targetRefs: at least one target is required"},
		{"default not an object", GatewayConfig(&bpv1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "x"}, Spec: bpv1.ConfigSpec{TargetRefs: []gwv1.LocalPolicyTargetReference{ref("", "Namespace", "team")}, Default: &apiextensionsv1.JSON{Raw: []byte(`[1]`)}}}),
			"spec.default: must be an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.cfg.Invalid) != 1 || !strings.HasPrefix(tc.cfg.Invalid[0], tc.want) {
				t.Fatalf("invalid %q, want prefix %q", tc.cfg.Invalid, tc.want)
			}
		})
	}
}

func TestMergeDeterministic(t *testing.T) {
	configs := []*Config{
		atLevel(t, LevelGlobal, "g", 0, map[string]any{"a": map[string]any{"x": 1.0, "y": 2.0}}, map[string]any{"lock": true}),
		atLevel(t, LevelConfigParent, "p", 0, map[string]any{"a": map[string]any{"x": 3.0}, "lock": false}, nil),
	}
	first, err := Merge(blueprintWith(t, map[string]any{"b": "c"}, nil), gwPar, configs, ctrlNS)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(first.Leaves)
	for range 20 {
		again, _ := Merge(blueprintWith(t, map[string]any{"b": "c"}, nil), gwPar, []*Config{configs[1], configs[0]}, ctrlNS)
		b, _ := json.Marshal(again.Leaves)
		if string(a) != string(b) {
			t.Fatalf("not deterministic:\n%s\n%s", a, b)
		}
	}
	if first.Values["lock"] != true {
		t.Fatalf("override lost: %v", first.Values)
	}
}

const gatewayGroup = hierarchy.GatewayGroup

// The hierarchy table names the config kinds without importing their API
// package; the names must be the API's.
func TestConfigKindsAreTheAPIs(t *testing.T) {
	if hierarchy.ClassConfigKind != bpv1.ClassConfigKind || hierarchy.GatewayConfigKind != bpv1.ConfigKind {
		t.Fatalf("hierarchy names %s and %s, the API %s and %s", hierarchy.ClassConfigKind, hierarchy.GatewayConfigKind, bpv1.ClassConfigKind, bpv1.ConfigKind)
	}
}
