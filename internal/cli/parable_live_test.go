package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/strata-dev/strata/internal/testenv"
	stratav1 "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/controller/policies"
	"github.com/strata-dev/strata/pkg/query"
)

const parableDir = discParable

// cupcakeKinds are the parable's policy kinds: kinds.yaml declares them;
// their CRDs (not part of the example) are made here, free-form.
var cupcakeKinds = []struct{ kind, plural string }{
	{"RetryPolicy", "retrypolicies"},
	{"TimeoutPolicy", "timeoutpolicies"},
	{"RateLimitPolicy", "ratelimitpolicies"},
	{"HealthCheckPolicy", "healthcheckpolicies"},
}

// TestParableLive is GEP-713's parable on a real API server with RBAC: the
// policy controller publishes EffectivePolicy objects; Ana, bound only to
// the namespace's view role in baker, may read her routes and those
// objects but no policy. Asked about her route, strata answers from the
// records, says so on one line, and gives the admin's answer for the
// RetryPolicy: its name, where it is attached, its settings and their
// source. The kinds that withhold settings (Names) or names (Kind) show
// only that much; deleting the RetryPolicy removes it from the records in
// one recomputation; and the steady state writes nothing.
func TestParableLive(t *testing.T) {
	w := parableCluster(t)
	env, scheme, admin, ctx := w.env, w.scheme, w.admin, t.Context()
	ana, root := w.kubeconfig("ana"), w.kubeconfig("chihiro", "system:masters")

	// Ana may not read the RetryPolicy, as in the parable.
	asAna, err := client.New(env.Impersonating("ana"), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	rp := &unstructured.Unstructured{}
	rp.SetAPIVersion("policies.cupcakes.example/v1")
	rp.SetKind("RetryPolicy")
	if err := asAna.Get(ctx, client.ObjectKey{Namespace: "baker", Name: "baker-retries"}, rp); !apierrors.IsForbidden(err) {
		t.Fatalf("Ana reads RetryPolicy baker/baker-retries: %v; want Forbidden", err)
	}

	// The controller, with its default of publishing.
	reg := prometheus.NewRegistry()
	mgr, err := manager.New(env.Config, manager.Options{Logger: logr.Discard(), Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	ctrl, err := policies.New(mgr, policies.Options{EffectivePolicies: true, Registerer: reg, Debounce: 50 * time.Millisecond, TargetQPS: 500, TargetBurst: 500})
	if err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	t.Cleanup(func() { cancel(); <-done })

	// record is the published record of HTTPRoute baker/<name>.
	record := func(name string) (*stratav1.EffectivePolicy, error) {
		var l stratav1.EffectivePolicyList
		if err := admin.List(ctx, &l, client.InNamespace("baker")); err != nil {
			return nil, err
		}
		for i := range l.Items {
			if tg := l.Items[i].Target; tg.Kind == "HTTPRoute" && tg.Name == name {
				return &l.Items[i], nil
			}
		}
		return nil, fmt.Errorf("no record of HTTPRoute baker/%s", name)
	}
	kindOf := func(ep *stratav1.EffectivePolicy, kind string) *stratav1.KindPolicies {
		for i := range ep.Policies {
			if ep.Policies[i].Kind == kind {
				return &ep.Policies[i]
			}
		}
		return nil
	}
	until := func(what string, cond func() error) {
		t.Helper()
		var last error
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 3*time.Minute, true, func(context.Context) (bool, error) {
			last = cond()
			return last == nil, nil
		})
		if err != nil {
			t.Fatalf("%s: %v", what, last)
		}
	}
	// Every route of baker gets its record: the controller is done with
	// the first computation when the last one (whisk) is there.
	until("records of baker's routes", func() error {
		for _, name := range []string{"baker", "whisk"} {
			if ep, err := record(name); err == nil && ep.Name != name+".httproute" && name == "baker" {
				return fmt.Errorf("HTTPRoute baker/baker's record is %s, want baker.httproute (Service baker/baker has one too)", ep.Name)
			}
			ep, err := record(name)
			if err != nil {
				return err
			}
			if kindOf(ep, "RetryPolicy") == nil || kindOf(ep, "TimeoutPolicy") == nil {
				return fmt.Errorf("%s: %d kinds", name, len(ep.Policies))
			}
		}
		return nil
	})

	// Ana asks about her route: the admin's answer for RetryPolicy.
	notice := "HealthCheckPolicy, RateLimitPolicy, RetryPolicy, TimeoutPolicy read from the published effective policies: you cannot read HealthCheckPolicy, RateLimitPolicy, RetryPolicy, TimeoutPolicy objects\n"
	asks := func(args ...string) (string, string) {
		t.Helper()
		out, errOut, code := strata(t, "", append(args, "--kubeconfig", ana)...)
		if code != 0 {
			t.Fatalf("strata %v as Ana: exit %d: %s", args, code, errOut)
		}
		if strings.Count(errOut, notice) != 1 {
			t.Errorf("strata %v as Ana: stderr %q does not say once %q", args, errOut, notice)
		}
		return out, errOut
	}
	t.Run("describe", func(t *testing.T) {
		human, errOut := asks("describe", "httproute/baker", "-n", "baker")
		t.Logf("$ strata describe httproute/baker -n baker   # as Ana\n%s%s", errOut, human)
		for _, want := range []string{"RetryPolicy        baker/baker-retries", "Namespace baker", "/codes     [500,502,503,504]  baker/baker-retries"} {
			if !strings.Contains(human, want) {
				t.Errorf("Ana's describe lacks %q:\n%s", want, human)
			}
		}
		got, _ := asks("describe", "httproute/baker", "-n", "baker", "-o", "json")
		want := mustStrata(t, "", "describe", "httproute/baker", "-n", "baker", "-o", "json", "--kubeconfig", root)
		if d := cmp.Diff(publishedView(t, want, "RetryPolicy"), publishedView(t, got, "RetryPolicy")); d != "" {
			t.Errorf("Ana's RetryPolicy answer differs from the admin's (-admin +Ana):\n%s", d)
		}
	})
	t.Run("explain", func(t *testing.T) {
		out, _ := asks("explain", "httproute/baker", "-n", "baker", "--field", "codes")
		t.Logf("$ strata explain httproute/baker -n baker --field codes   # as Ana\n%s", out)
		if !strings.Contains(out, "baker/baker-retries") || !strings.Contains(out, "[500,502,503,504]") {
			t.Errorf("explain does not name baker/baker-retries and its codes:\n%s", out)
		}
	})
	t.Run("get policies", func(t *testing.T) {
		out, _ := asks("get", "policies", "retrypolicy", "-n", "baker")
		if !strings.Contains(out, "baker/baker-retries") || !strings.Contains(out, "42 targets, 42 contexts") {
			t.Errorf("get policies does not list baker/baker-retries affecting 42 routes:\n%s", out)
		}
	})
	// The object kubectl's form of get prints from the cluster carries the
	// status the controller wrote: the CLI's status and the controller's
	// are one computation, and an unchanged condition keeps its time.
	t.Run("get KIND NAME -o json", func(t *testing.T) {
		stored := &unstructured.Unstructured{}
		stored.SetAPIVersion("policies.cupcakes.example/v1")
		stored.SetKind("RetryPolicy")
		until("the status of RetryPolicy baker/baker-retries", func() error {
			if err := admin.Get(ctx, client.ObjectKey{Namespace: "baker", Name: "baker-retries"}, stored); err != nil {
				return err
			}
			if a, _, _ := unstructured.NestedSlice(stored.Object, "status", "ancestors"); len(a) == 0 {
				return errors.New("no status.ancestors yet")
			}
			return nil
		})
		var got map[string]any
		out := mustStrata(t, "", "get", "retrypolicy", "baker-retries", "-n", "baker", "-o", "json", "--kubeconfig", root)
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		var want map[string]any // as JSON reads it: numbers are float64
		if b, err := json.Marshal(stored.Object); err != nil || json.Unmarshal(b, &want) != nil {
			t.Fatalf("RetryPolicy baker/baker-retries as JSON: %v", err)
		}
		if d := cmp.Diff(want["status"], got["status"]); d != "" {
			t.Errorf("get retrypolicy baker-retries -o json: not the status the controller wrote (-stored +printed):\n%s", d)
		}
		if got["kind"] != "RetryPolicy" {
			t.Errorf("get retrypolicy baker-retries -o json printed a %v, want the RetryPolicy itself", got["kind"])
		}
	})
	// Ana may not read the RetryPolicy: the records hold its effect, not
	// the object, so kubectl's form of get has no object to print.
	t.Run("get KIND NAME -o yaml as Ana", func(t *testing.T) {
		out, errOut, code := strata(t, "", "get", "retrypolicy", "baker-retries", "-n", "baker", "-o", "yaml", "--kubeconfig", ana)
		want := "error: RetryPolicy baker/baker-retries: you cannot read RetryPolicy objects, only their published effective policies: strata get policies retrypolicy -o yaml prints what those say\n"
		if code != 1 || out != "" || !strings.HasSuffix(errOut, want) {
			t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, nothing printed and %q", code, out, errOut, want)
		}
	})
	t.Run("impact", func(t *testing.T) {
		out, _ := asks("impact", "retrypolicy/baker-retries", "-n", "baker", "--delete")
		if !strings.Contains(out, "42 targets in 42 contexts") {
			t.Errorf("impact does not count 42 routes:\n%s", out)
		}
	})

	// Steady state: recomputations that change nothing write no record.
	// Runs are serial, so once the run counter has moved twice past a
	// point, the run in progress there has finished its writes.
	epWrites := func() float64 { return testutil.ToFloat64(ctrl.Writes().WithLabelValues(stratav1.EffectivePolicyKind)) }
	tick := 0
	nextRun := func() {
		t.Helper()
		runs := testutil.ToFloat64(ctrl.Runs().WithLabelValues("full"))
		tick++
		ns := &corev1.Namespace{}
		if err := admin.Get(ctx, client.ObjectKey{Name: "frosting"}, ns); err != nil {
			t.Fatal(err)
		}
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels["strata.test/tick"] = fmt.Sprint(tick)
		if err := admin.Update(ctx, ns); err != nil {
			t.Fatal(err)
		}
		until("a recomputation", func() error {
			if testutil.ToFloat64(ctrl.Runs().WithLabelValues("full")) <= runs {
				return fmt.Errorf("no run yet")
			}
			return nil
		})
	}
	nextRun()
	nextRun()
	before := epWrites()
	nextRun()
	nextRun()
	if got := epWrites() - before; got != 0 {
		t.Errorf("steady state: %v EffectivePolicy writes, want 0", got)
	}

	// What a kind withholds: TimeoutPolicy publishes names only,
	// RateLimitPolicy only that it affects the route, and how many.
	for kind, v := range map[string]stratav1.Visibility{"timeoutpolicies": stratav1.VisibilityNames, "ratelimitpolicies": stratav1.VisibilityKind} {
		pk := &stratav1.PolicyKind{}
		if err := admin.Get(ctx, client.ObjectKey{Name: kind + ".policies.cupcakes.example"}, pk); err != nil {
			t.Fatal(err)
		}
		pk.Spec.Visibility = v
		if err := admin.Update(ctx, pk); err != nil {
			t.Fatal(err)
		}
	}
	until("records withhold", func() error {
		ep, err := record("baker")
		if err != nil {
			return err
		}
		if to, rl := kindOf(ep, "TimeoutPolicy"), kindOf(ep, "RateLimitPolicy"); to == nil || to.Visibility != "Names" || rl == nil || rl.Visibility != "Kind" {
			return fmt.Errorf("not yet: %+v", ep.Policies)
		}
		return nil
	})
	t.Run("withheld", func(t *testing.T) {
		out, _ := asks("describe", "httproute/baker", "-n", "baker")
		t.Logf("$ strata describe httproute/baker -n baker   # as Ana, TimeoutPolicy: Names, RateLimitPolicy: Kind\n%s", out)
		for _, want := range []string{"TimeoutPolicy      baker/baker-timeout", "RateLimitPolicy    (1 policy; name withheld)", "withheld by its kind"} {
			if !strings.Contains(out, want) {
				t.Errorf("lacks %q:\n%s", want, out)
			}
		}
		for _, hidden := range []string{"2s", "/burst", "storefront-burst-cap"} {
			if strings.Contains(out, hidden) {
				t.Errorf("shows %q, which its kind withholds:\n%s", hidden, out)
			}
		}
	})

	// Chihiro deletes the RetryPolicy: its entries leave the records of
	// the 42 routes it reached, one write each, in the recomputation that
	// sees the deletion.
	nextRun()
	nextRun()
	before = epWrites()
	rp.SetNamespace("baker")
	rp.SetName("baker-retries")
	if err := admin.Delete(ctx, rp); err != nil {
		t.Fatal(err)
	}
	until("RetryPolicy gone from every record", func() error {
		var l stratav1.EffectivePolicyList
		if err := admin.List(ctx, &l, client.InNamespace("baker")); err != nil {
			return err
		}
		for i := range l.Items {
			if kindOf(&l.Items[i], "RetryPolicy") != nil {
				return fmt.Errorf("%s still has it", l.Items[i].Name)
			}
		}
		return nil
	})
	nextRun()
	nextRun()
	if got := epWrites() - before; got != 42 {
		t.Errorf("deleting the RetryPolicy: %v EffectivePolicy writes, want 42 (one per route it reached)", got)
	}
}

// publishedView is describeView of a printed Description.
func publishedView(t *testing.T, doc, kind string) any {
	t.Helper()
	var d query.Description
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatalf("%v: %s", err, doc)
	}
	v := describeView(&d, kind)
	if len(v.Policies) == 0 {
		t.Fatalf("no %s in %s", kind, doc)
	}
	return v
}

// view is what the records can tell of one kind in a Description: the
// policies of the kind with relation, attachment and results, and per
// target and context the path, the spec and each field's value and
// source. Stack details and beaten policies are not published and are
// left out.
type view struct {
	Policies []query.Affecting
	Contexts map[string][]viewContext
}

type viewContext struct {
	Path   []query.Ref
	Spec   map[string]any
	Fields []viewField
}

type viewField struct {
	Field string
	Value any
	SetBy string
}

func describeView(d *query.Description, kind string) view {
	v := view{Contexts: map[string][]viewContext{}}
	for _, p := range d.Policies {
		if p.Policy.Kind == kind {
			v.Policies = append(v.Policies, p)
		}
	}
	for _, ke := range d.Effective {
		if ke.Kind != kind {
			continue
		}
		for _, te := range ke.Targets {
			for _, c := range te.Contexts {
				x := viewContext{Path: c.Path, Spec: c.Spec}
				for _, f := range c.Fields {
					if f.SetBy != "" { // fields no policy's value survived are not published
						x.Fields = append(x.Fields, viewField{f.Field, f.Value, f.SetBy})
					}
				}
				v.Contexts[te.Target.Key()] = append(v.Contexts[te.Target.Key()], x)
			}
		}
	}
	return v
}

// cupcakeCRD is a free-form namespaced CRD for a parable kind, with a
// status subresource for the controller to write.
func cupcakeCRD(kind, plural string) *apiextensionsv1.CustomResourceDefinition {
	free := true
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".policies.cupcakes.example"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "policies.cupcakes.example",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural, Singular: strings.ToLower(kind)},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec":   {Type: "object", XPreserveUnknownFields: &free},
						"status": {Type: "object", XPreserveUnknownFields: &free},
					},
				}},
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
			}},
		},
	}
}

// readYAMLFile decodes a one-document YAML file into obj.
func readYAMLFile(t *testing.T, file string, obj any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, obj); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// parableWorld is the parable on a real API server with RBAC.
type parableWorld struct {
	env    *testenv.Env
	scheme *runtime.Scheme
	admin  client.Client
	// create makes an object as the admin, retrying while its kind is
	// not served yet.
	create func(client.Object)
	// kubeconfig writes the kubeconfig of a user (and groups) and
	// returns its path.
	kubeconfig func(user string, groups ...string) string
}

// parableGatewayKinds are the Gateway API kinds a namespace's view role
// reads in the parable's cluster (parableCluster).
var parableGatewayKinds = []string{"gateways", "httproutes", "grpcroutes", "referencegrants"}

// parableCluster starts an API server with RBAC holding the parable: the
// cupcake kinds' CRDs, kinds.yaml, topology.yaml and policies.yaml, made
// by the admin, and Ana, bound to the namespace's view role in baker and
// to nothing else.
func parableCluster(t *testing.T) *parableWorld {
	t.Helper()
	crds, err := testenv.CRDPaths()
	if err != nil {
		t.Fatal(err)
	}
	env := testenv.StartTWith(t, testenv.Options{CRDs: crds, RBAC: true})
	ctx := t.Context()
	scheme := runtime.NewScheme()
	if err := policies.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := rbacv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	admin, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	create := func(obj client.Object) {
		t.Helper()
		// A CRD's kind is served a moment after it is Established.
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			return admin.Create(ctx, obj.DeepCopyObject().(client.Object)) == nil, nil
		})
		if err != nil {
			t.Fatalf("create %s %s: %v", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), admin.Create(ctx, obj))
		}
	}
	for _, k := range cupcakeKinds {
		crd := cupcakeCRD(k.kind, k.plural)
		create(crd)
		waitEstablished(ctx, t, admin, crd.Name)
	}
	for _, file := range []string{"kinds.yaml", "topology.yaml", "policies.yaml"} {
		for _, u := range fileObjects(t, filepath.Join(parableDir, file)) {
			u.SetCreationTimestamp(metav1.Time{})
			u.SetGeneration(0)
			delete(u.Object, "status")
			create(u)
		}
	}

	// Ana's permissions: the namespace's view role in baker, and nothing
	// else. kube-apiserver makes the built-in view role (an aggregated
	// role) and the system:aggregate-to-view role holding its rules, but
	// envtest runs no aggregation controller: the test fills view from
	// every role labelled aggregate-to-view as that controller would
	// (testenv.Aggregate). Besides Strata's, one such role grants the
	// Gateway API kinds' read, as Gateway API installations commonly do
	// for namespace readers.
	viewer := &rbacv1.ClusterRole{}
	readYAMLFile(t, "../../config/rbac/effectivepolicy_viewer_role.yaml", viewer)
	create(viewer)
	create(&rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "gateway-api-view", Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"gateway.networking.k8s.io"}, Resources: parableGatewayKinds, Verbs: []string{"get", "list", "watch"}}},
	})
	view := &rbacv1.ClusterRole{}
	if err := admin.Get(ctx, client.ObjectKey{Name: "view"}, view); err != nil {
		t.Fatal(err)
	}
	var roles rbacv1.ClusterRoleList
	if err := admin.List(ctx, &roles); err != nil {
		t.Fatal(err)
	}
	from := make([]*rbacv1.ClusterRole, len(roles.Items))
	for i := range roles.Items {
		from[i] = &roles.Items[i]
	}
	if err := testenv.Aggregate(view, from...); err != nil {
		t.Fatal(err)
	}
	if err := admin.Update(ctx, view); err != nil {
		t.Fatal(err)
	}
	create(&rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "baker", Name: "ana-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "ana"}},
	})
	dir := t.TempDir()
	kubeconfig := func(user string, groups ...string) string {
		kc, err := env.KubeConfig(user, groups...)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, user+".kubeconfig")
		if err := os.WriteFile(file, kc, 0o600); err != nil {
			t.Fatal(err)
		}
		return file
	}
	return &parableWorld{env: env, scheme: scheme, admin: admin, create: create, kubeconfig: kubeconfig}
}
