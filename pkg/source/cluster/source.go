// Package cluster reads a cluster through a controller-runtime reader:
// the controller a snapshot from its informer cache (Reader.Snapshot), the
// CLI the same objects, unstructured, with a person's permissions
// (Reader.Objects), decoded as files are.
package cluster

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/hierarchy/typed"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
)

// TopologyKind is a kind the topology is built from, with the list type
// to read it and where its items go in a snapshot.
type TopologyKind struct {
	GVK  schema.GroupVersionKind
	New  func() client.Object
	List func() client.ObjectList
	Add  func(s *snapshot.Snapshot, l client.ObjectList)
}

// TopologyKinds are the kinds read (and watched by the controller) for
// the topology: every row of hierarchy.Table, with its typed.Kinds types.
var TopologyKinds = func() []TopologyKind {
	out := make([]TopologyKind, 0, len(hierarchy.Table))
	for _, row := range hierarchy.Table {
		k := typed.Kinds[row.GroupKind]
		out = append(out, TopologyKind{
			GVK:  row.GroupVersionKind(),
			New:  func() client.Object { return k.New().(client.Object) },
			List: func() client.ObjectList { return k.NewList().(client.ObjectList) },
			Add:  func(s *snapshot.Snapshot, l client.ObjectList) { k.AddList(s, l) },
		})
	}
	return out
}()

// CRDGVK and PolicyKindGVK are the declaration sources.
var (
	CRDGVK        = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")
	PolicyKindGVK = schema.GroupVersionKind{Group: policykind.Group, Version: policykind.Version, Kind: policykind.KindName}
)

// AddToScheme registers the typed kinds the source reads.
func AddToScheme(s *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, gwv1.Install, gwv1b1.Install, apiextensionsv1.AddToScheme} {
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}

// PolicyGVK is a policy kind as served by the cluster.
type PolicyGVK struct {
	schema.GroupVersionKind
	// Namespaced is false for cluster-scoped policy CRDs.
	Namespaced bool
}

// Reader reads a cluster. Present says whether the cluster serves a kind
// (its CRD may not be installed); absent kinds are left empty.
type Reader struct {
	Client  client.Reader
	Present func(schema.GroupVersionKind) bool
	// Progress, when set, is called before each kind is listed.
	Progress func(schema.GroupVersionKind)
	// Namespace, when set, is where Objects lists a namespaced topology
	// kind it may not list in every namespace (Objects.NamespaceOnly).
	// Policy kinds are never read in part (an answer built on some of a
	// kind's policies would be wrong, not incomplete): a forbidden one is
	// Unreadable, and its published EffectivePolicy objects answer instead.
	Namespace string
	// Readable, when set, says whether a kind may be read: Snapshot leaves
	// out a kind it is false for, as if not served (a forbidden list
	// through an informer cache never returns). Refused CRDs fail the read.
	Readable func(context.Context, schema.GroupVersionKind) (bool, error)
	// Builtin are the kinds of the engine's catalogue, read as declared
	// kinds are.
	Builtin []schema.GroupKind
}

// Snapshot lists every object the engine needs. Policy kinds come from
// PolicyKind objects and labelled CRDs; their instances are read for each
// kind whose CRD is established. Any list error fails the read: the
// controller must not write status computed from part of the cluster.
func (r *Reader) Snapshot(ctx context.Context) (*snapshot.Snapshot, []PolicyGVK, error) {
	s := &snapshot.Snapshot{}
	for _, k := range TopologyKinds {
		if ok, err := r.reads(ctx, k.GVK, true); err != nil {
			return nil, nil, err
		} else if !ok {
			continue
		}
		l := k.List()
		r.progress(k.GVK)
		if err := r.Client.List(ctx, l); err != nil {
			return nil, nil, fmt.Errorf("list %s: %w", k.GVK.Kind, err)
		}
		k.Add(s, l)
	}
	if ok, err := r.reads(ctx, CRDGVK, false); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("may not list and watch CustomResourceDefinitions: no policy kind can be known")
		}
		return nil, nil, err
	}
	r.progress(CRDGVK)
	crdList := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := r.Client.List(ctx, crdList); err != nil {
		return nil, nil, fmt.Errorf("list CustomResourceDefinitions: %w", err)
	}
	crds := ptrs(crdList.Items)
	if ok, err := r.reads(ctx, PolicyKindGVK, true); err != nil {
		return nil, nil, err
	} else if ok {
		r.progress(PolicyKindGVK)
		l := newList(PolicyKindGVK)
		if err := r.Client.List(ctx, l); err != nil {
			return nil, nil, fmt.Errorf("list PolicyKinds: %w", err)
		}
		if s.Declarations, err = declarations(l); err != nil {
			return nil, nil, err
		}
	}
	pcrds, err := policyCRDs(crds, r.declared(s.Declarations))
	if err != nil {
		return nil, nil, err
	}
	for _, c := range pcrds {
		if c.labelled {
			s.PolicyCRDs = append(s.PolicyCRDs, c.object)
		}
		s.CRDs = append(s.CRDs, c.object)
	}
	var kinds []PolicyGVK
	for _, k := range policyKinds(crds, r.declared(s.Declarations)) {
		if ok, err := r.reads(ctx, k.GroupVersionKind, false); err != nil {
			return nil, nil, err
		} else if ok {
			kinds = append(kinds, k)
		}
	}
	for _, k := range kinds {
		l := newList(k.GroupVersionKind)
		r.progress(k.GroupVersionKind)
		if err := r.Client.List(ctx, l); err != nil {
			if meta.IsNoMatchError(err) {
				continue
			}
			return nil, nil, fmt.Errorf("list %s: %w", k.Kind, err)
		}
		for i := range l.Items {
			s.Policies = append(s.Policies, &l.Items[i])
		}
	}
	return s, kinds, nil
}

// reads reports whether Snapshot may read a kind (Readable), and, when
// served is true, whether the cluster serves it (Present).
func (r *Reader) reads(ctx context.Context, gvk schema.GroupVersionKind, served bool) (bool, error) {
	if served && !r.Present(gvk) {
		return false, nil
	}
	if r.Readable == nil {
		return true, nil
	}
	return r.Readable(ctx, gvk)
}

// Objects is what Reader.Objects read: Snapshot's objects as the API
// server returned them, plus the kinds it was not allowed to read.
type Objects struct {
	// Items have apiVersion and kind set and no metadata.managedFields.
	Items []*unstructured.Unstructured
	// Kinds are the policy kinds found, as Snapshot returns them.
	Kinds []PolicyGVK
	// Unreadable are the kinds whose list was forbidden (RBAC), sorted.
	Unreadable []Unreadable
	// NamespaceOnly are the topology kinds listed in Reader.Namespace
	// only.
	NamespaceOnly []schema.GroupVersionKind
}

// Unreadable is a kind the reader was not allowed to list.
type Unreadable struct {
	GVK     schema.GroupVersionKind
	Reason  metav1.StatusReason // the API server's, e.g. Forbidden
	Message string              // the API server's, naming user and verb
}

// Objects lists, unstructured, everything Snapshot reads, for a client
// that may lack permissions: a kind whose list is forbidden is recorded in
// Unreadable; any other list error fails the read. Without CRDs no policy
// kind, and so no policy, can be listed.
func (r *Reader) Objects(ctx context.Context) (*Objects, error) {
	out := &Objects{}
	for _, k := range TopologyKinds {
		if !r.Present(k.GVK) {
			continue
		}
		l := newList(k.GVK)
		denied, err := r.listIn(ctx, k.GVK, l, "")
		if err != nil {
			return nil, err
		}
		if denied != nil && r.Namespace != "" && hierarchy.Kinds[k.GVK.GroupKind()].Namespaced {
			inNs, err := r.listIn(ctx, k.GVK, l, r.Namespace)
			if err != nil {
				return nil, err
			}
			if inNs == nil {
				denied = nil
				out.NamespaceOnly = append(out.NamespaceOnly, k.GVK)
			}
		}
		if denied != nil {
			out.deny(k.GVK, denied)
			continue
		}
		out.add(l)
	}
	crdList := &apiextensionsv1.CustomResourceDefinitionList{}
	if _, err := r.list(ctx, CRDGVK, crdList, out); err != nil {
		return nil, err
	}
	crds := ptrs(crdList.Items)
	var decls []*policykind.Declaration
	if r.Present(PolicyKindGVK) {
		l := newList(PolicyKindGVK)
		ok, err := r.list(ctx, PolicyKindGVK, l, out)
		if err != nil {
			return nil, err
		}
		if ok {
			if decls, err = declarations(l); err != nil {
				return nil, err
			}
			out.add(l)
		}
	}
	pcrds, err := policyCRDs(crds, r.declared(decls))
	if err != nil {
		return nil, err
	}
	for _, c := range pcrds {
		c.object.SetGroupVersionKind(CRDGVK) // typed list items carry no kind
		out.Items = append(out.Items, clean(c.object))
	}
	out.Kinds = policyKinds(crds, r.declared(decls))
	for _, k := range out.Kinds {
		l := newList(k.GroupVersionKind)
		ok, err := r.list(ctx, k.GroupVersionKind, l, out)
		if meta.IsNoMatchError(err) {
			continue // the CRD went away since it was listed
		}
		if err != nil {
			return nil, err
		}
		if ok {
			out.add(l)
		}
	}
	sort.Slice(out.Unreadable, func(i, j int) bool {
		return out.Unreadable[i].GVK.GroupKind().String() < out.Unreadable[j].GVK.GroupKind().String()
	})
	return out, nil
}

// list lists one kind for Objects: false without error when the list was
// forbidden, which is recorded.
func (r *Reader) list(ctx context.Context, gvk schema.GroupVersionKind, l client.ObjectList, out *Objects) (bool, error) {
	denied, err := r.listIn(ctx, gvk, l, "")
	if err != nil {
		return false, err
	}
	if denied != nil {
		out.deny(gvk, denied)
		return false, nil
	}
	return true, nil
}

// listIn lists one kind in a namespace ("": all of them). A forbidden
// list is not an error: denied is the API server's answer.
func (r *Reader) listIn(ctx context.Context, gvk schema.GroupVersionKind, l client.ObjectList, ns string, opts ...client.ListOption) (denied, err error) {
	r.progress(gvk)
	err = r.Client.List(ctx, l, append(opts, client.InNamespace(ns))...)
	switch {
	case err == nil:
		return nil, nil
	case apierrors.IsForbidden(err):
		return err, nil
	case ns != "":
		return nil, fmt.Errorf("list %s in namespace %s: %w", gvk.GroupKind(), ns, err)
	default:
		return nil, fmt.Errorf("list %s: %w", gvk.GroupKind(), err)
	}
}

// deny records a kind Objects may not list.
func (o *Objects) deny(gvk schema.GroupVersionKind, err error) {
	o.Unreadable = append(o.Unreadable, Unreadable{GVK: gvk, Reason: apierrors.ReasonForError(err), Message: err.Error()})
}

func (r *Reader) progress(gvk schema.GroupVersionKind) {
	if r.Progress != nil {
		r.Progress(gvk)
	}
}

// add appends the items of an unstructured list.
func (o *Objects) add(l *unstructured.UnstructuredList) {
	for i := range l.Items {
		o.Items = append(o.Items, clean(&l.Items[i]))
	}
}

// clean drops metadata.managedFields, the API server's bookkeeping.
func clean(u *unstructured.Unstructured) *unstructured.Unstructured {
	u.SetManagedFields(nil)
	return u
}

// newList is an empty unstructured list of a kind.
func newList(gvk schema.GroupVersionKind) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	return l
}

// declarations converts listed PolicyKind objects.
func declarations(l *unstructured.UnstructuredList) ([]*policykind.Declaration, error) {
	var out []*policykind.Declaration
	for i := range l.Items {
		d := &policykind.Declaration{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(l.Items[i].Object, d); err != nil {
			return nil, fmt.Errorf("PolicyKind %s: %w", l.Items[i].GetName(), err)
		}
		out = append(out, d)
	}
	return out, nil
}

// declared are the kinds PolicyKinds declare and the reader's built-in
// ones: their CRDs are read, labelled or not.
func (r *Reader) declared(decls []*policykind.Declaration) map[schema.GroupKind]bool {
	out := map[schema.GroupKind]bool{}
	for _, d := range decls {
		out[schema.GroupKind{Group: d.Spec.Group, Kind: d.Spec.Kind}] = true
	}
	for _, gk := range r.Builtin {
		out[gk] = true
	}
	return out
}

// policyKinds are the kinds to read policies of: those of CRDs labelled
// gateway.networking.k8s.io/policy or declared by a PolicyKind, whose CRD
// is established, at its storage version; sorted.
func policyKinds(crds []*apiextensionsv1.CustomResourceDefinition, declared map[schema.GroupKind]bool) []PolicyGVK {
	var kinds []PolicyGVK
	for _, crd := range crds {
		gk := definedKind(crd)
		_, labelled := crd.Labels[policykind.CRDLabel]
		if !labelled && !declared[gk] || !established(crd) {
			continue
		}
		kinds = append(kinds, PolicyGVK{GroupVersionKind: gk.WithVersion(storageVersion(crd)), Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped})
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].String() < kinds[j].String() })
	return kinds
}

// policyCRD is the CRD of a policy kind as a snapshot holds it.
type policyCRD struct {
	object   *unstructured.Unstructured
	labelled bool // gateway.networking.k8s.io/policy: it declares its kind
}

// policyCRDs are the CRDs Snapshot and Objects read, unstructured:
// labelled ones, and those of declared kinds (their schema bounds their
// status).
func policyCRDs(crds []*apiextensionsv1.CustomResourceDefinition, declared map[schema.GroupKind]bool) ([]policyCRD, error) {
	var out []policyCRD
	for _, crd := range crds {
		_, labelled := crd.Labels[policykind.CRDLabel]
		if !labelled && !declared[definedKind(crd)] {
			continue
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
		if err != nil {
			return nil, fmt.Errorf("CustomResourceDefinition %s: %w", crd.Name, err)
		}
		out = append(out, policyCRD{object: &unstructured.Unstructured{Object: u}, labelled: labelled})
	}
	return out, nil
}

// definedKind is the kind a CustomResourceDefinition defines.
func definedKind(crd *apiextensionsv1.CustomResourceDefinition) schema.GroupKind {
	return schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

// storageVersion is the version to read (every served one converts to it).
func storageVersion(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return crd.Spec.Versions[0].Name
}

func ptrs[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}
