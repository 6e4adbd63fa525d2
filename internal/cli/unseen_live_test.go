package cli

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/strata-dev/strata/internal/testenv"
	stratav1 "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/controller/policies"
	"github.com/strata-dev/strata/pkg/query"
)

// unseenGolden is where TestDescribeUnseenLive's answers are kept.
const unseenGolden = "testdata/unseen/"

// TestDescribeUnseenLive is issue 43's parable on a real API server with
// RBAC: Ana asks what affects her route, and strata gives her the answer
// or says honestly that it cannot tell, never "No policy affects" when
// she could not look.
//
//   - Vic, bound to the built-in view role in baker, and nothing of the
//     Gateway API: describe fails naming the kind, the verb and the
//     optional role that grants it (config/view);
//   - Ana, bound to view with config/view's role aggregated into it,
//     before any EffectivePolicy record is published (the controller down,
//     or run with --effective-policies=false): she cannot list the CRDs
//     and PolicyKinds, so not even the policy kinds are known, and
//     describe says it cannot tell; exit 0, and 1 with --fail-incomplete;
//     explain's "no policy reaches" says the same;
//   - Pat may read every declaration but no policy kind: the same, naming
//     the four kinds; Tim may read TimeoutPolicies too: his answer lists
//     them, and says that others may be missing;
//   - once the controller publishes the records, Ana's answer is the
//     admin's (the parable's), and Pat's is complete.
func TestDescribeUnseenLive(t *testing.T) {
	w := parableCluster(t)
	env, scheme, admin, create, ctx := w.env, w.scheme, w.admin, w.create, t.Context()

	// The view role of this cluster: Strata's EffectivePolicy viewer and
	// config/view's Gateway API viewer aggregated into it, in place of the
	// Gateway API reads parableCluster gave it. plain is the built-in view
	// role with only Strata's viewer: Vic's.
	if err := admin.Delete(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gateway-api-view"}}); err != nil {
		t.Fatal(err)
	}
	gatewayViewer := &rbacv1.ClusterRole{}
	readYAMLFile(t, "../../config/view/gateway_api_viewer_role.yaml", gatewayViewer)
	create(gatewayViewer)
	view := &rbacv1.ClusterRole{}
	if err := admin.Get(ctx, client.ObjectKey{Name: "view"}, view); err != nil {
		t.Fatal(err)
	}
	var roles rbacv1.ClusterRoleList
	if err := admin.List(ctx, &roles); err != nil {
		t.Fatal(err)
	}
	var from, fromPlain []*rbacv1.ClusterRole
	for i := range roles.Items {
		from = append(from, &roles.Items[i])
		if roles.Items[i].Name != gatewayViewer.Name {
			fromPlain = append(fromPlain, &roles.Items[i])
		}
	}
	plain := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "plain-view"}, AggregationRule: view.AggregationRule}
	if err := testenv.Aggregate(plain, fromPlain...); err != nil {
		t.Fatal(err)
	}
	plain.AggregationRule = nil
	create(plain)
	if err := testenv.Aggregate(view, from...); err != nil {
		t.Fatal(err)
	}
	if err := admin.Update(ctx, view); err != nil {
		t.Fatal(err)
	}
	create(&rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "baker", Name: "vic-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: plain.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "vic"}},
	})
	// Pat and Tim: every routing object and declaration, and the records,
	// cluster-wide, but no cupcake kind; Tim the TimeoutPolicies.
	read := []string{"get", "list", "watch"}
	platform := []rbacv1.PolicyRule{
		gatewayViewer.Rules[0],
		{APIGroups: []string{""}, Resources: []string{"services", "namespaces"}, Verbs: read},
		{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: read},
		{APIGroups: []string{"strata.dev"}, Resources: []string{"policykinds", "effectivepolicies"}, Verbs: read},
		// The blueprint configs, declared as policy kinds (config/blueprints):
		// the cupcake kinds are the ones left unreadable.
		{APIGroups: []string{"blueprints.strata.dev"}, Resources: []string{"gatewayclassconfigs", "gatewayconfigs"}, Verbs: read},
	}
	for user, rules := range map[string][]rbacv1.PolicyRule{
		"pat": platform,
		"tim": append(append([]rbacv1.PolicyRule{}, platform...), rbacv1.PolicyRule{APIGroups: []string{"policies.cupcakes.example"}, Resources: []string{"timeoutpolicies"}, Verbs: read}),
	} {
		create(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user + "-reader"}, Rules: rules})
		create(&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: user + "-reader"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user + "-reader"},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
		})
	}
	ana, vic, pat, tim, root := w.kubeconfig("ana"), w.kubeconfig("vic"), w.kubeconfig("pat"), w.kubeconfig("tim"), w.kubeconfig("chihiro", "system:masters")
	describe := []string{"describe", "httproute/baker", "-n", "baker"}
	// run is describe (with more args) as a user: what it prints, stdout
	// then stderr, and its exit code.
	run := func(t *testing.T, kubeconfig string, more ...string) (string, string, int) {
		t.Helper()
		out, errOut, code := strata(t, "", append(append(append([]string{}, describe...), more...), "--kubeconfig", kubeconfig)...)
		t.Logf("$ strata %s %s\n%s%s(exit %d)", strings.Join(describe, " "), strings.Join(more, " "), out, errOut, code)
		return out, errOut, code
	}
	const failed = "error: cannot tell which policies affect HTTPRoute baker/baker: "

	t.Run("view only", func(t *testing.T) {
		out, errOut, code := run(t, vic)
		if code != 1 || out != "" {
			t.Errorf("exit %d, stdout %q; want exit 1 and nothing printed", code, out)
		}
		for _, want := range []string{"cannot read HTTPRoute.gateway.networking.k8s.io (forbidden)", `cannot list resource "httproutes"`, "strata-gateway-api-viewer", "config/view", "gatewayAPIViewer.enabled"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("the error does not say %q", want)
			}
		}
		discoverGolden(t, unseenGolden+"view-only.golden", errOut)
	})

	t.Run("no records, kinds unknown", func(t *testing.T) {
		out, errOut, code := run(t, ana)
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		if strings.Contains(out, "No policy affects") || !strings.Contains(out, "Cannot tell which policies affect HTTPRoute baker/baker: you cannot list CustomResourceDefinitions and PolicyKinds") {
			t.Errorf("Ana is not told that strata cannot tell:\n%s", out)
		}
		discoverGolden(t, unseenGolden+"no-records.golden", out+errOut)
		// docs/cli.md quotes it.
		doc, err := os.ReadFile("../../docs/cli.md")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "(ana)$ strata describe httproute/baker -n baker\n"+out+errOut+"```") {
			t.Error("docs/cli.md does not quote this output as it is")
		}

		out2, errOut2, code := run(t, ana, "--fail-incomplete")
		if code != 1 || out2 != out || !strings.HasPrefix(errOut2, errOut) || !strings.HasSuffix(errOut2, "\n"+failed+"you cannot list CustomResourceDefinitions and PolicyKinds, which declare the policy kinds, and no published EffectivePolicy record was found (--fail-incomplete)\n") {
			t.Errorf("--fail-incomplete: exit %d, want 1 after the same answer and one error line; stderr:\n%s", code, errOut2)
		}

		js, _, code := run(t, ana, "-o", "json")
		var d query.Description
		if err := json.Unmarshal([]byte(js), &d); err != nil || code != 0 {
			t.Fatalf("exit %d: %v", code, err)
		}
		want := &query.Unseen{Declarations: []query.GroupKind{{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, {Group: "strata.dev", Kind: "PolicyKind"}}}
		if diff := cmp.Diff(want, d.Unseen); diff != "" || len(d.Policies) != 0 {
			t.Errorf("-o json: %d policies, unseen (-want +got):\n%s", len(d.Policies), diff)
		}

		// explain's "no policy reaches" is as uncertain.
		_, errOut, code = strata(t, "", "explain", "httproute/baker", "-n", "baker", "--field", "codes", "--kubeconfig", ana)
		if code != 1 || !strings.HasSuffix(errOut, "error: no policy reaches HTTPRoute baker/baker, among the policies you can read; cannot tell of the others: you cannot list CustomResourceDefinitions and PolicyKinds, which declare the policy kinds, and no published EffectivePolicy record was found\n") {
			t.Errorf("explain: exit %d, stderr:\n%s", code, errOut)
		}
	})

	t.Run("no records, kinds named", func(t *testing.T) {
		out, errOut, code := run(t, pat)
		if code != 0 || !strings.Contains(out, "Cannot tell which policies affect HTTPRoute baker/baker: you cannot list HealthCheckPolicy, RateLimitPolicy, RetryPolicy and TimeoutPolicy objects, and no published EffectivePolicy record was found.") {
			t.Errorf("exit %d:\n%s", code, out)
		}
		discoverGolden(t, unseenGolden+"no-records-kinds.golden", out+errOut)
		if _, errOut, code := run(t, pat, "--fail-incomplete"); code != 1 || !strings.HasSuffix(errOut, failed+"you cannot list HealthCheckPolicy, RateLimitPolicy, RetryPolicy and TimeoutPolicy objects, and no published EffectivePolicy record was found (--fail-incomplete)\n") {
			t.Errorf("--fail-incomplete: exit %d, stderr:\n%s", code, errOut)
		}
		// Narrowed to a kind Pat cannot read: the same; the other kinds
		// no longer matter.
		if out, _, code := run(t, pat, "--kind", "retrypolicy"); code != 0 || !strings.Contains(out, "you cannot list RetryPolicy objects, and") {
			t.Errorf("--kind retrypolicy: exit %d:\n%s", code, out)
		}
	})

	t.Run("no records, some kinds read", func(t *testing.T) {
		out, errOut, code := run(t, tim)
		for _, want := range []string{"TimeoutPolicy  baker/baker-timeout", "Other policies may affect HTTPRoute baker/baker: you cannot list HealthCheckPolicy, RateLimitPolicy and RetryPolicy objects, and no published EffectivePolicy record was found."} {
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("exit %d, lacks %q:\n%s", code, want, out)
			}
		}
		discoverGolden(t, unseenGolden+"no-records-some-kinds.golden", out+errOut)
		// Narrowed to the kind Tim reads, the answer is complete.
		if _, errOut, code := run(t, tim, "--kind", "timeoutpolicy", "--fail-incomplete"); code != 0 {
			t.Errorf("--kind timeoutpolicy --fail-incomplete: exit %d: %s", code, errOut)
		}
	})

	// The controller publishes the records.
	mgr, err := manager.New(env.Config, manager.Options{Logger: logr.Discard(), Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := policies.New(mgr, policies.Options{EffectivePolicies: true, Registerer: prometheus.NewRegistry(), Debounce: 50 * time.Millisecond, TargetQPS: 500, TargetBurst: 500}); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	t.Cleanup(func() { cancel(); <-done })
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 3*time.Minute, true, func(context.Context) (bool, error) {
		var l stratav1.EffectivePolicyList
		if err := admin.List(ctx, &l, client.InNamespace("baker")); err != nil {
			return false, err
		}
		// The first computation is done when the last route's record
		// (whisk's) is there.
		for _, ep := range l.Items {
			if ep.Target.Kind == "HTTPRoute" && ep.Target.Name == "whisk" && len(ep.Policies) >= 2 {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("records of baker: %v", err)
	}

	t.Run("records", func(t *testing.T) {
		for name, kubeconfig := range map[string]string{"ana": ana, "pat": pat} {
			t.Run(name, func(t *testing.T) {
				out, errOut, code := run(t, kubeconfig, "--fail-incomplete")
				if code != 0 || strings.Contains(out, "Cannot tell") || strings.Contains(out, "Other policies may affect") {
					t.Fatalf("exit %d, stderr %s", code, errOut)
				}
				for _, want := range []string{"RetryPolicy        baker/baker-retries", "/codes     [500,502,503,504]  baker/baker-retries"} {
					if !strings.Contains(out, want) {
						t.Errorf("lacks %q", want)
					}
				}
				got, _, _ := run(t, kubeconfig, "-o", "json")
				want := mustStrata(t, "", append(append([]string{}, describe...), "-o", "json", "--kubeconfig", root)...)
				if d := cmp.Diff(publishedView(t, want, "RetryPolicy"), publishedView(t, got, "RetryPolicy")); d != "" {
					t.Errorf("the RetryPolicy answer differs from the admin's (-admin +%s):\n%s", name, d)
				}
			})
		}
	})
}
