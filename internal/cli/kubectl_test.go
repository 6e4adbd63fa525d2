package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/pkg/query"
)

// kubectlWorld is example 3 with labels on its policies and on Service b1.
const kubectlWorld = "testdata/kubectl/labelled.yaml"

// kubectlKind declares its policy kind: example 3's CRD with a short
// name, cp.
const kubectlKind = "testdata/kubectl/kind.yaml"

// kubectlKinds declares policy kinds with labels: two PolicyKinds and a
// labelled CRD.
const kubectlKinds = "testdata/kubectl/labelled-kinds.yaml"

// kubectl's conventions (issue 18): the output flags of kubectl get on
// the commands that list, selectors, -A and -n, both forms of an object's
// name, resource.group kinds. One golden per flag, under
// testdata/kubectl; stdout and stderr are both kept, for the commands
// that note something on stderr.
func TestKubectlGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		// get policies: every -o and the table flags.
		{"get-wide", []string{"get", "policies", "-A", "-f", discParable, "-o", "wide", "--field-selector", "metadata.namespace=frosting"}},
		{"get-name", []string{"get", "policies", "-f", discParable, "-n", "frosting", "-o", "name"}},
		{"get-jsonpath", []string{"get", "policies", "-f", discParable, "-n", "frosting", "-o", `jsonpath={range .items[*]}{.kind}/{.metadata.name}: {.spec.targetRefs[0].name}{"\n"}{end}`}},
		{"get-jsonpath-file", []string{"get", "policies", "-f", discParable, "-n", "frosting", "-o", "jsonpath-file=testdata/kubectl/names.jsonpath"}},
		{"get-go-template", []string{"get", "policies", "-f", discParable, "-n", "frosting", "-o", `go-template={{range .items}}{{.metadata.name}} {{.metadata.creationTimestamp}}{{"\n"}}{{end}}`}},
		{"get-custom-columns", []string{"get", "policies", "-f", discParable, "-n", "frosting", "-o", "custom-columns=KIND:.kind,NAME:.metadata.name,TARGET:.spec.targetRefs[0].name"}},
		{"get-custom-columns-file", []string{"get", "policies", "-f", discParable, "-n", "frosting", "-o", "custom-columns-file=testdata/kubectl/columns.txt"}},
		{"get-yaml-sorted", []string{"get", "policies", "-f", discParable, "-n", "frosting", "-o", "yaml", "--sort-by", ".metadata.creationTimestamp"}},
		{"get-no-headers", []string{"get", "policies", "-f", discParable, "-n", "frosting", "--no-headers"}},
		{"get-sort-by", []string{"get", "policies", "-A", "-f", discParable, "--sort-by", "{.metadata.name}", "--field-selector", "metadata.namespace!=baker"}},
		{"get-show-labels", []string{"get", "policies", "-f", kubectlKind, "-f", kubectlWorld, "--show-labels"}},
		{"get-label-columns", []string{"get", "policies", "-f", kubectlKind, "-f", kubectlWorld, "-L", "team,tier"}},
		{"get-selector", []string{"get", "policies", "-f", kubectlKind, "-f", kubectlWorld, "-l", "team=web,tier!=gold"}},
		{"get-field-selector", []string{"get", "policies", "-A", "-f", discParable, "--field-selector", "metadata.name=tint-health"}},
		// kinds: the same flags.
		{"kinds-name", []string{"kinds", "-f", discParable, "-o", "name"}},
		{"kinds-no-headers-sorted", []string{"kinds", "-f", discParable, "--no-headers", "--sort-by", ".metadata.name"}},
		{"kinds-wide", []string{"kinds", "-f", discParable, "-o", "wide"}},
		{"kinds-wide-crd", []string{"kinds", "-f", kubectlKind, "-f", kubectlWorld, "-o", "wide"}},
		{"kinds-custom-columns", []string{"kinds", "-f", discParable, "-o", "custom-columns=NAME:.metadata.name,DEFAULT:.spec.defaultStrategy"}},
		{"kinds-wide", []string{"kinds", "-f", discParable, "-o", "wide"}},
		// The labels of the PolicyKind, or of the CRD, that declares a kind.
		{"kinds-label-columns", []string{"kinds", "-f", kubectlKinds, "-L", "team,tier"}},
		{"kinds-show-labels", []string{"kinds", "-f", kubectlKinds, "--show-labels"}},
		{"kinds-selector", []string{"kinds", "-f", kubectlKinds, "-l", "team=web,tier!=gold"}},
		{"kinds-field-selector", []string{"kinds", "-f", kubectlKinds, "--field-selector", "metadata.name=retrypolicies.policies.cupcakes.example"}},
		// describe: both forms, resource.group, KIND alone, selectors, -A.
		{"describe-two-args", []string{"describe", "httproute", "tint", "-n", "frosting", "-f", discParable}},
		// Several objects: KIND NAME NAME... and KIND/NAME KIND/NAME...
		{"describe-several-names", []string{"describe", "service", "tint", "icing", "-n", "frosting", "-f", discParable}},
		{"describe-several-kinds-all", []string{"describe", "service/tint", "retrypolicy/baker-retries", "-A", "-f", discParable, "-o", "yaml", "--kind", "retrypolicy"}},
		{"describe-resource-group", []string{"describe", "httproutes.gateway.networking.k8s.io/tint", "-A", "-f", discParable}},
		{"describe-selector", []string{"describe", "service", "-l", "tier=backend", "-f", kubectlKind, "-f", kubectlWorld}},
		{"describe-field-selector", []string{"describe", "svc", "--field-selector", "metadata.name=tint", "-A", "-f", discParable, "-o", "yaml"}},
		{"describe-policy-all-namespaces", []string{"describe", "retrypolicy", "icing-retries", "-A", "-f", discParable}},
		{"describe-short-name", []string{"describe", "cp/p3", "-f", kubectlKind, "-f", kubectlWorld}},
		{"get-short-name", []string{"get", "policies", "cp", "-f", kubectlKind, "-f", kubectlWorld, "-o", "name"}},
		// get TYPE, get TYPE NAME and get TYPE/NAME for a policy kind, as
		// kubectl get reads them; TYPE also as resource.version.group.
		{"get-kind", []string{"get", "retrypolicies", "-A", "-f", discParable}},
		{"get-kind-name", []string{"get", "retrypolicy", "icing-retries", "-n", "frosting", "-f", discParable, "-o", "name"}},
		{"get-kind-slash-name", []string{"get", "cp/p3", "-f", kubectlKind, "-f", kubectlWorld}},
		{"get-kind-names", []string{"get", "healthcheckpolicy", "tint-health", "tint-health-v2", "baker-health", "-A", "-f", discParable}},
		// kubectl's forms print objects, with the status Strata would
		// write: -o yaml|json a List, or the policy named alone as itself.
		{"get-kind-name-yaml", []string{"get", "retrypolicy", "icing-retries", "-n", "frosting", "-f", discParable, "-o", "yaml"}},
		{"get-kind-slash-name-jsonpath", []string{"get", "retrypolicy/icing-retries", "-n", "frosting", "-f", discParable, "-o", `jsonpath={.kind} {.metadata.name}: {.status.ancestors[0].conditions[?(@.type=="PartiallyEnforced")].message}{"\n"}`}},
		// A kind Strata does not manage (managed: false): as read.
		{"get-kind-name-unmanaged-yaml", []string{"get", "backendtrafficpolicy", "gw-btp", "-f", "../../examples/childmerge", "-o", "yaml"}},
		{"get-kind-json", []string{"get", "timeoutpolicies", "-n", "frosting", "-f", discParable, "-o", "json"}},
		{"get-kind-names-go-template", []string{"get", "healthcheckpolicy", "tint-health", "tint-health-v2", "-n", "frosting", "-f", discParable, "-o", `go-template={{.kind}}:{{range .items}} {{.metadata.name}}={{(index .status.ancestors 0).ancestorRef.name}}{{end}}{{"\n"}}`}},
		{"get-resource-version-group", []string{"get", "retrypolicies.v1alpha1.policies.cupcakes.example", "-A", "-f", discParable, "-o", "name"}},
		{"describe-resource-version-group", []string{"describe", "httproutes.v1.gateway.networking.k8s.io/tint", "-A", "-f", discParable}},
		{"describe-gtw", []string{"describe", "gtw", "g2", "-f", kubectlKind, "-f", kubectlWorld}},
		{"describe-none", []string{"describe", "gateway", "-l", "tier=gold", "-f", kubectlKind, "-f", kubectlWorld}},
		// explain and impact: both forms and -A.
		{"explain-two-args-all", []string{"explain", "httproute", "tint", "-A", "--field", "path", "-f", discParable}},
		{"impact-two-args-all", []string{"impact", "retrypolicy", "icing-retries", "-A", "--delete", "-f", discParable}},
		// impact POLICY-KIND -l --delete: the chosen policies deleted together.
		{"impact-selector", []string{"impact", "cp", "-l", "team=web", "--delete", "-f", kubectlKind, "-f", kubectlWorld}},
		{"impact-field-selector-all", []string{"impact", "healthcheckpolicy", "-A", "--field-selector", "metadata.namespace=frosting", "--delete", "-f", discParable, "-o", "yaml"}},
		// status and effective: kubectl's object formats.
		{"status-custom-columns", []string{"status", "-n", "frosting", "-f", discParable, "-o", "custom-columns=KIND:.kind,NAME:.metadata.name,ANCESTORS:.status.ancestors[*].ancestorRef.name"}},
		{"status-sorted-name", []string{"status", "-f", kubectlKind, "-f", kubectlWorld, "-o", "name", "--sort-by", ".metadata.name"}},
		{"effective-jsonpath", []string{"effective", "-n", "frosting", "-f", discParable, "-o", `jsonpath={range .items[*]}{.target.kind}/{.target.name}: {.policies[*].kind}{"\n"}{end}`}},
		{"effective-selector", []string{"effective", "-f", discParable, "-l", "strata.dev/target-kind=Service", "--field-selector", "metadata.namespace=frosting", "-o", "name"}},
		{"status-field-selector", []string{"status", "-f", discParable, "--field-selector", "metadata.name=icing-retries"}},
		{"status-selector", []string{"status", "-f", kubectlKind, "-f", kubectlWorld, "-l", "team=web", "-o", "name"}},
		{"status-name", []string{"status", "-n", "frosting", "-f", discParable, "-o", "name"}},
		{"effective-name", []string{"effective", "-n", "frosting", "-f", discParable, "-o", "name"}},
		{"effective-sort-by", []string{"effective", "-n", "frosting", "-f", discParable, "-o", "custom-columns=TARGET:.target.name,KIND:.target.kind", "--sort-by", ".target.name"}},
		{"effective-custom-columns-no-headers", []string{"effective", "-n", "frosting", "-f", discParable, "-o", "custom-columns=KIND:.target.kind,TARGET:.target.name,POLICY KINDS:.policies[*].kind", "--no-headers"}},
		// render -A: every Gateway's and route's blueprint children.
		{"render-all-namespaces", []string{"render", "-A", "-f", "../../examples/blueprints"}},
		// -n on the commands that print everything.
		{"effective-namespace", []string{"effective", "-n", "frosting", "-f", discParable, "-o", "yaml"}},
		{"graph-namespace", []string{"graph", "-n", "frosting", "-f", discParable, "-o", "mermaid"}},
		// graph: KIND/NAME -A, and -l choosing the policies drawn.
		{"graph-all-namespaces", []string{"graph", "httproute/baker", "-A", "--depth", "1", "-f", discParable, "-o", "mermaid"}},
		{"graph-selector", []string{"graph", "-f", kubectlKind, "-f", kubectlWorld, "-l", "team=web", "-o", "mermaid"}},
		{"graph-selector-svg", []string{"graph", "service/b1", "--depth", "4", "-f", kubectlKind, "-f", kubectlWorld, "-l", "team=web", "-o", "svg"}},
		{"graph-field-selector", []string{"graph", "gateway/storefront", "-n", "infra", "--depth", "0", "--field-selector", "metadata.name!=storefront-timeouts", "-f", discParable}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			out, errOut, code := strata(t, "", c.args...)
			got := "$ strata " + strings.Join(c.args, " ") + "\n" + out
			if errOut != "" {
				got += "--- stderr\n" + errOut
			}
			if code != 0 {
				t.Errorf("exit %d: %s", code, errOut)
			}
			discoverGolden(t, filepath.Join("testdata/kubectl", c.golden+".golden"), got)
		})
	}
}

// TestGetObjectsAreStatus checks that the objects kubectl's forms of get
// print (get KIND NAME -o json, on a run scoped to the policy's
// namespace) are, policy by policy, those strata status prints from the
// complete run: the same status.ancestors, stamped with the same time.
// Policies of a kind Strata does not manage are printed as read, as
// status leaves them out.
func TestGetObjectsAreStatus(t *testing.T) {
	for _, world := range [][]string{{"-f", discParable}, {"-f", kubectlKind, "-f", kubectlWorld}} {
		out, errOut, code := strata(t, "", append([]string{"status", "-A", "-o", "json"}, world...)...)
		if code != 0 {
			t.Fatalf("status: exit %d: %s", code, errOut)
		}
		var list struct{ Items []map[string]any }
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatal(err)
		}
		policies := 0
		for _, want := range list.Items {
			meta := want["metadata"].(map[string]any)
			if st, _ := want["status"].(map[string]any); st["ancestors"] == nil {
				continue // a target's <Kind>Affected, not a policy
			}
			policies++
			group, _, _ := strings.Cut(want["apiVersion"].(string), "/")
			ref := strings.ToLower(want["kind"].(string)) + "." + group + "/" + meta["name"].(string)
			args := append([]string{"get", ref, "-o", "json"}, world...)
			if ns, ok := meta["namespace"].(string); ok {
				args = append(args, "-n", ns)
			}
			out, errOut, code := strata(t, "", args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errOut)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%v: not the object strata status prints (-status +get):\n%s", args, d)
			}
		}
		if policies == 0 {
			t.Fatalf("%v: status printed no policy", world)
		}
	}
}

// Mistakes get kubectl's kind of help: "did you mean" for kinds, names,
// sections and fields, and the usage (not cobra's "accepts 1 arg(s)") for
// a wrong number of arguments. One error line each, exit 1, nothing on
// stdout; the text is kept in testdata/kubectl/errors.golden.
func TestKubectlErrors(t *testing.T) {
	errorsGolden(t, "testdata/kubectl/errors.golden", []errorCase{
		{"kind typo", []string{"describe", "httprote/baker", "-n", "baker", "-f", discParable}},
		{"policy kind typo", []string{"describe", "retrypolcy/baker-retries", "-n", "baker", "-f", discParable}},
		{"get kind typo", []string{"get", "policies", "timeoutpolicys", "-f", discParable}},
		{"get policies typo", []string{"get", "polcies", "-f", discParable}},
		{"get policy kind typo", []string{"get", "retrypolcy", "-f", discParable}},
		{"get a kind of the hierarchy", []string{"get", "httproutes", "-f", discParable}},
		{"get KIND/NAME NAME", []string{"get", "retrypolicy/icing-retries", "tint", "-f", discParable}},
		{"get unknown version", []string{"get", "retrypolicies.vnext.policies.cupcakes.example", "-f", discParable}},
		{"get names, one not found", []string{"get", "retrypolicy", "baker-retries", "icing-retries", "-n", "baker", "-f", discParable}},
		{"get an empty kind", []string{"get", "", "-f", discParable}},
		{"get policies of an empty kind", []string{"get", "policies", "", "-f", discParable}},
		{"get an empty name", []string{"get", "retrypolicy", "baker-retries", "", "-f", discParable}},
		{"get names and a selector", []string{"get", "retrypolicy", "baker-retries", "-l", "team=baker", "-f", discParable}},
		{"name typo", []string{"describe", "httproute", "bakr", "-n", "baker", "-f", discParable}},
		{"name typo in the wrong namespace", []string{"describe", "httproutes/bakr", "-f", discParable}},
		{"name typo -A", []string{"describe", "service/bater", "-A", "-f", discParable}},
		{"policy name typo -A", []string{"describe", "retrypolicy/baker-retry", "-A", "-f", discParable}},
		{"policy name typo", []string{"impact", "retrypolicy/baker-retry", "-n", "baker", "--delete", "-f", discParable}},
		{"section typo", []string{"describe", "gateway/storefront#htp", "-n", "infra", "-f", discParable}},
		{"field typo", []string{"explain", "httproute/baker", "-n", "baker", "--field", "codez", "-f", discParable}},
		{"render field typo", []string{"render", "gateway/shop", "-n", "team-a", "--values", "--field", "tags.exposur", "-f", "../../examples/blueprints"}},
		{"ambiguous -A", []string{"explain", "service/baker", "-A", "--field", "path", "-f", discParable, "-f", "testdata/kubectl/second-baker.yaml"}},
		{"graph name typo -A", []string{"graph", "httproute/bakr", "-A", "-f", discParable}},
		{"impact name typo -A", []string{"impact", "retrypolicy/baker-retry", "-A", "--delete", "-f", discParable}},
		{"impact -l with --replace", []string{"impact", "retrypolicy", "-l", "team=baker", "--replace", "x.yaml", "-f", discParable}},
		{"impact -l with a name", []string{"impact", "retrypolicy/baker-retries", "-n", "baker", "-l", "team=baker", "--delete", "-f", discParable}},
		{"impact -l choosing none", []string{"impact", "retrypolicy", "-n", "baker", "-l", "team=baker", "--delete", "-f", discParable}},
		{"ambiguous graph -A", []string{"graph", "service/baker", "-A", "-f", discParable, "-f", "testdata/kubectl/second-baker.yaml"}},
		{"describe without arguments", []string{"describe", "-f", discParable}},
		{"several names, in another namespace", []string{"describe", "httproute", "baker", "extra", "-f", discParable}},
		{"explain with three", []string{"explain", "a", "b", "c", "--field", "x", "-f", discParable}},
		{"get without arguments", []string{"get", "-f", discParable}},
		{"status with an argument", []string{"status", "httproute/baker", "-f", discParable}},
		{"kinds with arguments", []string{"kinds", "a", "b"}},
		{"both forms at once", []string{"describe", "httproute/baker", "baker", "-f", discParable}},
		{"both forms among several", []string{"describe", "httproute", "baker", "httproute/batter", "-n", "baker", "-f", discParable}},
		{"names and a selector", []string{"describe", "service", "baker", "batter", "-l", "tier=backend", "-n", "baker", "-f", discParable}},
		{"one of several not found", []string{"describe", "service", "baker", "bater", "-n", "baker", "-f", discParable}},
		{"bad field selector", []string{"get", "policies", "-f", discParable, "--field-selector", "spec.x=1"}},
		{"bad output", []string{"get", "policies", "-f", discParable, "-o", "jsonpth={.items}"}},
	})
}

func TestSuggest(t *testing.T) {
	for _, c := range []struct {
		typed string
		cands []string
		want  string
	}{
		{"httprote", []string{"httproute", "grpcroute", "gateway"}, "; did you mean httproute?"},
		{"htp", []string{"http", "https", "grpc"}, "; did you mean http?"},
		{"rule0", []string{"rule-0", "rule-1", "rule-10"}, "; did you mean rule-0?"},
		{"time", []string{"timeout", "timer", "tint"}, "; did you mean timer or timeout?"},
		{"bakr", []string{"baker", "batter", "oven"}, "; did you mean baker?"},
		{"zzz", []string{"baker"}, ""},
		{"baker", []string{"baker", "bakes"}, ""},
	} {
		if got := query.DidYouMean(c.typed, c.cands); got != c.want {
			t.Errorf("DidYouMean(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
}

// Shell completion: what `strata __complete ARGS...` (which the scripts
// of `strata completion bash|zsh|fish` call) offers, kept in
// testdata/kubectl/completion.golden: kinds, names from the -f files in
// the -n namespace (every namespace with -A), sections, explain's,
// describe's and render's fields (pointers or dotted), namespaces,
// policy kinds (BlueprintValues only where there are blueprints),
// simulate's Gateways and routes, check's finding classes, -o formats.
func TestCompletion(t *testing.T) {
	var all strings.Builder
	for _, args := range [][]string{
		{"describe", "-f", discParable, "-n", "baker", ""},
		{"describe", "-f", discParable, "-n", "baker", "httproute/ba"},
		{"describe", "-f", discParable, "-n", "baker", "httproute", "bu"},
		{"describe", "-f", discParable, "-n", "baker", "httproute", "baker", "bu"},
		{"describe", "-f", discParable, "-n", "baker", "httproute/baker", "service/ba"},
		{"describe", "-f", discParable, "-A", "retrypolicy/"},
		{"describe", "-f", discParable, "-n", "infra", "gateway/storefront#"},
		{"describe", "-f", discParable, "-n", ""},
		{"describe", "-f", discParable, "-o", ""},
		{"explain", "httproute/baker", "-n", "baker", "-f", discParable, "--field", ""},
		{"explain", "httproute/baker", "-n", "baker", "-f", discParable, "--field", "/b"},
		{"explain", "-f", discParable, "--kind", ""},
		{"impact", "-f", discParable, ""},
		{"impact", "-f", discParable, "-n", "frosting", "retrypolicy", ""},
		{"get", "-f", discParable, ""},
		{"get", "-f", discParable, "policies", ""},
		{"get", "-f", discParable, "ret"},
		{"get", "-f", discParable, "-n", "frosting", "retrypolicy", ""},
		{"get", "-f", discParable, "-n", "frosting", "healthcheckpolicy", "tint-health", "tint"},
		{"get", "-f", discParable, "-A", "retrypolicy/"},
		{"get", "-f", discParable, "-A", "policies", "retrypolicy/"},
		{"get", "-f", discParable, "policies", "-o", "js"},
		{"graph", "-o", ""},
		{"graph", "-f", discParable, ""},
		{"graph", "-f", discParable, "-n", "frosting", "service/"},
		{"graph", "-f", discParable, "-A", "httproute/bu"},
		{"graph", "-f", discParable, "httproute", "-n", "baker", "b"},
		{"describe", "-f", discParable, "-n", "baker", "httproute/baker", "--kind", ""},
		{"describe", "-f", discParable, "-n", "baker", "httproute/baker", "--kind", "retrypolicy,t"},
		{"describe", "-f", discParable, "-n", "baker", "httproute/baker", "--field", ""},
		{"describe", "-f", discParable, "-A", "httproute/baker", "--field", "/b"},
		{"explain", "-f", "../../examples/blueprints", "--kind", ""},
		{"explain", "-f", discParable, "-A", "service/tint", "--field", "/"},
		{"render", "-f", "../../examples/blueprints", "gateway/shop", "-n", "team-a", "--values", "--field", "/s"},
		{"render", "-f", "../../examples/blueprints", "--values", "--field", "rep"},
		{"simulate", "-f", discParable, "GET", "http://baker.cupcakes.example/", "--gateway", ""},
		{"simulate", "-f", discParable, "GET", "http://baker.cupcakes.example/", "--route", "frosting/"},
		{"check", "-f", discParable, "--fail-on", ""},
		{"check", "-f", discParable, "--fail-on", "invalid,conflicted,"},
		{"render", ""},
		{"describe", "-f", "testdata/kubectl/no-such-file.yaml", ""},
	} {
		out, _, code := strata(t, "", append([]string{"__complete"}, args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d", args, code)
		}
		all.WriteString("$ strata __complete " + strings.Join(args, " ") + "\n" + out)
	}
	discoverGolden(t, "testdata/kubectl/completion.golden", strings.ReplaceAll(all.String(), "../../examples/", "examples/"))

	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		out, errOut, code := strata(t, "", "completion", shell)
		if code != 0 || !strings.Contains(out, "__complete") {
			t.Errorf("completion %s: exit %d, %s; script:\n%.200s", shell, code, errOut, out)
		}
	}
}

// describe KIND/NAME -A runs the engine scoped to the object wherever it
// is, and answers what -n with its namespace answers, to the byte.
func TestDescribeEverywhereMatchesNamespace(t *testing.T) {
	for _, c := range []struct{ arg, ns string }{
		{"httproute/baker", "baker"},
		{"service/tint", "frosting"},
		{"gateway/storefront", "infra"},
		{"gateway/storefront#http", "infra"},
		{"retrypolicy/icing-retries", "frosting"},
	} {
		for _, format := range []string{"", "yaml"} {
			in, errIn, _ := strata(t, "", "describe", c.arg, "-n", c.ns, "-f", discParable, "-o", format)
			all, errAll, _ := strata(t, "", "describe", c.arg, "-A", "-f", discParable, "-o", format)
			if in != all || errIn != errAll || in == "" {
				t.Errorf("describe %s -o %q: -A differs from -n %s:\n%s", c.arg, format, c.ns, cmp.Diff(in+errIn, all+errAll))
			}
		}
	}
}
