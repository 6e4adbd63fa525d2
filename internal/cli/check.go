package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report"
	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/spf13/cobra"

	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/source/files"
)

// defaultFailOn are the finding classes that fail `strata check` by default: not accepted.
var defaultFailOn = []string{query.FindingInvalid, query.FindingConflicted, query.FindingTargetNotFound}

// checkDescriptions say what each finding class means, for --help and SARIF rules.
var checkDescriptions = map[string]string{
	query.FindingInvalid:        "the policy would not be accepted: its spec or targets are not valid (Accepted=False Invalid)",
	query.FindingConflicted:     "the policy would not be accepted: it conflicts with an older policy of a None-strategy kind (Accepted=False Conflicted)",
	query.FindingTargetNotFound: "the policy would not be accepted: a target it names does not exist (Accepted=False TargetNotFound)",
	query.FindingOverridden:     "the policy would be in force nowhere: more specific or overriding policies replace it in every context (Overridden)",
	query.FindingUnused:         "the policy reaches no effective target: it affects nothing",
}

func newCheck(s Streams) *cobra.Command {
	var f sourceFlags
	var sf selectorFlags
	var format string
	failOn := slices.Clone(defaultFailOn)
	c := &cobra.Command{
		Use:   "check [-f PATH... | --with-file PATH...] [-n NS | -A] [-l SELECTOR] [--fail-on CLASS,...] [-o text|json|sarif]",
		Short: "A gate for GitOps repositories: list the policies that would not be accepted, would be overridden or reach nothing",
		Long: `Runs the engine on the input, as status does, and prints one line per
finding: a policy that would not be accepted (invalid, conflicted,
targetnotfound), would be overridden everywhere (overridden), or reaches
no effective target (unused). Lines start with file:line when the policy
was read from a file.

Exit code 1 when a finding is of a class in --fail-on (default:
invalid,conflicted,targetnotfound; --fail-on '' never fails on findings),
0 otherwise. -o json prints the findings as a JSON list; -o sarif as a
SARIF 2.1.0 log for code-review annotations (GitHub code scanning and
others), with one rule per class and file locations relative to the
working directory.

Every policy of the input is checked, in every namespace (-A is the
default, also when reading a cluster); -n NS checks only NS's policies
and the cluster-scoped ones (as get policies -n lists them), and -l and
--field-selector choose policies by label, name and namespace, as
kubectl does. The engine still reads everything: a policy's findings
are the same whatever is chosen.`,
		Example: `  strata check -f deploy/
  strata check -f deploy/ --fail-on invalid,conflicted,targetnotfound,overridden,unused
  strata check -f deploy/ -o sarif > strata.sarif
  strata check -f deploy/ -n baker -l team=baker`,
		Args: arity(0, 0),
		RunE: func(*cobra.Command, []string) error {
			for _, cl := range failOn {
				if !slices.Contains(query.FindingClasses, cl) {
					return fmt.Errorf("--fail-on %q: want any of %s", cl, strings.Join(query.FindingClasses, ", "))
				}
			}
			if format != "text" && format != "json" && format != "sarif" {
				return fmt.Errorf("--output %q: want text, json or sarif", format)
			}
			sel, err := query.ParseSelector(sf.label, sf.field)
			if err != nil {
				return err
			}
			ns := f.onlyNamespace()
			req := query.CheckRequest{Filter: query.Filter{Namespace: ns, AllNamespaces: ns == "", Select: sel}, FailOn: failOn}
			res, err := f.loadScoped(s, req.Scope())
			if err != nil {
				return err
			}
			answer, err := query.RunCheck(res, req)
			if err != nil {
				return err
			}
			found := answer.Findings
			places := f.places()
			var buf bytes.Buffer
			switch format {
			case "text":
				for _, fd := range found {
					fmt.Fprintf(&buf, "%s%s: %s: %s\n", where(places, fd.Policy), policyName(fd.Policy), fd.Class, fd.Message)
				}
			case "json":
				if err := writeJSONFindings(&buf, found, places); err != nil {
					return err
				}
			case "sarif":
				if err := writeSARIF(&buf, found, places, failOn); err != nil {
					return err
				}
			}
			if _, err := s.Out.Write(buf.Bytes()); err != nil {
				return err
			}
			if answer.Failed > 0 {
				return fmt.Errorf("%d finding(s) of --fail-on classes (%s)", answer.Failed, strings.Join(answer.Failing, ", "))
			}
			return nil
		},
	}
	f.bind(c)
	c.Flags().Lookup("all-namespaces").Usage = "check the policies of every namespace: the default, stated (-n NS checks one)"
	sf.bind(c)
	var classes []string
	for _, cl := range query.FindingClasses {
		classes = append(classes, cl+": "+checkDescriptions[cl])
	}
	c.Flags().StringSliceVar(&failOn, "fail-on", failOn, "finding classes that make the exit code 1:\n"+strings.Join(classes, "\n"))
	c.Flags().StringVarP(&format, "output", "o", "text", "output format: text, json or sarif")
	completeOutput(c, "text", "json", "sarif")
	_ = c.RegisterFlagCompletionFunc("fail-on", func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return completeList(query.FindingClasses, toComplete), cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

// policyPlace is where a policy was read: its file and line, or nothing for a cluster's object.
func policyPlace(places map[files.Key]files.Document, p query.PolicyRef) (files.Document, bool) {
	d, ok := places[files.Key{Group: p.Group, Kind: p.Kind, Namespace: p.Namespace, Name: p.Name}]
	if !ok || d.Index == 0 {
		return files.Document{}, false
	}
	return d, true
}

// where is the "file:line: " prefix of a finding's line, so editors and CI logs link to it.
func where(places map[files.Key]files.Document, p query.PolicyRef) string {
	d, ok := policyPlace(places, p)
	if !ok {
		return ""
	}
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d: ", d.File, d.Line)
	}
	return d.File + ": "
}

func policyName(p query.PolicyRef) string {
	kind := p.Kind
	if p.Group != "" {
		kind += "." + p.Group
	}
	if p.Namespace != "" {
		return kind + " " + p.Namespace + "/" + p.Name
	}
	return kind + " " + p.Name
}

// jsonFinding is a finding with its place, for -o json.
type jsonFinding struct {
	query.Finding `json:",inline"`
	File          string `json:"file,omitempty"`
	Line          int    `json:"line,omitempty"`
}

func writeJSONFindings(buf *bytes.Buffer, found []query.Finding, places map[files.Key]files.Document) error {
	out := make([]jsonFinding, 0, len(found))
	for _, fd := range found {
		jf := jsonFinding{Finding: fd}
		if d, ok := policyPlace(places, fd.Policy); ok {
			jf.File, jf.Line = d.File, d.Line
		}
		out = append(out, jf)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	buf.Write(b)
	buf.WriteByte('\n')
	return nil
}

// writeSARIF writes the findings as a SARIF 2.1.0 log: one rule per class, one result per finding.
func writeSARIF(buf *bytes.Buffer, found []query.Finding, places map[files.Key]files.Document, failOn []string) error {
	rep := report.NewV210Report()
	run := sarif.NewRunWithInformationURI("strata", "https://github.com/strata-dev/strata")
	for _, cl := range query.FindingClasses {
		run.AddRule(cl).
			WithName(cl).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(checkDescriptions[cl])).
			WithHelpURI("https://github.com/strata-dev/strata/blob/main/docs/cli.md#a-gate-for-gitops-repositories-strata-check")
	}
	for _, fd := range found {
		level := "warning"
		if slices.Contains(failOn, fd.Class) {
			level = "error"
		}
		r := run.CreateResultForRule(fd.Class).
			WithLevel(level).
			WithMessage(sarif.NewTextMessage(policyName(fd.Policy) + ": " + fd.Message))
		if d, ok := policyPlace(places, fd.Policy); ok && d.File != "-" {
			loc := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(filepath.ToSlash(d.File)))
			if d.Line > 0 {
				loc = loc.WithRegion(sarif.NewRegion().WithStartLine(d.Line))
			}
			r.AddLocation(sarif.NewLocationWithPhysicalLocation(loc))
		}
	}
	rep.AddRun(run)
	return rep.PrettyWrite(buf)
}
