package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// One answer from every command (issue 11): for every Gateway of a
// blueprint world, `describe` (the engine, with the config kinds declared
// as one value space) and `render --values` (the blueprint renderer) give
// each GatewayClassConfig and GatewayConfig the same result, and every
// value the same value and the same source (the blueprint's own values
// included: the engine reads them through the GatewayClass's
// parametersRef); `get policies` rolls those results up.
func TestOneAnswer(t *testing.T) {
	kinds := "../../config/blueprints/policykinds.yaml"
	worlds := map[string][]string{"example": {bpExample}, "generated": {bpExample + "/blueprint.yaml", bpExample + "/classes.yaml", generatedConfigs(t)}}
	for name, files := range worlds {
		t.Run(name, func(t *testing.T) {
			var fs []string
			for _, f := range files {
				fs = append(fs, "-f", f)
			}
			compared := 0
			defer func() { t.Logf("%d config results compared", compared) }()
			// Per config, its results over every subject, for get policies.
			rendered := map[string]map[string]bool{}
			for _, subject := range []string{"gateway/shop", "gateway/backoffice", "httproute/storefront", "httproute/admin"} {
				kind, name, _ := strings.Cut(subject, "/")
				out, stderr, code := strata(t, "", append([]string{"render", subject, "-n", "team-a", "--values", "-o", "json"}, fs...)...)
				if code != 0 {
					t.Fatalf("render --values %s: exit %d: %s", subject, code, stderr)
				}
				var vals []valuesDoc
				if err := json.Unmarshal([]byte(out), &vals); err != nil {
					var one valuesDoc
					if err1 := json.Unmarshal([]byte(out), &one); err1 != nil {
						t.Fatalf("render --values %s: %v\n%s", subject, err, out)
					}
					vals = []valuesDoc{one}
				}
				out, stderr, code = strata(t, "", append([]string{"describe", subject, "-n", "team-a", "-o", "json", "-f", kinds}, fs...)...)
				if code != 0 {
					t.Fatalf("describe %s: exit %d: %s", subject, code, stderr)
				}
				var d struct {
					Policies []struct {
						Policy struct {
							Kind, Namespace, Name string
						}
						Results map[string]int
					}
					Effective []struct {
						Targets []struct {
							Target   struct{ Kind, Name string }
							Contexts []struct {
								Fields []struct {
									Field string
									Value any
									SetBy string
								}
							}
						}
					}
				}
				if err := json.Unmarshal([]byte(out), &d); err != nil {
					t.Fatalf("describe %s: %v", subject, err)
				}
				v := vals[0]
				engine := map[string]string{}
				for _, p := range d.Policies {
					var rs []string
					for r := range p.Results {
						rs = append(rs, r)
					}
					if len(rs) != 1 {
						t.Errorf("%s: %s %s/%s has results %v in one context", subject, p.Policy.Kind, p.Policy.Namespace, p.Policy.Name, p.Results)
						continue
					}
					if p.Policy.Kind == "GatewayClassBlueprint" {
						continue // render --values lists the configs' results only
					}
					engine[p.Policy.Kind+" "+p.Policy.Namespace+"/"+p.Policy.Name] = rs[0]
				}
				render := map[string]string{}
				for _, c := range v.Configs {
					id := c.Kind + " " + c.Namespace + "/" + c.Name
					render[id] = c.Result
					if rendered[id] == nil {
						rendered[id] = map[string]bool{}
					}
					rendered[id][c.Result] = true
				}
				if len(render) == 0 || len(v.Leaves) == 0 {
					t.Fatalf("%s: render --values applied no config; nothing to compare", subject)
				}
				compared += len(render)
				if fmt.Sprint(engine) != fmt.Sprint(render) {
					t.Errorf("%s: results differ\n describe: %v\n render:   %v", subject, engine, render)
				}
				fields := map[string]string{}
				for _, e := range d.Effective {
					for _, tg := range e.Targets {
						if !strings.EqualFold(tg.Target.Kind, kind) || tg.Target.Name != name {
							continue
						}
						for _, ctx := range tg.Contexts {
							for _, f := range ctx.Fields {
								if f.SetBy != "" {
									fields[f.Field] = fmt.Sprintf("%v from %s", f.Value, f.SetBy)
								}
							}
						}
					}
				}
				for _, l := range v.Leaves {
					id := l.Source.Name
					if l.Source.Namespace != "" {
						id = l.Source.Namespace + "/" + id
					}
					want := fmt.Sprintf("%v from %s %s", l.Value, l.Source.Kind, id)
					if got := fields[l.Pointer]; got != want {
						t.Errorf("%s %s: describe says %q, render --values %q", subject, l.Pointer, got, want)
					}
					delete(fields, l.Pointer)
				}
				for f, got := range fields {
					t.Errorf("%s %s: describe says %q, render --values has no such config value", subject, f, got)
				}
			}
			out, stderr, code := strata(t, "", append([]string{"get", "policies", "-o", "json", "-f", kinds}, fs...)...)
			if code != 0 {
				t.Fatalf("get policies: exit %d: %s", code, stderr)
			}
			var l struct {
				Items []struct {
					Kind, Namespace, Name string
					Status                struct{ Enforcement string }
				}
			}
			if err := json.Unmarshal([]byte(out), &l); err != nil {
				t.Fatalf("get policies: %v", err)
			}
			for _, it := range l.Items {
				if it.Kind == "GatewayClassBlueprint" {
					continue
				}
				id := it.Kind + " " + it.Namespace + "/" + it.Name
				want := "PartiallyEnforced"
				switch rs := rendered[id]; {
				case len(rs) == 1 && (rs["Enforced"] || rs["Overridden"]):
					want = slices.Collect(maps.Keys(rs))[0]
				case len(rs) == 0:
					want = "" // reaches nothing rendered
				}
				if want != "" && it.Status.Enforcement != want {
					t.Errorf("get policies: %s is %s; render --values gives %v over every Gateway and HTTPRoute", id, it.Status.Enforcement, rendered[id])
				}
			}
		})
	}
}

// generatedConfigs writes a world of configs at every level of 002's list
// for both Gateways of the example, overlapping on the same keys with
// defaults and overrides, several per level with ties broken by age and
// name: the shapes where two implementations of precedence would part.
func generatedConfigs(t *testing.T) string {
	t.Helper()
	gws, err := os.ReadFile(filepath.Join(bpExample, "gateways.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	add := func(kind, ns, name, created string, refs []map[string]string, def, over map[string]any) {
		spec := map[string]any{"targetRefs": refs}
		if def != nil {
			spec["default"] = def
		}
		if over != nil {
			spec["override"] = over
		}
		b, err := yaml.Marshal(map[string]any{
			"apiVersion": "blueprints.strata.dev/v1alpha1", "kind": kind,
			"metadata": map[string]any{"name": name, "namespace": ns, "creationTimestamp": created},
			"spec":     spec,
		})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	class := func(n string) map[string]string {
		return map[string]string{"group": "gateway.networking.k8s.io", "kind": "GatewayClass", "name": n}
	}
	nsRef := map[string]string{"group": "", "kind": "Namespace", "name": "team-a"}
	gw := func(n string) map[string]string {
		return map[string]string{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": n}
	}
	vals := func(i int) map[string]any {
		v := map[string]any{"replicas": i, "logLevel": fmt.Sprintf("l%d", i), "tags": map[string]any{"a": fmt.Sprint(i), fmt.Sprintf("k%d", i%3): "x"}}
		if i%4 == 0 {
			// Lost to the blueprint's override of the security context.
			v["securityContext"] = map[string]any{"runAsUser": i}
		}
		return v
	}
	n := 0
	for _, c := range []string{"internet", "internal"} {
		for j, created := range []string{"2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2025-06-01T00:00:00Z"} {
			n++
			var over map[string]any
			if j == 1 {
				over = map[string]any{"tags": map[string]any{"a": "global-override"}}
			}
			add("GatewayClassConfig", "strata-system", fmt.Sprintf("g-%s-%d", c, j), created, []map[string]string{class(c)}, vals(n), over)
			n++
			add("GatewayClassConfig", "team-a", fmt.Sprintf("c-%s-%d", c, j), created, []map[string]string{class(c)}, vals(n), nil)
		}
	}
	for j := range 3 {
		n++
		var over map[string]any
		if j == 2 {
			over = map[string]any{"logLevel": "ns-override"}
		}
		add("GatewayClassConfig", "team-a", fmt.Sprintf("ns-%d", j), "2026-02-01T00:00:00Z", []map[string]string{nsRef}, vals(n), over)
		n++
		add("GatewayConfig", "team-a", fmt.Sprintf("tenant-ns-%d", j), "2026-02-01T00:00:00Z", []map[string]string{nsRef}, vals(n), nil)
		for _, g := range []string{"shop", "backoffice"} {
			n++
			add("GatewayConfig", "team-a", fmt.Sprintf("%s-%d", g, j), "2026-03-01T00:00:00Z", []map[string]string{gw(g)}, vals(n), map[string]any{"tags": map[string]any{"b": g}})
		}
		for _, r := range []string{"storefront", "admin"} {
			n++
			ref := map[string]string{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": r}
			add("GatewayConfig", "team-a", fmt.Sprintf("%s-%d", r, j), "2026-03-01T00:00:00Z", []map[string]string{ref}, vals(n), nil)
		}
	}
	path := filepath.Join(t.TempDir(), "world.yaml")
	if err := os.WriteFile(path, []byte(string(gws)+"\n---\n"+strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
