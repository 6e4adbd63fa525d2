package chart

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// fieldOwner is the server-side apply field manager of these tests.
const fieldOwner = client.FieldOwner("strata-chart-test")

// TestApply applies the chart, rendered with several sets of values, and
// `kustomize build config/default` to a real kube-apiserver, with
// server-side apply in dry-run mode: admission and validation run in full,
// nothing is stored. Any error or warning (deprecated APIs, the
// "restricted" Pod Security Standard the namespace enforces) fails it.
// Strata's CRDs are installed first, as Helm installs crds/ before the
// templates. The ServiceMonitor is not applied: the Prometheus Operator's
// CRDs are not installed (TestChartValues checks its rendering).
func TestApply(t *testing.T) {
	ctx := t.Context()
	c, warn := startAPIServer(t)

	// The namespace for real, so that dry runs of namespaced objects find
	// it; the labels are config/manager/namespace.yaml's, so the pod
	// template is checked against "restricted" for the chart too.
	ns, err := kustomizeBuild("manager")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ns {
		if o.GetKind() != "Namespace" {
			continue
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(o), fieldOwner, client.ForceOwnership); err != nil {
			t.Fatalf("apply %s: %v", describe(o), err)
		}
	}
	warn.take()

	dryRun := func(t *testing.T, objs []*unstructured.Unstructured) {
		t.Helper()
		if len(objs) == 0 {
			t.Fatal("no objects")
		}
		for _, o := range objs {
			if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(o), fieldOwner, client.ForceOwnership, client.DryRunAll); err != nil {
				t.Errorf("apply %s: %v", describe(o), err)
			}
			for _, w := range warn.take() {
				t.Errorf("apply %s: warning: %s", describe(o), w)
			}
		}
	}

	t.Run("kustomize config/default", func(t *testing.T) {
		objs, err := kustomizeBuild("default")
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if o.GetNamespace() != "" && o.GetNamespace() != "strata-system" {
				t.Errorf("%s is in namespace %s, want strata-system", describe(o), o.GetNamespace())
			}
		}
		dryRun(t, crdsFirst(objs))
	})

	t.Run("helm chart crds", func(t *testing.T) {
		dryRun(t, crds(t))
	})

	for _, tc := range []struct{ name, values string }{
		{"defaults", ""},
		{"every value", `
image: {repository: registry.example/strata, tag: v0.1.0, digest: "sha256:` + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" + `", pullPolicy: Always}
imagePullSecrets: [{name: regcred}]
serviceAccount: {name: strata-sa, annotations: {iam.gke.io/gcp-service-account: strata@example.iam.gserviceaccount.com}}
podAnnotations: {example.com/team: platform}
podLabels: {team: platform}
replicas: 2
controllerName: example.com/strata
effectivePolicies: true
gatewayAPIViewer: {enabled: true}
targetQPS: 2.5
logLevel: 2
extraArgs: [--target-burst=100]
metrics: {port: 9090, certSecret: strata-metrics-cert}
webhook: {enabled: true, deny: [invalid, conflicted], budget: 250ms, timeoutSeconds: 5, certSecret: strata-webhook-cert, caInjectFrom: strata-system/strata-webhook-cert}
serviceMonitor: {enabled: true, labels: {release: kube-prometheus-stack}, interval: 30s, tlsConfig: {serverName: strata-metrics.strata-system.svc}}
podDisruptionBudget: {enabled: true, minAvailable: 1}
resources: {requests: {cpu: 50m, memory: 64Mi}, limits: {cpu: "2", memory: 1Gi}}
policyKinds:
- {group: policies.controller.io, resource: colorpolicies, managed: true}
- {group: example.com, resource: retrypolicies}
blueprints:
  controllerName: example.com/blueprints
  renderedResources: [{group: apps, resource: deployments}, {group: "", resource: configmaps}]
priorityClassName: system-cluster-critical
nodeSelector: {kubernetes.io/os: linux}
tolerations: [{key: dedicated, operator: Equal, value: infra, effect: NoSchedule}]
affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app.kubernetes.io/name: strata}}}}]}}`},
		{"the admission webhook with a self-signed certificate", `
webhook: {enabled: true}`},
		{"existing ServiceAccount, no leader election, plain HTTP metrics", `
serviceAccount: {create: false, name: existing}
leaderElection: false
metrics: {secure: false}
blueprints: {enabled: false}`},
	} {
		t.Run("helm chart "+tc.name, func(t *testing.T) {
			r, err := render(t, "my-release", "strata-system", tc.values)
			if err != nil {
				t.Fatal(err)
			}
			var objs []*unstructured.Unstructured
			for _, o := range r.objs {
				if o.GetKind() != "ServiceMonitor" {
					objs = append(objs, o)
				}
			}
			dryRun(t, objs)
		})
	}

	// Values the schema passes through unchecked (Kubernetes types) reach
	// the API server, which refuses them: the dry run is a real check.
	t.Run("helm chart invalid tolerations refused", func(t *testing.T) {
		r, err := render(t, "my-release", "strata-system", "tolerations: [{key: dedicated, operator: Sometimes}]")
		if err != nil {
			t.Fatal(err)
		}
		deploy := r.find("Deployment", "my-release-strata")
		if deploy == nil {
			t.Fatal("no Deployment my-release-strata")
		}
		err = c.Apply(ctx, client.ApplyConfigurationFromUnstructured(deploy), fieldOwner, client.ForceOwnership, client.DryRunAll)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "tolerations[0].operator") {
			t.Fatalf("apply %s: got %v, want the API server to refuse tolerations[0].operator", describe(deploy), err)
		}
		warn.take()
	})
}

// crdsFirst orders CRDs, then Namespaces, before everything else, as
// kubectl and Helm apply them.
func crdsFirst(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	rank := func(o *unstructured.Unstructured) int {
		switch o.GetKind() {
		case "CustomResourceDefinition":
			return 0
		case "Namespace":
			return 1
		}
		return 2
	}
	var out []*unstructured.Unstructured
	for r := range 3 {
		for _, o := range objs {
			if rank(o) == r {
				out = append(out, o)
			}
		}
	}
	return out
}

// startAPIServer runs kube-apiserver and etcd (envtest) with the chart's
// CRDs installed, for the test's lifetime, and returns a client whose
// warnings are collected.
func startAPIServer(t *testing.T) (client.Client, *warnings) {
	t.Helper()
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets(t),
		CRDDirectoryPaths:     []string{filepath.Join(chartDir, "crds")},
		ErrorIfCRDPathMissing: true,
		// envtest waits 20 s for kube-apiserver to serve, which two busy
		// cores overrun; a bound on a hang, not a window the test needs.
		ControlPlaneStartTimeout: 5 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("start kube-apiserver: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stop kube-apiserver: %v", err)
		}
	})
	warn := &warnings{}
	cfg.WarningHandlerWithContext = warn
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c, warn
}

// assets is the folder holding kube-apiserver and etcd: KUBEBUILDER_ASSETS
// (set by go run ./hack/test), else bin/envtest at the repository root
// where that command builds them.
func assets(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "bin", "envtest"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "kube-apiserver")); err != nil {
		t.Fatalf("no kube-apiserver in %s: run the README's test command (go run ./hack/test), "+
			"which builds it and sets KUBEBUILDER_ASSETS, or set KUBEBUILDER_ASSETS", dir)
	}
	return dir
}

// warnings collects the API server's warning headers.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

// take returns the warnings since the last call.
func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.list
	w.list = nil
	return l
}
