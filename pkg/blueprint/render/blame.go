package render

import (
	"errors"
	"regexp"
	"sort"
	"strconv"
	"strings"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint/values"
)

// valuesChainRE finds a .Values field chain in an action.
var valuesChainRE = regexp.MustCompile(`\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)`)

// blame finds the value behind a refused document: of the holes that
// landed at or under JSON pointer at, the first whose value a config set,
// with its value path and source; else the first hole, so the message
// names at least the template line.
func (r *renderer) blame(holes []hole, at string) (h hole, path string, source *values.Source, ok bool) {
	var under []hole
	for _, x := range holes {
		if at == "" || x.Path == at || strings.HasPrefix(x.Path, at+"/") || strings.HasPrefix(at, x.Path) && x.IsNode {
			under = append(under, x)
		}
	}
	sort.SliceStable(under, func(i, j int) bool { return under[i].Path < under[j].Path })
	for _, x := range under {
		if l, found := r.leafOf(x); found {
			src := l.Source
			return x, valuePath2(l.Pointer), &src, true
		}
	}
	if len(under) > 0 {
		return under[0], "", nil, true
	}
	return hole{}, "", nil, false
}

// leafOf finds the value a hole printed among the merged values set by a
// config: by the action's .Values chain (for a serializer, any leaf
// under it), else by the text it printed (a leaf with that value, or a
// key of that name, as `range $k, $v := .Values.tags` prints).
func (r *renderer) leafOf(x hole) (values.Leaf, bool) {
	if m := valuesChainRE.FindStringSubmatch(x.Action); m != nil {
		if l, ok := r.configLeaf(strings.ReplaceAll(m[1], ".", "/")); ok {
			return l, true
		}
	}
	for _, l := range r.sources {
		if l.Source.Kind == bpv1.BlueprintKind {
			continue
		}
		if s, isString := l.Value.(string); isString && s == x.Text {
			return l, true
		}
		segs := strings.Split(l.Pointer, "/")
		for _, seg := range segs[1:] {
			if unescapePointer(seg) == x.Text {
				return l, true
			}
		}
	}
	return values.Leaf{}, false
}

// valuePath2 writes JSON pointer p as a template path: /a/b is
// .Values.a.b, and a segment that is not a name is indexed:
// .Values.tags["x: y"].
func valuePath2(p string) string {
	var b strings.Builder
	b.WriteString(".Values")
	for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		seg = unescapePointer(seg)
		if identRE.MatchString(seg) {
			b.WriteString("." + seg)
		} else {
			b.WriteString("[" + strconv.Quote(seg) + "]")
		}
	}
	return b.String()
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// attribute names the config behind a template's own error: a `fail` or
// `required` whose message names a value path (`.Values.logLevel "x" is
// not one of ...`) names the config that set that value, as a refusal of
// an object does. Other errors are returned as they are.
func (r *renderer) attribute(err error) error {
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Source != nil {
		return err
	}
	chain := e.Path
	if chain == "" {
		m := valuesChainRE.FindStringSubmatch(e.Err.Error())
		if m == nil {
			return err
		}
		chain = ".Values" + m[1]
	}
	if l, ok := r.configLeaf(strings.ReplaceAll(strings.TrimPrefix(chain, ".Values"), ".", "/")); ok {
		e.Path, e.Source = chain, &l.Source
		return e
	}
	return err
}

// configLeaf is the first merged leaf at or under JSON pointer p that a
// config set.
func (r *renderer) configLeaf(p string) (values.Leaf, bool) {
	for _, l := range r.sources {
		if (l.Pointer == p || strings.HasPrefix(l.Pointer, p+"/")) && l.Source.Kind != bpv1.BlueprintKind {
			return l, true
		}
	}
	return values.Leaf{}, false
}
