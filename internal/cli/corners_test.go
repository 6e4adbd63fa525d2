package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestEffectiveDeepSpecYAMLAndJSON: `strata effective` prints a legal,
// deeply nested spec in YAML as it does in JSON (issue 11, spec corners:
// the fieldSources key of a deep field is a JSON pointer longer than the
// 1024 characters YAML allows an implicit key).
func TestEffectiveDeepSpecYAMLAndJSON(t *testing.T) {
	spec := "x"
	for i := 0; i < 200; i++ {
		spec = `{"field": ` + spec + `}`
	}
	policy := `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: deep, namespace: default, creationTimestamp: "2026-01-03T00:00:00Z"}
spec:
  targetRefs: [{group: "", kind: Service, name: b2}]
  color: ` + spec + "\n"
	file := filepath.Join(t.TempDir(), "deep.yaml")
	if err := os.WriteFile(file, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	outputs := map[string]any{}
	for _, format := range []string{"yaml", "json"} {
		out, errOut, code := strata(t, "", "effective", "-f", "../../examples/gep-713/example-1", "-f", file, "-o", format)
		if code != 0 {
			t.Fatalf("-o %s: exit %d: %s", format, code, errOut)
		}
		var v any
		var err error
		if format == "yaml" {
			err = yaml.Unmarshal([]byte(out), &v)
		} else {
			err = json.Unmarshal([]byte(out), &v)
		}
		if err != nil {
			t.Fatalf("-o %s: read back: %v", format, err)
		}
		outputs[format] = v
	}
	if d := cmp.Diff(outputs["json"], outputs["yaml"]); d != "" {
		t.Errorf("-o yaml and -o json differ (-json +yaml):\n%s", d)
	}
	if js, _ := json.Marshal(outputs["json"]); !strings.Contains(string(js), strings.Repeat("/field", 200)) {
		t.Errorf("no field source for the deep field in %.300s", js)
	}
}

// keysWorld: one Gateway, one route, one Service; a Gateway policy (Patch)
// whose keys hold "/", "~", "." and "[", a route policy replacing two.
const keysWorld = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: strata, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {controllerName: strata.dev/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g1, namespace: default, creationTimestamp: "2026-01-01T00:01:00Z"}
spec:
  gatewayClassName: strata
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r1, namespace: default, creationTimestamp: "2026-01-01T00:02:00Z"}
spec:
  parentRefs: [{name: g1}]
  rules: [{backendRefs: [{name: b1, port: 8080}]}]
---
apiVersion: v1
kind: Service
metadata: {name: b1, namespace: default, creationTimestamp: "2026-01-01T00:03:00Z"}
spec: {ports: [{port: 8080}]}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: pg, namespace: default, creationTimestamp: "2026-01-02T00:00:00Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1}]
  strategy: patch
  colors: {"a/b": gw, "t~x": gw, "x.y": gw, "l[0]": gw, "l": gw, "keep": gw}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: pr, namespace: default, creationTimestamp: "2026-01-02T00:01:00Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r1}]
  colors: {"l": route, "x.y": route}
`

// TestSpecKeysKeepProvenance: keys with "/", "~", "." or "[" keep who set
// them (JSON pointers escaped per RFC 6901; "[" and "." mean nothing in a
// pointer) in status, describe, explain and impact (issue 11, spec
// corners). Before, /colors/l[0] was read as an item of the list
// /colors/l: replacing l dropped its source and hid it from describe, and
// a dotted --field could not name key "x.y".
func TestSpecKeysKeepProvenance(t *testing.T) {
	file := filepath.Join(t.TempDir(), "world.yaml")
	if err := os.WriteFile(file, []byte(keysWorld), 0o644); err != nil {
		t.Fatal(err)
	}
	in := []string{"-f", discEx3 + "/kind.yaml", "-f", file}
	for _, c := range []struct {
		name string
		args []string
		want []string // regular expressions
	}{
		{"status", []string{"status"}, []string{`superseded by default/pr in 1 of 1 context \(fields /colors/l, /colors/x.y\)`}},
		{"describe", []string{"describe", "service/b1"}, []string{
			`/colors/a~1b\s+gw\s+default/pg`, `/colors/t~0x\s+gw\s+default/pg`, `/colors/l\[0\]\s+gw\s+default/pg\s+-`,
			`/colors/l\s+route\s+default/pr\s+default/pg`, `/colors/x\.y\s+route\s+default/pr\s+default/pg`}},
		{"explain a dotted key", []string{"explain", "service/b1", "--field", `colors.x\.y`}, []string{`Field /colors/x\.y `, `default/pr .* route\s+Wins`}},
		{"explain a key with [", []string{"explain", "service/b1", "--field", "colors.l[0]"}, []string{`default/pg .* gw\s+Wins`}},
		{"explain a key with /", []string{"explain", "service/b1", "--field", "/colors/a~1b"}, []string{`default/pg .* gw\s+Wins`}},
		{"impact", []string{"impact", "colorpolicy/pr", "--delete"}, []string{`/colors/l\s+route \(default/pr\)\s+gw \(default/pg\)`, `/colors/x\.y\s+route \(default/pr\)\s+gw \(default/pg\)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := strata(t, "", append(c.args, in...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range c.want {
				if !regexp.MustCompile(w).MatchString(out) {
					t.Errorf("output does not match %s:\n%s", w, out)
				}
			}
		})
	}
}
