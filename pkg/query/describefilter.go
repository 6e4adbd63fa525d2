package query

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/strata-dev/strata/pkg/engine/merge"
)

// Only is the description narrowed to some policy kinds and one field.
func (d *Description) Only(kinds []GroupKind, field string) *Description {
	if len(kinds) == 0 && field == "" {
		return d
	}
	match := func(gk GroupKind) bool {
		return len(kinds) == 0 || slices.Contains(kinds, gk)
	}
	out := *d
	out.Unseen = d.Unseen.Only(kinds)
	out.Policies = nil
	for _, p := range d.Policies {
		if match(GroupKind{Group: p.Policy.Group, Kind: p.Policy.Kind}) {
			out.Policies = append(out.Policies, p)
		}
	}
	out.Rejected = nil
	for _, r := range d.Rejected {
		if match(GroupKind{Group: r.Policy.Group, Kind: r.Policy.Kind}) {
			out.Rejected = append(out.Rejected, r)
		}
	}
	out.Effective = nil
	for _, k := range d.Effective {
		if !match(k.GroupKind) {
			continue
		}
		if field == "" {
			out.Effective = append(out.Effective, k)
			continue
		}
		nk := k
		nk.Targets = nil
		for _, t := range k.Targets {
			nt := TargetEffect{Target: t.Target}
			for _, ctx := range t.Contexts {
				var fields []FieldEffect
				for _, f := range ctx.Fields {
					switch {
					case f.Field == field || under(f.Field, field):
						fields = append(fields, f)
					case under(field, f.Field):
						if v, ok := merge.Get(map[string]any{"v": f.Value}, "/v"+field[len(f.Field):]); ok && f.Value != nil {
							e := f
							e.Field, e.Value = field, v
							fields = append(fields, e)
						}
					}
				}
				if len(fields) > 0 {
					nc := ctx
					nc.Fields = fields
					nt.Contexts = append(nt.Contexts, nc)
				}
			}
			if len(nt.Contexts) > 0 {
				nk.Targets = append(nk.Targets, nt)
			}
		}
		if len(nk.Targets) > 0 {
			out.Effective = append(out.Effective, nk)
		}
	}
	return &out
}

// Fields are the fields in force in some context of d, sorted.
func (d *Description) Fields() []string {
	seen := map[string]bool{}
	for _, k := range d.Effective {
		for _, t := range k.Targets {
			for _, ctx := range t.Contexts {
				for _, f := range ctx.Fields {
					if f.SetBy != "" {
						seen[f.Field] = true
					}
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// FieldNotSetError is the error for a field no context of an object sets.
type FieldNotSetError struct {
	Object string // what was asked about: "HTTPRoute baker/baker".
	Field  string
	Which  string   // names the policy kinds asked about ("policy" for any).
	Fields []string // the fields that are set, sorted.
}

func (e *FieldNotSetError) Error() string {
	fields := e.Fields
	hint := DidYouMean(e.Field, fields)
	if len(fields) > 20 {
		fields = append(slices.Clip(fields[:20]), "...")
	}
	return fmt.Sprintf("field %s is not set on %s by any %s%s (fields in force: %s)", e.Field, e.Object, e.Which, hint, strings.Join(fields, ", "))
}
