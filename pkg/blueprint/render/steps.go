package render

import (
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"
)

// maxSteps bounds the range iterations and template entries (the main
// one, template, include) of one render, so a template looping without
// end fails instead of holding the controller's worker.
const maxSteps = 1 << 21

// maxDepth bounds how deep templates call templates; text/template's own
// bound (100000) is too deep to unwind an error through.
const maxDepth = 1000

// The functions instrument plants (and cost.go's printFunc and argFunc).
// They print nothing; a template calling them only spends its budget.
const (
	stepFunc  = "strataStep"
	weighFunc = "strataWeigh"
	enterFunc = "strataEnter"
	exitFunc  = "strataExit"
)

// budget counts the steps, the template depth and the work (cost.go) of
// one render. max and workMax lower maxSteps and maxWork (tests). A copy
// saves its state.
type budget struct {
	steps, depth, max int
	work, workMax     int64
}

// funcs returns the planted functions.
func (b *budget) funcs() map[string]any {
	return map[string]any{
		stepFunc: b.step, weighFunc: weigh, enterFunc: b.enter, exitFunc: b.exit,
		printFunc: b.print, argFunc: b.arg,
	}
}

// weighed is what a range ranges over, with the weight of its body (see
// weight), from weighFunc to stepFunc.
type weighed struct {
	v any
	w int64
}

func weigh(w int, v any) weighed { return weighed{v: v, w: int64(w)} }

// step, at the end of a range's pipeline, counts the range's iterations
// as steps, charging each the weight of its body up front, and passes on
// what the range ranges over. Without an argument it counts one step.
func (b *budget) step(v ...any) (any, error) {
	n, w, extra := int64(1), int64(0), int64(0)
	var val any = ""
	if len(v) == 1 {
		val = v[0]
		if x, ok := val.(weighed); ok {
			val, w = x.v, x.w
		}
		n, extra = iterations(val)
		extra += 2 * callCost // weighFunc and stepFunc
	}
	if err := b.count(n); err != nil {
		return nil, err
	}
	return val, b.spend("evaluating the template", mulSat(n, stepCost+w)+extra)
}

// iterations is how often a range over v runs its body, and what sorting
// a dict's keys costs.
func iterations(v any) (n, sort int64) {
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Slice, reflect.Array:
		return int64(r.Len()), 0
	case reflect.Map:
		n = int64(r.Len())
		keys := n * entryCost
		if m, ok := v.(map[string]any); ok {
			for k := range m {
				keys += int64(len(k))
			}
		}
		return n, mulSat(keys, int64(bits.Len64(uint64(n))+1))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return max(r.Int(), 0), 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(min(r.Uint(), math.MaxInt64)), 0
	}
	return 0, 0
}

// count counts n steps.
func (b *budget) count(n int64) error {
	limit := b.max
	if limit == 0 {
		limit = maxSteps
	}
	if n > int64(limit-b.steps) {
		b.steps = limit + 1
		return fmt.Errorf("the render took more than %d steps (range iterations and template calls); does a loop or a recursion never end?", limit)
	}
	b.steps += int(n)
	return nil
}

// enter counts a template call as a step and charges the weight of its
// body.
func (b *budget) enter(weight int) (string, error) {
	b.depth++
	if b.depth > maxDepth {
		return "", fmt.Errorf("templates call templates more than %d deep; does a template or include call itself without end?", maxDepth)
	}
	if err := b.count(1); err != nil {
		return "", err
	}
	// text/template sets up a state per call, and enterFunc and exitFunc
	// are calls too.
	return "", b.spend("evaluating the template", 4*callCost+stepCost+int64(weight))
}

func (b *budget) exit() string {
	if b.depth > 0 {
		b.depth--
	}
	return ""
}

// instrument plants, in every template of t: weighFunc and stepFunc at
// the end of every range's pipeline (`range P | strataWeigh W |
// strataStep`: its iterations, charged the weight W of its body up
// front); enterFunc and exitFunc around every template; printFunc in
// every action that prints (plantPrint); argFunc around the operands of
// comparisons and index (plantArgs).
// It returns the functions the templates name (identifiers).
func instrument(t *template.Template) map[string]bool {
	used := map[string]bool{}
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Root == nil {
			continue
		}
		w := weight(tt.Root)
		plantCharges(tt.Tree, tt.Root, used)
		nodes := make([]parse.Node, 0, len(tt.Root.Nodes)+2)
		nodes = append(nodes, weighted(tt.Tree, tt.Root.Pos, enterFunc, w))
		nodes = append(nodes, tt.Root.Nodes...)
		tt.Root.Nodes = append(nodes, call(tt.Tree, tt.Root.Pos, exitFunc))
	}
	return used
}

func plantCharges(tr *parse.Tree, n parse.Node, used map[string]bool) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			plantCharges(tr, c, used)
		}
	case *parse.ActionNode:
		plantArgs(tr, n.Pipe, used)
		if len(n.Pipe.Decl) == 0 {
			plantPrint(tr, n.Pipe)
		}
	case *parse.TemplateNode:
		plantArgs(tr, n.Pipe, used)
	case *parse.IfNode, *parse.WithNode, *parse.RangeNode:
		b := branch(n)
		plantArgs(tr, b.Pipe, used)
		if _, ok := n.(*parse.RangeNode); ok {
			b.Pipe.Cmds = append(b.Pipe.Cmds,
				cmdNode(tr, b.Pos, identNode(tr, b.Pos, weighFunc), numNode(b.Pos, weight(b.List))),
				cmdNode(tr, b.Pos, identNode(tr, b.Pos, stepFunc)))
		}
		plantCharges(tr, b.List, used)
		plantCharges(tr, b.ElseList, used)
	}
}

// branch is the BranchNode of an if, with or range; nil for other nodes.
func branch(n parse.Node) *parse.BranchNode {
	switch n := n.(type) {
	case *parse.IfNode:
		return &n.BranchNode
	case *parse.WithNode:
		return &n.BranchNode
	case *parse.RangeNode:
		return &n.BranchNode
	}
	return nil
}

// numNode is the integer constant w (at most MaxInt32) at pos.
func numNode(pos parse.Pos, w int64) *parse.NumberNode {
	w = min(w, math.MaxInt32)
	return &parse.NumberNode{NodeType: parse.NodeNumber, Pos: pos, IsInt: true, Int64: w, Text: strconv.FormatInt(w, 10)}
}

// weight is what evaluating n once costs, in work units: nodeCost per
// node, a text's or string constant's bytes; both branches of an if or
// with, not the body of a range (its steps charge it).
func weight(n parse.Node) int64 {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return 0
		}
		w := int64(0)
		for _, c := range n.Nodes {
			w += weight(c)
		}
		return w
	case *parse.TextNode:
		return int64(len(n.Text))
	case *parse.StringNode:
		return nodeCost + int64(len(n.Text))
	case *parse.ActionNode:
		return nodeCost + weight(n.Pipe)
	case *parse.PipeNode:
		if n == nil {
			return 0
		}
		w := nodeCost * int64(len(n.Decl))
		for _, c := range n.Cmds {
			w += weight(c)
		}
		return w
	case *parse.CommandNode:
		w := int64(nodeCost)
		for _, a := range n.Args {
			w += weight(a)
		}
		return w
	case *parse.IfNode, *parse.WithNode:
		b := branch(n)
		return nodeCost + weight(b.Pipe) + weight(b.List) + weight(b.ElseList)
	case *parse.RangeNode:
		return nodeCost + weight(n.Pipe) + weight(n.ElseList)
	case *parse.TemplateNode:
		return nodeCost + weight(n.Pipe)
	case *parse.ChainNode:
		return nodeCost*int64(len(n.Field)) + weight(n.Node)
	case *parse.FieldNode:
		return nodeCost * int64(len(n.Ident))
	case *parse.VariableNode:
		return nodeCost * int64(len(n.Ident))
	}
	return nodeCost
}

// comparisons are text/template's builtins that read their operands
// whole (a string compared, a key hashed): plantArgs charges the strings
// they are given.
var comparisons = map[string]bool{"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true, "index": true}

// plantArgs wraps every operand of a comparison in p (and the pipelines
// nested in p) that is not a constant in a call of argFunc: `eq .a "x"`
// becomes `eq (strataArg .a) "x"`, `.a | eq "x"` becomes `.a | strataArg
// | eq "x"`. It adds the identifiers it meets to used.
func plantArgs(tr *parse.Tree, p *parse.PipeNode, used map[string]bool) {
	if p == nil {
		return
	}
	cmds := make([]*parse.CommandNode, 0, len(p.Cmds))
	for i, c := range p.Cmds {
		for _, a := range c.Args {
			if c, ok := a.(*parse.ChainNode); ok {
				a = c.Node
			}
			switch a := a.(type) {
			case *parse.IdentifierNode:
				used[a.Ident] = true
			case *parse.PipeNode:
				plantArgs(tr, a, used)
			}
		}
		if comparisons[funcName(c)] {
			wrapArgs(tr, c, argFunc)
			if i > 0 {
				cmds = append(cmds, cmdNode(tr, c.Pos, identNode(tr, c.Pos, argFunc)))
			}
		}
		cmds = append(cmds, c)
	}
	p.Cmds = cmds
}

// printTail are the functions that may end a printing action after the
// value printed: layout (indent, nindent, trim) and the holes' planted
// functions (holes.go), which take the value as it is printed.
var printTail = map[string]bool{"indent": true, "nindent": true, "trim": true, "strataMark": true, "strataHole": true}

// plantPrint makes the printing action p charge the value it prints:
// `{{ P | layout }}` becomes `{{ P | strataPrint | layout }}`; a
// serializer ending P has its arguments wrapped instead, so it stays last
// for holes.go. An include and a constant are paid for already.
func plantPrint(tr *parse.Tree, p *parse.PipeNode) {
	body := len(p.Cmds)
	for body > 0 && printTail[funcName(p.Cmds[body-1])] {
		body--
	}
	if body == 0 {
		return
	}
	last := p.Cmds[body-1]
	name := funcName(last)
	at := body // where a strataPrint command goes
	switch {
	case name == "include":
		return
	case nodeFuncs[name] || strings.HasPrefix(name, "strataNode"):
		wrapArgs(tr, last, printFunc)
		if body == 1 {
			return
		}
		at = body - 1
	case body == 1 && len(last.Args) == 1 && isConstant(last.Args[0]):
		return
	}
	cmds := make([]*parse.CommandNode, 0, len(p.Cmds)+1)
	cmds = append(cmds, p.Cmds[:at]...)
	cmds = append(cmds, cmdNode(tr, last.Pos, identNode(tr, last.Pos, printFunc)))
	p.Cmds = append(cmds, p.Cmds[at:]...)
}

// wrapArgs wraps the arguments of function call c that are not constants
// in calls of fn.
func wrapArgs(tr *parse.Tree, c *parse.CommandNode, fn string) {
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i]
		if isConstant(a) {
			continue
		}
		pos := a.Position()
		c.Args[i] = &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos,
			Cmds: []*parse.CommandNode{cmdNode(tr, pos, identNode(tr, pos, fn), a)}}
	}
}

// funcName is the function command c calls, "" when it calls none.
func funcName(c *parse.CommandNode) string {
	if len(c.Args) == 0 {
		return ""
	}
	if id, ok := c.Args[0].(*parse.IdentifierNode); ok {
		return id.Ident
	}
	return ""
}

func isConstant(n parse.Node) bool {
	switch n.(type) {
	case *parse.StringNode, *parse.NumberNode, *parse.BoolNode, *parse.NilNode:
		return true
	}
	return false
}

func identNode(tr *parse.Tree, pos parse.Pos, fn string) *parse.IdentifierNode {
	return parse.NewIdentifier(fn).SetTree(tr).SetPos(pos)
}

func cmdNode(tr *parse.Tree, pos parse.Pos, args ...parse.Node) *parse.CommandNode {
	return &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: args}
}

// weighted is `{{ $strataWork := W | fn }}` at pos of tree tr: fn charging
// weight W, printing nothing.
func weighted(tr *parse.Tree, pos parse.Pos, fn string, w int64) parse.Node {
	num := numNode(pos, w)
	v := &parse.VariableNode{NodeType: parse.NodeVariable, Pos: pos, Ident: []string{"$strataWork"}}
	pipe := &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Decl: []*parse.VariableNode{v},
		Cmds: []*parse.CommandNode{cmdNode(tr, pos, num), cmdNode(tr, pos, identNode(tr, pos, fn))}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Pipe: pipe}
}

// call is `{{ fn }}` at pos of tree tr (exitFunc), so an error in it is
// reported at the template it ends.
func call(tr *parse.Tree, pos parse.Pos, fn string) parse.Node {
	cmd := cmdNode(tr, pos, identNode(tr, pos, fn))
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Pipe: &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Cmds: []*parse.CommandNode{cmd}}}
}
