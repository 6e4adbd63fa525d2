package render

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"regexp/syntax"
	"slices"
	"strings"
	"text/template"
	"unicode/utf8"
)

// The work budget. Steps and depth (steps.go) bound how often a template
// runs its nodes, not what a node costs (`{{ $s = cat $s $s }}` doubles a
// string per step). So every function call, printed value, comparison,
// range iteration and template node spends from a budget, about a unit per
// byte read or built; a render spending more than maxWork fails, naming
// the function. A call is charged from its arguments before it runs (see
// funcCosts: deep size by default, shallow for functions that only look
// at the top of a container, more for those whose output or time can
// outgrow their input) and from its result after. Decoding a template's
// output is charged in holes.go.
const (
	maxWork    = 64 << 20 // the work budget of one render, all its templates together
	callCost   = 64       // a function call, on top of its arguments (reflection)
	elemCost   = 16       // a list item, a number, a bool or nil
	entryCost  = 48       // a dict entry, on top of its key's bytes
	nodeCost   = 32       // evaluating one template node
	stepCost   = 16       // one range iteration, on top of its body's nodes
	maxNesting = 1000     // how deep a value may nest to be read or printed (both recurse)
	maxWidth   = 1024     // the largest printf width or precision
	maxPattern = 4096     // the longest regular expression
	maxProgram = 16384    // the most instructions it may compile to (a{1000} is 1000)
	maxSemver  = 1024     // the longest string semver and semverCompare parse
)

// errNesting is returned for a value nesting more than maxNesting deep.
var errNesting = fmt.Errorf("the value nests more than %d deep", maxNesting)

// workLimit is the work budget: maxWork unless a test lowered it.
func (b *budget) workLimit() int64 {
	if b.workMax > 0 {
		return b.workMax
	}
	return maxWork
}

// room is the work left.
func (b *budget) room() int64 {
	if r := b.workLimit() - b.work; r > 0 {
		return r
	}
	return 0
}

// spend spends n units of work on what (what the template does; "" for
// a function call, which text/template names), failing once the render
// has spent more than its budget.
func (b *budget) spend(what string, n int64) error {
	if n > b.room() {
		b.work = b.workLimit() + 1
		if what != "" {
			what += ": "
		}
		return fmt.Errorf("%sthe render exceeds its work budget of %d units (bytes read and built by functions, bytes printed, template nodes evaluated); does a loop grow a value, or repeat costly work, without end?", what, b.workLimit())
	}
	b.work += n
	return nil
}

// A costFunc returns what a call of a function with args (a variadic
// function's extra arguments flattened) costs before it runs, or an
// error refusing the call. room is the work left: a cost may stop
// measuring past it.
type costFunc func(args []any, room int64) (int64, error)

// flatResult are the functions whose result is one of their arguments,
// or small: their result costs elemCost, not its size.
var flatResult = map[string]bool{
	"empty": true, "default": true, "coalesce": true, "ternary": true, "all": true, "any": true,
	"typeOf": true, "typeIs": true, "typeIsLike": true, "kindOf": true, "kindIs": true,
	"first": true, "last": true, "mustFirst": true, "mustLast": true, "get": true, "hasKey": true,
	"dig": true, "required": true, "set": true, "unset": true, "fail": true, "hello": true,
	"merge": true, "mergeOverwrite": true, "mustMerge": true, "mustMergeOverwrite": true,
	"has": true, "mustHas": true, "deepEqual": true,
}

// funcCosts are the functions that do not cost their arguments' deep size
// (deepCost(1), the default).
var funcCosts = map[string]costFunc{}

func init() {
	for names, c := range map[string]costFunc{
		// These only look at their arguments, or store them (a string
		// may be hashed as a key).
		`list tuple empty default coalesce ternary all any typeOf typeIs typeIsLike kindOf kindIs
		first last mustFirst mustLast get hasKey unset dig pluck required fail hello
		until untilStep seq plural`: refCost,
		// These read (copy) the top of their arguments.
		`append push mustAppend mustPush prepend mustPrepend concat compact mustCompact rest mustRest
		initial mustInitial reverse mustReverse slice mustSlice pick omit`: scanCost(1),
		"chunk mustChunk":     scanCost(2),
		"keys values":         keysCost,
		"dict":                dictCost,
		"set":                 setCost,
		"uniq mustUniq":       uniqCost,
		"without mustWithout": withoutCost,
		"has mustHas":         hasCost,
		// Reflection-heavy walks of a whole value.
		"merge mergeOverwrite mustMerge mustMergeOverwrite": deepCost(4),
		"deepCopy mustDeepCopy":                             plus(1024, deepCost(8)),
		// Decimal arithmetic (math/big underneath).
		"add1f addf subf mulf divf": plus(512, deepCost(1)),
		// include executes a template (which charges its own work).
		"include":   plus(256, refCost),
		"sortAlpha": sortCost,
		// Encoders refuse a value over maxOutput; YAML goes through JSON
		// and a YAML tree. Decoders build a tree larger than their input.
		"toJson mustToJson toRawJson mustToRawJson": encodeCost(2, 0),
		"toPrettyJson mustToPrettyJson":             encodeCost(2, 2),
		"toYaml":                                    plus(4096, encodeCost(8, 2)),
		"fromJson mustFromJson":                     decodeCost(16),
		"fromYaml":                                  plus(4096, decodeCost(64)),
		// Printers: their output is their arguments' deep size times an
		// escaping factor.
		"print println cat toString toStrings toDecimal": printCost(1),
		"quote squote":    printCost(4),
		"html js":         printCost(6),
		"urlquery":        printCost(3),
		"printf":          printfCost,
		"join":            joinCost,
		"repeat":          repeatCost,
		"indent nindent":  indentCost,
		"replace":         replaceCost,
		"wrap wrapWith":   wrapCost,
		"trimAll trimall": trimAllCost,
		"splitList":       splitCost(elemCost),
		"split splitn":    splitCost(entryCost + 8),
		"sha1sum sha256sum sha512sum adler32sum b64enc b64dec b32enc b32dec": deepCost(2),
		"buildCustomCert":      certCost,
		"semver semverCompare": semverCost,
		"regexMatch mustRegexMatch regexFind mustRegexFind":                                     regexCost(0, 1, -1, -1),
		"regexFindAll mustRegexFindAll regexSplit mustRegexSplit":                               regexCost(0, 1, -1, 2),
		"regexReplaceAll mustRegexReplaceAll regexReplaceAllLiteral mustRegexReplaceAllLiteral": regexCost(0, 1, 2, -1),
	} {
		for _, name := range strings.Fields(names) {
			funcCosts[name] = c
		}
	}
}

// funcCost is the cost of function name.
func funcCost(name string) costFunc {
	if c, ok := funcCosts[name]; ok {
		return c
	}
	return deepCost(1)
}

// meter makes the functions the templates of t call (used, from
// instrument) charge b: each is replaced by a wrapper (wrap) that charges
// it before and after it runs. The planted functions (strata...) charge
// themselves.
func (b *budget) meter(t *template.Template, fm template.FuncMap, used map[string]bool) {
	wrapped := template.FuncMap{}
	for name := range used {
		if f, ok := fm[name]; ok && !strings.HasPrefix(name, "strata") {
			wrapped[name] = b.wrap(name, f)
		}
	}
	if len(wrapped) > 0 {
		t.Funcs(wrapped)
	}
}

var (
	errType   = reflect.TypeFor[error]()
	nilError  = reflect.Zero(errType)
	valueType = reflect.TypeFor[reflect.Value]()
)

// wrap returns f (a template function: one result, or a result and an
// error) as a function of the same arguments that charges b: the cost of
// its arguments (funcCost(name)) before calling f, the size of its result
// after, failing when the budget is spent or the call refused (a string
// result longer than maxOutput is refused too).
func (b *budget) wrap(name string, f any) any {
	fv := reflect.ValueOf(f)
	ft := fv.Type()
	if ft.Kind() != reflect.Func || ft.NumOut() < 1 || ft.NumOut() > 2 {
		return f
	}
	if fast := b.wrapFast(name, f); fast != nil {
		return fast
	}
	in := make([]reflect.Type, ft.NumIn())
	for i := range in {
		in[i] = ft.In(i)
	}
	out0 := ft.Out(0)
	wt := reflect.FuncOf(in, []reflect.Type{out0, errType}, ft.IsVariadic())
	c, flat := funcCost(name), flatResult[name]
	fail := func(err error) []reflect.Value {
		return []reflect.Value{reflect.Zero(out0), reflect.ValueOf(&err).Elem()}
	}
	return reflect.MakeFunc(wt, func(args []reflect.Value) []reflect.Value {
		if err := b.before(c, flatten(args, ft.IsVariadic())); err != nil {
			return fail(err)
		}
		var out []reflect.Value
		if ft.IsVariadic() {
			out = fv.CallSlice(args)
		} else {
			out = fv.Call(args)
		}
		if len(out) == 2 && !out[1].IsNil() {
			return out
		}
		if err := b.after(flat, out[0]); err != nil {
			return fail(err)
		}
		return []reflect.Value{out[0], nilError}
	}).Interface()
}

// flatten turns reflect arguments into values, a variadic function's
// extra arguments one by one.
func flatten(args []reflect.Value, variadic bool) []any {
	out := make([]any, 0, len(args))
	for i, a := range args {
		if variadic && i == len(args)-1 {
			for j := 0; j < a.Len(); j++ {
				out = append(out, argValue(a.Index(j)))
			}
			continue
		}
		out = append(out, argValue(a))
	}
	return out
}

// argValue is what a reflect argument holds (a reflect.Value argument, of
// a function taking them, too).
func argValue(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	if v.Type() == valueType {
		return argValue(v.Interface().(reflect.Value))
	}
	if !v.CanInterface() {
		return nil
	}
	return v.Interface()
}

// before charges the arguments of a call costing c.
func (b *budget) before(c costFunc, args []any) error {
	n, err := c(args, b.room())
	if err != nil {
		return err
	}
	return b.spend("", n)
}

// after charges the result r of a call (elemCost when flat).
func (b *budget) after(flat bool, r reflect.Value) error {
	if flat {
		return b.spend("", elemCost)
	}
	if r.Kind() == reflect.Interface && !r.IsNil() {
		r = r.Elem()
	}
	if r.Kind() == reflect.String && r.Len() > maxOutput {
		return fmt.Errorf("the result is %d bytes, over the limit of %d", r.Len(), maxOutput)
	}
	return b.spend("", shallowValue(r))
}

// wrapFast wraps the most common signatures without reflect.MakeFunc,
// which costs a few hundred nanoseconds a call; nil for others.
func (b *budget) wrapFast(name string, f any) any {
	c, flat := funcCost(name), flatResult[name]
	switch f := f.(type) {
	case func(string) string:
		return func(s string) (string, error) {
			return metered(b, c, flat, []any{s}, func() (string, error) { return f(s), nil })
		}
	case func(string, string) string:
		return func(s, t string) (string, error) {
			return metered(b, c, flat, []any{s, t}, func() (string, error) { return f(s, t), nil })
		}
	case func(int, string) string:
		return func(n int, s string) (string, error) {
			return metered(b, c, flat, []any{n, s}, func() (string, error) { return f(n, s), nil })
		}
	case func(int, string) (string, error):
		return func(n int, s string) (string, error) {
			return metered(b, c, flat, []any{n, s}, func() (string, error) { return f(n, s) })
		}
	case func(any) string:
		return func(v any) (string, error) {
			return metered(b, c, flat, []any{v}, func() (string, error) { return f(v), nil })
		}
	case func(any) (string, error):
		return func(v any) (string, error) {
			return metered(b, c, flat, []any{v}, func() (string, error) { return f(v) })
		}
	case func(...any) string:
		return func(v ...any) (string, error) {
			return metered(b, c, flat, v, func() (string, error) { return f(v...), nil })
		}
	case func(string, ...any) string:
		return func(s string, v ...any) (string, error) {
			return metered(b, c, flat, append([]any{s}, v...), func() (string, error) { return f(s, v...), nil })
		}
	case func(any) any:
		return func(v any) (any, error) {
			return metered(b, c, flat, []any{v}, func() (any, error) { return f(v), nil })
		}
	case func(...any) (any, error):
		return func(v ...any) (any, error) {
			return metered(b, c, flat, v, func() (any, error) { return f(v...) })
		}
	case func(...any) []any:
		return func(v ...any) ([]any, error) {
			return metered(b, c, flat, v, func() ([]any, error) { return f(v...), nil })
		}
	case func(...any) map[string]any:
		return func(v ...any) (map[string]any, error) {
			return metered(b, c, flat, v, func() (map[string]any, error) { return f(v...), nil })
		}
	case func(any, ...any) any:
		return func(d any, v ...any) (any, error) {
			return metered(b, c, flat, append([]any{d}, v...), func() (any, error) { return f(d, v...), nil })
		}
	case func(string, any) (string, error):
		return func(s string, v any) (string, error) {
			return metered(b, c, flat, []any{s, v}, func() (string, error) { return f(s, v) })
		}
	}
	return nil
}

// metered calls f, charging b for its arguments (c) before and for its
// result after.
func metered[R any](b *budget, c costFunc, flat bool, args []any, f func() (R, error)) (R, error) {
	if err := b.before(c, args); err != nil {
		var zero R
		return zero, err
	}
	r, err := f()
	if err != nil {
		return r, err
	}
	if flat {
		return r, b.spend("", elemCost)
	}
	if s, ok := any(r).(string); ok && len(s) > maxOutput {
		return r, fmt.Errorf("the result is %d bytes, over the limit of %d", len(s), maxOutput)
	}
	return r, b.spend("", shallowSize(r))
}

// shallowSize is the cost of reading the top of v: a string's bytes,
// elemCost per list item, entryCost plus its key per dict entry (keys
// are hashed and compared), elemCost for anything else.
func shallowSize(v any) int64 {
	switch v := v.(type) {
	case string:
		return int64(len(v))
	case []any:
		return int64(len(v)) * elemCost
	case map[string]any:
		n := int64(len(v)) * entryCost
		for k := range v {
			n += int64(len(k))
		}
		return n
	case nil, bool, int, int64, float64:
		return elemCost
	}
	return shallowValue(reflect.ValueOf(v))
}

func shallowValue(r reflect.Value) int64 {
	for r.Kind() == reflect.Interface || r.Kind() == reflect.Pointer {
		if r.IsNil() {
			return elemCost
		}
		r = r.Elem()
	}
	switch r.Kind() {
	case reflect.String:
		return int64(r.Len())
	case reflect.Slice, reflect.Array:
		if r.Type().Elem().Kind() == reflect.Uint8 {
			return int64(r.Len())
		}
		return int64(r.Len()) * elemCost
	case reflect.Map:
		n := int64(r.Len()) * entryCost
		if r.Type().Key().Kind() == reflect.String {
			for it := r.MapRange(); it.Next(); {
				n += int64(it.Key().Len())
			}
		}
		return n
	}
	return elemCost
}

// refSize is the cost of looking at v: a string's bytes (it may be hashed
// or compared), elemCost for anything else.
func refSize(v any) int64 {
	if s, ok := v.(string); ok {
		return int64(len(s))
	}
	return elemCost
}

// sizer measures a value deeply: every string's bytes, elemCost per list
// item and scalar, entryCost plus the key per dict entry, plus indent per
// level of nesting per item. It stops counting past limit.
type sizer struct {
	indent, limit, n int64
}

// deepSize is v's deep size, more than limit when it is; an error for a
// value nesting deeper than maxNesting.
func deepSize(v any, indent, limit int64) (int64, error) {
	s := sizer{indent: indent, limit: limit}
	err := s.walk(v, 0)
	return s.n, err
}

func (s *sizer) walk(v any, depth int64) error {
	if s.n > s.limit {
		return nil
	}
	if depth > maxNesting {
		return errNesting
	}
	s.n += s.indent * depth
	switch v := v.(type) {
	case string:
		s.n += int64(len(v))
		return nil
	case nil, bool, int, int64, float64:
		s.n += elemCost
		return nil
	case []any:
		for _, e := range v {
			s.n += elemCost
			if err := s.walk(e, depth+1); err != nil || s.n > s.limit {
				return err
			}
		}
		return nil
	case map[string]any:
		for k, e := range v {
			s.n += entryCost + int64(len(k))
			if err := s.walk(e, depth+1); err != nil || s.n > s.limit {
				return err
			}
		}
		return nil
	}
	return s.walkValue(reflect.ValueOf(v), depth)
}

func (s *sizer) walkValue(r reflect.Value, depth int64) error {
	for r.Kind() == reflect.Interface || r.Kind() == reflect.Pointer {
		if r.IsNil() {
			s.n += elemCost
			return nil
		}
		r = r.Elem()
	}
	switch r.Kind() {
	case reflect.String:
		s.n += int64(r.Len())
	case reflect.Slice, reflect.Array:
		if r.Type().Elem().Kind() == reflect.Uint8 {
			s.n += int64(r.Len())
			return nil
		}
		for i := 0; i < r.Len(); i++ {
			s.n += elemCost
			if err := s.walkElem(r.Index(i), depth+1); err != nil || s.n > s.limit {
				return err
			}
		}
	case reflect.Map:
		it := r.MapRange()
		for it.Next() {
			s.n += entryCost
			if err := s.walkElem(it.Key(), depth+1); err != nil {
				return err
			}
			if err := s.walkElem(it.Value(), depth+1); err != nil || s.n > s.limit {
				return err
			}
		}
	case reflect.Struct:
		// time.Time, semver's Version, url's parts: printed through
		// their methods or field by field, all small.
		s.n += elemCost * int64(r.NumField()+1)
	default:
		s.n += elemCost
	}
	return nil
}

func (s *sizer) walkElem(r reflect.Value, depth int64) error {
	if r.CanInterface() {
		return s.walk(r.Interface(), depth)
	}
	return s.walkValue(r, depth)
}

// deepSum is the deep size of args, stopping past limit.
func deepSum(args []any, indent, limit int64) (int64, error) {
	var n int64
	for _, a := range args {
		m, err := deepSize(a, indent, limit-n)
		n += m
		if err != nil || n > limit {
			return n, err
		}
	}
	return n, nil
}

// refCost: callCost plus ref of every argument.
func refCost(args []any, _ int64) (int64, error) {
	n := int64(callCost)
	for _, a := range args {
		n += refSize(a)
	}
	return n, nil
}

// scanCost: callCost plus w times the shallow size of every argument.
func scanCost(w int64) costFunc {
	return func(args []any, _ int64) (int64, error) {
		n := int64(0)
		for _, a := range args {
			n += shallowSize(a)
		}
		return callCost + w*n, nil
	}
}

// deepCost: callCost plus w times the deep size of the arguments.
func deepCost(w int64) costFunc {
	return func(args []any, room int64) (int64, error) {
		n, err := deepSum(args, 0, room/w)
		return callCost + w*n, err
	}
}

// dictCost: dict's keys are printed (sprig formats a key that is not a
// string), its values stored.
var dictCost = mixedCost(func(i int) bool { return i%2 == 0 })

// setCost: set (dict, key, value) walks value to refuse a cycle.
var setCost = mixedCost(func(i int) bool { return i >= 2 })

// mixedCost: callCost plus the deep size of the arguments deep says, the
// ref of the others.
func mixedCost(deep func(i int) bool) costFunc {
	return func(args []any, room int64) (int64, error) {
		n := int64(callCost)
		for i, a := range args {
			if !deep(i) {
				n += refSize(a)
				continue
			}
			m, err := deepSize(a, 0, room-n)
			if err != nil {
				return 0, err
			}
			n += m
		}
		return n, nil
	}
}

// listLen is the number of items of a list argument, 0 for anything else.
func listLen(v any) int64 {
	switch v := v.(type) {
	case []any:
		return int64(len(v))
	case nil:
		return 0
	}
	r := reflect.ValueOf(v)
	if r.Kind() == reflect.Slice || r.Kind() == reflect.Array {
		return int64(r.Len())
	}
	return 0
}

// mulSat is a*b, saturating at MaxInt64 (both are not negative).
func mulSat(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
}

// uniqCost: uniq compares every item with every one kept (DeepEqual).
func uniqCost(args []any, room int64) (int64, error) {
	n, err := deepCost(1)(args, room)
	if err != nil || len(args) == 0 {
		return n, err
	}
	l := listLen(args[0])
	return n + mulSat(mulSat(l, l), elemCost/2), nil
}

// withoutCost: without compares every item with every one omitted.
func withoutCost(args []any, room int64) (int64, error) {
	n, err := deepCost(1)(args, room)
	if err != nil || len(args) == 0 {
		return n, err
	}
	return n + mulSat(mulSat(listLen(args[0]), int64(len(args)-1)), elemCost), nil
}

// hasCost: has (needle, list) compares the needle with every item.
func hasCost(args []any, room int64) (int64, error) {
	if len(args) != 2 {
		return deepCost(1)(args, room)
	}
	needle, err := deepSize(args[0], 0, room)
	if err != nil {
		return 0, err
	}
	list, err := deepSize(args[1], 0, room)
	if err != nil {
		return 0, err
	}
	return callCost + list + mulSat(listLen(args[1]), needle+elemCost), nil
}

// keysCost: keys and values (dicts...) sort the keys (n log n string
// comparisons).
func keysCost(args []any, _ int64) (int64, error) {
	n, count := int64(0), int64(0)
	for _, a := range args {
		n += shallowSize(a)
		if r := reflect.ValueOf(a); r.Kind() == reflect.Map {
			count += int64(r.Len())
		}
	}
	return callCost + mulSat(n, int64(bits.Len64(uint64(count))+1)), nil
}

// sortCost: sortAlpha prints every item, then sorts (n log n
// comparisons of strings).
func sortCost(args []any, room int64) (int64, error) {
	n, err := deepSum(args, 0, room)
	if err != nil || len(args) == 0 {
		return callCost + n, err
	}
	return callCost + mulSat(n, int64(bits.Len64(uint64(listLen(args[0])))+1)), nil
}

// encodeCost: an encoder of one value, w per unit, indenting each level
// by indent. A value over maxOutput is refused: its encoding could not be
// printed.
func encodeCost(w, indent int64) costFunc {
	return func(args []any, room int64) (int64, error) {
		n, err := deepSum(args, indent, min(room/w, maxOutput))
		if err != nil {
			return 0, err
		}
		if n > maxOutput {
			return 0, fmt.Errorf("the value is more than %d bytes; its encoding could not be printed", maxOutput)
		}
		return callCost + w*n, nil
	}
}

// decodeCost: a decoder of one string, w per byte; a string over
// maxOutput is refused.
func decodeCost(w int64) costFunc {
	return func(args []any, _ int64) (int64, error) {
		n := int64(0)
		for _, a := range args {
			n += refSize(a)
		}
		if n > maxOutput {
			return 0, fmt.Errorf("the input is %d bytes, over the limit of %d", n, maxOutput)
		}
		return callCost + w*n, nil
	}
}

// printCost: a function printing its arguments, its output up to factor
// times their deep size; refused past maxOutput.
func printCost(factor int64) costFunc {
	return func(args []any, room int64) (int64, error) {
		n, err := deepSum(args, 0, min(room, maxOutput))
		if err != nil {
			return 0, err
		}
		return outputCost(n, mulSat(n, factor)+int64(len(args)))
	}
}

// joinCost: join (sep, list) prints every item and a separator between
// two.
func joinCost(args []any, room int64) (int64, error) {
	if len(args) != 2 {
		return deepCost(1)(args, room)
	}
	sep, _ := args[0].(string)
	n, err := deepSize(args[1], 0, min(room, maxOutput))
	if err != nil {
		return 0, err
	}
	return outputCost(n, n+mulSat(listLen(args[1]), int64(len(sep))))
}

// intArg is argument i as an int, ok false when it is not one.
func intArg(args []any, i int) (int64, bool) {
	if i < 0 || i >= len(args) {
		return 0, false
	}
	r := reflect.ValueOf(args[i])
	switch r.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return r.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if r.Uint() > math.MaxInt64 {
			return math.MaxInt64, true
		}
		return int64(r.Uint()), true
	}
	return 0, false
}

// strArg is argument i as a string ("" when it is not one).
func strArg(args []any, i int) string {
	if i < len(args) {
		s, _ := args[i].(string)
		return s
	}
	return ""
}

// outputCost charges an estimated output of out bytes plus the input
// read, refusing an output over maxOutput.
func outputCost(in, out int64) (int64, error) {
	if out > maxOutput {
		return 0, fmt.Errorf("the result would exceed %d bytes", maxOutput)
	}
	return callCost + in + out, nil
}

// repeatCost: repeat (count, s).
func repeatCost(args []any, _ int64) (int64, error) {
	n, _ := intArg(args, 0)
	return outputCost(0, mulSat(max(n, 0), int64(len(strArg(args, 1)))))
}

// indentCost: indent and nindent (spaces, s) pad every line.
func indentCost(args []any, _ int64) (int64, error) {
	n, _ := intArg(args, 0)
	s := strArg(args, 1)
	return outputCost(int64(len(s)), int64(len(s))+1+mulSat(max(n, 0), int64(strings.Count(s, "\n")+1)))
}

// replaceCost: replace (old, new, s) writes new for every old in s.
func replaceCost(args []any, _ int64) (int64, error) {
	old, repl, s := strArg(args, 0), strArg(args, 1), strArg(args, 2)
	in := int64(len(old) + len(repl) + len(s))
	if len(repl) <= len(old) {
		return outputCost(in, int64(len(s)))
	}
	var count int
	if old == "" {
		count = utf8.RuneCountInString(s) + 1
	} else {
		count = strings.Count(s, old)
	}
	return outputCost(in, int64(len(s))+mulSat(int64(count), int64(len(repl)-len(old))))
}

// wrapCost: wrap (width, s) and wrapWith (width, sep, s) write a
// separator at every space or every width bytes of a longer word.
func wrapCost(args []any, _ int64) (int64, error) {
	w, _ := intArg(args, 0)
	w = max(w, 1)
	sep, s := "\n", strArg(args, 1)
	if len(args) == 3 {
		sep, s = cmp.Or(strArg(args, 1), "\n"), strArg(args, 2)
	}
	breaks := int64(strings.Count(s, " ")) + int64(len(s))/w + 1
	return outputCost(int64(len(s)+len(sep)), int64(len(s))+mulSat(breaks, int64(len(sep))))
}

// trimAllCost: trimAll (cutset, s) looks every trimmed rune up in the
// cutset.
func trimAllCost(args []any, _ int64) (int64, error) {
	cutset, s := strArg(args, 0), strArg(args, 1)
	return callCost + int64(len(cutset)) + mulSat(int64(len(s)), int64(len(cutset))/16+1), nil
}

// splitCost: splitList, split and splitn (sep, [n,] s) build a list (a
// dict) of per items.
func splitCost(per int64) costFunc {
	return func(args []any, _ int64) (int64, error) {
		sep, s := strArg(args, 0), strArg(args, len(args)-1)
		var pieces int64
		if sep == "" {
			pieces = int64(utf8.RuneCountInString(s))
		} else {
			pieces = int64(strings.Count(s, sep)) + 1
		}
		if n, ok := intArg(args, 1); ok && len(args) == 3 && n >= 0 {
			pieces = min(pieces, n)
		}
		return callCost + int64(len(s)+len(sep)) + mulSat(pieces, per), nil
	}
}

// semverCost refuses a version or constraint over maxSemver bytes: they
// are parsed with regular expressions.
func semverCost(args []any, _ int64) (int64, error) {
	n := int64(callCost)
	for _, a := range args {
		s, _ := a.(string)
		if len(s) > maxSemver {
			return 0, fmt.Errorf("a version or constraint of %d bytes, over the limit of %d", len(s), maxSemver)
		}
		n += 128 * int64(len(s))
	}
	return n, nil
}

// certCost: buildCustomCert (cert, key) decodes both and parses them;
// checking an RSA key takes time quadratic in its size.
func certCost(args []any, room int64) (int64, error) {
	n, err := deepCost(8)(args, room)
	key := int64(len(strArg(args, 1)))
	return n + mulSat(key, key)/16, err
}

// plus adds base to c: a function whose calls cost more than their
// arguments (a parser to set up, big numbers).
func plus(base int64, c costFunc) costFunc {
	return func(args []any, room int64) (int64, error) {
		n, err := c(args, room)
		return base + n, err
	}
}

// regexCost is the cost of a regular expression function whose
// arguments are the pattern at pat, the input at in, a replacement at
// repl (-1: none) and a count of results at count (-1: none): the input
// times the program's size (Go's worst case), plus compiling. Patterns
// over maxPattern bytes or maxProgram instructions are refused, as are
// replacements whose result could exceed maxOutput.
func regexCost(pat, in, repl, count int) costFunc {
	return func(args []any, _ int64) (int64, error) {
		p, s := strArg(args, pat), strArg(args, in)
		if len(p) > maxPattern {
			return 0, fmt.Errorf("a pattern of %d bytes, over the limit of %d", len(p), maxPattern)
		}
		re, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			return callCost, nil // the function reports it
		}
		prog := progSize(re)
		if prog > maxProgram {
			return 0, fmt.Errorf("the pattern compiles to about %d instructions, over the limit of %d", prog, maxProgram)
		}
		n := callCost + 512 + prog*64 + mulSat(int64(len(s))+1, prog)
		if count >= 0 {
			items := int64(len(s)) + 1
			if c, ok := intArg(args, count); ok && c >= 0 {
				items = min(items, c)
			}
			n += mulSat(items, elemCost)
		}
		if repl >= 0 {
			r := strArg(args, repl)
			// Every match writes r, each $ in it up to the match again;
			// matches do not overlap.
			out := int64(len(s)) + mulSat(int64(len(s))+1, int64(len(r))) + mulSat(int64(strings.Count(r, "$")), int64(len(s)))
			if out > maxOutput {
				return 0, fmt.Errorf("replacing in %d bytes with a %d-byte replacement could write more than %d bytes", len(s), len(r), maxOutput)
			}
			n += out
		}
		return n, nil
	}
}

// progSize estimates the number of instructions re compiles to (as
// regexp/syntax's own size check does), saturating.
func progSize(re *syntax.Regexp) int64 {
	switch re.Op {
	case syntax.OpLiteral:
		return int64(len(re.Rune)) + 1
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		return progSize(re.Sub[0]) + 2
	case syntax.OpConcat, syntax.OpAlternate:
		n := int64(1)
		for _, s := range re.Sub {
			n = min(n+progSize(s), math.MaxInt32)
		}
		return n
	case syntax.OpRepeat:
		times := int64(re.Max)
		if re.Max < 0 {
			times = int64(re.Min) + 1
		}
		return min(mulSat(max(times, 1), progSize(re.Sub[0])+1), math.MaxInt32)
	}
	return 1
}

// printfCost: printf (format, args...) writes its format, and for every
// verb its width, its precision and its argument (a quoted or hex verb,
// or %#v and %+v, up to 4 times its size). Widths and precisions over
// maxWidth are refused, so is an output over maxOutput.
func printfCost(args []any, room int64) (int64, error) {
	if len(args) == 0 {
		return callCost, nil
	}
	format, _ := args[0].(string)
	args = args[1:]
	sizes := slices.Repeat([]int64{-1}, len(args))
	sizeOf := func(i int) (int64, error) {
		if sizes[i] < 0 {
			n, err := deepSize(args[i], 0, min(room, maxOutput))
			if err != nil {
				return 0, err
			}
			sizes[i] = n
		}
		return sizes[i], nil
	}
	out := int64(len(format))
	argNum := 0
	index := func(i int) int {
		// [n] picks argument n (from 1); a malformed index is fmt's to
		// report.
		if i < len(format) && format[i] == '[' {
			if j := strings.IndexByte(format[i:], ']'); j > 0 {
				n := 0
				for _, c := range format[i+1 : i+j] {
					if c < '0' || c > '9' || n > len(args)+1 {
						return i + j + 1
					}
					n = n*10 + int(c-'0')
				}
				argNum = n - 1
				return i + j + 1
			}
		}
		return i
	}
	number := func(i int) (int64, int, error) {
		if i < len(format) && format[i] == '*' {
			w, ok := intArg(args, argNum)
			argNum++
			if ok && (w > maxWidth || w < -maxWidth) {
				return 0, 0, fmt.Errorf("a width or precision of %d (from *), over the limit of %d", w, maxWidth)
			}
			return max(w, -w), i + 1, nil
		}
		var n int64
		for ; i < len(format) && format[i] >= '0' && format[i] <= '9'; i++ {
			n = n*10 + int64(format[i]-'0')
			if n > maxWidth {
				return 0, 0, fmt.Errorf("a width or precision over the limit of %d in the format", maxWidth)
			}
		}
		return n, i, nil
	}
	for i := 0; i < len(format); {
		if format[i] != '%' {
			i++
			continue
		}
		i++
		wide := false
		for ; i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0; i++ {
			wide = wide || format[i] == '#' || format[i] == '+'
		}
		i = index(i)
		w, j, err := number(i)
		if err != nil {
			return 0, err
		}
		i = j
		var p int64
		if i < len(format) && format[i] == '.' {
			i = index(i + 1)
			if p, i, err = number(i); err != nil {
				return 0, err
			}
		}
		i = index(i)
		if i >= len(format) {
			out += 16
			break
		}
		verb, n := utf8.DecodeRuneInString(format[i:])
		i += n
		if verb == '%' {
			continue
		}
		out += w + p + 32
		if argNum >= 0 && argNum < len(args) {
			s, err := sizeOf(argNum)
			if err != nil {
				return 0, err
			}
			factor := int64(2)
			if wide || verb == 'q' || verb == 'x' || verb == 'X' || verb == 'U' {
				factor = 4
			}
			out += mulSat(s, factor)
			if k := reflect.ValueOf(args[argNum]).Kind(); k == reflect.Float32 || k == reflect.Float64 || k == reflect.Complex64 || k == reflect.Complex128 {
				out += 2 * 330 // %f of 1e308 has 309 digits
			}
		}
		argNum++
		if out > maxOutput {
			break
		}
	}
	// Arguments no verb used are printed as %!(EXTRA ...).
	for i := max(argNum, 0); i < len(args) && out <= maxOutput; i++ {
		s, err := sizeOf(i)
		if err != nil {
			return 0, err
		}
		out += 2*s + 16
	}
	return outputCost(0, out)
}

// The functions instrument plants besides steps.go's, which pass a value
// on and charge for it: printFunc in an action that prints (its deep
// size), argFunc around the operands of comparisons and index.
const (
	printFunc = "strataPrint"
	argFunc   = "strataArg"
)

// print charges printing v: callCost (print is a function call) and
// v's deep size.
func (b *budget) print(v any) (any, error) {
	switch v.(type) {
	case string, nil, bool, int, int64, float64:
		return v, b.spend("printing a value", callCost+shallowSize(v))
	}
	n, err := deepSize(v, 0, min(b.room(), maxOutput))
	if err != nil {
		return nil, fmt.Errorf("printing a value: %w", err)
	}
	if n > maxOutput {
		return nil, fmt.Errorf("printing a value of more than %d bytes; the output of a template may not exceed that", maxOutput)
	}
	return v, b.spend("printing a value", callCost+n)
}

// arg charges comparing or indexing with v: callCost, and a string's
// length.
func (b *budget) arg(v any) (any, error) {
	if s, ok := v.(string); ok {
		return v, b.spend(fmt.Sprintf("comparing or indexing with a string of %d bytes", len(s)), callCost+int64(len(s)))
	}
	return v, b.spend("comparing or indexing", callCost)
}
