package cli

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/query"
)

// Dynamic shell completion (cobra's: `strata completion bash|zsh|fish|
// powershell` prints the script, which calls `strata __complete ...`
// while the user types). The candidates come from the command's own
// input, -f files or, without -f, the cluster (as kubectl completes from
// the cluster): kinds, names, sections and explain's field paths. A
// completion reads the input like the command would, quietly; when it
// cannot (no cluster, a bad file) it offers nothing rather than an error
// in the middle of a command line.

// completionLoad runs the engine on the command's input for a completion,
// with nothing written anywhere; nil when the input cannot be read.
func completionLoad(f *sourceFlags) *engine.Result {
	// cobra parses a completion's flags twice, and a repeated slice flag
	// appends: -f a is then [a a].
	f.files, f.withFiles = unique(f.files), unique(f.withFiles)
	res, err := f.load(Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	if err != nil {
		cobra.CompDebugln("strata: "+err.Error(), false)
		return nil
	}
	return res
}

// completeSubject is the ValidArgsFunction of the commands that name an
// object (describe, explain, impact): KIND first, then NAME (KIND NAME),
// or KIND/NAME and KIND/NAME#SECTION in one word; names in the -n
// namespace, or every namespace with -A. policies limits the kinds to
// policy kinds (impact).
func completeSubject(f *sourceFlags, policies bool) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) >= 2 || (len(args) == 1 && strings.Contains(args[0], "/")) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		res := completionLoad(f)
		if res == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
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
				if kn, err := query.ResolveKind(res, k); err == nil && (!policies || kn.Policy != nil) {
					out = append(out, k)
				}
			}
		}
		return prefixed(out, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// subjectNames are the names of the objects or policies of a kind, each
// after prefix.
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

// completeField completes explain's --field: the fields of the object's
// effective policies, in every context (what describe lists), as JSON
// pointers, or as dotted paths when the user started one.
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
		subj, err := query.Resolve(res, arg, namespaceOf(c, f))
		if err != nil || subj.Policy != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, k := range query.Describe(res, subj.Node).Effective {
			for _, t := range k.Targets {
				for _, ctx := range t.Contexts {
					for _, fd := range ctx.Fields {
						p := fd.Field
						if !strings.HasPrefix(toComplete, "/") {
							p = dotted(p)
						}
						if !slices.Contains(out, p) {
							out = append(out, p)
						}
					}
				}
			}
		}
		slices.Sort(out)
		return prefixed(out, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// dotted writes a JSON pointer as the dotted path query.FieldPointer
// reads back: /colors/light is colors.light, a dot in a key is \.
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
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		res := completionLoad(f)
		if res == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, id := range res.Graph.ByKind(hierarchy.NamespaceKind) {
			out = append(out, res.Graph.Node(id).Ref.Name)
		}
		slices.Sort(out)
		return prefixed(out, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeGet completes get: "policies", then a policy kind.
func completeGet(f *sourceFlags) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch len(args) {
		case 0:
			return prefixed([]string{"policies"}, toComplete), cobra.ShellCompDirectiveNoFileComp
		case 1:
			res := completionLoad(f)
			if res == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, k := range res.PolicyKinds() {
				out = append(out, strings.ToLower(k.Kind))
			}
			return prefixed(out, toComplete), cobra.ShellCompDirectiveNoFileComp
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
