package cli

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/query/routing"
)

// Dynamic shell completion, as cobra's `strata __complete` calls it.

// completionLoad runs the engine on the command's input, writing nothing; nil when unreadable.
func completionLoad(f *sourceFlags) *engine.Result {
	// cobra parses a completion's flags twice, and a repeated slice flag appends: -f a is then [a a].
	f.files, f.withFiles = unique(f.files), unique(f.withFiles)
	res, err := f.load(quiet())
	if err != nil {
		cobra.CompDebugln("strata: "+err.Error(), false)
		return nil
	}
	return res
}

// quiet are Streams that read nothing and write nowhere.
func quiet() Streams { return Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard} }

// completeFrom completes with the candidates list gives that start with what was typed.
func completeFrom(f *sourceFlags, list func(c *cobra.Command, args []string, toComplete string, res *engine.Result) []string) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		res := completionLoad(f)
		if res == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return prefixed(list(c, args, toComplete, res), toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeSubject completes KIND, then NAME, or KIND/NAME[#SECTION] in one word.
func completeSubject(f *sourceFlags, policies bool) cobra.CompletionFunc {
	return completeSubjectOf(f, func(k query.KindName) bool { return !policies || k.Policy != nil })
}

// completeSubjects is completeSubject for describe, which takes several objects.
func completeSubjects(f *sourceFlags) cobra.CompletionFunc {
	one := completeSubject(f, false)
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch {
		case len(args) > 0 && !strings.Contains(args[0], "/"):
			return one(c, args[:1], toComplete)
		case len(args) > 0:
			return one(c, nil, toComplete)
		}
		return one(c, args, toComplete)
	}
}

// completeObject is completeSubject for commands that never take a policy.
func completeObject(f *sourceFlags) cobra.CompletionFunc {
	return completeSubjectOf(f, func(k query.KindName) bool { return k.Policy == nil })
}

// completeSubjectOf is completeSubject offering the kinds keep keeps.
func completeSubjectOf(f *sourceFlags, keep func(query.KindName) bool) cobra.CompletionFunc {
	all := completeFrom(f, func(c *cobra.Command, args []string, toComplete string, res *engine.Result) []string {
		ns := namespaceOf(c, f)
		var out []string
		switch kind, rest, slash := strings.Cut(toComplete, "/"); {
		case len(args) == 1:
			out = subjectNames(res, args[0], ns, f.allNamespaces, "")
		case slash && strings.Contains(rest, "#"):
			object, _, _ := strings.Cut(rest, "#")
			if subj, err := query.Resolve(res, kind+"/"+object, ns); err == nil && subj.Policy == nil {
				for _, sec := range query.Sections(res, res.Graph.Node(subj.Node).Ref) {
					out = append(out, kind+"/"+object+"#"+sec)
				}
			}
		case slash:
			out = subjectNames(res, kind, ns, f.allNamespaces, kind+"/")
		default:
			for _, k := range query.KindNames(res) {
				if kn, err := query.ResolveKind(res, k); err == nil && keep(kn) {
					out = append(out, k)
				}
			}
		}
		return out
	})
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) >= 2 || (len(args) == 1 && strings.Contains(args[0], "/")) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return all(c, args, toComplete)
	}
}

// subjectNames are the names of the objects or policies of a kind, each after prefix.
func subjectNames(res *engine.Result, kind, ns string, all bool, prefix string) []string {
	k, err := query.ResolveKind(res, kind)
	if err != nil {
		return nil
	}
	var out []string
	for _, subj := range query.Subjects(res, k, "", ns, all, query.Selector{}) {
		name := ""
		if subj.Policy != nil {
			name = subj.Policy.Name
		} else {
			name = res.Graph.Node(subj.Node).Ref.Name
		}
		if !slices.Contains(out, prefix+name) {
			out = append(out, prefix+name)
		}
	}
	return out
}

// completeField completes explain's --field with the fields of the object's effective policies.
func completeField(f *sourceFlags) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		arg, err := subjectArg(args)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		res := completionLoad(f)
		if res == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		subj, err := pickSubject(f, res, arg, namespaceOf(c, f), f.allNamespaces)
		if err != nil || subj.Policy != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var ptrs []string
		for _, k := range query.Describe(res, subj.Node).Effective {
			for _, t := range k.Targets {
				for _, ctx := range t.Contexts {
					for _, fd := range ctx.Fields {
						ptrs = append(ptrs, fd.Field)
					}
				}
			}
		}
		return fieldCompletions(ptrs, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// fieldCompletions offers field pointers in the form being typed, each once, sorted.
func fieldCompletions(ptrs []string, toComplete string) []string {
	out := make([]string, 0, len(ptrs))
	for _, p := range ptrs {
		if !strings.HasPrefix(toComplete, "/") {
			p = dotted(p)
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return prefixed(slices.Compact(out), toComplete)
}

// dotted writes a JSON pointer as the dotted path query.FieldPointer reads back.
func dotted(ptr string) string {
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, `\`, `\\`), ".", `\.`)
	}
	return strings.Join(parts, ".")
}

// completeNamespace completes -n with the namespaces of the input.
func completeNamespace(f *sourceFlags) cobra.CompletionFunc {
	return completeFrom(f, func(_ *cobra.Command, _ []string, _ string, res *engine.Result) []string {
		var out []string
		for _, id := range res.Graph.ByKind(hierarchy.NamespaceKind) {
			out = append(out, res.Graph.Node(id).Ref.Name)
		}
		slices.Sort(out)
		return out
	})
}

// completeGet completes get: "policies" then a policy kind, or a policy kind then names.
func completeGet(f *sourceFlags) cobra.CompletionFunc {
	policyNames := completeSubject(f, true)
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch {
		case len(args) == 0:
			out, directive := policyNames(c, args, toComplete)
			return append(prefixed([]string{"policies"}, toComplete), out...), directive
		case !query.IsPolicies(args[0]) && !strings.Contains(args[0], "/"):
			return policyNames(c, args[:1], toComplete) // get KIND NAME...
		case !query.IsPolicies(args[0]):
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if len(args) == 1 {
			return policyNames(c, nil, toComplete)
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// prefixed keeps the candidates that start with what the user typed.
func prefixed(candidates []string, toComplete string) []cobra.Completion {
	var out []cobra.Completion
	for _, c := range candidates {
		if strings.HasPrefix(c, toComplete) {
			out = append(out, c)
		}
	}
	return out
}

// completeOutput completes a command's own -o.
func completeOutput(c *cobra.Command, formats ...string) {
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

// unique is s without repeats, in order.
func unique(s []string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// completeList completes the last item of a comma-separated list flag, without repeats.
func completeList(candidates []string, toComplete string) []cobra.Completion {
	i := strings.LastIndex(toComplete, ",")
	given := strings.Split(toComplete[:i+1], ",")
	var out []string
	for _, c := range candidates {
		if !slices.Contains(given, c) {
			out = append(out, toComplete[:i+1]+c)
		}
	}
	return prefixed(out, toComplete)
}

// completePolicyKinds completes a flag naming policy kinds of the input.
func completePolicyKinds(f *sourceFlags) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return completeList(policyKindsOf(f), toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// policyKindsOf are the policy kinds of the command's input, in lower case as they are typed.
func policyKindsOf(f *sourceFlags) []string {
	var out []string
	if res := completionLoad(f); res != nil {
		for _, k := range res.PolicyKinds() {
			out = append(out, strings.ToLower(k.Kind))
		}
	}
	return out
}

// completeObjectNamed completes a NAMESPACE/NAME flag with the objects of kinds.
func completeObjectNamed(f *sourceFlags, kinds ...schema.GroupKind) cobra.CompletionFunc {
	return completeFrom(f, func(_ *cobra.Command, _ []string, _ string, res *engine.Result) []string {
		return namespacedNames(res, kinds, "")
	})
}

// namespacedNames are prefix+NAMESPACE/NAME of the objects of kinds, in locator order.
func namespacedNames(res *engine.Result, kinds []schema.GroupKind, prefix string) []string {
	var out []string
	for _, gk := range kinds {
		for _, id := range res.Graph.ByKind(gk) {
			if n := res.Graph.Node(id); !n.Virtual && n.Ref.Section == "" {
				out = append(out, prefix+n.Ref.Namespace+"/"+n.Ref.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// completeRoute completes simulate --route, [KIND/]NAMESPACE/NAME, for the URL's scheme.
func completeRoute(f *sourceFlags) cobra.CompletionFunc {
	return completeFrom(f, func(_ *cobra.Command, args []string, _ string, res *engine.Result) []string {
		scheme := "http"
		if len(args) > 0 {
			if sc, _, ok := strings.Cut(args[len(args)-1], "://"); ok {
				scheme = strings.ToLower(sc)
			}
		}
		sc := routing.Schemes[scheme]
		var out []string
		for i, gk := range sc.Kinds {
			prefix := ""
			if i > 0 {
				prefix = strings.ToLower(gk.Kind) + "/"
			}
			out = append(out, namespacedNames(res, []schema.GroupKind{gk}, prefix)...)
		}
		return out
	})
}

// blueprintsIn reports whether the input holds GatewayClassBlueprints.
func blueprintsIn(f *sourceFlags) bool {
	if len(f.withFiles) > 0 {
		return false // explain --kind BlueprintValues refuses --with-file
	}
	w, _, _, err := readWorld(unique(f.files), f.kube, quiet(), blueprint.DefaultControllerName)
	return err == nil && len(w.Blueprints) > 0
}

// completeRenderField completes render --values --field with the merged values rendered.
func completeRenderField(f *renderFlags, kube *genericclioptions.ConfigFlags, all *bool) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		w, _, _, err := readWorld(unique(f.files), kube, quiet(), f.controllerName)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		_, jobs := blueprint.Plan(w, f.controllerName, f.namespace)
		if arg, aerr := subjectArg(args); aerr == nil {
			ns := "default"
			if *kube.Namespace != "" {
				ns = *kube.Namespace
			}
			if jobs, err = only(jobs, arg, ns, *all); err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
		}
		var ptrs []string
		for _, j := range jobs {
			if j.Err != nil || j.Values == nil {
				continue
			}
			for _, l := range j.Values.Leaves {
				ptrs = append(ptrs, l.Pointer)
			}
		}
		return fieldCompletions(ptrs, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}
