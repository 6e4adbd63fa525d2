package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/source/yamljson"
)

// removedFuncs are the sprig functions templates cannot call, because the
// same input must render the same bytes wherever it renders and a template
// must not read the machine it runs on: the environment, files and
// network; the clock (date and friends are replaced, see replacedFuncs);
// randomness (including key, certificate and salt generation); the host's
// path syntax (base, clean, dir, ext and isAbs remain); and
// derivePassword, whose scrypt takes most of a second per call.
var removedFuncs = []string{
	"env", "expandenv", "getHostByName",
	"now", "ago", "dateInZone", "date_in_zone", "htmlDateInZone",
	"randAlpha", "randAlphaNum", "randAscii", "randNumeric", "randBytes", "randInt", "shuffle", "uuidv4",
	"genPrivateKey", "genCA", "genCAWithKey", "genSelfSignedCert", "genSelfSignedCertWithKey",
	"genSignedCert", "genSignedCertWithKey", "bcrypt", "htpasswd", "encryptAES",
	"osBase", "osClean", "osDir", "osExt", "osIsAbs",
	"derivePassword",
}

// Limits on what one template may build, so values a tenant sets cannot
// make the renderer allocate without bound.
const (
	maxOutput = 8 << 20 // bytes one template may render, or a function return or a template print
	maxList   = 1 << 16 // the longest list until, untilStep and seq may return
)

// replacedFuncs are the functions that differ from sprig's: date,
// htmlDate, toDate and mustToDate work in UTC and never on the current
// time; durationRound fails on a time; keys and values are sorted by key;
// repeat, indent, nindent, until, untilStep and seq fail past maxOutput
// bytes or maxList items; set and the merges refuse to make a dict contain
// itself. Added, as Helm users expect: toYaml, fromYaml, required and
// include. Every function spends from the work budget (cost.go).
var replacedFuncs = []string{
	"date", "htmlDate", "toDate", "mustToDate", "durationRound", "keys", "values",
	"repeat", "indent", "nindent", "until", "untilStep", "seq",
	"set", "merge", "mergeOverwrite", "mustMerge", "mustMergeOverwrite",
}

// funcMap returns the functions of a template: sprig's, less
// removedFuncs, with replacedFuncs replaced, plus toYaml, fromYaml and
// required, built per template.
func funcMap() template.FuncMap {
	m := sprig.TxtFuncMap()
	for _, name := range removedFuncs {
		delete(m, name)
	}
	// text/template's builtins that print are functions of the map, so
	// that the work budget wraps them (cost.go).
	maps.Copy(m, template.FuncMap{
		"date": formatDate, "mustToDate": time.Parse, "keys": sortedKeys, "values": sortedValues,
		"repeat": repeat, "indent": indent, "untilStep": untilStep, "seq": seq,
		"toYaml": toYaml, "fromYaml": fromYaml, "required": required,
		"print": fmt.Sprint, "printf": fmt.Sprintf, "println": fmt.Sprintln,
		"html": template.HTMLEscaper, "js": template.JSEscaper, "urlquery": template.URLQueryEscaper,
	})
	m["htmlDate"] = func(v any) (string, error) { return formatDate("2006-01-02", v) }
	m["toDate"] = func(layout, s string) time.Time {
		t, _ := time.Parse(layout, s)
		return t
	}
	if round, ok := m["durationRound"].(func(any) string); ok {
		m["durationRound"] = func(v any) (string, error) {
			switch v.(type) {
			case time.Time, *time.Time:
				return "", errors.New("durationRound of a time would measure it from now; give a duration")
			}
			return round(v), nil
		}
	} else {
		delete(m, "durationRound")
	}
	m["nindent"] = func(n int, s string) (string, error) {
		s, err := indent(n, s)
		return "\n" + s, err
	}
	m["until"] = func(n int) ([]int, error) {
		step := 1
		if n < 0 {
			step = -1
		}
		return untilStep(0, n, step)
	}
	m["set"] = func(d map[string]any, key string, v any) (map[string]any, error) {
		if reaches(v, d) {
			return nil, fmt.Errorf("set %q: the value contains the dict itself", key)
		}
		d[key] = v
		return d, nil
	}
	for _, name := range []string{"merge", "mergeOverwrite", "mustMerge", "mustMergeOverwrite"} {
		if f := acyclicMerge(name, m[name]); f != nil {
			m[name] = f
		} else {
			delete(m, name)
		}
	}
	return m
}

// toYaml is Helm's: v as YAML without the final newline. Unlike Helm's it
// fails rather than printing nothing when v cannot be marshalled.
func toYaml(v any) (string, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

// fromYaml decodes a YAML object as Helm's does (numbers as float64), but
// a bad document, or two keys that are one JSON key, is an error.
func fromYaml(s string) (map[string]any, error) {
	j, err := yamljson.ToJSON([]byte(s))
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// required is Helm's: it fails with msg when v is nil or "" (read an
// optional value with index or dig: missingkey=error fails first).
func required(msg string, v any) (any, error) {
	if v == nil {
		return nil, errors.New(msg)
	}
	if s, ok := v.(string); ok && s == "" {
		return nil, errors.New(msg)
	}
	return v, nil
}

// formatDate formats a time in UTC; see replacedFuncs.
func formatDate(layout string, v any) (string, error) {
	var t time.Time
	switch v := v.(type) {
	case time.Time:
		t = v
	case *time.Time:
		if v == nil {
			return "", errors.New("date of a nil time")
		}
		t = *v
	case int:
		t = time.Unix(int64(v), 0)
	case int32:
		t = time.Unix(int64(v), 0)
	case int64:
		t = time.Unix(v, 0)
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return "", fmt.Errorf("date of %v: want whole seconds since the epoch", v)
		}
		t = time.Unix(int64(v), 0)
	case string:
		var err error
		if t, err = time.Parse(time.RFC3339, v); err != nil {
			return "", fmt.Errorf("date of %q: want an RFC 3339 time: %w", v, err)
		}
	default:
		return "", fmt.Errorf("date of a %T: want a time, seconds since the epoch or an RFC 3339 string", v)
	}
	return t.UTC().Format(layout), nil
}

func sortedKeys(dicts ...map[string]any) []string {
	k := []string{}
	for _, d := range dicts {
		k = slices.AppendSeq(k, maps.Keys(d))
	}
	sort.Strings(k)
	return k
}

func sortedValues(d map[string]any) []any {
	out := make([]any, 0, len(d))
	for _, k := range sortedKeys(d) {
		out = append(out, d[k])
	}
	return out
}

func repeat(n int, s string) (string, error) {
	if n < 0 {
		return "", fmt.Errorf("repeat %d times: want a count of zero or more", n)
	}
	if len(s) > 0 && n > maxOutput/len(s) {
		return "", fmt.Errorf("repeat %d times: the result would exceed %d bytes", n, maxOutput)
	}
	return strings.Repeat(s, n), nil
}

func indent(n int, s string) (string, error) {
	if n < 0 {
		return "", fmt.Errorf("indent %d: want zero or more spaces", n)
	}
	lines := strings.Count(s, "\n") + 1
	if n > 0 && (n > maxOutput || lines > (maxOutput-len(s))/n) {
		return "", fmt.Errorf("indent %d: the result would exceed %d bytes", n, maxOutput)
	}
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad), nil
}

// untilStep is sprig's (start, start+step, ... up to stop excluded), safe
// from overflow and bounded by maxList.
func untilStep(start, stop, step int) ([]int, error) {
	v := []int{}
	if (stop < start && step >= 0) || (stop >= start && step <= 0) {
		return v, nil
	}
	for i := start; (step > 0 && i < stop) || (step < 0 && i > stop); {
		if len(v) == maxList {
			return nil, fmt.Errorf("untilStep %d %d %d: more than %d items", start, stop, step, maxList)
		}
		v = append(v, i)
		next := i + step
		if (step > 0) != (next > i) {
			break // overflow
		}
		i = next
	}
	return v, nil
}

// seq is sprig's (Unix seq: 1..end, start..end, start..step..end as a
// space-separated string), bounded by maxList.
func seq(params ...int) (string, error) {
	var start, step, end int
	switch len(params) {
	case 1, 2:
		start, end, step = 1, params[len(params)-1], 1
		if len(params) == 2 {
			start = params[0]
		}
		if end < start {
			step = -1
		}
	case 3:
		start, step, end = params[0], params[1], params[2]
		if end < start && step > 0 {
			return "", nil
		}
	default:
		return "", nil
	}
	inc := 1
	if end < start {
		inc = -1
	}
	stop := end + inc
	if (inc > 0) != (stop > end) {
		stop = end // overflow: stop at end, which untilStep excludes
	}
	v, err := untilStep(start, stop, step)
	if err != nil {
		return "", err
	}
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, " "), nil
}

// acyclicMerge wraps one of sprig's merge functions so that it fails
// rather than make dst reachable from itself.
func acyclicMerge(name string, f any) any {
	check := func(dst map[string]any, srcs []map[string]any) error {
		for _, s := range srcs {
			if reaches(s, dst) {
				return fmt.Errorf("%s: a source contains the destination dict", name)
			}
		}
		return nil
	}
	switch f := f.(type) {
	case func(map[string]any, ...map[string]any) any:
		return func(dst map[string]any, srcs ...map[string]any) (any, error) {
			if err := check(dst, srcs); err != nil {
				return nil, err
			}
			return f(dst, srcs...), nil
		}
	case func(map[string]any, ...map[string]any) (any, error):
		return func(dst map[string]any, srcs ...map[string]any) (any, error) {
			if err := check(dst, srcs); err != nil {
				return nil, err
			}
			return f(dst, srcs...)
		}
	}
	return nil
}

// reaches reports whether target is v or can be reached from it through
// maps, slices and pointers.
func reaches(v any, target map[string]any) bool {
	if target == nil {
		return false
	}
	want := reflect.ValueOf(target).UnsafePointer()
	seen := map[uintptr]bool{}
	var walk func(r reflect.Value) bool
	walk = func(r reflect.Value) bool {
		switch r.Kind() {
		case reflect.Interface, reflect.Pointer:
			if r.IsNil() {
				return false
			}
			return walk(r.Elem())
		case reflect.Map:
			if r.IsNil() {
				return false
			}
			p := r.UnsafePointer()
			if p == want {
				return true
			}
			if seen[uintptr(p)] {
				return false
			}
			seen[uintptr(p)] = true
			it := r.MapRange()
			for it.Next() {
				if walk(it.Value()) {
					return true
				}
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < r.Len(); i++ {
				if walk(r.Index(i)) {
					return true
				}
			}
		case reflect.Struct:
			for i := 0; i < r.NumField(); i++ {
				if walk(r.Field(i)) {
					return true
				}
			}
		}
		return false
	}
	return walk(reflect.ValueOf(v))
}

// newTemplate parses src as template name with the blueprint functions,
// missingkey=error and Helm's include, with b's charges planted
// (instrument) and the functions it calls metered (cost.go).
func newTemplate(name, src string, b *budget) (*template.Template, error) {
	var t *template.Template
	fm := funcMap()
	maps.Copy(fm, b.funcs())
	fm["include"] = func(name string, data any) (string, error) {
		var b strings.Builder
		if err := t.ExecuteTemplate(&limitWriter{w: &b}, name, data); err != nil {
			return "", err
		}
		return b.String(), nil
	}
	t = template.New(name).Option("missingkey=error").Funcs(fm)
	if _, err := t.Parse(src); err != nil {
		return nil, err
	}
	b.meter(t, fm, instrument(t))
	return t, nil
}

// errTooLarge is returned by limitWriter past maxOutput bytes.
var errTooLarge = fmt.Errorf("rendered output exceeds %d bytes", maxOutput)

// limitWriter fails once more than maxOutput bytes are written.
type limitWriter struct {
	w interface{ Write([]byte) (int, error) }
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n+len(p) > maxOutput {
		return 0, errTooLarge
	}
	l.n += len(p)
	return l.w.Write(p)
}
