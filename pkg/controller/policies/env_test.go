package policies_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/strata-dev/strata/internal/testenv"
	"github.com/strata-dev/strata/pkg/controller/policies"
)

// TestMain gives controller-runtime's global logger a sink; each
// controller logs to its test through testr.
func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

// cluster is one real kube-apiserver with a client, for one test.
type cluster struct {
	t      *testing.T
	env    *testenv.Env
	client client.Client
	scheme *runtime.Scheme
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	env := testenv.StartT(t)
	scheme := runtime.NewScheme()
	if err := policies.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{t: t, env: env, client: c, scheme: scheme}
}

// running is a started controller.
type running struct {
	ctrl   *policies.Controller
	reg    *prometheus.Registry
	cancel context.CancelFunc
	done   chan error
}

// start runs a controller in a manager of its own, as a deployment would.
func (c *cluster) start() *running { return c.startWith(policies.Options{}) }

// startWith runs a controller with options (fast debounce and rate limits
// for tests unless set).
func (c *cluster) startWith(opts policies.Options) *running {
	c.t.Helper()
	return c.startAs(c.env.Config, opts)
}

// startAs is startWith with the manager's client acting as cfg says
// (an impersonated identity, say).
func (c *cluster) startAs(cfg *rest.Config, opts policies.Options) *running {
	c.t.Helper()
	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                 c.scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Logger:                 testr.NewWithOptions(c.t, testr.Options{Verbosity: 0}),
	})
	if err != nil {
		c.t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	opts.Registerer = reg
	if r, ok := opts.Recorder.(*recorded); ok && r.inner == nil {
		r.inner = mgr.GetEventRecorder("strata-policy-controller")
	}
	if opts.Debounce == 0 {
		opts.Debounce = 50 * time.Millisecond
	}
	if opts.TargetQPS == 0 {
		opts.TargetQPS, opts.TargetBurst = 200, 200
	}
	ctrl, err := policies.New(mgr, opts)
	if err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{ctrl: ctrl, reg: reg, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- mgr.Start(ctx) }()
	c.t.Cleanup(r.stop)
	return r
}

// stop shuts the controller down and waits for it.
func (r *running) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	<-r.done
	r.cancel = nil
}

// writes is the total of the write counter.
func (r *running) writes() float64 {
	var total float64
	mfs, _ := r.reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "strata_status_writes_total" {
			for _, m := range mf.GetMetric() {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

// objects decodes the YAML documents of files.
func objects(t *testing.T, files ...string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, decode(t, string(b))...)
	}
	return out
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
			t.Fatal(err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// apply creates objects in order, installing CRDs first and waiting until
// they are established. Server-managed fields given in the files
// (creationTimestamp, generation, status) are dropped.
func (c *cluster) apply(objs ...*unstructured.Unstructured) {
	c.t.Helper()
	ctx := context.Background()
	sort.SliceStable(objs, func(i, j int) bool {
		return objs[i].GetKind() == "CustomResourceDefinition" && objs[j].GetKind() != "CustomResourceDefinition"
	})
	for _, o := range objs {
		o = o.DeepCopy()
		unstructured.RemoveNestedField(o.Object, "metadata", "creationTimestamp")
		unstructured.RemoveNestedField(o.Object, "metadata", "generation")
		unstructured.RemoveNestedField(o.Object, "status")
		if ns := o.GetNamespace(); ns != "" {
			c.ensureNamespace(ns)
		}
		if err := c.client.Create(ctx, o); err != nil {
			c.t.Fatalf("create %s %s: %v", o.GetKind(), o.GetName(), err)
		}
		if o.GetKind() == "CustomResourceDefinition" {
			c.eventually("CRD "+o.GetName()+" established", func() error {
				crd := &apiextensionsv1.CustomResourceDefinition{}
				if err := c.client.Get(ctx, client.ObjectKeyFromObject(o), crd); err != nil {
					return err
				}
				for _, cond := range crd.Status.Conditions {
					if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
						return nil
					}
				}
				return fmt.Errorf("not established")
			})
		}
	}
}

func (c *cluster) ensureNamespace(ns string) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("Namespace")
	u.SetName(ns)
	if err := c.client.Get(context.Background(), client.ObjectKeyFromObject(u), u); err == nil {
		return
	}
	if err := c.client.Create(context.Background(), u); err != nil && !strings.Contains(err.Error(), "already exists") {
		c.t.Fatal(err)
	}
}

// get reads an object as stored.
func (c *cluster) get(apiVersion, kind, ns, name string) *unstructured.Unstructured {
	c.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	if err := c.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		c.t.Fatalf("get %s %s/%s: %v", kind, ns, name, err)
	}
	return u
}

// eventually polls until check passes: every 100ms, for 2 minutes at
// most, a deadline generous enough for a busy 2-core machine (a condition,
// not a time window: it returns as soon as check passes).
func (c *cluster) eventually(what string, check func() error) {
	c.t.Helper()
	const limit = 2 * time.Minute
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, limit, true, func(context.Context) (bool, error) {
		last = check()
		return last == nil, nil
	})
	if err != nil {
		c.t.Fatalf("waited %v for %s: %v (last check: %v)", limit, what, err, last)
	}
}
