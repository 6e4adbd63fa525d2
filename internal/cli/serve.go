package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/hierarchy/typed"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/sink/web"
	"github.com/strata-dev/strata/pkg/source/cluster"
)

// newServe is `strata serve`: the read-only web view of what the source flags read.
func newServe(s Streams) *cobra.Command {
	var f sourceFlags
	var address string
	c := &cobra.Command{
		Use:   "serve [-f PATH...] [--address HOST:PORT]",
		Short: "Serve a read-only web view: topology, policies by standing, object and policy pages, search",
		Long: `Serves a web view of the objects read from files (-f) or the live cluster
of the kubeconfig: an overview (GatewayClasses, Gateways with their route
and policy counts), the topology around any object with its policies
coloured by standing (Enforced, PartiallyEnforced, Overridden, Conflicted,
Invalid, TargetNotFound), each object's page (what strata describe says),
each policy's page (where it is in force, and what deleting it would
change, as strata impact --delete says) and a search by name, kind,
namespace and label. The pages are embedded in the binary. See
docs/web.md.

Read from a cluster, the view is what the kubeconfig's user may read (the
kinds it may not are named "not visible to you"); it watches the kinds it
read, and on a change reads the cluster again and the open pages reload.`,
		Example: `  strata serve -f examples/parable/
  strata serve --address 127.0.0.1:9000`,
		Args: arity(0, 0),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmp.Or(c.Context(), context.Background()), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runServe(ctx, Streams{In: s.In, Out: s.Out, Err: &lockedWriter{w: s.Err}}, &f, address)
		},
	}
	f.bind(c)
	c.Flags().StringVar(&address, "address", "127.0.0.1:8088", "the address to listen on (HOST:PORT); the default answers this machine only")
	return c
}

// runServe loads the source and serves it until ctx is done, following a cluster.
func runServe(ctx context.Context, s Streams, f *sourceFlags, address string) error {
	m, err := f.mode()
	if err != nil {
		return err
	}
	res, err := f.load(s)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", address)
	if err != nil {
		return fmt.Errorf("--address %s: %w", address, err)
	}
	srv := web.NewServer(worldOf(f, m, res), web.Limits{})
	if m != sourceFiles {
		changed := make(chan struct{}, 1)
		seen := &events{}
		if err := watchCluster(ctx, s, f, res, changed, seen.add, "strata serve"); err != nil {
			l.Close()
			return err
		}
		go follow(ctx, s, f, m, srv, changed, seen)
	}
	return serve(ctx, s, l, srv)
}

// events are what the watches saw since follow last took them.
type events struct {
	mu   sync.Mutex
	list []watch.Event
}

func (e *events) add(ev watch.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, ev)
}

func (e *events) take() []watch.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.list
	e.list = nil
	return out
}

// worldOf is the web view of a load, with what the source could not read.
func worldOf(f *sourceFlags, m sourceMode, res *engine.Result) *web.World {
	w := web.NewWorld(res)
	w.Source = "files"
	if m != sourceFiles {
		w.Source, w.Live = "the cluster of the kubeconfig", true
		if m == sourceClusterWithFiles {
			w.Source += ", with files laid over it"
		}
	}
	for _, u := range f.unreadable {
		w.NotVisible = append(w.NotVisible, fmt.Sprintf("%s (%s)", u.GVK.GroupKind(), strings.ToLower(string(u.Reason))))
	}
	return w
}

// follow serves the source again each time a watch sees a change. The
// first change reads the cluster again (it also covers what changed
// before the watches began) and keeps a live model of what it read
// (docs/live-model.md); the model then takes the objects the watches
// report, as changes, and reads the cluster again only for what it
// cannot take: a lost watch, a declaration, a kind it does not know, or a
// view laid over with files or published records.
func follow(ctx context.Context, s Streams, f *sourceFlags, m sourceMode, srv *web.Server, changed <-chan struct{}, seen *events) {
	var model *engine.Model
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
		batch := seen.take()
		if model != nil && m == sourceCluster && f.published == nil {
			if cs, ok := changesOf(model.Result(), batch); ok {
				if next, _, err := model.Apply(cs...); err == nil {
					model = next
					srv.Set(worldOf(f, m, next.Result()))
					continue
				}
			}
		}
		f.keepModel = true
		res, err := f.load(s)
		if err != nil {
			model = nil
			fmt.Fprintf(s.Err, "warning: strata serve: reading the cluster again after a change: %v; still showing the previous read\n", err)
			continue
		}
		model = f.model
		srv.Set(worldOf(f, m, res))
	}
}

// changesOf are the objects of watch events as changes to res's input:
// typed for the kinds of the hierarchy, as read for policies of res's
// kinds; false for any other event.
func changesOf(res *engine.Result, batch []watch.Event) ([]snapshot.Change, bool) {
	out := make([]snapshot.Change, 0, len(batch))
	for _, ev := range batch {
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok || ev.Type == watch.Error {
			return nil, false
		}
		gk := u.GroupVersionKind().GroupKind()
		c := snapshot.Change{Object: u, Deleted: ev.Type == watch.Deleted}
		if k, isTyped := typed.Kinds[gk]; isTyped {
			obj := k.New()
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
				return nil, false
			}
			c.Object = obj
		} else if res.Of(gk) == nil {
			return nil, false
		}
		out = append(out, c)
	}
	return out, true
}

// watchCluster starts a watch on every kind the source reads.
// Each event is given to record, when it is not nil; a watch that lost
// its place gives an event of type Error.
func watchCluster(ctx context.Context, s Streams, f *sourceFlags, res *engine.Result, changed chan<- struct{}, record func(watch.Event), who string) error {
	cfg, err := f.kube.ToRESTConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	mapper, err := f.kube.ToRESTMapper()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	gvrs := map[schema.GroupVersionResource]bool{
		{Group: cluster.CRDGVK.Group, Version: cluster.CRDGVK.Version, Resource: "customresourcedefinitions"}: true,
	}
	kinds := []schema.GroupKind{cluster.PolicyKindGVK.GroupKind()}
	for _, row := range hierarchy.Table {
		kinds = append(kinds, row.GroupKind)
	}
	for _, k := range res.PolicyKinds() {
		kinds = append(kinds, k.Key())
	}
	for _, gk := range kinds {
		if m, err := mapper.RESTMapping(gk); err == nil {
			gvrs[m.Resource] = true // not served: nothing to watch
		}
	}
	ns, all := f.namespaceScope()
	if all {
		ns = ""
	}
	// Serve only once every watch is established, so no later change is missed.
	var ready sync.WaitGroup
	var mu sync.Mutex
	var refused []string
	refuse := func(gvr schema.GroupVersionResource, err error) {
		mu.Lock()
		defer mu.Unlock()
		what := "not allowed"
		if !apierrors.IsForbidden(err) {
			what = err.Error()
		}
		refused = append(refused, fmt.Sprintf("%s (%s)", gvr.GroupResource(), what))
	}
	for gvr := range gvrs {
		ready.Add(1)
		go watchKind(ctx, dyn, gvr, ns, changed, record, ready.Done, refuse)
	}
	ready.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(refused) > 0 {
		slices.Sort(refused)
		fmt.Fprintf(s.Err, "note: %s: changes to %s are not followed; what is shown has them as read at start\n", who, strings.Join(refused, ", "))
	}
	return nil
}

// watchKind follows one kind in every namespace (or ns) from the resource version of a one-item list.
func watchKind(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns string, changed chan<- struct{}, record func(watch.Event), ready func(), refuse func(schema.GroupVersionResource, error)) {
	var once sync.Once
	defer once.Do(ready)
	signal := func(ev watch.Event) {
		if record != nil {
			record(ev)
		}
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	ri := dynamic.ResourceInterface(dyn.Resource(gvr))
	scoped := false
	rv := ""
	for ctx.Err() == nil {
		if rv == "" {
			l, err := ri.List(ctx, metav1.ListOptions{Limit: 1})
			if apierrors.IsForbidden(err) && !scoped && ns != "" {
				ri, scoped = dyn.Resource(gvr).Namespace(ns), true
				continue
			}
			if err != nil {
				if ctx.Err() == nil {
					refuse(gvr, err)
				}
				return
			}
			rv = l.GetResourceVersion()
		}
		w, err := ri.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			if ctx.Err() == nil {
				refuse(gvr, err)
			}
			return
		}
		once.Do(ready)
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				rv = "" // expired: list again
				signal(ev)
				break
			}
			if o, ok := ev.Object.(metav1.Object); ok && o.GetResourceVersion() != "" {
				rv = o.GetResourceVersion()
			}
			if ev.Type != watch.Bookmark {
				signal(ev)
			}
		}
		w.Stop()
		if ctx.Err() == nil && rv != "" {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// lockedWriter serializes writes: the server, the watches and the reloads all write to stderr.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// serve answers h on l until ctx is done, then shuts down within a second.
func serve(ctx context.Context, s Streams, l net.Listener, h http.Handler) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(s.Err, "strata serve: http://%s/ (Ctrl-C stops)\n", l.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); errors.Is(err, context.DeadlineExceeded) {
		return hs.Close()
	} else if err != nil {
		return err
	}
	return nil
}
