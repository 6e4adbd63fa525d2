package engine_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/source/files"
)

// retryOnTable is one of the six RetryOnPolicy tables of 001 ("Interactions
// between defaults, overrides, and field values"), transcribed cell for
// cell, headings and typos included, so that a reader can check it against
// the spec by eye. Headings and cells are interpreted by
// retryOnParsePolicy and retryOnWant.
type retryOnTable struct {
	// title is the table's heading in 001.
	title string
	// routes are the HTTPRoute fixtures under testdata/retryon the table
	// is about: "empty list in HTTPRoute" holds both for a rule without
	// retry and for an explicit empty list of codes (001: "because of Go
	// zero values, this would also occur if the user explicitly set the
	// value to the empty list").
	routes []string
	// cols are the column headings (the column policy), without the corner.
	cols []string
	// rows are the row heading (the row policy), then one cell per column.
	rows [][]string
}

var retryOnTables = []retryOnTable{
	{
		title:  "Overrides interacting with defaults for RetryOnPolicy, empty list in HTTPRoute",
		routes: []string{"route-unset.yaml", "route-empty-codes.yaml"},
		cols:   []string{"None", "Namespace override", "Gateway override", "HTTPRoute override"},
		rows: [][]string{
			{"No default", "Empty list", "Namespace override", "Gateway override Policy", "HTTPRoute override"},
			{"Namespace default", "Namespace default", "Namespace override", "Gateway override", "HTTPRoute override"},
			{"Gateway default", "Gateway default", "Namespace override", "Gateway override", "HTTPRoute override"},
			{"HTTPRoute default", "HTTPRoute default", "Namespace override", "Gateway override", "HTTPRoute override"},
		},
	},
	{
		title:  "Overrides interacting with other overrides for RetryOnPolicy, empty list in HTTPRoute",
		routes: []string{"route-unset.yaml", "route-empty-codes.yaml"},
		cols:   []string{"No override", "Namespace override A", "Gateway override A", "HTTPRoute override A"},
		rows: [][]string{
			{"No override", "Empty list", "Namespace override", "Gateway override", "HTTPRoute override"},
			{"Namespace override B", "Namespace override B", "Namespace override<br />first created wins<br />otherwise first alphabetically", "Namespace override B", "Namespace override B"},
			{"Gateway override B", "Gateway override B", "Namespace override A", "Gateway override<br />first created wins<br />otherwise first alphabetically", "Gateway override B"},
			{"HTTPRoute override B", "HTTPRoute override B", "Namespace override A", "Gateway override A", "HTTPRoute override<br />first created wins<br />otherwise first alphabetically"},
		},
	},
	{
		title:  "Defaults interacting with other defaults for RetryOnPolicy, empty list in HTTPRoute",
		routes: []string{"route-unset.yaml", "route-empty-codes.yaml"},
		cols:   []string{"No default", "Namespace default A", "Gateway default A", "HTTPRoute default A"},
		rows: [][]string{
			{"No default", "Empty list", "Namespace default", "Gateway default", "HTTPRoute default A"},
			{"Namespace default B", "Namespace default B", "Namespace default<br />first created wins<br />otherwise first alphabetically", "Gateway default A", "HTTPRoute default A"},
			{"Gateway default B", "Gateway default B", "Gateway default B", "Gateway default<br />first created wins<br />otherwise first alphabetically", "HTTPRoute default A"},
			{"HTTPRoute default B", "HTTPRoute default B", "HTTPRoute default B", "HTTPRoute default B", "HTTPRoute default<br />first created wins<br />otherwise first alphabetically"},
		},
	},
	{
		title:  "Overrides interacting with defaults for RetryOnPolicy, value in HTTPRoute",
		routes: []string{"route-codes.yaml"},
		cols:   []string{"None", "Namespace override", "Gateway override", "HTTPRoute override"},
		rows: [][]string{
			{"No default", "Value in HTTPRoute", "Namespace override", "Gateway override", "HTTPRoute override"},
			{"Namespace default", "Value in HTTPRoute", "Namespace override", "Gateway override", "HTTPRoute override"},
			{"Gateway default", "Value in HTTPRoute", "Namespace override", "Gateway override", "HTTPRoute override"},
			{"HTTPRoute default", "Value in HTTPRoute", "Namespace override", "Gateway override", "HTTPRoute override"},
		},
	},
	{
		title:  "Overrides interacting with other overrides for RetryOnPolicy, value in HTTPRoute",
		routes: []string{"route-codes.yaml"},
		cols:   []string{"No override", "Namespace override A", "Gateway override A", "HTTPRoute override A"},
		rows: [][]string{
			{"No override", "Value in HTTPRoute", "Namespace override A", "Gateway override A", "HTTPRoute override A"},
			{"Namespace override B", "Namespace override B", "Namespace override<br />first created wins<br />otherwise first alphabetically", "Namespace override B", "Namespace override B"},
			{"Gateway override B", "Gateway override B", "Namespace override A", "Gateway override<br />first created wins<br />otherwise first alphabetically", "Gateway override B"},
			{"HTTPRoute override B", "HTTPRoute override B", "Namespace override A", "Gateway override A", "HTTPRoute override<br />first created wins<br />otherwise first alphabetically"},
		},
	},
	{
		title:  "Defaults interacting with other defaults for RetryOnPolicy, value in HTTPRoute",
		routes: []string{"route-codes.yaml"},
		cols:   []string{"No default", "Namespace default A", "Gateway default A", "HTTPRoute default A"},
		rows: [][]string{
			{"No default", "Value in HTTPRoute", "Value in HTTPRoute", "Value in HTTPRoute", "Value in HTTPRoute"},
			{"Namespace default B", "Value in HTTPRoute", "Value in HTTPRoute", "Value in HTTPRoute", "Value in HTTPRoute"},
			{"Gateway default B", "Value in HTTPRoute", "Value in HTTPRoute", "Value in HTTPRoute", "Value in HTTPRoute"},
			{"HTTPRoute default B", "Value in HTTPRoute", "Value in HTTPRoute", "Value in HTTPRoute", "Value in HTTPRoute"},
		},
	},
}

// retryOnRouteCodes is the route's own retry.codes in each fixture, checked
// against the fixture so that a "Value in HTTPRoute" cell cannot pass by
// accident.
var retryOnRouteCodes = map[string][]int64{
	"route-unset.yaml":       nil,
	"route-empty-codes.yaml": nil,
	"route-codes.yaml":       {429, 599},
}

// retryOnLevel is a level of the hierarchy a table places policies at.
type retryOnLevel struct {
	name string
	// ref is the targetRef that attaches a policy there.
	ref map[string]any
}

// retryOnLevels are the levels a table places policies at, least specific
// first, with the targetRef that attaches a policy there.
var retryOnLevels = []retryOnLevel{
	{"Namespace", map[string]any{"group": "", "kind": "Namespace", "name": "appns"}},
	{"Gateway", map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"}},
	{"HTTPRoute", map[string]any{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": "route"}},
}

// retryOnPolicy is a policy a heading or cell names: "Gateway override B".
type retryOnPolicy struct {
	level    int    // index in retryOnLevels
	strategy string // "default" or "override"
	letter   string // "", "A" or "B"
}

// name is the policy's metadata.name: gateway-override-b. A sorts before B,
// which the "first alphabetically" sub-case relies on.
func (p retryOnPolicy) name() string {
	n := strings.ToLower(retryOnLevels[p.level].name + "-" + p.strategy)
	if p.letter != "" {
		n += "-" + strings.ToLower(p.letter)
	}
	return n
}

// codes gives every distinct policy its own retryOn list (5xx and 4xx codes
// 1..18, none of which the route fixture uses), so the winner can be read
// off the effective value. Two codes show that the list is replaced whole.
func (p retryOnPolicy) codes() []int64 {
	i := int64(1 + p.level*6 + slices.Index([]string{"default", "override"}, p.strategy)*3 + slices.Index([]string{"", "A", "B"}, p.letter))
	return []int64{500 + i, 400 + i}
}

// object is the RetryOnPolicy in appns, created at the given time.
func (p retryOnPolicy) object(created time.Time) *unstructured.Unstructured {
	codes := make([]any, 0, 2)
	for _, c := range p.codes() {
		codes = append(codes, c)
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "networking.example.io/v1alpha1",
		"kind":       "RetryOnPolicy",
		"metadata":   map[string]any{"name": p.name(), "namespace": "appns"},
		"spec": map[string]any{
			"targetRefs":     []any{retryOnLevels[p.level].ref},
			p.strategy + "s": map[string]any{"retryOn": codes},
		},
	}}
	u.SetCreationTimestamp(metav1.NewTime(created))
	return u
}

// retryOnParsePolicy reads a heading or a cell naming a policy, "Namespace
// override A". ok is false for "None", "No default" and "No override". The
// trailing "Policy" of table 1's "Gateway override Policy" is a typo of
// 001 and ignored.
func retryOnParsePolicy(text string) (p retryOnPolicy, ok bool, err error) {
	f := strings.Fields(strings.TrimSuffix(text, " Policy"))
	if len(f) == 0 || f[0] == "None" || f[0] == "No" {
		return p, false, nil
	}
	p.level = slices.IndexFunc(retryOnLevels, func(l retryOnLevel) bool { return l.name == f[0] })
	if p.level < 0 || len(f) < 2 || len(f) > 3 || f[1] != "default" && f[1] != "override" {
		return p, false, fmt.Errorf("%q does not name a policy: want <Namespace|Gateway|HTTPRoute> <default|override> [A|B]", text)
	}
	p.strategy = f[1]
	if len(f) == 3 {
		if f[2] != "A" && f[2] != "B" {
			return p, false, fmt.Errorf("%q: policy letter %q is not A or B", text, f[2])
		}
		p.letter = f[2]
	}
	return p, true, nil
}

// retryOnPlaced is a policy of a cell with its creation time.
type retryOnPlaced struct {
	retryOnPolicy
	created time.Time
}

// retryOnWant resolves a cell to the policy that must set retryOn, or nil
// when the route's own value must stand ("Empty list", "Value in
// HTTPRoute"). A cell that names a policy without its letter ("Namespace
// override" in the column of Namespace override A) means the one policy of
// that level and strategy in the cell. "first created wins otherwise first
// alphabetically" is GEP-713's conflict rule between the cell's two
// policies: the older creationTimestamp, then the first by
// {namespace}/{name} (all are in appns, so by name).
func retryOnWant(cell string, placed []retryOnPlaced, routeCodes []int64) (*retryOnPlaced, error) {
	text := strings.ReplaceAll(cell, "<br />", " ")
	switch {
	case text == "Empty list":
		if len(routeCodes) != 0 {
			return nil, fmt.Errorf("%q in a table whose route sets codes %v", cell, routeCodes)
		}
		return nil, nil
	case text == "Value in HTTPRoute":
		if len(routeCodes) == 0 {
			return nil, fmt.Errorf("%q in a table whose route sets no codes", cell)
		}
		return nil, nil
	case strings.Contains(text, "first created wins otherwise first alphabetically"):
		if len(placed) != 2 || placed[0].level != placed[1].level || placed[0].strategy != placed[1].strategy {
			return nil, fmt.Errorf("%q needs two policies of one level and strategy, the cell has %v", cell, placed)
		}
		a, b := &placed[0], &placed[1]
		if b.created.Before(a.created) || b.created.Equal(a.created) && b.name() < a.name() {
			a = b
		}
		return a, nil
	}
	want, _, err := retryOnParsePolicy(text)
	if err != nil {
		return nil, err
	}
	var match []*retryOnPlaced
	for i := range placed {
		p := &placed[i]
		if p.level == want.level && p.strategy == want.strategy && (want.letter == "" || p.letter == want.letter) {
			match = append(match, p)
		}
	}
	if len(match) != 1 {
		return nil, fmt.Errorf("%q matches %d of the cell's policies %v, want exactly 1", cell, len(match), placed)
	}
	return match[0], nil
}

// retryOnAges are the creation orders every cell with two policies is run
// in. Across levels (and between a default and an override) the result
// must not depend on age; within a level and strategy the conflict rule
// must pick the older policy even when its name sorts later ("row older":
// the row's B beats the column's A), and fall back to the name on a tie.
var retryOnAges = []struct {
	name     string
	row, col time.Duration // after retryOnEpoch
}{
	{name: "row older", row: 0, col: time.Minute},
	{name: "column older", row: time.Minute, col: 0},
	{name: "same creationTimestamp", row: 0, col: 0},
}

var retryOnEpoch = time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)

// TestRetryOnPolicyTables checks every cell of 001's six RetryOnPolicy
// interaction tables: the row and column policies are attached to
// Namespace appns, Gateway gw or HTTPRoute route, and the effective retryOn
// of the route (and the policy credited with it) must be the cell's answer.
func TestRetryOnPolicyTables(t *testing.T) {
	for _, tbl := range retryOnTables {
		t.Run(tbl.title, func(t *testing.T) {
			for _, route := range tbl.routes {
				t.Run(route, func(t *testing.T) {
					for _, row := range tbl.rows {
						for c, col := range tbl.cols {
							t.Run(row[0]+" x "+col, func(t *testing.T) {
								retryOnCell(t, route, row[0], col, row[1+c])
							})
						}
					}
				})
			}
		})
	}
}

// retryOnCell runs one cell, in every creation order when it has two
// policies.
func retryOnCell(t *testing.T, route, rowHead, colHead, cell string) {
	var heads []retryOnPolicy
	for _, h := range []string{rowHead, colHead} {
		p, ok, err := retryOnParsePolicy(h)
		if err != nil {
			t.Fatalf("heading: %v", err)
		}
		if ok {
			heads = append(heads, p)
		}
	}
	if len(heads) < 2 {
		var placed []retryOnPlaced
		for _, p := range heads {
			placed = append(placed, retryOnPlaced{p, retryOnEpoch})
		}
		retryOnCheck(t, route, cell, placed)
		return
	}
	for _, age := range retryOnAges {
		t.Run(age.name, func(t *testing.T) {
			retryOnCheck(t, route, cell, []retryOnPlaced{
				{heads[0], retryOnEpoch.Add(age.row)},
				{heads[1], retryOnEpoch.Add(age.col)},
			})
		})
	}
}

// retryOnCheck runs the engine on the route fixture plus the placed
// policies and compares the route's effective retryOn, and who set it,
// with the cell.
func retryOnCheck(t *testing.T, route, cell string, placed []retryOnPlaced) {
	t.Helper()
	s := retryOnSnapshot(t, route)
	for _, p := range placed {
		s.Policies = append(s.Policies, p.object(p.created))
	}
	want, err := retryOnWant(cell, placed, retryOnRouteCodes[route])
	if err != nil {
		t.Fatalf("cell: %v", err)
	}
	res, err := engine.Run(s, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kr := res.Of(schema.GroupKind{Group: "networking.example.io", Kind: "RetryOnPolicy"})
	if kr == nil {
		t.Fatal("RetryOnPolicy is not among the compiled kinds")
	}
	// A policy that failed to attach would make "the route's own value"
	// cells pass for the wrong reason.
	att := kr.Attachments
	for _, r := range att.Rejections {
		t.Fatalf("policy %s not attached: %s: %s", r.Policy.ID(), r.Reason, r.Message)
	}
	if len(att.ByPolicy) != len(placed) {
		t.Fatalf("%d policies attached, want %d", len(att.ByPolicy), len(placed))
	}
	tg := retryOnTarget(t, res, kr.Effective)
	wantCodes, wantBy := retryOnRouteCodes[route], "the HTTPRoute's own value"
	if want != nil {
		wantCodes, wantBy = want.codes(), "appns/"+want.name()
	}
	if len(placed) == 0 {
		// No policy acts on the route, so the engine computes no context:
		// the route keeps its own retry codes (the fixture's, checked in
		// retryOnSnapshot), which is what "Empty list" and "Value in
		// HTTPRoute" mean here.
		if tg != nil {
			t.Fatalf("%q: no policy, yet the route has %d effective contexts", cell, len(tg.Contexts))
		}
		return
	}
	if tg == nil || len(tg.Contexts) != 1 {
		n := 0
		if tg != nil {
			n = len(tg.Contexts)
		}
		t.Fatalf("%q: route has %d effective contexts, want 1 (Namespace > GatewayClass > Gateway > listener > HTTPRoute)", cell, n)
	}
	ctx := tg.Contexts[0]
	got, err := retryOnInts(ctx.Result.Values["retryOn"])
	if err != nil {
		t.Fatalf("effective retryOn: %v", err)
	}
	gotBy := "the HTTPRoute's own value"
	if src := ctx.Result.Prov["/retryOn"]; src != nil {
		gotBy = src.ID()
	}
	if !slices.Equal(got, wantCodes) || gotBy != wantBy {
		t.Errorf("%q with %s:\n got retryOn %v set by %s\nwant retryOn %v set by %s", cell, retryOnDescribe(placed), got, gotBy, wantCodes, wantBy)
	}
}

// retryOnSnapshot reads the declaration, the topology and one route
// fixture afresh, so that cases share no objects.
func retryOnSnapshot(t *testing.T, route string) *snapshot.Snapshot {
	t.Helper()
	dir := filepath.Join("testdata", "retryon")
	src, err := files.Read([]string{filepath.Join(dir, "kind.yaml"), filepath.Join(dir, "topology.yaml"), filepath.Join(dir, route)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := src.Snapshot
	if len(s.HTTPRoutes) != 1 || len(s.HTTPRoutes[0].Spec.Rules) != 1 {
		t.Fatalf("%s: want one HTTPRoute with one rule", route)
	}
	var codes []int64
	if r := s.HTTPRoutes[0].Spec.Rules[0].Retry; r != nil {
		for _, c := range r.Codes {
			codes = append(codes, int64(c))
		}
	}
	if !slices.Equal(codes, retryOnRouteCodes[route]) {
		t.Fatalf("%s: route's retry codes are %v, the test expects %v", route, codes, retryOnRouteCodes[route])
	}
	return s
}

// retryOnTarget finds the route among the effective targets, or nil.
func retryOnTarget(t *testing.T, res *engine.Result, eff *effective.Result) *effective.Target {
	t.Helper()
	id := res.Graph.Lookup(topology.Ref{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "appns", Name: "route"})
	if id == topology.None {
		t.Fatal("HTTPRoute appns/route is not in the graph")
	}
	for _, tg := range eff.Targets {
		if tg.Node == id {
			return tg
		}
	}
	return nil
}

// retryOnInts reads a retryOn list, whatever number type it was decoded
// with (int64 from the route object, float64 from JSON).
func retryOnInts(v any) ([]int64, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%T %v is not a list", v, v)
	}
	out := make([]int64, 0, len(list))
	for _, e := range list {
		switch n := e.(type) {
		case int64:
			out = append(out, n)
		case int:
			out = append(out, int64(n))
		case float64:
			out = append(out, int64(n))
		default:
			return nil, fmt.Errorf("element %T %v is not a number", e, e)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// retryOnDescribe lists a cell's policies for failure messages.
func retryOnDescribe(placed []retryOnPlaced) string {
	var parts []string
	for _, p := range placed {
		parts = append(parts, fmt.Sprintf("%s (%v, created %s)", p.name(), p.codes(), p.created.Format(time.TimeOnly)))
	}
	return strings.Join(parts, " and ")
}
