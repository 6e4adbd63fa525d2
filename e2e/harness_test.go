package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/internal/testenv"
)

// strataBin is the binary under test, built by TestMain.
var strataBin string

// TestMain builds the strata binary as hack/image builds the image's
// (static, CGO off, -trimpath, stripped), once for every test.
func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard()) // envtest logs through it
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "strata-e2e-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		root, err := testenv.Root()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		strataBin = filepath.Join(dir, "strata")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", strataBin, "./cmd/strata")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: build strata:", err)
			return 1
		}
		return m.Run()
	}())
}

// root is the repository's root folder.
func root(t *testing.T) string {
	t.Helper()
	r, err := testenv.Root()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// serviceCIDR is the test API server's Service range. On loopback, so
// that a Service's ClusterIP is an address this machine answers on and
// the tests can play kube-proxy for the webhook's Service (kube-apiserver
// calls a webhook Service at its ClusterIP and port).
const serviceCIDR = "127.1.0.0/16"

// cluster is a real API server with RBAC on, the Gateway API CRDs of one
// channel and nothing of Strata's: the install puts those there.
type cluster struct {
	t      *testing.T
	env    *testenv.Env
	admin  client.Client
	cs     kubernetes.Interface
	scheme *runtime.Scheme
}

func newCluster(t *testing.T, channel string) *cluster {
	t.Helper()
	paths, err := testenv.ChannelCRDPaths(channel)
	if err != nil {
		t.Fatal(err)
	}
	env := testenv.StartTWith(t, testenv.Options{
		CRDs:          paths[:1], // Gateway API's only; Strata's come with the install
		RBAC:          true,
		APIServerArgs: map[string][]string{"service-cluster-ip-range": {serviceCIDR}},
	})
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	admin, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{t: t, env: env, admin: admin, cs: kubernetes.NewForConfigOrDie(env.Config), scheme: scheme}
}

// with is c for a subtest: its failures are the subtest's.
func (c *cluster) with(t *testing.T) *cluster {
	cc := *c
	cc.t = t
	return &cc
}

// kustomize builds a folder of config/ as `kubectl apply -k` would.
func kustomize(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(root(t), "config", dir))
	if err != nil {
		t.Fatalf("kustomize build config/%s: %v", dir, err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, out)
}

// decode reads a multi-document YAML stream.
func decode(t *testing.T, data []byte) []*unstructured.Unstructured {
	t.Helper()
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []*unstructured.Unstructured
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		if err := yaml.Unmarshal(doc, &m); err != nil {
			t.Fatal(err)
		}
		if len(m) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: m})
		}
	}
}

// files reads YAML files of the repository.
func files(t *testing.T, paths ...string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(root(t), p))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, decode(t, b)...)
	}
	return out
}

// apply is `kubectl apply --server-side` as the cluster's admin: CRDs
// and Namespaces first, then everything else once the CRDs are served.
// Status in the files (examples carry what other controllers wrote) is
// dropped, as the API server drops it on create.
func (c *cluster) apply(objs ...*unstructured.Unstructured) {
	c.t.Helper()
	ctx := c.t.Context()
	first := func(o *unstructured.Unstructured) bool {
		return o.GetKind() == "CustomResourceDefinition" || o.GetKind() == "Namespace"
	}
	for _, pass := range []bool{true, false} {
		for _, o := range objs {
			if first(o) != pass {
				continue
			}
			o = o.DeepCopy()
			delete(o.Object, "status")
			o.SetManagedFields(nil)
			o.SetResourceVersion("")
			err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
				err := c.admin.Apply(ctx, client.ApplyConfigurationFromUnstructured(o), client.FieldOwner("kubectl"), client.ForceOwnership)
				if meta.IsNoMatchError(err) {
					return false, nil // a CRD of this run not served yet
				}
				return err == nil, err
			})
			if err != nil {
				c.t.Fatalf("apply %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
			}
			if o.GetKind() == "CustomResourceDefinition" {
				c.established(o.GetName())
			}
		}
	}
	c.aggregate()
}

// established waits for a CRD to be served.
func (c *cluster) established(name string) {
	c.t.Helper()
	c.eventually("CRD "+name+" established", 2*time.Minute, func(ctx context.Context) error {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.admin.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
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

// aggregate does what kube-controller-manager's clusterrole-aggregation
// controller, which envtest does not run, does: every ClusterRole with an
// aggregationRule gets the rules of the ClusterRoles its selectors match
// (the built-in view, edit and admin among them).
func (c *cluster) aggregate() {
	c.t.Helper()
	ctx := c.t.Context()
	var roles rbacv1.ClusterRoleList
	if err := c.admin.List(ctx, &roles); err != nil {
		c.t.Fatal(err)
	}
	all := make([]*rbacv1.ClusterRole, len(roles.Items))
	for i := range roles.Items {
		all[i] = &roles.Items[i]
	}
	// Twice, so that a role aggregated into one that is itself
	// aggregated (admin <- edit <- view) is filled in.
	for range 2 {
		for _, r := range all {
			if r.AggregationRule == nil {
				continue
			}
			if err := testenv.Aggregate(r, all...); err != nil {
				c.t.Fatal(err)
			}
		}
	}
	for _, r := range all {
		if r.AggregationRule != nil {
			if err := c.admin.Update(ctx, r); err != nil {
				c.t.Fatalf("aggregate ClusterRole %s: %v", r.Name, err)
			}
		}
	}
}

// eventually polls check until it returns nil, failing the test with its
// last error after timeout (a bound on a hang, not a window the test
// depends on).
func (c *cluster) eventually(what string, timeout time.Duration, check func(context.Context) error) {
	c.t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(c.t.Context(), 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		last = check(ctx)
		return last == nil, nil
	})
	if err != nil {
		c.t.Fatalf("%s: not after %s: %v", what, timeout, last)
	}
}

// serviceAccountKubeconfig writes a kubeconfig holding a token of the
// ServiceAccount ns/name from the TokenRequest API: the identity a pod of
// that ServiceAccount has.
func (c *cluster) serviceAccountKubeconfig(ns, name string) string {
	c.t.Helper()
	tr, err := c.cs.CoreV1().ServiceAccounts(ns).CreateToken(c.t.Context(), name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))},
	}, metav1.CreateOptions{})
	if err != nil {
		c.t.Fatalf("TokenRequest for ServiceAccount %s/%s: %v", ns, name, err)
	}
	return c.writeKubeconfig(name, &clientcmdapi.AuthInfo{Token: tr.Status.Token})
}

// userKubeconfig writes a kubeconfig of a user in no group (a person
// with what RBAC bindings to the name grant).
func (c *cluster) userKubeconfig(user string) string {
	c.t.Helper()
	b, err := c.env.KubeConfig(user)
	if err != nil {
		c.t.Fatal(err)
	}
	p := filepath.Join(c.t.TempDir(), user+".kubeconfig")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// reader is a person bound to the built-in view role in namespace
// baker, and to nothing else: the kubeconfig of that user.
func (c *cluster) reader(user string) string {
	c.t.Helper()
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "baker", Name: user + "-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: user}},
	}
	if err := c.admin.Create(c.t.Context(), rb); err != nil {
		c.t.Fatal(err)
	}
	return c.userKubeconfig(user)
}

func (c *cluster) writeKubeconfig(name string, auth *clientcmdapi.AuthInfo) string {
	c.t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["envtest"] = &clientcmdapi.Cluster{Server: c.env.Config.Host, CertificateAuthorityData: c.env.Config.CAData}
	cfg.AuthInfos[name] = auth
	cfg.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: name}
	cfg.CurrentContext = "envtest"
	p := filepath.Join(c.t.TempDir(), name+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, p); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// container is the controller's Deployment as the kubelet would run it.
type container struct {
	namespace, serviceAccount string
	args                      []string
	env                       map[string]string
	ports                     map[string]int // container port by name
	tmp                       bool           // a volume is mounted at /tmp
}

// deployment finds the Deployment strata-controller among an install's
// objects.
func deployment(t *testing.T, objs []*unstructured.Unstructured) container {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		var spec corev1.PodSpec
		m, _, _ := unstructured.NestedMap(o.Object, "spec", "template", "spec")
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &spec); err != nil {
			t.Fatal(err)
		}
		ct := spec.Containers[0]
		out := container{namespace: o.GetNamespace(), serviceAccount: spec.ServiceAccountName, args: ct.Args, env: map[string]string{}, ports: map[string]int{}}
		for _, e := range ct.Env {
			switch {
			case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
				out.env[e.Name] = o.GetNamespace()
			case e.ValueFrom == nil:
				out.env[e.Name] = e.Value
			default:
				t.Fatalf("Deployment %s: env %s: a source the e2e kubelet does not know", o.GetName(), e.Name)
			}
		}
		for _, p := range ct.Ports {
			out.ports[p.Name] = int(p.ContainerPort)
		}
		for _, vm := range ct.VolumeMounts {
			if vm.MountPath == "/tmp" {
				out.tmp = true
			}
		}
		return out
	}
	t.Fatal("no Deployment in the install")
	return container{}
}

// process is the strata binary running as the controller's container.
type process struct {
	cmd     *exec.Cmd
	log     *syncBuffer
	health  string // host:port of /healthz and /readyz
	metrics string // host:port of /metrics (HTTPS)
	webhook int    // the webhook server's port, 0 without --webhook
	done    chan error
}

// run starts the container's command as the kubelet would, with the
// ServiceAccount's token: its args, with each listening port moved to a
// free one on this machine (several tests share one network namespace;
// a pod has one of its own), and --kubeconfig for the in-cluster
// configuration a pod would read from its mounted token. Without a
// volume at /tmp the root filesystem is read-only, as the Deployment's
// securityContext says: TMPDIR names a folder that does not exist.
func (c *cluster) run(ct container, extra ...string) *process {
	c.t.Helper()
	kubeconfig := c.serviceAccountKubeconfig(ct.namespace, ct.serviceAccount)
	p := &process{log: &syncBuffer{}, done: make(chan error, 1)}
	var args []string
	webhook := false
	for _, a := range ct.args {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "--metrics-bind-address":
			p.metrics = freeAddr(c.t)
			a = name + "=" + p.metrics
		case "--health-probe-bind-address":
			p.health = freeAddr(c.t)
			a = name + "=" + p.health
		case "--webhook":
			webhook = true
		}
		args = append(args, a)
	}
	if webhook {
		_, port, _ := net.SplitHostPort(freeAddr(c.t))
		p.webhook, _ = strconv.Atoi(port)
		args = append(args, "--webhook-port="+port)
	}
	args = append(args, "--kubeconfig="+kubeconfig)
	args = append(args, extra...)
	p.cmd = exec.Command(strataBin, args...)
	p.cmd.Env = []string{"HOME=" + c.t.TempDir(), "PATH=" + os.Getenv("PATH")}
	if ct.tmp {
		p.cmd.Env = append(p.cmd.Env, "TMPDIR="+c.t.TempDir())
	} else {
		p.cmd.Env = append(p.cmd.Env, "TMPDIR=/nonexistent/read-only-root")
	}
	for k, v := range ct.env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	c.t.Cleanup(func() {
		p.stop(c.t)
		if c.t.Failed() {
			c.t.Logf("strata controller's log (last 200 lines):\n%s", p.log.tail(200))
		}
	})
	c.eventually("strata controller ready (/readyz)", 3*time.Minute, func(ctx context.Context) error {
		select {
		case err := <-p.done:
			p.done <- err
			c.t.Fatalf("strata controller exited: %v\n%s", err, p.log.tail(50))
		default:
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + p.health + "/readyz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/readyz: %s", resp.Status)
		}
		return nil
	})
	return p
}

// stop sends SIGTERM, as the kubelet does, and waits for the exit.
func (p *process) stop(t *testing.T) {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Errorf("strata controller did not stop within a minute of SIGTERM")
	}
}

// scrape reads the controller's metrics over HTTPS with a token, as a
// Prometheus bound to strata-metrics-reader does.
func (p *process) scrape(ctx context.Context, token string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+p.metrics+"/metrics", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	// A bound per request, so that one stalled handshake on a busy
	// machine is retried rather than waited for.
	hc := &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("/metrics: %s", resp.Status)
	}
	return string(b), err
}

// scraperToken is a token of a ServiceAccount bound to the shipped
// strata-metrics-reader role, as docs/install.md says to bind it.
func (c *cluster) scraperToken() string {
	c.t.Helper()
	ctx := c.t.Context()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "prometheus"}}
	if err := c.admin.Create(ctx, sa); err != nil {
		c.t.Fatal(err)
	}
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "strata-metrics-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "strata-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "default", Name: "prometheus"}},
	}
	if err := c.admin.Create(ctx, crb); err != nil {
		c.t.Fatal(err)
	}
	tr, err := c.cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, "prometheus", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	return tr.Status.Token
}

// metric is the value of the series whose line starts with prefix (name
// and labels), and whether it is there.
func metric(text, prefix string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok && strings.HasPrefix(rest, " ") {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return v, err == nil
		}
	}
	return 0, false
}

// proxyService plays kube-proxy for one Service: connections to its
// ClusterIP and port go to the container's target port on loopback.
func (c *cluster) proxyService(ns, name string, target int) {
	c.t.Helper()
	svc, err := c.cs.CoreV1().Services(ns).Get(c.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	addr := net.JoinHostPort(svc.Spec.ClusterIP, strconv.Itoa(int(svc.Spec.Ports[0].Port)))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		c.t.Fatalf("play kube-proxy for Service %s/%s on %s (binding a port below 1024 needs root or CAP_NET_BIND_SERVICE): %v", ns, name, addr, err)
	}
	c.t.Cleanup(func() { l.Close() })
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer in.Close()
				out, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(target)))
				if err != nil {
					return
				}
				defer out.Close()
				go func() { _, _ = io.Copy(out, in) }()
				_, _ = io.Copy(in, out)
			}()
		}
	}()
}

// strata runs the CLI and returns its stdout, stderr and exit code.
func strata(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(strataBin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// freeAddr is a free loopback address and port.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// syncBuffer is a bytes.Buffer safe for the process' two writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) tail(n int) string {
	lines := strings.Split(s.String(), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// restConfig is the admin's configuration with a warning handler.
func (c *cluster) restConfig(h rest.WarningHandler) *rest.Config {
	cfg := rest.CopyConfig(c.env.Config)
	cfg.WarningHandler = h
	return cfg
}
