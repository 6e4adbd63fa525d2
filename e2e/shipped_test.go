package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// parableKinds are the parable's policy kinds (examples/parable/kinds.yaml
// declares them; every one is managed). The example ships no CRDs: the
// tests make plain ones, as a platform team installs its own.
var parableKinds = []struct{ kind, plural string }{
	{"RetryPolicy", "retrypolicies"},
	{"TimeoutPolicy", "timeoutpolicies"},
	{"RateLimitPolicy", "ratelimitpolicies"},
	{"HealthCheckPolicy", "healthcheckpolicies"},
}

const parableGroup = "policies.cupcakes.example"

// policyCRD is a CRD of a policy kind with an open schema; labelled, it
// carries GEP-713's policy label.
func policyCRD(t *testing.T, group, kind, plural string, labelled bool) *unstructured.Unstructured {
	t.Helper()
	free := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
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
	if labelled {
		crd.Labels = map[string]string{"gateway.networking.k8s.io/policy": "Direct"}
	}
	return toUnstructured(t, crd, "apiextensions.k8s.io/v1", "CustomResourceDefinition")
}

// kindRole is the ClusterRole docs/install.md ("Adding a policy kind")
// asks for per policy kind: read, and patch status when managed.
func kindRole(t *testing.T, group, plural string) *unstructured.Unstructured {
	t.Helper()
	r := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "strata-controller-" + plural, Labels: map[string]string{"strata.dev/aggregate-to-controller": "true"}},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{group}, Resources: []string{plural}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{group}, Resources: []string{plural + "/status"}, Verbs: []string{"patch"}},
		},
	}
	return toUnstructured(t, r, "rbac.authorization.k8s.io/v1", "ClusterRole")
}

func toUnstructured(t *testing.T, obj runtime.Object, apiVersion, kind string) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	return u
}

// installParable puts the parable's kinds (CRDs and the per-kind roles
// docs/install.md asks for), its declarations, topology and policies on
// the cluster.
func (c *cluster) installParable() {
	c.t.Helper()
	var objs []*unstructured.Unstructured
	for _, k := range parableKinds {
		objs = append(objs, policyCRD(c.t, parableGroup, k.kind, k.plural, false), kindRole(c.t, parableGroup, k.plural))
	}
	c.apply(objs...)
	var world []*unstructured.Unstructured
	for _, o := range files(c.t, "examples/parable/kinds.yaml", "examples/parable/topology.yaml", "examples/parable/policies.yaml") {
		o.SetCreationTimestamp(metav1.Time{})
		world = append(world, o)
	}
	c.apply(world...)
}

// TestShippedParable installs config/default as docs/install.md says, on
// Gateway API v1.6's experimental channel (the parable's routes set
// rules[].retry; its BackendTLSPolicy and XBackendTrafficPolicy CRDs
// carry GEP-713's policy label), with one more labelled policy CRD for which
// nobody made a role, and runs the binary as its ServiceAccount. The
// parable gets status and records: every policy's status.ancestors and
// every Service's conditions equal what `strata status` computes from the
// same cluster; the kind without a role is reported, not waited for.
func TestShippedParable(t *testing.T) {
	t.Parallel() // an API server and a controller of its own
	c := newCluster(t, "experimental")
	install := kustomize(t, "default")
	c.apply(install...)
	// A labelled policy CRD of another project, declared, without its role.
	c.apply(policyCRD(t, "policies.lost.example", "LostPolicy", "lostpolicies", true), &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "strata.dev/v1alpha1", "kind": "PolicyKind",
		"metadata": map[string]any{"name": "lostpolicies.policies.lost.example"},
		"spec": map[string]any{"group": "policies.lost.example", "kind": "LostPolicy", "class": "Direct", "managed": true,
			"targetKinds": []any{map[string]any{"group": "", "kind": "Service"}}},
	}})
	c.installParable()

	p := c.run(deployment(t, install))
	c.checkParable(t)

	t.Run("a reader bound only to view", func(t *testing.T) {
		c := c.with(t)
		// config/default aggregates no Gateway API reads into view (the
		// optional config/view does): Ana learns which role she lacks.
		ana := c.reader("ana")
		_, stderr, code := strata(t, "describe", "httproute/baker", "-n", "baker", "--kubeconfig", ana)
		if code == 0 || !strings.Contains(stderr, "strata-gateway-api-viewer") {
			t.Errorf("describe as a view-only reader: exit %d, stderr %q; want an error naming the role that grants Gateway API reads", code, stderr)
		}
	})

	t.Run("kinds it may not read are reported", func(t *testing.T) {
		c := c.with(t)
		token := c.scraperToken()
		c.eventually("strata_kind_unreadable", time.Minute, func(ctx context.Context) error {
			text, err := p.scrape(ctx, token)
			if err != nil {
				return err
			}
			if v, ok := metric(text, `strata_kind_unreadable{kind="LostPolicy.policies.lost.example"}`); !ok || v != 1 {
				return fmt.Errorf("LostPolicy not reported unreadable (%v, %v)", v, ok)
			}
			return c.noUnreadableGatewayAPIKinds(text)
		})
		c.eventually("a Warning Event on the LostPolicy CRD", time.Minute, func(ctx context.Context) error {
			evs, err := c.cs.EventsV1().Events("default").List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			for _, e := range evs.Items {
				if e.Regarding.Kind == "CustomResourceDefinition" && e.Regarding.Name == "lostpolicies.policies.lost.example" && e.Reason == "Forbidden" {
					return nil
				}
			}
			return fmt.Errorf("no Forbidden Event on the CRD among %d", len(evs.Items))
		})
		c.eventually("PolicyKinds' Watched conditions", time.Minute, func(ctx context.Context) error {
			want := map[string]string{"lostpolicies.policies.lost.example": "False/Forbidden"}
			for _, k := range parableKinds {
				want[k.plural+"."+parableGroup] = "True/Watching"
			}
			for name, w := range want {
				pk := &unstructured.Unstructured{}
				pk.SetAPIVersion("strata.dev/v1alpha1")
				pk.SetKind("PolicyKind")
				if err := c.admin.Get(ctx, client.ObjectKey{Name: name}, pk); err != nil {
					return err
				}
				conds, _, _ := unstructured.NestedSlice(pk.Object, "status", "conditions")
				got := ""
				for _, cond := range conds {
					m := cond.(map[string]any)
					if m["type"] == "Watched" {
						got = fmt.Sprintf("%v/%v", m["status"], m["reason"])
					}
				}
				if got != w {
					return fmt.Errorf("PolicyKind %s: Watched %q, want %q", name, got, w)
				}
			}
			return nil
		})
		if !strings.Contains(p.log.String(), "not watching a kind: forbidden") {
			t.Errorf("the controller's log does not name the kind it may not read")
		}
	})
}

// TestShippedChart installs the Helm chart as `helm install
// --create-namespace` would, rendered by Helm's engine (hack/chart's
// template command: Helm stays out of this module), and runs the
// binary with the Deployment the chart renders: the parable gets the
// same status and records as with config/default.
func TestShippedChart(t *testing.T) {
	t.Parallel() // an API server and a controller of its own
	c := newCluster(t, "experimental")
	cmd := exec.Command("go", "-C", filepath.Join(root(t), "hack", "chart"), "run", "./template", "-set", "gatewayAPIViewer.enabled=true")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("render the chart: %v", err)
	}
	install := decode(t, out)
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "strata-system"}}}
	c.apply(append([]*unstructured.Unstructured{ns}, install...)...)
	c.installParable()

	// Ana, bound to view in baker (the chart's gatewayAPIViewer role
	// aggregates Gateway API reads into it), may read no policy. Before
	// the controller has published a record she is told that Strata
	// cannot tell, never that no policy affects her route.
	ana := c.reader("ana")
	desc, stderr, code := strata(t, "describe", "httproute/baker", "-n", "baker", "--kubeconfig", ana)
	if code != 0 || !strings.Contains(desc, "Cannot tell which policies affect HTTPRoute baker/baker") || strings.Contains(desc, "No policy affects") {
		t.Errorf("describe before any record: exit %d, stdout:\n%s\nstderr:\n%s\nwant \"Cannot tell\"", code, desc, stderr)
	}
	if _, _, code := strata(t, "describe", "httproute/baker", "-n", "baker", "--kubeconfig", ana, "--fail-incomplete"); code == 0 {
		t.Errorf("describe --fail-incomplete before any record: exit 0, want non-zero")
	}

	p := c.run(deployment(t, install))
	c.checkParable(t)

	t.Run("Ana's answer from the records", func(t *testing.T) {
		c := c.with(t)
		c.eventually("describe httproute/baker as Ana names the RetryPolicy", time.Minute, func(context.Context) error {
			out, stderr, code := strata(t, "describe", "httproute/baker", "-n", "baker", "--kubeconfig", ana, "--fail-incomplete")
			if code != 0 || !strings.Contains(out, "baker/baker-retries") || strings.Contains(out, "Cannot tell") {
				return fmt.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, stderr)
			}
			return nil
		})
	})
	t.Run("no Gateway API kind left out", func(t *testing.T) {
		c := c.with(t)
		token := c.scraperToken()
		c.eventually("strata_kind_unreadable", time.Minute, func(ctx context.Context) error {
			text, err := p.scrape(ctx, token)
			if err != nil {
				return err
			}
			return c.noUnreadableGatewayAPIKinds(text)
		})
	})
}

// noUnreadableGatewayAPIKinds: Gateway API's own policy kinds are
// granted by the shipped RBAC, so none is reported unreadable.
func (c *cluster) noUnreadableGatewayAPIKinds(metrics string) error {
	if !strings.Contains(metrics, "strata_policies") {
		return fmt.Errorf("no strata_policies series: not Strata's metrics")
	}
	for _, k := range []string{"BackendTLSPolicy.gateway.networking.k8s.io", "XBackendTrafficPolicy.gateway.networking.x-k8s.io"} {
		if _, ok := metric(metrics, `strata_kind_unreadable{kind="`+k+`"}`); ok {
			return fmt.Errorf("%s reported unreadable: the shipped RBAC lacks its rule", k)
		}
	}
	return nil
}

// checkParable: the parable's policies and Services carry what `strata
// status` computes from the cluster, and its records are published.
func (c *cluster) checkParable(t *testing.T) {
	admin := c.writeKubeconfig("admin", adminAuth(c))
	t.Run("status equals strata status", func(t *testing.T) {
		c := c.with(t)
		c.eventually("the controller's status equal to `strata status` of the cluster", 3*time.Minute, func(ctx context.Context) error {
			return c.sameStatus(ctx, admin)
		})
	})

	t.Run("records", func(t *testing.T) {
		c := c.with(t)
		c.eventually("EffectivePolicy of HTTPRoute baker/baker", time.Minute, func(ctx context.Context) error {
			var l unstructured.UnstructuredList
			l.SetAPIVersion("strata.dev/v1alpha1")
			l.SetKind("EffectivePolicyList")
			if err := c.admin.List(ctx, &l, client.InNamespace("baker")); err != nil {
				return err
			}
			for _, ep := range l.Items {
				kind, _, _ := unstructured.NestedString(ep.Object, "target", "kind")
				name, _, _ := unstructured.NestedString(ep.Object, "target", "name")
				if kind == "HTTPRoute" && name == "baker" {
					return nil
				}
			}
			return fmt.Errorf("%d records in baker, none of HTTPRoute baker", len(l.Items))
		})
	})
}

// adminAuth is the admin's client certificate from envtest's config.
func adminAuth(c *cluster) *clientcmdapi.AuthInfo {
	return &clientcmdapi.AuthInfo{ClientCertificateData: c.env.Config.CertData, ClientKeyData: c.env.Config.KeyData}
}

// sameStatus compares what the controller wrote with what `strata
// status` computes from the same cluster: each policy's status.ancestors
// and each Service's Strata conditions, without lastTransitionTime (the
// CLI stamps the time it runs).
func (c *cluster) sameStatus(ctx context.Context, kubeconfig string) error {
	out, stderr, code := strata(c.t, "status", "--kubeconfig", kubeconfig, "-o", "json")
	if code != 0 {
		return fmt.Errorf("strata status: exit %d: %s", code, stderr)
	}
	var want struct{ Items []*unstructured.Unstructured }
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		return err
	}
	var diffs []string
	written := 0
	for _, w := range want.Items {
		field := []string{"status", "ancestors"}
		if w.GetKind() == "Service" {
			field = []string{"status", "conditions"}
		} else if !strings.HasSuffix(w.GetKind(), "Policy") {
			continue
		}
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(w.GroupVersionKind())
		if err := c.admin.Get(ctx, client.ObjectKeyFromObject(w), got); err != nil {
			return err
		}
		a, _, _ := unstructured.NestedSlice(w.Object, field...)
		b, _, _ := unstructured.NestedSlice(got.Object, field...)
		if !reflect.DeepEqual(untimed(a), untimed(b)) {
			diffs = append(diffs, fmt.Sprintf("%s %s/%s", w.GetKind(), w.GetNamespace(), w.GetName()))
		}
		if len(a) > 0 {
			written++
		}
	}
	if written == 0 {
		return fmt.Errorf("strata status printed no status to compare")
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		return fmt.Errorf("%d objects differ, e.g. %s", len(diffs), strings.Join(diffs[:min(5, len(diffs))], ", "))
	}
	c.t.Logf("%d policies and Services carry the status strata status computes", written)
	return nil
}

// untimed drops lastTransitionTime from conditions, wherever they are.
func untimed(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = untimed(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k != "lastTransitionTime" {
				out[k] = untimed(e)
			}
		}
		return out
	default:
		return v
	}
}

// warnings collects the Warning headers the API server returns, as
// kubectl prints them.
type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.seen
	w.seen = nil
	return out
}

// TestShippedWebhook installs config/webhook (config/default and the
// webhook) on Gateway API v1.6's experimental channel (the parable's) and writes policies
// as `kubectl apply` does: each create comes back with Strata's warnings,
// from the API server calling the webhook through its Service.
func TestShippedWebhook(t *testing.T) {
	t.Parallel() // an API server and a controller of its own
	c := newCluster(t, "experimental")
	install := kustomize(t, "webhook")
	c.apply(install...)
	c.installParable()
	ct := deployment(t, install)
	p := c.run(ct)
	c.proxyService(ct.namespace, "strata-webhook", p.webhook)

	seen := &warnings{}
	cl, err := client.New(c.restConfig(seen), client.Options{Scheme: c.scheme})
	if err != nil {
		t.Fatal(err)
	}
	retry := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": parableGroup + "/v1", "kind": "RetryPolicy",
			"metadata": map[string]any{"namespace": "baker", "name": name},
			"spec": map[string]any{
				"targetRefs": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": "baker"}},
				"defaults":   map[string]any{"attempts": int64(2)},
			},
		}}
		return u
	}
	// The webhook's rules follow the policy kinds once the controller has
	// a result: dry runs until one is answered.
	c.eventually("warnings on a dry-run create", 3*time.Minute, func(ctx context.Context) error {
		seen.take()
		if err := cl.Create(ctx, retry("probe"), client.DryRunAll); err != nil {
			return err
		}
		if !slices.ContainsFunc(seen.take(), func(w string) bool { return strings.HasPrefix(w, "strata: ") }) {
			return fmt.Errorf("no warning from strata")
		}
		return nil
	})
	for i := range 20 {
		name := fmt.Sprintf("route-retries-%d", i)
		if err := cl.Create(t.Context(), retry(name)); err != nil {
			t.Fatal(err)
		}
		got := seen.take()
		if !slices.ContainsFunc(got, func(w string) bool { return strings.HasPrefix(w, "strata: RetryPolicy baker/"+name+" ") }) {
			t.Errorf("create %d of 20: warnings %q, none from strata about it", i+1, got)
		}
	}
}
