package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// kubectlWorld is example 3 with labels on its policies and on Service b1.
const kubectlWorld = "testdata/kubectl/labelled.yaml"

// kubectlKind declares its policy kind.
const kubectlKind = discEx3 + "/kind.yaml"

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
		{"kinds-custom-columns", []string{"kinds", "-f", discParable, "-o", "custom-columns=NAME:.metadata.name,DEFAULT:.spec.defaultStrategy"}},
		// describe: both forms, resource.group, KIND alone, selectors, -A.
		{"describe-two-args", []string{"describe", "httproute", "tint", "-n", "frosting", "-f", discParable}},
		{"describe-resource-group", []string{"describe", "httproutes.gateway.networking.k8s.io/tint", "-A", "-f", discParable}},
		{"describe-selector", []string{"describe", "service", "-l", "tier=backend", "-f", kubectlKind, "-f", kubectlWorld}},
		{"describe-field-selector", []string{"describe", "svc", "--field-selector", "metadata.name=tint", "-A", "-f", discParable, "-o", "yaml"}},
		{"describe-policy-all-namespaces", []string{"describe", "retrypolicy", "icing-retries", "-A", "-f", discParable}},
		{"describe-none", []string{"describe", "gateway", "-l", "tier=gold", "-f", kubectlKind, "-f", kubectlWorld}},
		// explain and impact: both forms and -A.
		{"explain-two-args-all", []string{"explain", "httproute", "tint", "-A", "--field", "path", "-f", discParable}},
		{"impact-two-args-all", []string{"impact", "retrypolicy", "icing-retries", "-A", "--delete", "-f", discParable}},
		// -n on the commands that print everything.
		{"effective-namespace", []string{"effective", "-n", "frosting", "-f", discParable, "-o", "yaml"}},
		{"graph-namespace", []string{"graph", "-n", "frosting", "-f", discParable, "-o", "mermaid"}},
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
