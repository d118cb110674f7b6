package ast

// Visitor's Visit is called for each node met by Walk. If it returns a
// non-nil visitor w, Walk visits the node's children with w and then
// calls w.Visit(nil).
type Visitor interface {
	Visit(n Node) (w Visitor)
}

// Walk traverses the tree rooted at n in depth-first source order, in the
// manner of go/ast.Walk.
func Walk(v Visitor, n Node) {
	// The children of the nodes on the current path share one buffer
	// (each node's are appended after its parent's and dropped once
	// walked), so a walk allocates only if the buffer outgrows this
	// array: a hook process walks every module it loads.
	var stack [64]Node
	walk(v, n, stack[:0])
}

// walk is Walk with buf, the scratch buffer of the walk above n. It
// returns buf as it received it (possibly moved by growth).
func walk(v Visitor, n Node, buf []Node) []Node {
	if n == nil || isNilNode(n) {
		return buf
	}
	if v = v.Visit(n); v == nil {
		return buf
	}
	start := len(buf)
	buf = appendChildren(buf, n)
	// Indexes, not a range over a subslice: the children's walks may
	// grow (move) buf.
	for i, end := start, len(buf); i < end; i++ {
		buf = walk(v, buf[i], buf)
	}
	v.Visit(nil)
	return buf[:start]
}

type inspector func(Node) bool

func (f inspector) Visit(n Node) Visitor {
	if f(n) {
		return f
	}
	return nil
}

// Inspect calls f for each node of the tree rooted at n; f returning false
// skips the node's children. f(nil) follows each visited node's children.
func Inspect(n Node, f func(Node) bool) { Walk(inspector(f), n) }

// isNilNode catches typed nil pointers stored in interfaces.
func isNilNode(n Node) bool {
	switch x := n.(type) {
	case *Ref:
		return x == nil
	case *StringLit:
		return x == nil
	case *BlockExpr:
		return x == nil
	case *WhenExpr:
		return x == nil
	case *ForExpr:
		return x == nil
	case *ObjectLit:
		return x == nil
	case *CodeExpr:
		return x == nil
	case *IfDirective:
		return x == nil
	case *Stage:
		return x == nil
	}
	return false
}

func appendExprs(out []Node, xs ...Expr) []Node {
	for _, x := range xs {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

func targetNodes(out []Node, t *OutputTarget) []Node {
	if t != nil && t.Path != nil {
		out = append(out, t.Path)
	}
	return out
}

func stageNodes(out []Node, s *Stage) []Node {
	if s != nil {
		out = append(out, s)
	}
	return out
}

// appendChildren appends the direct child nodes of n to out in source
// order.
func appendChildren(out []Node, n Node) []Node {
	switch x := n.(type) {
	case *Document:
		out = append(out, x.Body...)
	case *VarDirective:
		out = appendExprs(out, x.Value)
	case *ShowDirective:
		out = appendExprs(out, x.Value)
	case *ExeDirective:
		out = appendExprs(out, x.Body)
	case *RunDirective:
		out = appendExprs(out, x.Value)
	case *WhenDirective:
		out = append(out, x.When)
	case *ForDirective:
		out = append(out, x.For)
	case *IfDirective:
		out = appendExprs(out, x.Cond)
		out = append(out, x.Then)
		if x.Else != nil {
			out = append(out, x.Else)
		}
	case *OutputDirective:
		out = appendExprs(out, x.Value)
		out = targetNodes(out, &x.Target)
	case *AppendDirective:
		out = appendExprs(out, x.Value)
		out = targetNodes(out, &x.Target)
	case *LogDirective:
		out = appendExprs(out, x.Value)
	case *BailDirective:
		out = appendExprs(out, x.Message)
	case *GuardDirective:
		out = append(out, x.Body)
	case *HookDirective:
		out = appendExprs(out, x.Body)
	case *PolicyDirective:
		out = appendExprs(out, x.Value)
	case *LetStmt:
		out = appendExprs(out, x.Value)
	case *AugmentStmt:
		out = appendExprs(out, x.Value)
	case *ReturnStmt:
		out = appendExprs(out, x.Value)
	case *ExprStmt:
		out = appendExprs(out, x.Value)
	case *StringLit:
		for _, p := range x.Parts {
			out = append(out, p)
		}
	case *InterpPart:
		out = appendExprs(out, x.Value, x.Fallback)
	case *TemplateFor:
		out = appendExprs(out, x.Source)
		for _, p := range x.Body {
			out = append(out, p)
		}
	case *Ref:
		for _, a := range x.Path {
			out = appendExprs(out, a.Index, a.End)
			out = appendExprs(out, a.Args...)
		}
	case *ArrayLit:
		for _, it := range x.Items {
			out = appendExprs(out, it.Value)
		}
	case *ObjectLit:
		for _, e := range x.Entries {
			out = appendExprs(out, e.Value)
		}
	case *UnaryExpr:
		out = appendExprs(out, x.X)
	case *BinaryExpr:
		out = appendExprs(out, x.Left, x.Right)
	case *TernaryExpr:
		out = appendExprs(out, x.Cond, x.Then, x.Else)
	case *CodeExpr:
		if x.Command != nil {
			out = append(out, x.Command)
		}
	case *PipelineExpr:
		out = appendExprs(out, x.Source)
		for _, s := range x.Stages {
			out = stageNodes(out, s)
		}
		if x.With != nil && !x.FromWith {
			for _, s := range x.With.Pipeline {
				out = stageNodes(out, s)
			}
		}
		if x.With != nil && x.With.Options != nil {
			out = append(out, x.With.Options)
		}
	case *Stage:
		if x.Call != nil {
			out = append(out, x.Call)
		}
		if x.Effect != nil {
			out = appendExprs(out, x.Effect.Value)
			out = targetNodes(out, x.Effect.Target)
		}
		for _, s := range x.Parallel {
			out = stageNodes(out, s)
		}
		if x.Code != nil {
			out = append(out, x.Code)
		}
	case *WhenExpr:
		out = appendExprs(out, x.Subject)
		for _, a := range x.Arms {
			out = append(out, a)
		}
	case *WhenArm:
		out = appendExprs(out, x.Cond)
		if x.Action != nil {
			out = append(out, x.Action)
		}
	case *ForExpr:
		out = appendExprs(out, x.Source, x.Filter, x.Cap)
		if x.Body != nil {
			out = append(out, x.Body)
		}
	case *ForeachExpr:
		if x.Call != nil {
			out = append(out, x.Call)
		}
	case *BlockExpr:
		for _, s := range x.Stmts {
			out = append(out, s)
		}
	case *RetryExpr:
		out = appendExprs(out, x.Hint)
		if x.With != nil {
			out = append(out, x.With)
		}
	case *DenyExpr:
		if x.Template != nil {
			out = append(out, x.Template)
		}
		if x.With != nil {
			out = append(out, x.With)
		}
	case *AskExpr:
		if x.Template != nil {
			out = append(out, x.Template)
		}
		if x.With != nil {
			out = append(out, x.With)
		}
	case *AllowExpr:
		out = appendExprs(out, x.Value)
		if x.With != nil {
			out = append(out, x.With)
		}
	case *FileLoad:
		if x.Path != nil {
			out = append(out, x.Path)
		}
		if x.Section != nil {
			out = append(out, x.Section)
		}
		if x.As != nil {
			out = append(out, x.As)
		}
		for _, a := range x.Access {
			out = appendExprs(out, a.Index)
			out = appendExprs(out, a.Args...)
		}
	case *LabelExpr:
		out = appendExprs(out, x.Value)
	case *LoopExpr:
		out = appendExprs(out, x.Limit, x.Until)
		if x.Body != nil {
			out = append(out, x.Body)
		}
	case *LoopCtlExpr:
		out = appendExprs(out, x.Value)
	case *LeadParallel:
		if x.Pipeline != nil {
			out = append(out, x.Pipeline)
		}
	case *TemplateFile:
		if x.Path != nil {
			out = append(out, x.Path)
		}
	case *ShowJoin:
		out = appendExprs(out, x.Value)
		if x.Options != nil {
			out = append(out, x.Options)
		}
	case *LoopDirective:
		if x.Loop != nil {
			out = append(out, x.Loop)
		}
	}
	return out
}
