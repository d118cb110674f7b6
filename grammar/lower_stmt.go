package grammar

import (
	"fmt"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/guardrun/guardrun/ast"
)

// lowerer turns one parsed span into ast nodes. base is the byte offset of
// the span text inside the original file; every participle position is
// relative to it.
type lowerer struct {
	src  *source
	base int
	text string
	err  *Error
}

// parseDirective parses the span body..res.end of src; the directive's own
// position is start (its slash, if any).
func parseDirective(src *source, start, body int, res scanResult) (ast.Directive, error) {
	if d := res.deep; d != nil {
		return nil, &Error{Pos: src.posAt(d.offset), Message: d.msg, Found: d.found, Hint: nestingHint}
	}
	text := src.text[body:res.end]
	if err := precheck(src, start, text); err != nil {
		return nil, err
	}
	var (
		tree  *span
		extra *lexer.Token
		err   error
	)
	if len(res.tokens) > 0 && res.tokens[len(res.tokens)-1].EOF() {
		tree, extra, err = parseSpanTokens(res.tokens)
	} else {
		tree, extra, err = parseSpanText(text)
	}
	if err != nil {
		return nil, convertParseError(src, body, text, res, err)
	}
	l := &lowerer{src: src, base: body, text: text}
	d := l.top(tree, extra, src.posAt(start))
	if l.err != nil {
		return nil, l.err
	}
	return d, nil
}

func (l *lowerer) pos(p lexer.Position) ast.Pos { return l.src.posAt(l.base + p.Offset) }

// posSkipSpace is the position of the first non-blank byte at or after
// p: ArmStar and ArmOp tokens start at the line break before the arm.
func (l *lowerer) posSkipSpace(p lexer.Position) ast.Pos {
	off := p.Offset
	for off < len(l.text) && strings.IndexByte(" \t\r\n", l.text[off]) >= 0 {
		off++
	}
	return l.src.posAt(l.base + off)
}

// failAt is fail for an absolute offset in the file.
func (l *lowerer) failAt(off int, msg, found, hint string) {
	if l.err == nil {
		l.err = posErr(l.src.posAt(off), msg, found, hint)
	}
}

func (l *lowerer) fail(p lexer.Position, msg, found, hint string) {
	if l.err == nil {
		l.err = posErr(l.pos(p), msg, found, hint)
	}
}

func (l *lowerer) top(t *span, extra *lexer.Token, at ast.Pos) ast.Directive {
	if extra != nil {
		if extra.Type == tIndexOpen {
			l.fail(extra.Pos, "Syntax error: invalid index or slice", l.snippet(extra.Pos), "write an index such as [0] or a slice such as [1:3]")
			return nil
		}
		if t.Stmt.Show != nil {
			l.fail(extra.Pos, "show accepts only a single argument. To display multiple values, use a template: show `@a @b`", "", "combine the values in one template")
		} else {
			l.fail(extra.Pos, "Syntax error: unexpected text after the directive", l.snippet(extra.Pos), "end the directive here or put the rest on its own line")
		}
		return nil
	}
	if t.Stmt.Let != nil || t.Stmt.LetAug != nil {
		// mlld has no top-level let: module variables are var, which
		// cannot change (the taint of a value is fixed when it is made).
		l.fail(t.Stmt.Pos, "'let' is for block-scoped variables; use 'var' at the top level", l.snippet(t.Stmt.Pos),
			"write var @name = …; let declares a temporary inside a block such as exe @f() = [ let @t = … ]")
		return nil
	}
	d := l.stmt(t.Stmt)
	if es, ok := d.(*ast.ExprStmt); ok {
		if r, ok := es.Value.(*ast.Ref); ok && len(r.Path) > 0 && r.Path[len(r.Path)-1].Kind == ast.AccessCall {
			return &ast.RunDirective{Pos: at, Value: r, Bare: true}
		}
	}
	setPos(d, at)
	return d
}

func (l *lowerer) snippet(p lexer.Position) string {
	if p.Offset >= len(l.text) {
		return ""
	}
	return firstLine(l.text[p.Offset:])
}

// setPos moves a top-level directive's position to its leading slash.
func setPos(d ast.Directive, at ast.Pos) {
	switch n := d.(type) {
	case *ast.VarDirective:
		n.Pos = at
	case *ast.ShowDirective:
		n.Pos = at
	case *ast.ExeDirective:
		n.Pos = at
	case *ast.RunDirective:
		n.Pos = at
	case *ast.WhenDirective:
		n.Pos = at
	case *ast.ForDirective:
		n.Pos = at
	case *ast.IfDirective:
		n.Pos = at
	case *ast.OutputDirective:
		n.Pos = at
	case *ast.AppendDirective:
		n.Pos = at
	case *ast.LogDirective:
		n.Pos = at
	case *ast.ImportDirective:
		n.Pos = at
	case *ast.ExportDirective:
		n.Pos = at
	case *ast.GuardDirective:
		n.Pos = at
	case *ast.PolicyDirective:
		n.Pos = at
	case *ast.LetStmt:
		n.Pos = at
	case *ast.AugmentStmt:
		n.Pos = at
	case *ast.ReturnStmt:
		n.Pos = at
	case *ast.ExprStmt:
		n.Pos = at
	}
}

func (l *lowerer) stmt(s *stmt) ast.Directive {
	p := l.pos(s.Pos)
	switch {
	case s.Var != nil:
		return l.varStmt(s.Var, p)
	case s.Show != nil:
		l.checkShow(s.Show)
		return &ast.ShowDirective{Pos: p, Value: showForeach(l.expr(s.Show))}
	case s.Shadow != nil:
		return &ast.ShadowDirective{Pos: p, Lang: s.Shadow.Lang, Names: s.Shadow.Names}
	case s.Exe != nil:
		if s.Exe.Names != nil {
			return l.shadowExe(s.Exe, p)
		}
		return l.exe(s.Exe, p)
	case s.If != nil:
		return l.ifStmt(s.If, p)
	case s.Output != nil:
		v, t, f := l.output(s.Output)
		return &ast.OutputDirective{Pos: p, Value: v, Target: t, Format: f}
	case s.Append != nil:
		v, t, f := l.output(s.Append)
		return &ast.AppendDirective{Pos: p, Value: v, Target: t, Format: f}
	case s.Log != nil:
		return &ast.LogDirective{Pos: p, Value: l.expr(s.Log)}
	case s.Bail != nil:
		return &ast.BailDirective{Pos: p, Message: l.expr(s.Bail.Message)}
	case s.Import != nil:
		return l.importStmt(s.Import, p)
	case s.Export != nil:
		return &ast.ExportDirective{Pos: p, All: s.Export.All, Names: trimAts(s.Export.Names)}
	case s.Guard != nil:
		return l.guard(s.Guard, p)
	case s.Hook != nil:
		return l.hook(s.Hook, p)
	case s.Policy != nil:
		return &ast.PolicyDirective{Pos: p, Name: s.Policy.Name[1:], Value: l.expr(s.Policy.Value)}
	case s.Let != nil:
		return &ast.LetStmt{Pos: p, Name: s.Let.Name[1:], Value: l.expr(s.Let.Value)}
	case s.Return != nil:
		return l.returnStmt(s.Return, p)
	case s.Augment != nil:
		return &ast.AugmentStmt{Pos: p, Name: s.Augment.Name[1:], Value: l.expr(s.Augment.Value)}
	case s.LetAug != nil:
		// `let @x += v` is mlld's spelling of += inside blocks.
		return &ast.AugmentStmt{Pos: p, Name: s.LetAug.Name[1:], Value: l.expr(s.LetAug.Value)}
	case s.Expr != nil:
		if v, ok := l.runValue(s.Expr); ok {
			return &ast.RunDirective{Pos: p, Value: v}
		}
		if d := l.controlStmt(s.Expr, p); d != nil {
			return d
		}
		if d := l.loopStmt(s.Expr, p); d != nil {
			return d
		}
		v := l.expr(s.Expr)
		if isRunCode(v) {
			return &ast.RunDirective{Pos: p, Value: v}
		}
		return &ast.ExprStmt{Pos: p, Value: v}
	}
	l.fail(s.Pos, "Syntax error: empty statement", "", "")
	return nil
}

// controlStmt lowers a statement that is a when or for expression to
// its directive. As a statement it ends with the when or for: anything
// after it (an operator, a pipe) is an error, as it was when the grammar
// had a when and a for statement.
func (l *lowerer) controlStmt(e *expr, p ast.Pos) ast.Directive {
	t := e.Source
	prim := t.First
	if prim == nil || prim.When == nil && prim.For == nil {
		return nil
	}
	var (
		d     ast.Directive
		outer *bracketExpr
		end   = prim.EndPos
	)
	if prim.When != nil {
		var w *ast.WhenExpr
		w, outer = l.when(prim.When, p)
		d = &ast.WhenDirective{Pos: p, When: w}
	} else {
		var f *ast.ForExpr
		f, outer = l.forExpr(prim.For, p)
		d = &ast.ForDirective{Pos: p, For: f}
	}
	switch {
	case outer != nil:
		l.failCont(outer, "Syntax error: unexpected text after the directive")
	case len(t.Rest) > 0 || t.Then != nil || len(e.Steps) > 0 || e.With != nil:
		for end.Offset < len(l.text) && strings.IndexByte(" \t\r\n", l.text[end.Offset]) >= 0 {
			end.Offset++
		}
		l.fail(end, "Syntax error: unexpected text after the directive", l.snippet(end), "end the directive here or put the rest on its own line")
	}
	return d
}

// isRunCode reports whether v is `run {…}` (possibly piped or with a
// with-clause), which is a run statement even without the run keyword
// being lexed separately.
func isRunCode(v ast.Expr) bool {
	if pl, ok := v.(*ast.PipelineExpr); ok {
		v = pl.Source
	}
	c, ok := v.(*ast.CodeExpr)
	return ok && c.Run
}

func trimAts(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, strings.TrimPrefix(n, "@"))
	}
	return out
}

// reservedLabels reports whether name is a reserved word that cannot be a
// label.
func reservedLabels(name string) bool {
	switch name {
	case "module", "static", "live", "cached", "local",
		"foreach", "pipeline", "with", "from", "as", "tools":
		return true
	}
	return false
}

func (l *lowerer) labels(ls []*label, mods bool) []string {
	var out []string
	for _, lb := range ls {
		name := string(lb.Name)
		if lb.Sub != nil {
			name += ":" + *lb.Sub
		}
		if !mods && (lb.Bang || lb.Priv) {
			l.fail(lb.Pos, fmt.Sprintf("label modifier %q is only allowed in return values and guard actions", name), name, "write plain labels here: var secret @x = …")
		}
		if reservedLabels(name) {
			l.fail(lb.Pos, fmt.Sprintf("%q is a reserved word and cannot be used as a label", name), name, "choose another label name")
		}
		if lb.Bang {
			name = "!" + name
		}
		if lb.Priv {
			name += "!"
		}
		out = append(out, name)
	}
	return out
}

func (l *lowerer) varStmt(v *varStmt, p ast.Pos) *ast.VarDirective {
	labels, tools := v.Labels, false
	// `var tools @x = {…}`: a leading bare `tools` declares a tool
	// collection; anywhere else it stays a reserved word.
	if len(labels) > 0 && string(labels[0].Name) == "tools" && labels[0].Sub == nil && !labels[0].Bang && !labels[0].Priv {
		labels, tools = labels[1:], true
	}
	d := &ast.VarDirective{Pos: p, Labels: l.labels(labels, false), Name: v.Name[1:], Tools: tools, Optional: v.Optional}
	if v.Block == nil {
		d.Value = l.expr(v.Value)
		return d
	}
	val, outer := l.bracketExpr(v.Block)
	if blk, ok := val.(*ast.BlockExpr); ok && onlyValues(blk) {
		// A var's `[ … ]` is a block only when it holds statements:
		// `[@f()]` is an array of one call's result.
		arr := &ast.ArrayLit{Pos: blk.Pos, Items: []ast.ArrayItem{}}
		for _, s := range blk.Stmts {
			arr.Items = append(arr.Items, ast.ArrayItem{Value: s.(*ast.ExprStmt).Value})
		}
		val = arr
	}
	// A pipe or operator after a block applies to the block's value.
	d.Value = l.continueWith(val, outer)
	return d
}

func (l *lowerer) exe(e *exeStmt, p ast.Pos) *ast.ExeDirective {
	d := &ast.ExeDirective{Pos: p, Labels: l.labels(e.Labels, false), Name: e.Name[1:]}
	for _, prm := range e.Params {
		q := ast.Param{Pos: l.pos(prm.Pos), Name: strings.TrimPrefix(prm.Name, "@")}
		if prm.Type != nil {
			q.Type = *prm.Type
		}
		d.Params = append(d.Params, q)
	}
	if e.Tpl != nil {
		d.Body = &ast.TemplateFile{Pos: l.pos(e.Tpl.Pos), Path: l.str(e.Tpl)}
	} else if e.Body != nil {
		if name, ok := runsParam(e); ok {
			l.fail(e.Body.Pos, "Invalid exe syntax. run needs a command, code or an executable, but @"+name+" is a parameter (data)",
				"run @"+name, "write exe @f("+name+") = cmd { … @"+name+" … } to use the parameter in a command")
			return d
		}
		d.Body = l.expr(e.Body)
		delegateParams(d)
	} else {
		var outer *bracketExpr
		d.Body, outer = l.bracketExpr(e.Block)
		if outer != nil {
			l.failCont(outer, "Syntax error: unexpected text after the directive")
		}
	}
	return d
}

func (l *lowerer) returnStmt(r *returnStmt, p ast.Pos) *ast.ReturnStmt {
	if r.Labeled != nil {
		return &ast.ReturnStmt{Pos: p, Labels: l.labels(r.Labeled.Labels, true), Value: l.expr(r.Labeled.Value)}
	}
	return &ast.ReturnStmt{Pos: p, Value: l.expr(r.Value)}
}

func (l *lowerer) ifStmt(s *ifStmt, p ast.Pos) *ast.IfDirective {
	d := &ast.IfDirective{Pos: p, Cond: l.expr(s.Cond), Then: l.block(s.Then)}
	switch {
	case s.ElseIf != nil:
		d.Else = l.ifStmt(s.ElseIf, l.pos(s.ElseIf.Pos))
	case s.Else != nil:
		d.Else = l.block(s.Else)
	}
	return d
}

func (l *lowerer) output(o *outputStmt) (ast.Expr, ast.OutputTarget, string) {
	format := ""
	if o.Format != nil {
		format = *o.Format
	}
	switch {
	case o.To != nil:
		return nil, l.target(o.To), format
	case o.First == nil:
		return nil, ast.OutputTarget{}, format
	case o.Second == nil:
		// `output "file"` names only a target: the whole document goes there.
		return nil, l.target(o.First), format
	case o.First.Stream != nil:
		l.fail(o.Second.Pos, "Syntax error: unexpected text after the directive", l.snippet(o.Second.Pos), "write output @value to stdout")
	}
	return l.ternary(o.First.Path), l.target(o.Second), format
}

func (l *lowerer) target(t *target) ast.OutputTarget {
	out := ast.OutputTarget{Pos: l.pos(t.Pos)}
	switch {
	case t.Stream != nil:
		out.Stream = *t.Stream
	case t.Bare != nil:
		out.Path = &ast.StringLit{Pos: out.Pos, Kind: ast.DoubleQuote, Parts: []ast.TemplatePart{&ast.TextPart{Pos: out.Pos, Text: *t.Bare}}}
	default:
		out.Path = l.ternary(t.Path)
	}
	return out
}

func (l *lowerer) importStmt(s *importStmt, p ast.Pos) *ast.ImportDirective {
	d := &ast.ImportDirective{Pos: p}
	if s.Kind != nil && *s.Kind == "module" {
		// Local files are not registry modules; guardrun has no registry.
		l.fail(s.Pos, "Import type 'module' requires a registry module reference.", "module",
			"import local files without a type, or as static: import static \"./x.mld\" as @x")
		return d
	}
	switch {
	case s.Templates:
		d.Templates = true
		d.Path = l.literalPath(s.TPath)
		d.Namespace = (*s.TAlias)[1:]
		for _, n := range s.TParams {
			d.Params = append(d.Params, ast.Param{Pos: p, Name: strings.TrimPrefix(n, "@")})
		}
		if len(d.Params) == 0 {
			l.fail(s.Pos, "Templates import requires parameters", "templates",
				`name the parameters every template takes: import templates from "./dir" as @tpl(message)`)
		}
	case s.Policy != nil:
		d.Policy = true
		d.Namespace = (*s.Policy)[1:]
		d.Path = l.literalPath(s.PPath)
	case s.Guards:
		d.Guards = true
		d.Path = l.literalPath(s.GPath)
	case s.LPath != nil:
		d.All = s.All
		for _, n := range s.Names {
			in := ast.ImportName{Pos: l.pos(n.Pos), Name: strings.TrimPrefix(n.Name, "@")}
			if n.Alias != nil {
				in.Alias = strings.TrimPrefix(*n.Alias, "@")
			}
			d.Names = append(d.Names, in)
		}
		d.Path = l.literalPath(s.LPath)
	default:
		d.Path = l.literalPath(s.Path)
		if s.Alias != nil {
			d.Namespace = (*s.Alias)[1:]
		}
	}
	return d
}

// literalPath reads an import path: a quoted string without
// interpolation, or a <path>.
func (l *lowerer) literalPath(p *primary) string {
	if p != nil {
		if p.Load != nil {
			return strings.TrimSuffix(strings.TrimPrefix(p.Load.Tok, "<"), ">")
		}
		if p.Str != nil {
			if s, ok := l.plainString(p.Str); ok {
				return s
			}
		}
		l.fail(p.Pos, "import path must be a quoted string", l.snippet(p.Pos), `write import { @a } from "./module.mld"`)
	}
	return ""
}

func (l *lowerer) guard(g *guardStmt, p ast.Pos) *ast.GuardDirective {
	d := &ast.GuardDirective{Pos: p, Privileged: g.Privileged, Timing: "before"}
	var f *filter
	if g.A != nil {
		d.Timing = g.A.Timing
		if g.A.Name != nil {
			d.Name = (*g.A.Name)[1:]
		}
		f = g.A.Filter
	} else {
		if g.B.Timing != nil {
			d.Timing = *g.B.Timing
		}
		if g.B.Name != nil {
			d.Name = (*g.B.Name)[1:]
		}
		f = g.B.Filter
	}
	d.Trigger = l.filter(f)
	var outer *bracketExpr
	d.Body, outer = l.when(g.Body, l.pos(g.Body.Pos))
	if outer != nil {
		l.failCont(outer, "Syntax error: unexpected text after the guard's block")
	}
	for _, arm := range d.Body.Arms {
		if !arm.Let {
			l.checkGuardAction(arm.Action)
		}
		a := arm.Action
		if s, ok := a.(*ast.ExprStmt); ok {
			a = s.Value
		}
		if r, ok := a.(*ast.RetryExpr); ok && !isStringLit(r.Hint) {
			if l.err == nil {
				l.err = posErr(r.Pos, `Guard retry actions require a hint: retry "hint"`, "retry", `give the retry a quoted hint: retry "try a shorter answer"`)
			}
		}
	}
	if g.With != nil {
		opts := l.object(g.With)
		for _, e := range opts.Entries {
			if e.Key != "privileged" {
				continue
			}
			if b, ok := e.Value.(*ast.BoolLit); ok && b.Value {
				d.Privileged = true
			} else {
				l.fail(g.With.Pos, "guard privileged option must be true", "privileged", "remove `with { privileged: false }`")
			}
		}
	}
	return d
}

func (l *lowerer) filter(f *filter) string {
	var b strings.Builder
	b.WriteString(f.Head)
	colons := 0
	limit := 1
	if f.Head == "op" {
		limit = 2
	}
	for _, s := range f.Rest {
		if s.Sep == ":" {
			colons++
			if colons > limit {
				l.fail(f.Pos, `Expected ".", "=", or whitespace but ":" found.`, b.String()+":"+s.Name, "a filter segment allows one colon: op:cmd:git or label:sub")
			}
		}
		b.WriteString(s.Sep)
		b.WriteString(s.Name)
	}
	return b.String()
}

// isStringLit reports whether x is a quoted string: guard hints are
// literal text (SPEC §10 P13).
func isStringLit(x ast.Expr) bool {
	_, ok := x.(*ast.StringLit)
	return ok
}

// delegateParams applies mlld's rule for an exe whose body calls another
// exe (`exe @f(value) = @g(value) | cmd {…}`): an argument of that call
// whose text is the name of one of f's parameters passes the parameter.
func delegateParams(d *ast.ExeDirective) {
	body := d.Body
	if pl, ok := body.(*ast.PipelineExpr); ok {
		body = pl.Source
	}
	r, ok := body.(*ast.Ref)
	if !ok || len(r.Path) == 0 || r.Path[len(r.Path)-1].Kind != ast.AccessCall {
		return
	}
	params := map[string]bool{}
	for _, p := range d.Params {
		params[p.Name] = true
	}
	args := r.Path[len(r.Path)-1].Args
	for i, a := range args {
		lit, ok := a.(*ast.StringLit)
		if !ok || lit.Kind == ast.SingleQuote || len(lit.Parts) != 1 {
			continue
		}
		if t, ok := lit.Parts[0].(*ast.TextPart); ok && params[t.Text] {
			args[i] = &ast.Ref{Pos: lit.Pos, Name: t.Text}
		}
	}
}

// checkShow rejects what mlld's show does not take: a value that starts
// with a literal number, boolean, null, array or object (`show 42`,
// `show [1, 2] | @sort`, `show true + 1`). show takes a string or
// template, an @reference, a <file> load or code; a literal goes through
// a variable (`var @n = 42` then `show @n`).
func (l *lowerer) checkShow(x *expr) {
	if x == nil || x.Source == nil || x.Source.First == nil {
		return
	}
	f := x.Source.First
	hint := "show a string or template, an @variable or a <file>; put a literal in a variable first (var @v = …, then show @v)"
	switch {
	case f.Object != nil:
		l.fail(f.Pos, "Parse error: show does not execute commands or show object literals", "{", hint)
	case f.Number != nil, f.Neg != nil, f.Array != nil:
		l.fail(f.Pos, "Parse error: Invalid show syntax. Expected: show 'template', show @variable, show <path>, or show <path # section>", "", hint)
	case f.Bool != nil, f.Null:
		l.fail(f.Pos, "Parse error: Missing content in show directive", "", hint)
	}
}
