package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/query"
)

// subjectArg reads KIND/NAME or KIND NAME as KIND/NAME.
func subjectArg(args []string) (string, error) {
	switch len(args) {
	case 1:
		return args[0], nil
	case 2:
		if strings.Contains(args[0], "/") {
			return "", fmt.Errorf("%q %q: give KIND/NAME or KIND NAME, not both", args[0], args[1])
		}
		return args[0] + "/" + args[1], nil
	}
	return "", fmt.Errorf("want KIND/NAME or KIND NAME")
}

// subjectArgs reads several objects as KIND/NAME each, as kubectl describe TYPE NAME...
func subjectArgs(args []string) ([]string, error) {
	if !strings.Contains(args[0], "/") {
		out := make([]string, 0, len(args)-1)
		for _, a := range args[1:] {
			if strings.Contains(a, "/") {
				return nil, fmt.Errorf("%q %q: give KIND NAME... or KIND/NAME..., not both", args[0], a)
			}
			out = append(out, args[0]+"/"+a)
		}
		return out, nil
	}
	for _, a := range args[1:] {
		if !strings.Contains(a, "/") {
			return nil, fmt.Errorf("%q after %q: give KIND NAME... or KIND/NAME..., not both", a, args[0])
		}
	}
	return args, nil
}

// pickSubject finds what arg names in ns, or with -A in the one namespace that holds it.
func pickSubject(f *sourceFlags, res *engine.Result, arg, ns string, all bool) (query.Subject, error) {
	if !all {
		return resolve(f, res, arg, ns)
	}
	if err := query.CheckSubject(arg); err != nil {
		return query.Subject{}, err
	}
	kind, name, _ := strings.Cut(f.subjectAlias(arg), "/")
	object, _, _ := strings.Cut(name, "#")
	k, err := query.ResolveKind(res, kind)
	if err != nil {
		return query.Subject{}, err
	}
	in := query.Namespaces(res, k, object)
	switch len(in) {
	case 0:
		if err := f.readable(k.GroupKind()); err != nil {
			return query.Subject{}, err
		}
		return query.Subject{}, query.NotFoundAnywhere(res, k, object)
	case 1:
		return resolve(f, res, arg, in[0])
	}
	return query.Subject{}, fmt.Errorf("%s is in namespaces %s: choose one with -n", arg, strings.Join(in, ", "))
}

// selectorFlags are kubectl's -l/--selector and --field-selector.
type selectorFlags struct{ label, field string }

func (s *selectorFlags) bind(c *cobra.Command) {
	c.Flags().StringVarP(&s.label, "selector", "l", "", "selector (label query) to choose objects, supports '=', '==', '!=', 'in', 'notin' (e.g. -l key1=value1,key2=value2); as kubectl")
	c.Flags().StringVar(&s.field, "field-selector", "", "selector (field query) to choose objects: metadata.name and metadata.namespace (e.g. --field-selector metadata.name=baker); as kubectl")
}

func (s *selectorFlags) given() bool { return s.label != "" || s.field != "" }

// kindAlias reads a policy kind's CRD short name as kind.group; others as they are.
func (f *sourceFlags) kindAlias(kind string) string {
	if f.read == nil || f.read.Snapshot == nil {
		return kind
	}
	snap := f.read.Snapshot
	for _, crd := range slices.Concat(snap.CRDs, snap.PolicyCRDs) {
		short, _, _ := unstructured.NestedStringSlice(crd.Object, "spec", "names", "shortNames")
		if !slices.ContainsFunc(short, func(s string) bool { return strings.EqualFold(s, kind) }) {
			continue
		}
		k, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
		g, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		if k != "" {
			return k + "." + g
		}
	}
	return kind
}

// subjectAlias is arg (KIND/NAME...) with its KIND read by kindAlias.
func (f *sourceFlags) subjectAlias(arg string) string {
	kind, rest, ok := strings.Cut(arg, "/")
	if !ok {
		return f.kindAlias(arg)
	}
	return f.kindAlias(kind) + "/" + rest
}
