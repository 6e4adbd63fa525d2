package policies_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/strata-dev/strata/internal/testenv"
	"github.com/strata-dev/strata/pkg/controller/policies"
)

// TestSecureMetrics serves the controller's metrics as `strata
// controller` does by default (--metrics-secure: HTTPS, and
// controller-runtime's authentication and authorization filter), with
// the manager acting as the controller's ServiceAccount under the RBAC of
// config/rbac, so that the roles are checked too: the metrics-auth role
// must let it create the TokenReviews and SubjectAccessReviews. Scrapers
// present ServiceAccount tokens from the TokenRequest API (envtest's
// kube-apiserver runs with a service account issuer and signing key, so
// it issues and reviews them): no token is refused with 401, a token of
// a ServiceAccount without the metrics-reader role with 403, and with
// that role the scrape succeeds and holds Strata's metrics.
func TestSecureMetrics(t *testing.T) {
	c := newCluster(t)
	ctx := t.Context()

	// config/rbac as installed, the aggregated role filled in as the
	// clusterrole-aggregation controller (absent from envtest) would.
	var rbac []*unstructured.Unstructured
	var roles []*rbacv1.ClusterRole
	for _, f := range []string{"service_account.yaml", "role.yaml", "role_binding.yaml", "metrics_auth_role.yaml", "metrics_auth_role_binding.yaml", "metrics_reader_role.yaml"} {
		for _, o := range objects(t, filepath.Join("..", "..", "..", "config", "rbac", f)) {
			if o.GetKind() != "ClusterRole" {
				rbac = append(rbac, o)
				continue
			}
			r := &rbacv1.ClusterRole{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, r); err != nil {
				t.Fatal(err)
			}
			roles = append(roles, r)
		}
	}
	for _, r := range roles {
		if err := testenv.Aggregate(r, roles...); err != nil {
			t.Fatal(err)
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(r)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetAPIVersion("rbac.authorization.k8s.io/v1")
		u.SetKind("ClusterRole")
		rbac = append(rbac, u)
	}
	c.apply(rbac...)

	// Scrapers: two ServiceAccounts, one bound to the metrics-reader role.
	cs, err := kubernetes.NewForConfig(c.env.Config)
	if err != nil {
		t.Fatal(err)
	}
	token := func(name string) string {
		t.Helper()
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
		if _, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, sa, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("TokenRequest for ServiceAccount default/%s: %v", name, err)
		}
		return tr.Status.Token
	}
	scraper, outsider := token("scraper"), token("outsider")
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "scraper-metrics-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "strata-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "default", Name: "scraper"}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The manager, as the controller's ServiceAccount, serving metrics on
	// a free port.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	mgr, err := manager.New(c.env.Impersonating("system:serviceaccount:strata-system:strata-controller"), manager.Options{
		Scheme: c.scheme,
		Metrics: metricsserver.Options{
			BindAddress:    addr,
			SecureServing:  true,
			FilterProvider: filters.WithAuthenticationAndAuthorization,
		},
		HealthProbeBindAddress: "0",
		Logger:                 testr.NewWithOptions(t, testr.Options{Verbosity: 0}),
	})
	if err != nil {
		t.Fatal(err)
	}
	// Strata's metrics in controller-runtime's registry, which the
	// server serves, as `strata controller` registers them; unregistered
	// at the end, so the test can run again in one process.
	reg := &unregistering{Registerer: crmetrics.Registry}
	t.Cleanup(reg.unregisterAll)
	if _, err := policies.New(mgr, policies.Options{Registerer: reg}); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	// The certificate is self-signed: the client does not verify it.
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	get := func(token string) (int, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/metrics", nil)
		if err != nil {
			return 0, "", err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	c.eventually("the metrics server serves HTTPS", func() error {
		_, _, err := get("")
		return err
	})

	for _, tc := range []struct {
		name, token string
		code        int
		body        []string
	}{
		{"no token", "", http.StatusUnauthorized, []string{"Unauthorized"}},
		{"a ServiceAccount without the metrics-reader role", outsider, http.StatusForbidden, []string{"system:serviceaccount:default:outsider"}},
		{"a ServiceAccount with the metrics-reader role", scraper, http.StatusOK, []string{
			"# TYPE strata_reconcile_errors_total counter",
			"# TYPE strata_events_dropped_total counter",
			"controller_runtime_",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body, err := get(tc.token)
			if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Fatalf("status %d, want %d: %s", code, tc.code, body)
			}
			for _, want := range tc.body {
				if !strings.Contains(body, want) {
					t.Errorf("response does not contain %q:\n%s", want, body)
				}
			}
		})
	}
}

// unregistering is a prometheus.Registerer that remembers what it
// registered, to unregister it when the test ends.
type unregistering struct {
	prometheus.Registerer
	done []prometheus.Collector
}

func (u *unregistering) Register(c prometheus.Collector) error {
	if err := u.Registerer.Register(c); err != nil {
		return err
	}
	u.done = append(u.done, c)
	return nil
}

func (u *unregistering) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := u.Register(c); err != nil {
			panic(fmt.Sprintf("register: %v", err))
		}
	}
}

func (u *unregistering) unregisterAll() {
	for _, c := range u.done {
		u.Registerer.Unregister(c)
	}
}
