package blueprint

import (
	"fmt"
	"text/template"
	"text/template/parse"
)

// maxSteps bounds the work of one render: every iteration of a range and
// every entry into a template (the main one, a {{define}}d one through
// template or include) is a step. Loops over a Gateway's listeners and
// routes take thousands; a template looping without end, or recursing
// into two copies of itself, fails instead of holding the controller's
// worker forever. A step costs well under a microsecond, so the budget is
// a second or two at most.
const maxSteps = 1 << 21

// maxDepth bounds how deep templates call templates (template or
// include). text/template's own bound (100000) is too deep: unwinding an
// error through that many ranges takes hours.
const maxDepth = 1000

// The functions instrument plants: stepFunc at the start of each range
// body, enterFunc and exitFunc around the body of each template. They
// print nothing; a template calling them itself only spends its budget.
const (
	stepFunc  = "strataStep"
	enterFunc = "strataEnter"
	exitFunc  = "strataExit"
)

// budget counts the steps and the template depth of one render, across
// its templates. max is the step budget, maxSteps when 0 (tests lower
// it).
type budget struct{ steps, depth, max int }

// funcs returns the planted functions.
func (b *budget) funcs() map[string]any {
	return map[string]any{stepFunc: b.step, enterFunc: b.enter, exitFunc: b.exit}
}

func (b *budget) step() (string, error) {
	b.steps++
	limit := b.max
	if limit == 0 {
		limit = maxSteps
	}
	if b.steps > limit {
		return "", fmt.Errorf("the render took more than %d steps (range iterations and template calls); does a loop or a recursion never end?", limit)
	}
	return "", nil
}

func (b *budget) enter() (string, error) {
	b.depth++
	if b.depth > maxDepth {
		return "", fmt.Errorf("templates call templates more than %d deep; does a template or include call itself without end?", maxDepth)
	}
	return b.step()
}

func (b *budget) exit() string {
	if b.depth > 0 {
		b.depth--
	}
	return ""
}

// instrument plants a call of stepFunc at the start of every range body
// and enterFunc and exitFunc around every template of t. text/template
// has no hook for this; its parse trees are exported for such rewriting.
// An error unwinds the whole execution, so a template left without its
// exit only matters to a render that has failed.
func instrument(t *template.Template) {
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Root == nil {
			continue
		}
		plantSteps(tt.Tree, tt.Root)
		nodes := make([]parse.Node, 0, len(tt.Root.Nodes)+2)
		nodes = append(nodes, call(tt.Tree, tt.Root.Pos, enterFunc))
		nodes = append(nodes, tt.Root.Nodes...)
		tt.Root.Nodes = append(nodes, call(tt.Tree, tt.Root.Pos, exitFunc))
	}
}

func plantSteps(tr *parse.Tree, n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			plantSteps(tr, c)
		}
	case *parse.IfNode:
		plantSteps(tr, n.List)
		plantSteps(tr, n.ElseList)
	case *parse.WithNode:
		plantSteps(tr, n.List)
		plantSteps(tr, n.ElseList)
	case *parse.RangeNode:
		plantSteps(tr, n.List)
		plantSteps(tr, n.ElseList)
		if n.List != nil {
			n.List.Nodes = append([]parse.Node{call(tr, n.Pos, stepFunc)}, n.List.Nodes...)
		}
	}
}

// call is `{{ fn }}` at pos of tree tr, so an error in it is reported at
// the range (or template) it counts.
func call(tr *parse.Tree, pos parse.Pos, fn string) parse.Node {
	id := parse.NewIdentifier(fn).SetTree(tr).SetPos(pos)
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{id}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Pipe: &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Cmds: []*parse.CommandNode{cmd}}}
}
