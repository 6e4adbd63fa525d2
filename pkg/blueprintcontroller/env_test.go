package blueprintcontroller_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/strata-dev/strata/internal/testenv"
	"github.com/strata-dev/strata/pkg/blueprintcontroller"
)

// One API server and one running controller serve every test of the
// package, as one controller serves a cluster: each test works in
// namespaces and GatewayClasses of its own (named after the test), so
// tests run in parallel and the package starts kube-apiserver once.
var (
	k8s client.Client
	ctl *blueprintcontroller.Controller
	// scheme is the shared controller's, for a test that starts a
	// controller of its own (startController).
	scheme *runtime.Scheme
	// shared is the shared API server's config, for a second controller.
	shared *rest.Config
)

const (
	controllerNS   = "strata-system"
	controllerName = "strata.dev/blueprint-controller"
	testManager    = client.FieldOwner("strata-test")
)

// TestMain starts the API server and the controller. Set
// STRATA_TEST_LOG=1 to see the controller's log.
func TestMain(m *testing.M) {
	if os.Getenv("STRATA_TEST_LOG") != "" {
		ctrllog.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(true)))
	} else {
		ctrllog.SetLogger(logr.Discard())
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// No deadline here: the package's tests end within go test's -timeout.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env, err := testenv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop API server:", err)
		}
	}()
	shared = env.Config
	scheme = runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, blueprintcontroller.AddToScheme} {
		if err := add(scheme); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if k8s, err = client.New(env.Config, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	skip := true
	mgr, err := manager.New(env.Config, manager.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: &skip},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if ctl, err = blueprintcontroller.New(mgr, blueprintcontroller.Options{Registerer: prometheus.NewRegistry()}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	mctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	return m.Run()
}

// apply server-side applies the objects of a YAML stream (as the test's
// own field manager), creating namespaces as needed.
func apply(t *testing.T, yaml string, args ...any) {
	t.Helper()
	applyTo(t, k8s, yaml, args...)
}

// applyTo is apply on the API server of client c (a test's own).
func applyTo(t *testing.T, c client.Client, yaml string, args ...any) {
	t.Helper()
	if len(args) > 0 {
		yaml = fmt.Sprintf(yaml, args...)
	}
	for _, o := range decode(t, yaml) {
		if err := c.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(o), testManager, client.ForceOwnership); err != nil {
			t.Fatalf("apply %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
	}
}

func decode(t *testing.T, yaml string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewBufferString(yaml), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := d.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatalf("decode: %v\n%s", err, yaml)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// namespace creates a namespace for the test, with labels.
func namespace(t *testing.T, name string, labels ...string) {
	t.Helper()
	l := ""
	for i := 0; i+1 < len(labels); i += 2 {
		l += fmt.Sprintf("\n    %s: %q", labels[i], labels[i+1])
	}
	if l != "" {
		l = "\n  labels:" + l
	}
	apply(t, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s%s\n", name, l)
}

// global creates the controller namespace (for global configs).
func global(t *testing.T) { namespace(t, controllerNS) }

// get reads an object (nil when it does not exist).
func get(t *testing.T, apiVersion, kind, ns, name string) *unstructured.Unstructured {
	t.Helper()
	return getFrom(t, k8s, apiVersion, kind, ns, name)
}

// getFrom is get on the API server of client c.
func getFrom(t *testing.T, c client.Client, apiVersion, kind, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		t.Fatalf("get %s %s/%s: %v", kind, ns, name, err)
	}
	return u
}

func del(t *testing.T, apiVersion, kind, ns, name string) {
	t.Helper()
	delFrom(t, k8s, apiVersion, kind, ns, name)
}

// delFrom is del on the API server of client c.
func delFrom(t *testing.T, c client.Client, apiVersion, kind, ns, name string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	if err := c.Delete(context.Background(), u); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("delete %s %s/%s: %v", kind, ns, name, err)
	}
}

// eventually polls check until it passes (every 100ms, 45s at most).
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 45*time.Second, true, func(context.Context) (bool, error) {
		last = check()
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("%s: %v (last: %v)", what, err, last)
	}
}

// consistently checks that check keeps passing for d: what "nothing more
// happens" means (no write storm, nothing applied).
func consistently(t *testing.T, what string, d time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if err := check(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// cond finds a condition in a list of conditions at path.
func cond(obj map[string]any, typ string, path ...string) *metav1.Condition {
	list, _, _ := unstructured.NestedSlice(obj, path...)
	return findCond(list, typ)
}

func findCond(list []any, typ string) *metav1.Condition {
	for _, c := range list {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != typ {
			continue
		}
		out := &metav1.Condition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, out); err != nil {
			return nil
		}
		return out
	}
	return nil
}

// hasCond checks a condition's status and reason, and that its message
// contains every one of msgs.
func hasCond(c *metav1.Condition, typ, status, reason string, msgs ...string) error {
	if c == nil {
		return fmt.Errorf("no %s condition", typ)
	}
	if string(c.Status) != status || c.Reason != reason {
		return fmt.Errorf("%s = %s/%s (%s), want %s/%s", typ, c.Status, c.Reason, c.Message, status, reason)
	}
	for _, m := range msgs {
		if !strings.Contains(c.Message, m) {
			return fmt.Errorf("%s message %q does not contain %q", typ, c.Message, m)
		}
	}
	return nil
}

// gatewayCond checks a condition of a Gateway.
func gatewayCond(t *testing.T, ns, name, typ, status, reason string, msgs ...string) func() error {
	return func() error {
		gw := get(t, gatewayAPI, "Gateway", ns, name)
		if gw == nil {
			return fmt.Errorf("Gateway %s/%s not found", ns, name)
		}
		return hasCond(cond(gw.Object, typ, "status", "conditions"), typ, status, reason, msgs...)
	}
}

// data reads a ConfigMap's data (nil when absent).
func data(t *testing.T, ns, name string) map[string]string {
	cm := get(t, "v1", "ConfigMap", ns, name)
	if cm == nil {
		return nil
	}
	d, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	if d == nil {
		d = map[string]string{}
	}
	return d
}

// dataIs checks a ConfigMap's data.
func dataIs(t *testing.T, ns, name string, want map[string]string) func() error {
	return func() error {
		got := data(t, ns, name)
		if got == nil {
			return fmt.Errorf("ConfigMap %s/%s not found", ns, name)
		}
		for k, v := range want {
			if got[k] != v {
				return fmt.Errorf("ConfigMap %s/%s: %s = %q, want %q (data %v)", ns, name, k, got[k], v, got)
			}
		}
		return nil
	}
}

func gone(t *testing.T, apiVersion, kind, ns, name string) func() error {
	return func() error {
		if get(t, apiVersion, kind, ns, name) != nil {
			return fmt.Errorf("%s %s/%s still exists", kind, ns, name)
		}
		return nil
	}
}

const (
	gatewayAPI   = "gateway.networking.k8s.io/v1"
	blueprintAPI = "blueprints.strata.dev/v1alpha1"
)

// class applies a GatewayClass of Strata's blueprint controller using
// blueprint bp.
func class(t *testing.T, name, bp string) {
	t.Helper()
	apply(t, `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: %s
spec:
  controllerName: %s
  parametersRef:
    group: blueprints.strata.dev
    kind: GatewayClassBlueprint
    name: %s
`, name, controllerName, bp)
}

// gateway applies a Gateway with one HTTP listener on port 80.
func gateway(t *testing.T, ns, name, className string) {
	t.Helper()
	apply(t, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: %s
  namespace: %s
spec:
  gatewayClassName: %s
  listeners:
  - name: http
    protocol: HTTP
    port: 80
`, name, ns, className)
}

// indent indents every line of s by n spaces (for templates in YAML).
func indent(n int, s string) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}
