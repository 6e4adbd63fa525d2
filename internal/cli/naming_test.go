package cli

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// How the commands read the names a user types (kinds, KIND/NAME, field
// paths, --sort-by, simulate's --gateway and --route) and what they answer
// to a mistake: one error line naming what is wrong, with "did you mean"
// and where the object is, never an empty answer that reads as a fact,
// nor a library's log line. The messages are kept in
// testdata/naming/errors.golden.
func TestNamingErrors(t *testing.T) {
	const url = "http://baker.cupcakes.example/"
	errorsGolden(t, "testdata/naming/errors.golden", []errorCase{
		// describe --kind reads kinds as explain --kind does.
		{"describe --kind typo", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--kind", "retrypolcy"}},
		{"describe --kind of the hierarchy", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--kind", "httproute"}},
		{"describe --kind among several", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--kind", "retrypolicy", "--kind", "timeoutpolicys"}},
		// describe --field: a field no context sets.
		{"describe --field typo", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--field", "atempts"}},
		{"describe --field typo of a kind", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--kind", "RetryPolicies", "--field", "atempts"}},
		{"describe --field element not there", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--field", "/codes/7"}},
		{"describe KIND --field typo", []string{"describe", "service", "-n", "baker", "-f", discParable, "--field", "intervalSecond"}},
		// An empty name.
		{"empty name", []string{"describe", "httproute/#rule-0", "-n", "baker", "-f", discParable}},
		{"empty name -A", []string{"describe", "httproute", "#rule-0", "-A", "-f", discParable}},
		{"explain empty name -A", []string{"explain", "httproute/#rule-0", "-A", "--field", "codes", "-f", discParable}},
		// The kinds a user may type: every kind of the hierarchy.
		{"unknown kind", []string{"describe", "listenerst/x", "-n", "infra", "-f", discParable}},
		// get policies KIND/NAME.
		{"get policies KIND/NAME typo", []string{"get", "policies", "retrypolicy/baker-retrie", "-n", "baker", "-f", discParable}},
		{"get policies KIND/NAME elsewhere", []string{"get", "policies", "retrypolicy/baker-retries", "-n", "infra", "-f", discParable}},
		{"get policies KIND/NAME nowhere", []string{"get", "policies", "retrypolicy/baker-retrie", "-f", discParable}},
		{"get policies KIND/", []string{"get", "policies", "retrypolicy/", "-f", discParable}},
		{"get policies of a topology kind by name", []string{"get", "policies", "httproute/baker", "-f", discParable}},
		// --sort-by a value kubectl's sorter cannot compare.
		{"get --sort-by a map", []string{"get", "policies", "-f", discParable, "--sort-by", ".spec"}},
		{"get --sort-by a list", []string{"get", "policies", "-A", "-f", discParable, "--sort-by", "{.spec.targetRefs}"}},
		{"kinds --sort-by a map", []string{"kinds", "-f", discParable, "--sort-by", ".spec"}},
		{"kinds --builtin --sort-by a list", []string{"kinds", "--builtin", "--sort-by", ".spec.targetKinds", "-o", "name"}},
		// simulate --gateway and --route.
		{"simulate --gateway typo", []string{"simulate", "GET", url, "-f", discParable, "--gateway", "infra/storefrnt"}},
		{"simulate --gateway namespace", []string{"simulate", "GET", url, "-f", discParable, "--gateway", "baker/storefront"}},
		{"simulate --route typo", []string{"simulate", "GET", url, "-f", discParable, "--route", "baker/bakr"}},
		{"simulate --route namespace", []string{"simulate", "GET", url, "-f", discParable, "--route", "httproute/infra/baker"}},
	})
}

// describe --kind takes every name explain --kind and describe KIND/NAME
// take: the kind, its plural, kind.group and resource.group, in any case.
// Each narrows to the same answer as the kind's own name.
func TestDescribeKindNames(t *testing.T) {
	base := []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--kind"}
	want, errOut, code := strata(t, "", append(base, "RetryPolicy")...)
	if code != 0 || !strings.Contains(want, "RetryPolicy on HTTPRoute baker/baker") {
		t.Fatalf("--kind RetryPolicy: exit %d, %s%s", code, want, errOut)
	}
	for _, name := range []string{"retrypolicy", "retrypolicies", "RetryPolicies", "retrypolicy.policies.cupcakes.example", "retrypolicies.policies.cupcakes.example"} {
		t.Run(name, func(t *testing.T) {
			got, errOut, code := strata(t, "", append(base, name)...)
			if code != 0 || got != want {
				t.Errorf("--kind %s: exit %d, stderr %q; stdout differs from --kind RetryPolicy's:\n%s", name, code, errOut, got)
			}
		})
	}
}

// What the names read answer: a field below one the contexts list (an
// element of an atomic list) as explain --field shows it, a Gateway by
// kubectl's resource.group, one policy by get policies KIND/NAME.
func TestNamingGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"describe-field-element", []string{"describe", "httproute/baker", "-n", "baker", "--field", "/codes/0", "-f", discParable}},
		{"describe-field-element.json", []string{"describe", "httproute/baker", "-n", "baker", "--field", "codes.1", "-f", discParable, "-o", "json"}},
		{"describe-gateway-resource-group", []string{"describe", "gateways.gateway.networking.k8s.io/storefront", "-n", "infra", "-f", discParable}},
		{"get-policies-kind-name", []string{"get", "policies", "retrypolicy/baker-retries", "-f", discParable}},
		{"get-policies-kind-name-o-name", []string{"get", "policies", "RetryPolicies/icing-retries", "-n", "frosting", "-f", discParable, "-o", "name"}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			out, errOut, code := strata(t, "", c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			discoverGolden(t, "testdata/naming/"+c.golden+".golden", "$ strata "+strings.ReplaceAll(strings.Join(c.args, " "), "../../examples/", "examples/")+"\n"+out)
		})
	}
}

// Every command answers a wrong number of arguments, or a missing flag it
// needs, with its usage line and an example (arity, needs), not cobra's
// "accepts between 1 and 2 arg(s), received 0" or `required flag(s)
// "field" not set`. The table holds every command of the root (cobra's
// own help and completion aside): a new command fails here until it is
// added.
func TestArityEveryCommand(t *testing.T) {
	cases := map[string][][]string{
		"status":     {{"status", "a"}},
		"effective":  {{"effective", "a"}},
		"controller": {{"controller", "a"}},
		"describe":   {{"describe"}}, // any number of KIND/NAME, or KIND and names
		"explain":    {{"explain", "--field", "x"}, {"explain", "a", "b", "c", "--field", "x"}, {"explain", "httproute/baker", "-n", "baker", "-f", discParable}},
		"get":        {{"get"}, {"get", "policies", "a", "b"}},
		"impact":     {{"impact", "-f", discParable}, {"impact", "a", "b", "c"}, {"impact", "retrypolicy/baker-retries", "-n", "baker", "-f", discParable}},
		"diff":       {{"diff", "a"}, {"diff", "-f", discParable}},
		"graph":      {{"graph", "a", "b", "c"}},
		"render":     {{"render", "a", "b", "c"}},
		"check":      {{"check", "a"}},
		"simulate":   {{"simulate", "-f", discParable}, {"simulate", "GET", "http://a/", "c", "-f", discParable}},
		"kinds":      {{"kinds", "a"}},
		"serve":      {{"serve", "a"}},
		"version":    {{"version", "a"}},
	}
	root := NewRoot(Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		name := c.Name()
		if _, ok := cases[name]; !ok {
			t.Errorf("strata %s is not in the table: add its wrong arities and missing flags", name)
			continue
		}
		usage := "strata " + name + " " + takes(c)
		example := "; e.g. " + firstExample(c)
		if firstExample(c) == "" {
			t.Errorf("strata %s has no example to show", name)
		}
		for _, args := range cases[name] {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				out, errOut, code := strata(t, "", args...)
				if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 {
					t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and one error line", code, out, errOut)
				}
				takesIt := strings.HasPrefix(errOut, "error: strata "+name+" takes "+takes(c)+", got ") ||
					strings.HasPrefix(errOut, "error: strata "+name+" takes no arguments, got ") && c.Args != nil
				needsIt := strings.HasPrefix(errOut, "error: strata "+name+" needs ") && strings.Contains(errOut, ": "+usage)
				if !takesIt && !needsIt || !strings.HasSuffix(errOut, example+"\n") {
					t.Errorf("got %q; want what strata %s takes (%s) and its example", errOut, name, usage)
				}
			})
		}
		delete(cases, name)
	}
	for name := range cases {
		t.Errorf("strata %s is in the table but not a command", name)
	}
}

// --sort-by checks that kubectl's sorter can compare the field's values
// before it sorts: on any other value the sorter ends the process
// (klog.Exitf), which no command and no test calling Main survives.
func TestSortable(t *testing.T) {
	obj := func(name string, spec map[string]any) runtime.Object {
		return &unstructured.Unstructured{Object: map[string]any{"kind": "RetryPolicy", "metadata": map[string]any{"namespace": "ns", "name": name}, "spec": spec}}
	}
	for _, c := range []struct {
		field string
		specs []map[string]any
		err   string // "" for sortable
	}{
		{".spec.a", []map[string]any{{"a": "x"}, {"a": "y"}, {}}, ""},
		{".spec.a", []map[string]any{{"a": int64(2)}, {"a": int64(1)}, {"a": nil}}, ""},
		{".spec.a", []map[string]any{{"a": 1.5}, {"a": 0.5}}, ""},
		{".metadata.name", []map[string]any{{}, {}}, ""},
		{".spec", []map[string]any{{"a": "x"}}, ".spec of RetryPolicy ns/p0 is not a sortable field (a map)"},
		{".spec.a", []map[string]any{{"a": "x"}, {"a": []any{"y"}}}, ".spec.a of RetryPolicy ns/p1 is not a sortable field (a list)"},
		{"{.spec.a}", []map[string]any{{"a": true}}, "{.spec.a} of RetryPolicy ns/p0 is not a sortable field (a boolean)"},
		{".spec.a", []map[string]any{{"a": "x"}, {"a": int64(1)}}, ".spec.a is a string in RetryPolicy ns/p0 but an integer in RetryPolicy ns/p1, which cannot be compared"},
		{".spec.a", []map[string]any{{"a": int64(1)}, {"a": 1.5}}, ".spec.a is an integer in RetryPolicy ns/p0 but a decimal number in RetryPolicy ns/p1"},
	} {
		t.Run(c.field+" "+c.err, func(t *testing.T) {
			var objs []runtime.Object
			for i, s := range c.specs {
				objs = append(objs, obj(fmt.Sprintf("p%d", i), s))
			}
			err := sortable(c.field, objs)
			switch {
			case c.err == "" && err != nil:
				t.Errorf("sortable: %v", err)
			case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
				t.Errorf("sortable: %v, want %q", err, c.err)
			case c.err == "":
				// What sortable lets through, kubectl's sorter sorts.
				if _, err := newListFlags().withSortBy(c.field).order(objs); err != nil {
					t.Errorf("order: %v", err)
				}
			}
		})
	}
}

// withSortBy is l with --sort-by field.
func (l *listFlags) withSortBy(field string) *listFlags {
	*l.print.HumanReadableFlags.SortBy = field
	return l
}
