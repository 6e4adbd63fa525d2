package query_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/source/files"
)

// get's arguments, scope and answer on the parable: kubectl's forms and
// Strata's, names, selectors and namespaces, and the errors of each. A
// scoped run (GetRequest.Scope) gives the answer the full run gives.
func TestGet(t *testing.T) {
	src, err := files.Read([]string{parable}, nil)
	if err != nil {
		t.Fatal(err)
	}
	full, err := engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	retry := schema.GroupKind{Group: "policies.cupcakes.example", Kind: "RetryPolicy"}
	for _, c := range []struct {
		name     string
		args     []string
		label    string
		field    string
		ns       string
		all      bool
		want     []string // the policies listed, as KIND NAMESPACE/NAME; nil with err
		wantKind *schema.GroupKind
		err      string
	}{
		{name: "every kind, every namespace", args: []string{"policies"}, all: true, want: nil},
		{name: "one kind, one namespace", args: []string{"policies", "retrypolicy"}, ns: "baker", want: []string{"RetryPolicy baker/baker-retries"}, wantKind: &retry},
		{name: "kubectl's plural", args: []string{"retrypolicies"}, all: true, want: []string{"RetryPolicy baker/baker-retries", "RetryPolicy frosting/icing-retries"}, wantKind: &retry},
		{name: "kubectl's KIND NAME...", args: []string{"retrypolicy", "icing-retries"}, ns: "frosting", want: []string{"RetryPolicy frosting/icing-retries"}, wantKind: &retry},
		{name: "KIND/NAME", args: []string{"policies", "retrypolicy/baker-retries"}, ns: "baker", want: []string{"RetryPolicy baker/baker-retries"}, wantKind: &retry},
		{name: "a field selector", args: []string{"retrypolicies"}, all: true, field: "metadata.namespace=frosting", want: []string{"RetryPolicy frosting/icing-retries"}, wantKind: &retry},
		{name: "a label selector", args: []string{"policies", "retrypolicy"}, all: true, label: "no-such-label=x", want: []string{}, wantKind: &retry},
		{name: "not in the namespace", args: []string{"retrypolicy/nope"}, ns: "baker", err: "RetryPolicy baker/nope not found"},
		{name: "not anywhere", args: []string{"retrypolicy/nope"}, all: true, err: "RetryPolicy nope not found in any namespace"},
		{name: "a topology kind", args: []string{"httproutes"}, err: "get httproutes: HTTPRoute is not a policy kind; only policies can be listed (strata get policies); use kubectl get for other kinds"},
		{name: "a misspelt policies", args: []string{"polices"}, err: "get polices: did you mean strata get policies?"},
		{name: "an unknown kind", args: []string{"colorpolicies"}, err: "get colorpolicies: "},
		{name: "names and a selector", args: []string{"retrypolicy", "a"}, label: "x=y", err: "get retrypolicy a: name policies or choose them with -l or --field-selector, not both"},
		{name: "both forms of names", args: []string{"retrypolicy/a", "b"}, err: "name the policies as KIND/NAME or KIND NAME..., not both"},
		{name: "an empty name", args: []string{"retrypolicy", ""}, err: "get retrypolicy: name 1 is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sel, err := query.ParseSelector(c.label, c.field)
			if err != nil {
				t.Fatal(err)
			}
			req, err := query.NewGetRequest(c.args, sel)
			req.Namespace, req.AllNamespaces = c.ns, c.all
			var got *query.GetResult
			if err == nil {
				got, err = query.Get(full, req, nil)
			}
			if errorAsWanted(t, err, c.err) {
				return
			}
			names := []string{}
			for _, s := range got.List.Items {
				names = append(names, s.Kind+" "+s.ID())
			}
			if c.want == nil {
				if len(names) != len(full.Policies) {
					t.Errorf("%d policies, want every one of %d", len(names), len(full.Policies))
				}
			} else if d := cmp.Diff(c.want, names); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.wantKind, got.Only); d != "" {
				t.Errorf("kind (-want +got):\n%s", d)
			}
			scope := req.Scope()
			if c.all && sel.Empty() {
				if scope != nil {
					t.Error("a scope for a question of every namespace")
				}
				return
			}
			scoped, err := engine.RunScoped(src.Snapshot, engine.Options{}, scope)
			if err != nil {
				t.Fatal(err)
			}
			again, err := query.Get(scoped, req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(got, again); d != "" {
				t.Errorf("scoped run (-full +scoped):\n%s", d)
			}
		})
	}
}
