package cli

import (
	"strings"
	"testing"
)

// inputCommands are the commands that read objects through sourceFlags;
// each must say the same about the same input (issue 11, "Objects that
// must be refused or flagged, never silently misread").
var inputCommands = [][]string{
	{"status"},
	{"effective"},
	{"describe", "namespace/app"},
	{"get", "policies"},
	{"explain", "namespace/app", "--field", "/attempts"},
	{"impact", "retrypolicy/q", "--delete"},
	{"graph", "-o", "dot"},
}

// A policy of the files is admitted against its CRD's schema as the API
// server would: an unknown field is dropped with kubectl's warning, a
// value the schema refuses makes the policy Invalid, each named by file
// and document on stderr, by every command alike. A policy without a
// namespace whose CRD is Namespaced is in default.
func TestInputAdmission(t *testing.T) {
	const dir = "testdata/input/"
	wantErr := `warning: testdata/input/policies.yaml: document 1 (RetryPolicy.policies.example.com app/p): unknown field "spec.default": not in the schema of CustomResourceDefinition retrypolicies.policies.example.com; the API server would drop it, and so does strata
warning: testdata/input/policies.yaml: document 2 (RetryPolicy.policies.example.com default/q): spec.defaults.attempts: Invalid value: "string": spec.defaults.attempts in body must be of type integer: "string"; the API server would refuse it: Invalid
`
	for _, cmd := range inputCommands {
		t.Run(strings.Join(cmd, " "), func(t *testing.T) {
			args := append(append([]string{}, cmd...), "-f", dir+"world.yaml", "-f", dir+"policies.yaml")
			out, errOut, code := strata(t, "", args...)
			if code != 0 && cmd[0] != "explain" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			got := errOut
			// explain answers that no policy sets /attempts: the typo
			// is not a field.
			if cmd[0] == "explain" {
				var answer string
				got, answer, _ = strings.Cut(errOut, "error: ")
				if !strings.HasPrefix(answer, "field /attempts is not set on Namespace app by any policy") {
					t.Errorf("explain: %s", answer)
				}
			}
			if got != wantErr {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, wantErr)
			}
			if strings.Contains(out, "/default/attempts") {
				t.Errorf("the typo is read as field /default/attempts:\n%s", out)
			}
			if cmd[0] == "status" && (!strings.Contains(out, `spec.defaults.attempts: Invalid value: "string"`) || !strings.Contains(out, "reason: Invalid")) {
				t.Errorf("status does not say why q is Invalid:\n%s", out)
			}
		})
	}
}

// Two objects with one kind, namespace and name are an error naming both
// places, for every command; the namespace is the one kubectl apply
// would give (here: q without namespace is default/q).
func TestInputDuplicates(t *testing.T) {
	const dir = "testdata/input/"
	want := "error: RetryPolicy.policies.example.com default/q is given twice, in testdata/input/policies.yaml: document 2 and in testdata/input/duplicate.yaml: document 1: keep one (kubectl apply would keep the last one silently)\n"
	for _, cmd := range inputCommands {
		t.Run(strings.Join(cmd, " "), func(t *testing.T) {
			args := append(append([]string{}, cmd...), "-f", dir+"world.yaml", "-f", dir+"policies.yaml", "-f", dir+"duplicate.yaml")
			out, errOut, code := strata(t, "", args...)
			if code != 1 || out != "" || errOut != want {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1, no stdout and:\n%s", code, out, errOut, want)
			}
		})
	}
	// With -n, q is another object than default/q.
	if _, errOut, code := strata(t, "", "get", "policies", "-n", "app", "-f", dir+"world.yaml", "-f", dir+"policies.yaml", "-f", dir+"duplicate.yaml"); code != 0 {
		t.Errorf("-n app: exit %d: %s", code, errOut)
	}
}

// A PolicyKind that does not compile is an error naming the file and
// document it was read from, for every command.
func TestInputBadDeclaration(t *testing.T) {
	kinds := "apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n---\napiVersion: strata.dev/v1alpha1\nkind: PolicyKind\nmetadata: {name: bad}\nspec: {group: g.example.com, kind: K, class: Weird}\n"
	want := "error: -: document 2: PolicyKind bad: spec.class: \"Weird\" is not Direct or Inherited\n"
	for _, cmd := range [][]string{{"status"}, {"effective"}, {"describe", "namespace/app"}, {"get", "policies"}, {"graph", "-o", "dot"}} {
		t.Run(strings.Join(cmd, " "), func(t *testing.T) {
			out, errOut, code := strata(t, kinds, append(append([]string{}, cmd...), "-f", "-")...)
			if code != 1 || out != "" || errOut != want {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, want)
			}
		})
	}
}

// impact --replace admits the new version as -f admits the files'
// policies: integers are integers (the schema's CEL rule compares
// them), an unknown field is a warning naming the replacement.
func TestImpactReplaceAdmission(t *testing.T) {
	const dir = "testdata/input/"
	for _, c := range []struct{ name, spec, want, notWant string }{
		{"valid", "  defaults: {attempts: 4}\n", "", "warning: - "},
		{"unknown field", "  defaults: {attempts: 4}\n  overides: {attempts: 1}\n", `warning: - (RetryPolicy app/p): unknown field "spec.overides"`, "expected int"},
		{"CEL rule", "  defaults: {attempts: 11}\n", "warning: - (RetryPolicy app/p): spec.defaults: Invalid value: at most 10 attempts", "expected int"},
	} {
		t.Run(c.name, func(t *testing.T) {
			repl := "apiVersion: policies.example.com/v1\nkind: RetryPolicy\nmetadata: {name: p}\nspec:\n  targetRefs: [{group: '', kind: Namespace, name: app}]\n" + c.spec
			_, errOut, code := strata(t, repl, "impact", "retrypolicy/p", "-n", "app", "--replace", "-", "-f", dir+"world.yaml", "-f", dir+"policies.yaml")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if c.want != "" && !strings.Contains(errOut, c.want) {
				t.Errorf("stderr %q does not contain %q", errOut, c.want)
			}
			if strings.Contains(errOut, c.notWant) {
				t.Errorf("stderr %q contains %q", errOut, c.notWant)
			}
		})
	}
}
