package render

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"text/template"
)

// templateError is a text/template error with its `template: NAME:LINE:COL:`
// prefix taken off (Error carries the template and the line), still
// unwrapping to the original.
type templateError struct {
	msg string
	err error
}

func (e *templateError) Error() string { return e.msg }
func (e *templateError) Unwrap() error { return e.err }

var (
	// `LINE:COL: rest` or `LINE: rest`, after `template: NAME:`.
	locationRE = regexp.MustCompile(`^(\d+)(?::\d+)?: (?s:(.*))$`)
	// `executing "NAME" at <NODE>: rest`
	executingRE = regexp.MustCompile(`^executing "((?:[^"\\]|\\.)*)" at <(.*?)>: (?s:(.*))$`)
	// what a failed field lookup says, with the field's name.
	missingKeyRE = regexp.MustCompile(`^map has no entry for key "((?:[^"\\]|\\.)*)"$`)
	nilFieldRE   = regexp.MustCompile(`^nil pointer evaluating [^.]*\.(\w+)$`)
	noFieldRE    = regexp.MustCompile(`^can't evaluate field (\w+) in type `)
	// a field chain: `.a.b`, `$.a.b`, `$x.a.b`.
	chainRE = regexp.MustCompile(`^(\$\w*)?((?:\.\w+)+)$`)
)

// templateFailure turns an error of parsing or executing template name
// into an *Error with the line (the innermost, for an include) and, for a
// field that is not there, the value path, found through data, the
// template's dot.
func templateFailure(bp, name string, err error, data map[string]any) *Error {
	e := &Error{Blueprint: bp, Template: name, Reason: ReasonInvalidParameters, Err: err}
	msg := err.Error()
	var inner template.ExecError
	for u := err; u != nil; u = errors.Unwrap(u) {
		if x, ok := u.(template.ExecError); ok {
			inner = x
		}
	}
	if inner.Err != nil {
		msg = inner.Error()
	}
	rest, ok := strings.CutPrefix(msg, "template: "+name+":")
	if !ok {
		return e
	}
	m := locationRE.FindStringSubmatch(rest)
	if m == nil {
		return e
	}
	e.Line, _ = strconv.Atoi(m[1])
	rest = m[2]
	if x := executingRE.FindStringSubmatch(rest); x != nil {
		defined, node, what := x[1], x[2], x[3]
		rest = "at <" + node + ">: " + what
		if node == stepFunc || node == enterFunc || node == printFunc || node == argFunc || node == holeFunc || node == markFunc {
			rest = strings.TrimPrefix(what, "error calling "+node+": ")
		}
		if key := missingField(what); key != "" {
			if p := valuePath(node, key, data); p != "" {
				e.Path = p
				rest = what
			}
		}
		if defined != name {
			rest = "in template " + strconv.Quote(defined) + " " + rest
		}
	}
	e.Err = &templateError{msg: rest, err: err}
	return e
}

// missingField returns the field a lookup failed on, or "".
func missingField(msg string) string {
	for _, re := range []*regexp.Regexp{missingKeyRE, nilFieldRE, noFieldRE} {
		if m := re.FindStringSubmatch(msg); m != nil {
			if k, err := strconv.Unquote(`"` + m[1] + `"`); err == nil {
				return k
			}
			return m[1]
		}
	}
	return ""
}

// valuePath is the part of a field chain up to the field that failed:
// `.Values.a` for `.Values.a.b.c` when .Values has no a, followed through
// data from the top (`.`, `$`), else up to the first field of that name;
// "" for a node that is not a chain.
func valuePath(node, key string, data map[string]any) string {
	m := chainRE.FindStringSubmatch(node)
	if m == nil {
		return ""
	}
	root, fields := m[1], strings.Split(m[2][1:], ".")
	upTo := func(i int) string { return root + "." + strings.Join(fields[:i+1], ".") }
	if root == "" || root == "$" {
		var cur any = data
		for i, f := range fields {
			obj, ok := cur.(map[string]any)
			if !ok || obj == nil {
				break
			}
			v, ok := obj[f]
			if !ok {
				if f == key {
					return upTo(i)
				}
				break
			}
			if v == nil && i+1 < len(fields) && fields[i+1] == key {
				return upTo(i + 1)
			}
			cur = v
		}
	}
	for i, f := range fields {
		if f == key {
			return upTo(i)
		}
	}
	return ""
}
