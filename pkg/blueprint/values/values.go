package values

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// Level is a rung of 002's precedence list ("Increasing order of
// precedence for defaults, decreasing order of precedence for
// override's"): a higher level's defaults beat a lower one's, a lower
// level's overrides beat a higher one's.
type Level int

// The six levels of 002, least specific first.
const (
	LevelBlueprint            Level = iota + 1 // values of the GatewayClassBlueprint
	LevelGlobal                                // GatewayClassConfigs in the controller's namespace on the GatewayClass
	LevelClassConfigNamespace                  // GatewayClassConfigs in the parent's namespace on that Namespace
	LevelClassConfigClass                      // GatewayClassConfigs in the parent's namespace on the GatewayClass
	LevelConfigNamespace                       // GatewayConfigs in the parent's namespace on that Namespace
	LevelConfigParent                          // GatewayConfigs in the parent's namespace on the Gateway or HTTPRoute
)

var levelNames = map[Level]string{
	LevelBlueprint:            "GatewayClassBlueprint",
	LevelGlobal:               "global GatewayClassConfig",
	LevelClassConfigNamespace: "GatewayClassConfig on the Namespace",
	LevelClassConfigClass:     "GatewayClassConfig on the GatewayClass",
	LevelConfigNamespace:      "GatewayConfig on the Namespace",
	LevelConfigParent:         "GatewayConfig on the object",
}

// String names the level as 002's list does, for messages and the CLI.
func (l Level) String() string {
	if s, ok := levelNames[l]; ok {
		return s
	}
	return fmt.Sprintf("level %d", int(l))
}

// Parent is the object a render is for: a Gateway, or an HTTPRoute
// rendered for one of its parent Gateways. Class is the GatewayClass of
// the Gateway (of the parent Gateway for a route).
type Parent struct {
	Kind      string // Gateway or HTTPRoute
	Namespace string
	Name      string
	Class     string
}

// String is `Kind ns/name`, for messages.
func (p Parent) String() string { return p.Kind + " " + p.Namespace + "/" + p.Name }

// Config is a GatewayClassConfig or a GatewayConfig reduced to what value
// merging reads, so both kinds (and the blueprint) merge alike.
type Config struct {
	Kind       string // GatewayClassConfig or GatewayConfig
	Namespace  string
	Name       string
	Created    time.Time
	Generation int64
	TargetRefs []Ref
	Default    map[string]any
	Override   map[string]any
	// Invalid lists problems that make the config unusable, each naming
	// the field; such a config contributes nothing.
	Invalid []string
}

// Ref is one targetRef of a config.
type Ref struct {
	Field string // spec.targetRefs[0]
	Group string
	Kind  string
	Name  string
}

// ID is `namespace/name`, the form GEP-713's conflict order sorts by.
func (c *Config) ID() string { return c.Namespace + "/" + c.Name }

// before is GEP-713's conflict order: the older config wins, then the
// first by namespace/name (the Memorandum, "Conflict resolution").
func (c *Config) before(d *Config) bool {
	if !c.Created.Equal(d.Created) {
		return c.Created.Before(d.Created)
	}
	return c.ID() < d.ID()
}

// ClassConfig reads a GatewayClassConfig.
func ClassConfig(o *bpv1.GatewayClassConfig) *Config {
	return readConfig(bpv1.ClassConfigKind, o.ObjectMeta, o.Spec)
}

// GatewayConfig reads a GatewayConfig.
func GatewayConfig(o *bpv1.GatewayConfig) *Config {
	return readConfig(bpv1.ConfigKind, o.ObjectMeta, o.Spec)
}

func readConfig(kind string, m metav1.ObjectMeta, s bpv1.ConfigSpec) *Config {
	c := &Config{Kind: kind, Namespace: m.Namespace, Name: m.Name, Created: m.CreationTimestamp.Time, Generation: m.Generation}
	var err error
	if c.Default, err = Decode(s.Default); err != nil {
		c.Invalid = append(c.Invalid, "spec.default: "+err.Error())
	}
	if c.Override, err = Decode(s.Override); err != nil {
		c.Invalid = append(c.Invalid, "spec.override: "+err.Error())
	}
	if len(s.TargetRefs) == 0 {
		c.Invalid = append(c.Invalid, "spec.targetRefs: at least one target is required")
	}
	for i, r := range s.TargetRefs {
		ref := Ref{Field: fmt.Sprintf("spec.targetRefs[%d]", i), Group: string(r.Group), Kind: string(r.Kind), Name: string(r.Name)}
		if msg := checkRef(kind, m.Namespace, ref); msg != "" {
			c.Invalid = append(c.Invalid, ref.Field+": "+msg)
			continue
		}
		c.TargetRefs = append(c.TargetRefs, ref)
	}
	return c
}

// checkRef says what is wrong with a target of a config kind: 002 lets a
// GatewayClassConfig target a GatewayClass or its own Namespace, and a
// GatewayConfig its own Namespace, a Gateway or an HTTPRoute; which kinds
// each may target is the hierarchy table's Configs column.
func checkRef(kind, ns string, r Ref) string {
	gk := schema.GroupKind{Group: r.Group, Kind: r.Kind}
	if row, ok := hierarchy.Lookup(gk); ok && slices.Contains(row.Configs, kind) {
		if gk == hierarchy.NamespaceKind && r.Name != ns {
			return fmt.Sprintf("a Namespace target must be the config's own namespace %q, not %q", ns, r.Name)
		}
		return ""
	}
	var want []string
	for _, row := range hierarchy.Table {
		if slices.Contains(row.Configs, kind) {
			want = append(want, row.GroupKind.String())
		}
	}
	return fmt.Sprintf("a %s cannot target %s; want %s", kind, gk.String(), orList(want))
}

// orList is "a", "a or b", "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// Decode decodes a values block (default or override of a blueprint or a
// config): a JSON object, nil for an empty block.
func Decode(j *apiextensionsv1.JSON) (map[string]any, error) {
	if j == nil || len(j.Raw) == 0 {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(j.Raw, &m); err != nil {
		return nil, fmt.Errorf("must be an object: %w", err)
	}
	return m, nil
}

// Level says at which of 002's levels a config applies to a parent, and
// whether it applies at all: once, at its most specific level. Configs in
// the controller's namespace targeting the GatewayClass are global.
func (c *Config) Level(p Parent, controllerNamespace string) (Level, bool) {
	if len(c.Invalid) > 0 {
		return 0, false
	}
	best := Level(0)
	for _, r := range c.TargetRefs {
		var l Level
		switch {
		case c.Namespace == p.Namespace && r.Kind == "Namespace":
			l = LevelConfigNamespace
			if c.Kind == bpv1.ClassConfigKind {
				l = LevelClassConfigNamespace
			}
		case c.Kind == bpv1.ClassConfigKind && r.Kind == "GatewayClass" && r.Name == p.Class:
			switch c.Namespace {
			case p.Namespace:
				l = LevelClassConfigClass
			case controllerNamespace:
				l = LevelGlobal
			}
		case c.Kind == bpv1.ConfigKind && c.Namespace == p.Namespace && r.Kind == p.Kind && r.Name == p.Name:
			l = LevelConfigParent
		}
		best = max(best, l)
	}
	return best, best > 0
}

// Source is who set a value: the blueprint or a config, with its level and
// block (default or override).
type Source struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Level     Level  `json:"level"`
	Block     string `json:"block"` // default or override
}

// String is `Kind ns/name (block)`, for messages and tables.
func (s Source) String() string {
	id := s.Name
	if s.Namespace != "" {
		id = s.Namespace + "/" + s.Name
	}
	return s.Kind + " " + id + " (" + s.Block + ")"
}

// Leaf is one merged value with who set it and whom it beat.
type Leaf struct {
	Pointer string   `json:"pointer"`
	Value   any      `json:"value"`
	Source  Source   `json:"source"`
	Beaten  []Source `json:"beaten,omitempty"`
}

// Lost is a setting of a config that is not in force, and what beat it.
type Lost struct {
	Pointer string  `json:"pointer"`
	Block   string  `json:"block"`
	By      *Source `json:"by,omitempty"` // nil: removed by a null
}

// Applied is one config that applies to the parent, with what it lost.
type Applied struct {
	Config *Config
	Level  Level
	Lost   []Lost
	// Leaves counts the config's settings (leaves of both blocks).
	Leaves int
}

// Result returns Enforced, PartiallyEnforced or Overridden for the
// config's settings at this parent (GEP-713 status conditions).
func (a Applied) Result() string {
	switch {
	case len(a.Lost) == 0:
		return "Enforced"
	case len(a.Lost) < a.Leaves:
		return "PartiallyEnforced"
	default:
		return "Overridden"
	}
}

// Values is the outcome of merging for one parent.
type Values struct {
	Parent Parent
	// Values are what templates read as .Values.
	Values map[string]any
	// Leaves are the merged values by JSON pointer, sorted, with sources.
	Leaves []Leaf
	// Applied are the configs that apply, by level then conflict order.
	Applied []Applied
}

// Merge merges the blueprint's values with every config that applies to
// parent, under 002's precedence: defaults from the blueprint up to the
// GatewayConfig on the object, overrides from the blueprint down (RFC
// 7386 per level; several configs at one level in GEP-713's conflict
// order).
func Merge(bp *bpv1.GatewayClassBlueprint, p Parent, configs []*Config, controllerNamespace string) (*Values, error) {
	bpDefault, err := Decode(bp.Spec.Values.Default)
	if err != nil {
		return nil, fmt.Errorf("GatewayClassBlueprint %s: spec.values.default: %w", bp.Name, err)
	}
	bpOverride, err := Decode(bp.Spec.Values.Override)
	if err != nil {
		return nil, fmt.Errorf("GatewayClassBlueprint %s: spec.values.override: %w", bp.Name, err)
	}
	bpConfig := &Config{Kind: bpv1.BlueprintKind, Name: bp.Name, Default: bpDefault, Override: bpOverride}

	var applied []Applied
	for _, c := range configs {
		if l, ok := c.Level(p, controllerNamespace); ok {
			applied = append(applied, Applied{Config: c, Level: l})
		}
	}
	// Listed by level, and within a level in conflict order.
	sort.SliceStable(applied, func(i, j int) bool {
		if applied[i].Level != applied[j].Level {
			return applied[i].Level < applied[j].Level
		}
		return applied[i].Config.before(applied[j].Config)
	})
	all := append([]Applied{{Config: bpConfig, Level: LevelBlueprint}}, applied...)

	// Each (config, block) is a one-block policy on the engine's stack, at
	// the rank and hierarchy level of its 002 level, so precedence and
	// conflict order have one implementation (effective.Fold).
	sources := map[merge.Source]Source{}
	var entries []*effective.Entry
	var contributions []contribution
	for k, a := range all {
		for _, blk := range []struct {
			name   string
			base   policykind.Base
			values map[string]any
		}{{"override", policykind.Overrides, a.Config.Override}, {"default", policykind.Defaults, a.Config.Default}} {
			if blk.values == nil {
				continue
			}
			pol := &policykind.Policy{Namespace: a.Config.Namespace, Name: a.Config.Name, Created: a.Config.Created}
			pol.Blocks = []policykind.Block{{Strategy: policykind.Strategy{Base: blk.base, Atomicity: policykind.Patch}, Field: "spec." + blk.name, Values: blk.values}}
			sources[pol] = Source{Kind: a.Config.Kind, Namespace: a.Config.Namespace, Name: a.Config.Name, Level: a.Level, Block: blk.name}
			rank, level := a.Level.Rung()
			entries = append(entries, &effective.Entry{
				Attachment: &attach.Attachment{Policy: pol},
				Rank:       rank, Level: level,
				Block: &pol.Blocks[0],
				Value: merge.Of(blk.values, pol),
			})
			contributions = append(contributions, contribution{k, pol, blk.values})
		}
	}
	final := effective.Fold(entries, map[string]merge.Func{policykind.Patch: merge.Patch}).Result
	if final.Values == nil {
		final.Values = map[string]any{}
	}

	out := &Values{Parent: p, Values: final.Values}
	beaten := map[string][]Source{}
	for ci := range contributions {
		c := contributions[ci]
		merge.Leaves(c.values, "", func(ptr string) {
			all[c.index].Leaves++
			if final.Prov[ptr] == c.source {
				return
			}
			lost := Lost{Pointer: ptr, Block: sources[c.source].Block}
			if by, ok := winnerAt(final.Prov, ptr); ok {
				s := sources[by]
				lost.By = &s
				beaten[ptr] = append(beaten[ptr], sources[c.source])
			}
			all[c.index].Lost = append(all[c.index].Lost, lost)
		})
	}
	for ptr, s := range final.Prov {
		v, _ := merge.Get(final.Values, ptr)
		b := beaten[ptr]
		sort.Slice(b, func(i, j int) bool { return lessSource(b[i], b[j]) })
		out.Leaves = append(out.Leaves, Leaf{Pointer: ptr, Value: v, Source: sources[s], Beaten: b})
	}
	sort.Slice(out.Leaves, func(i, j int) bool { return out.Leaves[i].Pointer < out.Leaves[j].Pointer })
	for _, a := range all[1:] {
		sort.Slice(a.Lost, func(i, j int) bool {
			if a.Lost[i].Pointer != a.Lost[j].Pointer {
				return a.Lost[i].Pointer < a.Lost[j].Pointer
			}
			return a.Lost[i].Block < a.Lost[j].Block
		})
		out.Applied = append(out.Applied, a)
	}
	return out, nil
}

// Ranks of the value space blueprints.strata.dev/values: the blueprint's
// own values, then the two config kinds, as config/blueprints/
// policykinds.yaml declares them (a test checks they agree).
const (
	RankBlueprint          = 0
	RankGatewayClassConfig = 1
	RankGatewayConfig      = 2
)

// Rung is where a 002 level stands on the engine's stack: the rank of its
// kind in the value space and the hierarchy level of what it targets (a
// global config ranks below the Namespace).
func (l Level) Rung() (rank int, level hierarchy.Level) {
	switch l {
	case LevelGlobal:
		return RankGatewayClassConfig, hierarchy.LevelNamespace - 1
	case LevelClassConfigNamespace:
		return RankGatewayClassConfig, hierarchy.LevelNamespace
	case LevelClassConfigClass:
		return RankGatewayClassConfig, hierarchy.LevelGatewayClass
	case LevelConfigNamespace:
		return RankGatewayConfig, hierarchy.LevelNamespace
	case LevelConfigParent:
		return RankGatewayConfig, hierarchy.LevelGateway
	}
	return RankBlueprint, hierarchy.LevelNamespace
}

type contribution struct {
	index  int
	source merge.Source
	values map[string]any
}

// winnerAt finds who holds ptr in the merged values: the source of ptr,
// of a leaf above it (a scalar that replaced an object), or of one below
// it (an object that replaced a scalar).
func winnerAt(prov map[string]merge.Source, ptr string) (merge.Source, bool) {
	if s, ok := prov[ptr]; ok {
		return s, true
	}
	for p := parentPointer(ptr); p != ""; p = parentPointer(p) {
		if s, ok := prov[p]; ok {
			return s, true
		}
	}
	below := ""
	for q := range prov {
		if strings.HasPrefix(q, ptr+"/") && (below == "" || q < below) {
			below = q
		}
	}
	if below == "" {
		return nil, false
	}
	return prov[below], true
}

func parentPointer(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func lessSource(a, b Source) bool {
	if a.Level != b.Level {
		return a.Level < b.Level
	}
	if a.Namespace+"/"+a.Name != b.Namespace+"/"+b.Name {
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	}
	return a.Block < b.Block
}
