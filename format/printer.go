package format

import (
	"regexp"
	"strings"
	"sync"

	"github.com/guardrun/guardrun/ast"
)

// indentUnit is one level of nesting.
const indentUnit = "  "

// lineWidth is the width past which an array or object breaks into one
// item per line.
const lineWidth = 80

// printer renders nodes. failed is set when a node has no faithful
// printing (then the caller keeps the source as written).
type printer struct {
	depth  int
	failed bool
	// comments are the comment lines to print before the node starting at
	// a file offset; placed counts those printed.
	comments map[int][]string
	placed   int
}

// leading prints the comments that go before the node at pos, one per
// line at the current indentation.
func (p *printer) leading(pos ast.Pos) string {
	cs := p.comments[pos.Offset]
	if len(cs) == 0 {
		return ""
	}
	delete(p.comments, pos.Offset)
	p.placed += len(cs)
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(p.nl() + c)
	}
	return b.String()
}

func (p *printer) nl() string { return "\n" + strings.Repeat(indentUnit, p.depth) }

func (p *printer) fail() string {
	p.failed = true
	return ""
}

func labels(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, ", ") + " "
}

func (p *printer) directive(d ast.Directive) string {
	switch d := d.(type) {
	case *ast.VarDirective:
		opt := ""
		if d.Optional {
			opt = "?"
		}
		return "var " + labels(d.Labels) + "@" + d.Name + opt + " = " + p.expr(d.Value)
	case *ast.ShowDirective:
		return "show " + p.expr(d.Value)
	case *ast.ExeDirective:
		return p.exe(d)
	case *ast.RunDirective:
		if d.Bare {
			return p.expr(d.Value)
		}
		if c, ok := d.Value.(*ast.CodeExpr); ok && c.Run {
			return p.code(c)
		}
		return "run " + p.expr(d.Value)
	case *ast.WhenDirective:
		return p.when(d.When)
	case *ast.ForDirective:
		return p.forExpr(d.For)
	case *ast.IfDirective:
		return p.ifDirective(d)
	case *ast.OutputDirective:
		return "output " + p.output(d.Value, d.Target, d.Format)
	case *ast.AppendDirective:
		return "append " + p.output(d.Value, d.Target, d.Format)
	case *ast.LogDirective:
		return "log " + p.expr(d.Value)
	case *ast.BailDirective:
		if d.Message == nil {
			return "bail"
		}
		return "bail " + p.expr(d.Message)
	case *ast.ImportDirective:
		return p.importDirective(d)
	case *ast.ExportDirective:
		if d.All {
			return "export { * }"
		}
		return "export { " + atNames(d.Names) + " }"
	case *ast.GuardDirective:
		return p.guard(d)
	case *ast.HookDirective:
		return p.hook(d)
	case *ast.PolicyDirective:
		return "policy @" + d.Name + " = " + p.expr(d.Value)
	case *ast.LetStmt:
		return "let @" + d.Name + " = " + p.expr(d.Value)
	case *ast.AugmentStmt:
		return "@" + d.Name + " += " + p.expr(d.Value)
	case *ast.ReturnStmt:
		return "=> " + labels(d.Labels) + p.expr(d.Value)
	case *ast.ExprStmt:
		return p.expr(d.Value)
	}
	return p.fail()
}

func atNames(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "@" + n
	}
	return strings.Join(out, ", ")
}

func (p *printer) exe(d *ast.ExeDirective) string {
	var b strings.Builder
	b.WriteString("exe " + labels(d.Labels) + "@" + d.Name)
	if d.Params != nil {
		ps := make([]string, len(d.Params))
		for i, prm := range d.Params {
			ps[i] = prm.Name
			if prm.Type != "" {
				ps[i] += ": " + prm.Type
			}
		}
		b.WriteString("(" + strings.Join(ps, ", ") + ")")
	}
	b.WriteString(" = " + p.expr(d.Body))
	return b.String()
}

func (p *printer) ifDirective(d *ast.IfDirective) string {
	s := "if " + p.expr(d.Cond) + " " + p.block(d.Then)
	switch e := d.Else.(type) {
	case nil:
	case *ast.BlockExpr:
		s += " else " + p.block(e)
	case *ast.IfDirective:
		s += " else " + p.ifDirective(e)
	default:
		return p.fail()
	}
	return s
}

func (p *printer) output(v ast.Expr, t ast.OutputTarget, format string) string {
	s := p.target(t)
	if v != nil {
		s = p.expr(v) + " to " + s
	}
	if format != "" {
		s += " as " + format
	}
	return s
}

func (p *printer) target(t ast.OutputTarget) string {
	if t.Stream != "" {
		return t.Stream
	}
	return p.expr(t.Path)
}

func (p *printer) importDirective(d *ast.ImportDirective) string {
	path := quote(d.Path)
	switch {
	case d.Policy:
		return "import policy @" + d.Namespace + " from " + path
	case d.All:
		return "import { * } from " + path
	case d.Names != nil:
		ns := make([]string, len(d.Names))
		for i, n := range d.Names {
			ns[i] = "@" + n.Name
			if n.Alias != "" {
				ns[i] += " as @" + n.Alias
			}
		}
		return "import { " + strings.Join(ns, ", ") + " } from " + path
	case d.Namespace != "":
		return "import " + path + " as @" + d.Namespace
	}
	return "import " + path
}

func (p *printer) guard(d *ast.GuardDirective) string {
	s := "guard "
	if d.Privileged {
		s += "privileged "
	}
	if d.Name != "" {
		s += "@" + d.Name + " "
	}
	return s + d.Timing + " " + d.Trigger + " = " + p.when(d.Body)
}

// quote writes text as a double-quoted string; the reparse check rejects
// text that would not read back the same.
func quote(text string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(text) + `"`
}

var identRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

func (p *printer) expr(e ast.Expr) string {
	switch e := e.(type) {
	case nil:
		return p.fail()
	case *ast.NullLit:
		return "null"
	case *ast.BoolLit:
		if e.Value {
			return "true"
		}
		return "false"
	case *ast.NumberLit:
		return e.Raw
	case *ast.StringLit:
		if e.Raw == "" {
			return p.fail()
		}
		return e.Raw
	case *ast.Ref:
		return p.ref(e)
	case *ast.ArrayLit:
		return p.array(e)
	case *ast.ObjectLit:
		return p.object(e)
	case *ast.UnaryExpr:
		return e.Op + p.operand(e.X, 7, false)
	case *ast.BinaryExpr:
		return p.binary(e)
	case *ast.TernaryExpr:
		return p.operand(e.Cond, 1, false) + " ? " + p.operand(e.Then, 0, false) + " : " + p.operand(e.Else, 0, false)
	case *ast.CodeExpr:
		return p.code(e)
	case *ast.PipelineExpr:
		return p.pipeline(e)
	case *ast.WhenExpr:
		return p.when(e)
	case *ast.ForExpr:
		return p.forExpr(e)
	case *ast.ForeachExpr:
		return "foreach " + p.ref(e.Call)
	case *ast.BlockExpr:
		return p.block(e)
	case *ast.RetryExpr:
		s := "retry"
		if e.Hint != nil {
			s += " " + p.expr(e.Hint)
		}
		return s + p.actionWith(e.With)
	case *ast.SkipExpr:
		return "skip"
	case *ast.DeniedExpr:
		return "denied"
	case *ast.AllowExpr:
		s := "allow"
		if e.Value != nil {
			s += " " + p.expr(e.Value)
		}
		if e.With != nil {
			s += " with " + p.object(e.With)
		}
		return s
	case *ast.DenyExpr:
		return "deny " + p.reason(e.Reason, e.Template) + p.actionWith(e.With)
	case *ast.AskExpr:
		return "ask " + p.reason(e.Question, e.Template) + p.actionWith(e.With)
	case *ast.LabelExpr:
		return strings.Join(e.Labels, ",") + " " + p.expr(e.Value)
	case *ast.FileLoad:
		if e.Path == nil || e.Path.Raw == "" {
			return p.fail()
		}
		return "<" + e.Path.Raw + ">"
	}
	return p.fail()
}

// literalText quotes a deny reason or an ask question, which are the
// text between the quotes as written (never interpolated).
func literalText(text string) string {
	if !strings.Contains(text, `"`) {
		return `"` + text + `"`
	}
	return "'" + text + "'"
}

// reason prints a deny reason or ask question: a template as written,
// else the literal text quoted.
func (p *printer) reason(text string, tmpl *ast.StringLit) string {
	if tmpl != nil {
		return p.expr(tmpl)
	}
	return literalText(text)
}

// actionWith prints a deny, ask or retry action's with-clause, or
// nothing when it has none.
func (p *printer) actionWith(with *ast.ObjectLit) string {
	if with == nil {
		return ""
	}
	return " with " + p.object(with)
}

var precedence = map[string]int{
	"??": 1, "||": 2, "&&": 3,
	"==": 4, "!=": 4, "~=": 4, "!~=": 4, "<": 4, ">": 4, "<=": 4, ">=": 4,
	"+": 5, "-": 5, "*": 6, "/": 6, "%": 6,
}

// operand prints x as an operand of an operator of precedence prec,
// parenthesised when it binds more loosely (or as loosely, on the right
// of a left-associative operator).
func (p *printer) operand(x ast.Expr, prec int, right bool) string {
	inner := 8
	switch x := x.(type) {
	case *ast.BinaryExpr:
		inner = precedence[x.Op]
		if x.Left == nil {
			inner = 8 // an operator-led match condition is never nested
		}
	case *ast.TernaryExpr:
		inner = 0
	case *ast.PipelineExpr, *ast.WhenExpr, *ast.ForExpr, *ast.LabelExpr:
		inner = 0
	}
	s := p.expr(x)
	if inner < prec || right && inner == prec {
		return "(" + s + ")"
	}
	return s
}

func (p *printer) binary(e *ast.BinaryExpr) string {
	prec := precedence[e.Op]
	right := p.operand(e.Right, prec, true)
	if e.Left == nil {
		// An operator-led match condition: the subject is implied.
		return e.Op + " " + right
	}
	return p.operand(e.Left, prec, false) + " " + e.Op + " " + right
}

func (p *printer) ref(r *ast.Ref) string {
	var b strings.Builder
	b.WriteString("@" + r.Name)
	for _, a := range r.Path {
		switch a.Kind {
		case ast.AccessField:
			if a.Optional {
				b.WriteString("?")
			}
			b.WriteString("." + a.Name)
		case ast.AccessIndex:
			b.WriteString("[" + p.expr(a.Index) + "]")
		case ast.AccessWildcard:
			b.WriteString("[*]")
		case ast.AccessCall:
			b.WriteString("(" + p.list(a.Args) + ")")
		}
	}
	return b.String()
}

func (p *printer) list(xs []ast.Expr) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p.expr(x)
	}
	return strings.Join(out, ", ")
}

// items lays out bracketed items on one line when they fit and hold no
// line break, and one per line otherwise.
func (p *printer) items(open, close string, render func(i int) string, n int, pad bool) string {
	if n == 0 {
		return open + close
	}
	p.depth++
	parts := make([]string, n)
	width := len(p.nl())
	multi := false
	for i := range parts {
		parts[i] = render(i)
		width += len(parts[i]) + 2
		multi = multi || strings.Contains(parts[i], "\n")
	}
	if !multi && width <= lineWidth {
		p.depth--
		if pad {
			return open + " " + strings.Join(parts, ", ") + " " + close
		}
		return open + strings.Join(parts, ", ") + close
	}
	in := p.nl()
	p.depth--
	return open + in + strings.Join(parts, ","+in) + p.nl() + close
}

func (p *printer) array(a *ast.ArrayLit) string {
	return p.items("[", "]", func(i int) string {
		it := a.Items[i]
		s := p.expr(it.Value)
		if it.Spread {
			s = "..." + s
		}
		if it.Optional {
			s += "?"
		}
		return s
	}, len(a.Items), false)
}

func (p *printer) object(o *ast.ObjectLit) string {
	return p.items("{", "}", func(i int) string { return p.entry(o.Entries[i]) }, len(o.Entries), true)
}

func (p *printer) entry(en ast.ObjectEntry) string {
	if en.Spread {
		return "..." + p.expr(en.Value)
	}
	key := en.Key
	if !identRe().MatchString(key) {
		key = quote(key)
	}
	if en.Optional {
		key += "?"
	}
	return key + ": " + p.expr(en.Value)
}

func (p *printer) code(c *ast.CodeExpr) string {
	s := c.Lang + " {" + c.Code + "}"
	if c.Run {
		s = "run " + s
	}
	return s
}

func (p *printer) pipeline(pl *ast.PipelineExpr) string {
	s := p.operand(pl.Source, 1, false)
	if !pl.FromWith {
		for _, st := range pl.Stages {
			s += " | " + p.stage(st)
		}
	}
	if pl.With == nil {
		return s
	}
	var entries []func() string
	if pl.With.Pipeline != nil {
		entries = append(entries, func() string { return "pipeline: " + p.stageArray(pl.With.Pipeline) })
	}
	if pl.With.Options != nil {
		for _, en := range pl.With.Options.Entries {
			entries = append(entries, func() string { return p.entry(en) })
		}
	}
	return s + " with " + p.items("{", "}", func(i int) string { return entries[i]() }, len(entries), true)
}

// stageArray prints with-clause stages as the array they were written as.
func (p *printer) stageArray(stages []*ast.Stage) string {
	return p.items("[", "]", func(i int) string {
		st := stages[i]
		if st.Kind == ast.StageParallel {
			return p.stageArray(st.Parallel)
		}
		return p.stage(st)
	}, len(stages), false)
}

func (p *printer) stage(st *ast.Stage) string {
	switch st.Kind {
	case ast.StageCall:
		return p.ref(st.Call)
	case ast.StageCode:
		return p.code(st.Code)
	case ast.StageEffect:
		return p.effect(st.Effect)
	case ast.StageParallel:
		parts := make([]string, len(st.Parallel))
		for i, sub := range st.Parallel {
			parts[i] = p.stage(sub)
		}
		if len(parts) == 1 {
			return "|| " + parts[0]
		}
		return strings.Join(parts, " || ")
	}
	return p.fail()
}

func (p *printer) effect(e *ast.EffectStage) string {
	s := e.Kind
	if e.Value != nil {
		s += " " + p.expr(e.Value)
	}
	if e.Target != nil {
		if e.Value != nil || e.Target.Stream != "" {
			s += " to"
		}
		s += " " + p.target(*e.Target)
	}
	return s
}

func (p *printer) when(w *ast.WhenExpr) string {
	if w.Inline {
		if len(w.Arms) != 1 {
			return p.fail()
		}
		return "when " + p.expr(w.Arms[0].Cond) + " => " + p.action(w.Arms[0].Action)
	}
	s := "when "
	if w.Subject != nil {
		s += p.expr(w.Subject) + " "
	}
	if len(w.Arms) == 0 {
		return s + "[]"
	}
	p.depth++
	var b strings.Builder
	b.WriteString(s + "[")
	for _, arm := range w.Arms {
		b.WriteString(p.leading(arm.Pos) + p.nl() + p.arm(arm))
	}
	p.depth--
	b.WriteString(p.nl() + "]")
	return b.String()
}

func (p *printer) arm(a *ast.WhenArm) string {
	if a.Let {
		d, ok := a.Action.(ast.Directive)
		if !ok {
			return p.fail()
		}
		return p.directive(d)
	}
	var cond string
	switch a.Kind {
	case ast.ArmWildcard:
		cond = "*"
	case ast.ArmNone:
		cond = "none"
	default:
		cond = p.expr(a.Cond)
	}
	return cond + " => " + p.action(a.Action)
}

func (p *printer) action(n ast.Node) string {
	switch n := n.(type) {
	case *ast.BlockExpr:
		return p.block(n)
	case ast.Directive:
		return p.directive(n)
	case ast.Expr:
		return p.expr(n)
	}
	return p.fail()
}

func (p *printer) forExpr(f *ast.ForExpr) string {
	s := "for "
	if f.Key != "" {
		s += "@" + f.Key + ", "
	}
	s += "@" + f.Var + " in " + p.expr(f.Source)
	if f.Filter != nil {
		s += " when " + p.expr(f.Filter)
	}
	if b, ok := f.Body.(*ast.BlockExpr); ok {
		return s + " " + p.block(b)
	}
	return s + " => " + p.action(f.Body)
}

func (p *printer) block(b *ast.BlockExpr) string {
	if len(b.Stmts) == 0 {
		return p.fail()
	}
	p.depth++
	var s strings.Builder
	s.WriteString("[")
	for _, st := range b.Stmts {
		s.WriteString(p.leading(st.Position()) + p.nl() + p.directive(st))
	}
	p.depth--
	s.WriteString(p.nl() + "]")
	return s.String()
}
