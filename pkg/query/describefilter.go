package query

import (
	"strings"
)

// Only is the description narrowed to some policy kinds and one field,
// for `strata describe --kind K --field F` on an object with hundreds of
// contexts: the policies of those kinds, their effective policy, and in
// each context the fields at or below the pointer field (a JSON pointer;
// FieldPointer reads the dotted form). Empty kinds keep every kind; an
// empty field keeps every field. A kind matches by Kind or Kind.group,
// case-insensitively, as kubectl names kinds. d is not changed.
func (d *Description) Only(kinds []string, field string) *Description {
	if len(kinds) == 0 && field == "" {
		return d
	}
	match := func(gk GroupKind) bool {
		if len(kinds) == 0 {
			return true
		}
		for _, k := range kinds {
			if strings.EqualFold(k, gk.Kind) || strings.EqualFold(k, gk.Kind+"."+gk.Group) {
				return true
			}
		}
		return false
	}
	out := *d
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
					if f.Field == field || under(f.Field, field) {
						fields = append(fields, f)
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
