package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"weak"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/policykind/builtin"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/source/cluster"
	"github.com/strata-dev/strata/pkg/source/files"
)

// sourceFlags choose where a command's objects come from.
type sourceFlags struct {
	files         []string
	withFiles     []string
	allNamespaces bool // -A: commands that list objects list them all.
	strict        bool // --strict: engine.Options.Strict.
	kube          *genericclioptions.ConfigFlags
	connection    map[string]bool // the flags kube added; flags are the command's.
	flags         *pflag.FlagSet

	unreadable    []cluster.Unreadable      // the kinds the last load was not allowed to read (see readable).
	namespaceOnly []schema.GroupVersionKind // the kinds the last load read in one namespace only.
	// published answers for the kinds the last load could not read (query.Published).
	published          *query.Published
	answersFromRecords bool
	// recordsWhen, when set, has every published record read when it says so of what was read.
	recordsWhen func(*cluster.Objects) bool
	seen        query.Seen // what the last load could see of the policies, and the records it read.
	// read is what the last load read, for commands that name where an object came from (see places).
	read *files.Result
	last *engine.Result // the last load's result (--watch follows its policy kinds).
	// keepModel makes a load also keep its live model, in model (serve).
	keepModel bool
	model     *engine.Model
}

// places are where the objects of the last load were read in files.
func (f *sourceFlags) places() map[files.Key]files.Document {
	if f.read == nil {
		return nil
	}
	return f.read.Places
}

func (f *sourceFlags) bind(c *cobra.Command) {
	fl := c.Flags()
	fl.StringSliceVarP(&f.files, "filename", "f", nil, "files, directories (recursive) or - for stdin; multi-document YAML, JSON and List objects. Without -f, the live cluster of the kubeconfig is read")
	fl.StringSliceVar(&f.withFiles, "with-file", nil, "read the live cluster with the objects of these files laid over it (same group, kind, namespace and name replaces; new objects are added): the answer after applying them. Not with -f")
	fl.BoolVar(&f.strict, "strict", false, "a policy of a kind nothing declares (no PolicyKind, labelled CRD or built-in declaration; see strata kinds) is an error, not a warning that skips it")
	fl.BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "commands that list objects list those of every namespace (default: the -n namespace, or the kubeconfig context's)")
	f.kube = genericclioptions.NewConfigFlags(true)
	// No discovery cache on disk, and no basic auth (it would prompt on stdin).
	f.kube.CacheDir, f.kube.Username, f.kube.Password = nil, nil, nil
	kube := pflag.NewFlagSet("kube", pflag.ContinueOnError)
	f.kube.AddFlags(kube)
	f.connection = map[string]bool{}
	kube.VisitAll(func(k *pflag.Flag) { f.connection[k.Name] = true })
	fl.AddFlagSet(kube)
	f.flags = fl
	f.completeFlag(c, "namespace", completeNamespace)
}

// completeFlag registers the completion function of a command's flag that reads what f reads.
func (f *sourceFlags) completeFlag(c *cobra.Command, flag string, fn func(*sourceFlags) cobra.CompletionFunc) {
	w := weak.Make(f)
	_ = c.RegisterFlagCompletionFunc(flag, func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		f := w.Value()
		if f == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return fn(f)(c, args, toComplete)
	})
}

// sourceMode is the source the flags ask for.
type sourceMode int

const (
	sourceFiles sourceMode = iota
	sourceCluster
	sourceClusterWithFiles
)

func (f *sourceFlags) mode() (sourceMode, error) {
	switch {
	case len(f.files) > 0 && len(f.withFiles) > 0:
		return 0, fmt.Errorf("-f (--filename) and --with-file cannot be used together: -f reads only files; --with-file lays files over the live cluster")
	case len(f.files) > 0:
		// -n stays meaningful offline; the other connection flags would be ignored.
		var given []string
		f.flags.Visit(func(fl *pflag.Flag) {
			if f.connection[fl.Name] && fl.Name != "namespace" {
				given = append(given, "--"+fl.Name)
			}
		})
		if len(given) > 0 {
			return 0, fmt.Errorf("%s: -f reads only files and contacts no cluster; to lay files over the live cluster use --with-file", strings.Join(given, ", "))
		}
		return sourceFiles, nil
	case len(f.withFiles) > 0:
		return sourceClusterWithFiles, nil
	default:
		return sourceCluster, nil
	}
}

// load reads the objects and runs the engine, noting problems on stderr.
func (f *sourceFlags) load(s Streams) (*engine.Result, error) { return f.loadScoped(s, nil) }

// loadScoped is load with engine.RunScoped (Run when scope is nil).
func (f *sourceFlags) loadScoped(s Streams, scope func(*engine.Result) []topology.NodeID) (*engine.Result, error) {
	m, err := f.mode()
	if err != nil {
		return nil, err
	}
	return f.loadFrom(s, m, scope)
}

// loadScopedIf is loadScoped under scope when scoped, else the complete run, for tests to compare.
func (f *sourceFlags) loadScopedIf(s Streams, scoped bool, scope func(*engine.Result) []topology.NodeID) (*engine.Result, error) {
	if !scoped {
		scope = nil
	}
	return f.loadScoped(s, scope)
}

// loadFrom is loadScoped from the source m (mode) names.
func (f *sourceFlags) loadFrom(s Streams, m sourceMode, scope func(*engine.Result) []topology.NodeID) (*engine.Result, error) {
	src, err := f.readSource(s, m)
	if err != nil {
		return nil, err
	}
	f.read = src
	if len(src.Ignored) > 0 {
		var kinds []string
		for k, n := range src.Ignored {
			kinds = append(kinds, fmt.Sprintf("%s(%d)", k, n))
		}
		sort.Strings(kinds)
		fmt.Fprintf(s.Err, "note: ignored objects of kinds outside Strata's hierarchy: %s\n", strings.Join(kinds, ", "))
	}
	if len(f.namespaceOnly) > 0 {
		var kinds []string
		for _, k := range f.namespaceOnly {
			kinds = append(kinds, k.GroupKind().String())
		}
		ns, _ := f.namespaceScope()
		fmt.Fprintf(s.Err, "note: read %s in namespace %s only: you cannot list them in every namespace\n", strings.Join(kinds, ", "), ns)
	}
	var kinds []string
	for _, u := range f.unreadable {
		if !f.published.Covers(u.GVK.GroupKind()) {
			kinds = append(kinds, fmt.Sprintf("%s (%s)", u.GVK.GroupKind(), strings.ToLower(string(u.Reason))))
		}
	}
	if len(kinds) > 0 {
		fmt.Fprintf(s.Err, "warning: could not read %s; the answer may be incomplete\n", strings.Join(kinds, ", "))
	}
	if f.published != nil {
		fmt.Fprintln(s.Err, f.published.Notice())
	}
	catalogue, err := builtin.Catalogue()
	if err != nil {
		return nil, err
	}
	opts := engine.Options{Lenient: m != sourceFiles, Catalogue: catalogue, Strict: f.strict}
	var res *engine.Result
	switch {
	case scope == nil && f.keepModel:
		if f.model, err = engine.NewModel(src.Snapshot, opts); err == nil {
			res = f.model.Result()
		}
	case scope == nil:
		res, err = engine.Run(src.Snapshot, opts)
	default:
		res, err = engine.RunScoped(src.Snapshot, opts, scope)
	}
	if err != nil {
		return nil, placed(err, src)
	}
	f.last = res
	for _, e := range res.Errors {
		fmt.Fprintf(s.Err, "warning: skipped: %s\n", strings.ReplaceAll(placed(e, src).Error(), "\n", "; "))
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(s.Err, "warning: %s\n", strings.ReplaceAll(w.Error(), "\n", "; "))
	}
	// What the API server would have said about a policy of the files.
	for _, p := range res.Policies {
		if len(p.Warnings) == 0 {
			continue
		}
		where := src.Where(files.Key{Group: p.Kind.Group, Kind: p.Kind.Kind, Namespace: p.Namespace, Name: p.Name})
		for _, w := range p.Warnings {
			fmt.Fprintf(s.Err, "warning: %s: %s\n", where, w)
		}
	}
	// Objects the topology could not use as given are warnings; the rest is evaluated.
	for _, p := range res.Graph.Problems {
		fmt.Fprintf(s.Err, "warning: %s\n", p.Error())
	}
	return res, nil
}

// placed names the file and document of the declarations err is about.
func placed(err error, src *files.Result) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs := joined.Unwrap()
		out := make([]error, len(errs))
		for i, e := range errs {
			out[i] = placed(e, src)
		}
		return errors.Join(out...)
	}
	var u *engine.UndeclaredError
	if errors.As(err, &u) {
		k := files.Key{Group: u.Kind.Group, Kind: u.Kind.Kind, Namespace: u.Namespace, Name: u.Name}
		if _, ok := src.Places[k]; ok {
			return fmt.Errorf("%s: %s", src.Where(k), u.Reason())
		}
		return err
	}
	var d *engine.DeclarationError
	if !errors.As(err, &d) {
		return err
	}
	at, ok := src.Places[files.Key{Group: d.Group, Kind: d.Kind, Name: d.Name}]
	if !ok {
		return err
	}
	return fmt.Errorf("%s: %w", at.Where(), err)
}

// readSource returns the decoded objects of the chosen source.
func (f *sourceFlags) readSource(s Streams, m sourceMode) (*files.Result, error) {
	f.unreadable, f.namespaceOnly, f.published, f.seen = nil, nil, nil, query.Seen{}
	if m == sourceFiles {
		// Namespaced objects without a namespace go to -n, else default, as kubectl apply -f.
		ns := ""
		if f.kube.Namespace != nil {
			ns = *f.kube.Namespace
		}
		return files.ReadIn(f.files, s.In, ns)
	}
	var over []files.Document
	if m == sourceClusterWithFiles {
		// Files first: a typo in a file fails before the cluster is read.
		var err error
		if over, err = files.Documents(f.withFiles, s.In); err != nil {
			return nil, err
		}
	}
	cl, err := connectCluster(f.kube, s)
	if err != nil {
		if errors.Is(err, errNoKubeconfig) {
			return nil, fmt.Errorf("no cluster to read: %w; to read files, give -f (--filename)", err)
		}
		return nil, err
	}
	within, all := f.namespaceScope()
	if all {
		within = ""
	}
	objs, records, err := cl.read(context.Background(), newProgressLine(s.Err), within, f.recordsWhen)
	if err != nil {
		return nil, err
	}
	f.unreadable, f.namespaceOnly, f.seen = objs.Unreadable, objs.NamespaceOnly, seenOf(objs, records)
	if f.answersFromRecords {
		f.published = query.NewPublished(f.seen)
	}
	docs := make([]files.Document, len(objs.Items))
	for i, u := range objs.Items {
		docs[i] = files.Document{File: "cluster", Object: u}
	}
	ns := ""
	if m == sourceClusterWithFiles {
		if ns, _, err = f.kube.ToRawKubeConfigLoader().Namespace(); err != nil {
			return nil, fmt.Errorf("kubeconfig: %w", err)
		}
		cl.defaultNamespace(over, ns)
		docs = files.Overlay(docs, over, time.Now())
	}
	// Kinds the server does not serve yet are put in ns by Decode.
	return files.DecodeIn(docs, ns)
}

// namespaceScope is the scope of commands that list objects: -A, -n, the kubeconfig's, or all.
func (f *sourceFlags) namespaceScope() (ns string, all bool) {
	if f.allNamespaces {
		return "", true
	}
	if f.kube.Namespace != nil && *f.kube.Namespace != "" {
		return *f.kube.Namespace, false
	}
	if len(f.files) > 0 {
		return "", true
	}
	ns, _, err := f.kube.ToRawKubeConfigLoader().Namespace()
	if err != nil || ns == "" {
		return "default", false
	}
	return ns, false
}

// onlyNamespace is the namespace -n names, unless -A.
func (f *sourceFlags) onlyNamespace() string {
	if f.allNamespaces || f.kube.Namespace == nil {
		return ""
	}
	return *f.kube.Namespace
}

// inNamespace reports whether an object of namespace ns is printed under onlyNamespace.
func (f *sourceFlags) inNamespace(ns string) bool {
	only := f.onlyNamespace()
	return only == "" || ns == "" || ns == only
}

// readable is nil unless the last load could not read kind gk.
func (f *sourceFlags) readable(gk schema.GroupKind) error {
	if f.published.Covers(gk) {
		return nil // answered from the published records
	}
	for _, u := range f.unreadable {
		if u.GVK.GroupKind() != gk {
			continue
		}
		err := fmt.Errorf("cannot read %s (%s): %s", gk, strings.ToLower(string(u.Reason)), u.Message)
		if _, ok := hierarchy.Kinds[gk]; ok && gk.Group == hierarchy.GatewayGroup {
			// The usual cause: the built-in view role holds no Gateway API rules (docs/install.md).
			err = fmt.Errorf("%w; the built-in view role grants no Gateway API reads: the optional ClusterRole strata-gateway-api-viewer aggregates get, list and watch on them into it (kubectl apply --server-side -k config/view, or the chart's gatewayAPIViewer.enabled; docs/install.md, \"Gateway API reads for view\")", err)
		}
		return err
	}
	return nil
}
