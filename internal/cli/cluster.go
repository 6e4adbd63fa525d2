package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/policykind/builtin"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/source/cluster"
	"github.com/strata-dev/strata/pkg/source/files"
)

// clusterConn is a connection to a live API server: an uncached client and a REST mapper.
type clusterConn struct {
	host   string // for messages
	client client.Client
	mapper meta.RESTMapper
}

// connectCluster builds the client from kubectl's connection flags, sending nothing yet.
func connectCluster(kube *genericclioptions.ConfigFlags, s Streams) (*clusterConn, error) {
	if raw, err := kube.ToRawKubeConfigLoader().RawConfig(); err == nil && len(raw.Clusters) == 0 && *kube.APIServer == "" {
		// cli-runtime would fall back to http://localhost:8080: say what is missing instead.
		if _, err := rest.InClusterConfig(); err != nil {
			return nil, errNoKubeconfig
		}
	}
	cfg, err := kube.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	cfg = rest.CopyConfig(cfg)
	// One list per kind: client-go's default of 5 requests a second would throttle.
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	cfg.WarningHandler = rest.NewWarningWriter(s.Err, rest.WarningWriterOptions{Deduplicate: true})
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := cluster.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := bpv1.AddToScheme(scheme); err != nil { // strata render
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme, Mapper: mapper, HTTPClient: hc})
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return &clusterConn{host: cfg.Host, client: c, mapper: mapper}, nil
}

var errNoKubeconfig = errors.New("no kubeconfig (--kubeconfig, $KUBECONFIG or ~/.kube/config), no --server, and not running in a pod")

// read lists the objects Strata needs (cluster.Reader.Objects).
func (c *clusterConn) read(ctx context.Context, p *progressLine, ns string, also func(*cluster.Objects) bool) (*cluster.Objects, cluster.Records, error) {
	var discoveryErr error
	present := func(gvk schema.GroupVersionKind) bool {
		if discoveryErr != nil {
			return false // one failing server, one wait
		}
		_, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil && !meta.IsNoMatchError(err) {
			discoveryErr = fmt.Errorf("discover %s: %w", gvk.GroupKind(), err)
		}
		return err == nil
	}
	// Every server serves CRDs: asking first fails fast on a server that cannot be reached.
	crd := cluster.CRDGVK
	if _, err := c.mapper.RESTMapping(crd.GroupKind(), crd.Version); err != nil && !meta.IsNoMatchError(err) {
		return nil, cluster.Records{}, fmt.Errorf("cluster %s: API discovery: %w", c.host, err)
	}
	catalogue, err := builtin.Catalogue()
	if err != nil {
		return nil, cluster.Records{}, err
	}
	r := &cluster.Reader{Client: c.client, Present: present, Progress: p.show, Namespace: ns, Builtin: builtin.Kinds(catalogue)}
	objs, err := r.Objects(ctx)
	var records cluster.Records
	if err == nil && (seenOf(objs, cluster.Records{}).Hidden() || also != nil && also(objs)) {
		records, err = r.Published(ctx)
	}
	p.done()
	if discoveryErr != nil {
		err = discoveryErr // the first cause: the list errors follow from it
	}
	if err != nil {
		return nil, cluster.Records{}, fmt.Errorf("cluster %s: %w", c.host, err)
	}
	return objs, records, nil
}

// defaultNamespace puts namespaced objects without a namespace in ns, as kubectl apply would.
func (c *clusterConn) defaultNamespace(docs []files.Document, ns string) {
	for _, d := range docs {
		if d.Object.GetNamespace() != "" {
			continue
		}
		gvk := d.Object.GroupVersionKind()
		m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err == nil && m.Scope.Name() == meta.RESTScopeNameNamespace {
			d.Object.SetNamespace(ns)
		}
	}
}

// progressLine is a one-line "reading <kind>..." on a terminal's stderr, and nothing elsewhere.
type progressLine struct {
	w     io.Writer
	shown bool
}

func newProgressLine(w io.Writer) *progressLine {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &progressLine{w: w}
	}
	return &progressLine{}
}

func (p *progressLine) show(gvk schema.GroupVersionKind) {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "\rreading %s...\x1b[K", gvk.GroupKind())
	p.shown = true
}

// done erases the line.
func (p *progressLine) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// seenOf is what a read could see of the policies (query.Seen): the kinds
// it could not list told apart as policy kinds by name and as the kinds
// declaring them, behind which kinds hide unnamed; topology kinds are no
// policy kind at all.
func seenOf(objs *cluster.Objects, records cluster.Records) query.Seen {
	declaring := map[schema.GroupKind]bool{cluster.CRDGVK.GroupKind(): true, cluster.PolicyKindGVK.GroupKind(): true}
	s := query.Seen{Records: records.Items, RecordsForbidden: records.Forbidden}
	declared := map[schema.GroupKind]bool{}
	for _, k := range objs.Kinds {
		declared[k.GroupKind()] = true
		s.Declared = append(s.Declared, k.GroupKind())
	}
	for _, u := range objs.Unreadable {
		switch gk := u.GVK.GroupKind(); {
		case declaring[gk]:
			s.HiddenDeclarations = append(s.HiddenDeclarations, gk)
		case declared[gk]:
			s.HiddenKinds = append(s.HiddenKinds, gk)
		}
	}
	return s
}
