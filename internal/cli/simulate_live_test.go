package cli

import (
	"context"
	"encoding/json"
	"os"
	"slices"
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

	stratav1 "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/controller/policies"
	"github.com/strata-dev/strata/pkg/query"
)

// TestSimulateRecordsLive is simulate on a real API server with RBAC, the
// policy controller publishing EffectivePolicy records:
//
//   - Ana, with the view role of namespace baker only, cannot read the
//     Gateway (in infra) nor the other namespaces' routes: simulate says
//     the routing cannot be decided and why, and exits 1; with --route
//     baker/baker, it follows her route and gives the effective policies
//     of its context paths from the records, as the admin's simulation
//     has them;
//   - Bob may read every routing object but no policy: the routing is
//     decided, and the policies along the path come from the records;
//   - the admin, naming a route the request does not reach, is told
//     which one it reaches.
func TestSimulateRecordsLive(t *testing.T) {
	w := parableCluster(t)
	env, scheme, admin, create, ctx := w.env, w.scheme, w.admin, w.create, t.Context()
	// Bob: every routing object and the records, cluster-wide; no policy.
	read := []string{"get", "list", "watch"}
	create(&rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "routing-reader"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"gateway.networking.k8s.io"}, Resources: append(slices.Clone(parableGatewayKinds), "gatewayclasses", "listenersets", "tlsroutes", "tcproutes", "udproutes"), Verbs: read},
			{APIGroups: []string{""}, Resources: []string{"services", "namespaces"}, Verbs: read},
			{APIGroups: []string{"strata.dev"}, Resources: []string{"effectivepolicies"}, Verbs: read},
		},
	})
	create(&rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "bob-routing"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "routing-reader"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "bob"}},
	})
	ana, bob, root := w.kubeconfig("ana"), w.kubeconfig("bob"), w.kubeconfig("chihiro", "system:masters")

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
		// (whisk's) and the baker Service's are there.
		var whisk, svc bool
		for _, ep := range l.Items {
			whisk = whisk || ep.Target.Kind == "HTTPRoute" && ep.Target.Name == "whisk" && len(ep.Policies) >= 2
			svc = svc || ep.Target.Kind == "Service" && ep.Target.Name == "baker"
		}
		return whisk && svc, nil
	})
	if err != nil {
		t.Fatalf("records of baker: %v", err)
	}

	const url = "http://baker.cupcakes.example/"
	var want query.Simulation
	if err := json.Unmarshal([]byte(mustStrata(t, "", "simulate", "GET", url, "--kubeconfig", root, "-o", "json")), &want); err != nil {
		t.Fatal(err)
	}
	if want.Rule == nil || want.Rule.String() != "HTTPRoute baker/baker#rule-0" || len(simView(&want)) != 4 {
		t.Fatalf("the admin's simulation: rule %v, %d kinds and targets", want.Rule, len(simView(&want)))
	}

	t.Run("Ana without --route", func(t *testing.T) {
		out, errOut, code := strata(t, "", "simulate", "GET", url, "-n", "baker", "--kubeconfig", ana)
		t.Logf("$ strata simulate GET %s -n baker   # as Ana\n%s%s", url, errOut, out)
		undecided := "you cannot read Gateway (namespace baker only), ListenerSet (forbidden), HTTPRoute (namespace baker only), GRPCRoute (namespace baker only) in every namespace, so which listener accepts the request and which route handles it cannot be decided"
		if code != 1 || !strings.Contains(out, "Cannot route: "+undecided) || !strings.Contains(errOut, "error: GET "+url+": "+undecided+"; name the route you expect with --route\n") {
			t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})
	t.Run("Ana with --route", func(t *testing.T) {
		out, errOut, code := strata(t, "", "simulate", "GET", url, "-n", "baker", "--route", "baker/baker", "--kubeconfig", ana)
		t.Logf("$ strata simulate GET %s -n baker --route baker/baker   # as Ana\n%s%s", url, errOut, out)
		for _, w := range []string{"Assuming HTTPRoute baker/baker (--route), its listener unknown:", "Rule:      HTTPRoute baker/baker#rule-0, match 0 (PathPrefix /)",
			"Effective policies on HTTPRoute baker/baker's context paths, from the published records:", "/codes     [500,502,503,504]  baker/baker-retries"} {
			if !strings.Contains(out, w) {
				t.Errorf("lacks %q", w)
			}
		}
		if code != 0 || !strings.Contains(errOut, "read from the published effective policies") {
			t.Errorf("exit %d, stderr %s", code, errOut)
		}
		// docs/cli.md quotes it.
		doc, err := os.ReadFile("../../docs/cli.md")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "(ana)$ strata simulate GET "+url+" -n baker --route baker/baker\n"+out+"```") {
			t.Error("docs/cli.md does not quote this output as it is")
		}
		var got query.Simulation
		js, _, code := strata(t, "", "simulate", "GET", url, "-n", "baker", "--route", "baker/baker", "--kubeconfig", ana, "-o", "json")
		if err := json.Unmarshal([]byte(js), &got); err != nil || code != 0 {
			t.Fatalf("exit %d: %v", code, err)
		}
		if d := cmp.Diff(simView(&want), simView(&got)); d != "" {
			t.Errorf("Ana's effective policies from the records differ from the admin's (-admin +Ana):\n%s", d)
		}
		if got.Assumed == nil || got.Assumed.String() != "HTTPRoute baker/baker" || got.Rule == nil || got.Rule.String() != want.Rule.String() {
			t.Errorf("assumed %v, rule %v", got.Assumed, got.Rule)
		}
	})
	t.Run("Ana with a route that does not serve the host", func(t *testing.T) {
		_, errOut, code := strata(t, "", "simulate", "GET", url, "-n", "baker", "--route", "httproute/baker/whisk", "--kubeconfig", ana)
		if code != 1 || !strings.Contains(errOut, "error: GET "+url+": HTTPRoute baker/whisk does not serve it: hostname baker.cupcakes.example matches none of its hostnames whisk.cupcakes.example\n") {
			t.Errorf("exit %d, stderr %s", code, errOut)
		}
	})
	t.Run("Bob reads the routing, not the policies", func(t *testing.T) {
		out, errOut, code := strata(t, "", "simulate", "GET", url, "--kubeconfig", bob, "-o", "json")
		if code != 0 || !strings.Contains(errOut, "read from the published effective policies") {
			t.Fatalf("exit %d, stderr %s", code, errOut)
		}
		var got query.Simulation
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if got.Undecided != "" || got.Listener == nil || got.Listener.String() != want.Listener.String() {
			t.Errorf("undecided %q, listener %v", got.Undecided, got.Listener)
		}
		if d := cmp.Diff(simView(&want), simView(&got)); d != "" {
			t.Errorf("Bob's effective policies from the records differ from the admin's (-admin +Bob):\n%s", d)
		}
	})
	t.Run("the admin names another route", func(t *testing.T) {
		_, errOut, code := strata(t, "", "simulate", "GET", url, "--route", "baker/whisk", "--kubeconfig", root)
		if code != 1 || errOut != "error: GET "+url+": reaches HTTPRoute baker/baker, not HTTPRoute baker/whisk (--route)\n" {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
}
