package grammar

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/guardrun/guardrun/ast"
)

func (l *lowerer) expr(e *expr) ast.Expr {
	if e == nil {
		return nil
	}
	return l.pipeline(l.pos(e.Pos), l.ternary(e.Source), e.Steps, e.With)
}

// pipeline applies pipe stages and a with-clause to src.
func (l *lowerer) pipeline(at ast.Pos, src ast.Expr, steps []*pipeStep, with *object) ast.Expr {
	if len(steps) == 0 && with == nil {
		return src
	}
	pl := &ast.PipelineExpr{Pos: at, Source: src}
	for _, st := range steps {
		if st.Code != nil {
			pl.Stages = append(pl.Stages, &ast.Stage{Pos: l.pos(st.Pos), Kind: ast.StageCode, Code: l.code(st.Code)})
			continue
		}
		pl.Stages = append(pl.Stages, l.stage(st.Stage))
	}
	if with != nil {
		pl.With = l.with(with)
		if len(pl.Stages) == 0 && pl.With.Pipeline != nil {
			pl.Stages = pl.With.Pipeline
			pl.FromWith = true
		}
	}
	return pl
}

func (l *lowerer) stage(s *stage) *ast.Stage {
	var atoms []*ast.Stage
	for _, a := range s.Atoms {
		atoms = append(atoms, l.stageAtom(a))
	}
	if len(atoms) == 1 && !s.Lead {
		return atoms[0]
	}
	return &ast.Stage{Pos: l.pos(s.Pos), Kind: ast.StageParallel, Parallel: atoms}
}

func (l *lowerer) stageAtom(a *stageAtom) *ast.Stage {
	p := l.pos(a.Pos)
	switch {
	case a.While != nil:
		return &ast.Stage{Pos: p, Kind: ast.StageWhile, While: l.whileStage(a.While)}
	case a.Effect != nil:
		return &ast.Stage{Pos: p, Kind: ast.StageEffect, Effect: l.effect(a.Effect)}
	case a.Code != nil:
		return &ast.Stage{Pos: p, Kind: ast.StageCode, Code: l.code(a.Code)}
	default:
		return &ast.Stage{Pos: p, Kind: ast.StageCall, Call: l.ref(a.Ref)}
	}
}

func (l *lowerer) effect(e *effect) *ast.EffectStage {
	out := &ast.EffectStage{Kind: e.Kind}
	if e.Value != nil {
		out.Value = l.ternary(e.Value)
	}
	if e.Target != nil {
		t := l.target(e.Target)
		out.Target = &t
	} else if (e.Kind == "output" || e.Kind == "append") && out.Value != nil {
		// `| append "f"`: the only operand is the target.
		out.Target = &ast.OutputTarget{Pos: out.Value.Position(), Path: out.Value}
		out.Value = nil
	}
	return out
}

// with splits a with-clause into pipeline stages and other options.
func (l *lowerer) with(o *object) *ast.WithClause {
	w := &ast.WithClause{Pos: l.pos(o.Pos), Options: &ast.ObjectLit{Pos: l.pos(o.Pos)}}
	for _, en := range o.Entries {
		if en.KeyIdent != nil && *en.KeyIdent == "pipeline" || en.KeyStr != nil && l.keyString(en.KeyStr) == "pipeline" {
			w.Pipeline = l.withStages(en.Value)
			continue
		}
		w.Options.Entries = append(w.Options.Entries, l.entry(en))
	}
	return w
}

func (l *lowerer) withStages(e *expr) []*ast.Stage {
	arr := plainArray(e)
	if arr == nil {
		l.fail(e.Pos, "pipeline must be an array of stages", l.snippet(e.Pos), "write with { pipeline: [@f, @g] }")
		return nil
	}
	stages := []*ast.Stage{}
	for _, it := range arr.Items {
		stages = append(stages, l.arrayStage(it))
	}
	return stages
}

func plainArray(e *expr) *array {
	if e == nil || len(e.Steps) > 0 || e.With != nil {
		return nil
	}
	t := e.Source
	if t.Then != nil || len(t.Rest) > 0 {
		return nil
	}
	return t.First.Array
}

func (l *lowerer) arrayStage(it *arrayItem) *ast.Stage {
	p := l.pos(it.Pos)
	if it.Effect != nil {
		return &ast.Stage{Pos: p, Kind: ast.StageEffect, Effect: l.effect(it.Effect)}
	}
	if arr := plainArray(it.Value); arr != nil {
		st := &ast.Stage{Pos: p, Kind: ast.StageParallel}
		for _, sub := range arr.Items {
			st.Parallel = append(st.Parallel, l.arrayStage(sub))
		}
		return st
	}
	switch v := l.expr(it.Value).(type) {
	case *ast.Ref:
		return &ast.Stage{Pos: p, Kind: ast.StageCall, Call: v}
	case *ast.CodeExpr:
		return &ast.Stage{Pos: p, Kind: ast.StageCode, Code: v}
	}
	l.fail(it.Pos, "pipeline stage must be an @exe reference, an effect or a [parallel] group", l.snippet(it.Pos), "write with { pipeline: [@f, [@a, @b], show] }")
	return &ast.Stage{Pos: p}
}

func (l *lowerer) ternary(t *ternary) ast.Expr {
	if t == nil {
		return nil
	}
	c := l.binary(t.First, t.Rest)
	if t.Then == nil {
		return c
	}
	return &ast.TernaryExpr{Pos: l.pos(t.Pos), Cond: c, Then: l.ternary(t.Then), Else: l.ternary(t.Else)}
}

// precedence is the binding strength of a binary operator (0: not one).
func precedence(op string) int {
	switch op {
	case "??":
		return 1
	case "||":
		return 2
	case "&&":
		return 3
	case "==", "!=", "~=", "!~=", "<", ">", "<=", ">=":
		return 4
	case "+", "-":
		return 5
	case "*", "/", "%":
		return 6
	}
	return 0
}

// binary applies operator precedence to a flat operand/operator list. A
// nil first operand (in an operator-led match condition) stays nil.
func (l *lowerer) binary(first *primary, rest []*binRest) ast.Expr {
	return l.binaryFrom(l.primary(first), rest)
}

// binaryFrom is binary with the first operand already lowered.
func (l *lowerer) binaryFrom(first ast.Expr, rest []*binRest) ast.Expr {
	operands := []ast.Expr{first}
	var ops []*binRest
	reduce := func() {
		op := ops[len(ops)-1]
		ops = ops[:len(ops)-1]
		r := operands[len(operands)-1]
		lft := operands[len(operands)-2]
		operands = operands[:len(operands)-2]
		p := l.pos(op.Pos)
		if lft != nil {
			p = lft.Position()
		}
		operands = append(operands, &ast.BinaryExpr{Pos: p, Op: op.Op, Left: lft, Right: r})
	}
	for _, r := range rest {
		for len(ops) > 0 && precedence(ops[len(ops)-1].Op) >= precedence(r.Op) {
			reduce()
		}
		ops = append(ops, r)
		operands = append(operands, l.primary(r.Right))
	}
	for len(ops) > 0 {
		reduce()
	}
	return operands[0]
}

func (l *lowerer) primary(p *primary) ast.Expr {
	if p == nil {
		return nil
	}
	at := l.pos(p.Pos)
	switch {
	case p.Number != nil:
		v, _ := strconv.ParseFloat(*p.Number, 64)
		return &ast.NumberLit{Pos: at, Value: v, Raw: *p.Number}
	case p.Bool != nil:
		return &ast.BoolLit{Pos: at, Value: *p.Bool == "true"}
	case p.Null:
		return &ast.NullLit{Pos: at}
	case p.Str != nil:
		return l.str(p.Str)
	case p.Load != nil:
		return l.fileLoad(p, at)
	case p.Code != nil:
		return l.code(p.Code)
	case p.When != nil:
		w, outer := l.when(p.When, at)
		return l.continueWith(w, outer)
	case p.For != nil:
		f, outer := l.forExpr(p.For, at)
		if len(p.For.Batch) > 0 || p.For.BatchPar != nil {
			// The batch pipeline runs on the collected results.
			return l.batch(at, l.continueWith(f, outer), p.For.Batch, p.For.BatchPar)
		}
		return l.continueWith(f, outer)
	case p.Foreach != nil:
		r := l.ref(p.Foreach.Call)
		if len(r.Path) == 0 || r.Path[len(r.Path)-1].Kind != ast.AccessCall {
			l.fail(p.Pos, "foreach needs an invocation: foreach @f(@items)", r.Name, "write foreach @f(@array)")
		}
		return l.batch(at, &ast.ForeachExpr{Pos: at, Call: r}, p.Foreach.Batch, p.Foreach.BatchPar)
	case p.BareKw != nil:
		switch kw := *p.BareKw; {
		case strings.HasPrefix(kw, "allow"):
			return &ast.AllowExpr{Pos: at}
		case strings.HasPrefix(kw, "done"), strings.HasPrefix(kw, "continue"):
			return &ast.LoopCtlExpr{Pos: at, Done: strings.HasPrefix(kw, "done")}
		}
		return &ast.RetryExpr{Pos: at}
	case p.LeadPar != nil:
		st := &ast.Stage{Pos: at, Kind: ast.StageParallel}
		for _, a := range p.LeadPar.Atoms {
			st.Parallel = append(st.Parallel, l.stageAtom(a))
		}
		empty := &ast.StringLit{Pos: at, Kind: ast.DoubleQuote, Parts: []ast.TemplatePart{}}
		return &ast.LeadParallel{Pos: at, Pipeline: &ast.PipelineExpr{Pos: at, Source: empty, Stages: []*ast.Stage{st}}}
	case p.Loop != nil:
		return l.loop(p.Loop, at)
	case p.Ctl != nil:
		c := &ast.LoopCtlExpr{Pos: at, Done: p.Ctl.Kw == "done"}
		if p.Ctl.Value != nil {
			c.Value = l.ternary(p.Ctl.Value)
		}
		return c
	case p.Retry != nil:
		r := &ast.RetryExpr{Pos: at}
		if p.Retry.Value != nil {
			r.Hint = l.literalOrExpr(p.Retry.Value)
		}
		r.With = l.actionWith(p.Retry.With, "retry")
		return r
	case p.Skip:
		return &ast.SkipExpr{Pos: at}
	case p.Denied:
		return &ast.DeniedExpr{Pos: at}
	case p.Allow != nil:
		a := &ast.AllowExpr{Pos: at}
		if p.Allow.Value != nil {
			a.Value = l.ternary(p.Allow.Value)
		}
		if p.Allow.With != nil {
			a.With = l.object(p.Allow.With)
		}
		return a
	case p.Deny != nil:
		return l.deny(p.Deny, at)
	case p.Ask != nil:
		return l.ask(p.Ask, at)
	case p.Ref != nil:
		return l.ref(p.Ref)
	case p.Not != nil:
		return &ast.UnaryExpr{Pos: at, Op: "!", X: l.primary(p.Not)}
	case p.Neg != nil:
		x := l.primary(p.Neg)
		if n, ok := x.(*ast.NumberLit); ok && p.Neg.Number != nil {
			return &ast.NumberLit{Pos: at, Value: -n.Value, Raw: "-" + n.Raw}
		}
		return &ast.UnaryExpr{Pos: at, Op: "-", X: x}
	case p.Call != nil:
		r := &ast.Ref{Pos: at, Name: string(p.Call.Name)}
		acc := ast.Accessor{Pos: at, Kind: ast.AccessCall, Args: []ast.Expr{}}
		for _, a := range p.Call.Args {
			acc.Args = append(acc.Args, l.callArg(a))
		}
		r.Path = append(r.Path, acc)
		return r
	case p.Array != nil:
		return l.array(p.Array)
	case p.Object != nil:
		return l.object(p.Object)
	case p.Paren != nil:
		return l.expr(p.Paren)
	case p.Run != nil:
		return l.ternary(p.Run)
	}
	l.fail(p.Pos, "Syntax error: expected a value", l.snippet(p.Pos), "")
	return &ast.NullLit{Pos: at}
}

// literalOrExpr keeps a double-quoted hint literal (hints are not
// interpolated) and lowers anything else as an expression.
func (l *lowerer) literalOrExpr(t *ternary) ast.Expr {
	if t.Then == nil && len(t.Rest) == 0 {
		if s := t.First.Str; s != nil && (s.DQ || s.SQ != nil) {
			raw := l.rawString(s)
			return &ast.StringLit{Pos: l.pos(s.Pos), Kind: ast.DoubleQuote, Parts: []ast.TemplatePart{&ast.TextPart{Pos: l.pos(s.Pos), Text: raw}}, Raw: l.strRaw(s)}
		}
	}
	return l.ternary(t)
}

func (l *lowerer) deny(d *denyX, at ast.Pos) ast.Expr {
	if d.Reason != nil && d.Reason.Str != nil && (d.Reason.Str.DQ || d.Reason.Str.SQ != nil) {
		return &ast.DenyExpr{Pos: at, Reason: l.rawString(d.Reason.Str), With: l.actionWith(d.With, "deny")}
	}
	if t := l.reasonTemplate(d.Reason); t != nil {
		return &ast.DenyExpr{Pos: at, Template: t, With: l.actionWith(d.With, "deny")}
	}
	found := "deny"
	if d.Reason != nil {
		found = l.snippet(d.Reason.Pos)
	}
	pos := d.Pos
	if d.Reason != nil {
		pos = d.Reason.Pos
	}
	l.fail(pos, `Guard deny actions require a quoted reason: deny "reason"`, found, "write deny \"why the operation is blocked\", or a template to quote values: deny `@mx.args.to is not a known address`")
	return &ast.DenyExpr{Pos: at}
}

// reasonTemplate is a deny reason or ask question written as a template
// (`…`, ::…:: or :::…:::), which the guard renders when the rule fires;
// nil for anything else. A double-quoted reason stays literal text, as
// in mlld.
func (l *lowerer) reasonTemplate(p *primary) *ast.StringLit {
	if p == nil || p.Str == nil || !(p.Str.BT || p.Str.Colon || p.Str.Triple) {
		return nil
	}
	return l.str(p.Str)
}

// rawString is the literal text between the quotes of a "…" or '…'
// string, with escapes resolved but no interpolation.
func (l *lowerer) rawString(s *strLit) string {
	if s.SQ != nil {
		return unescapeSingle((*s.SQ)[1 : len(*s.SQ)-1])
	}
	if len(s.Tokens) < 2 {
		return ""
	}
	first, last := s.Tokens[0], s.Tokens[len(s.Tokens)-1]
	raw := l.text[first.Pos.Offset+len(first.Value) : last.Pos.Offset]
	return unescapeDouble(raw)
}

func (l *lowerer) ref(r *ref) *ast.Ref {
	out := &ast.Ref{Pos: l.pos(r.Pos), Name: r.Name[1:]}
	for _, a := range r.Path {
		p := l.pos(a.Pos)
		switch {
		case a.Field != nil:
			for i, f := range strings.Split(*a.Field, ".") {
				out.Path = append(out.Path, ast.Accessor{Pos: p, Kind: ast.AccessField, Name: f, Optional: a.Optional && i == 0})
			}
		case a.Colon || a.Lead:
			acc := ast.Accessor{Pos: p, Kind: ast.AccessSlice}
			if a.Index != nil {
				acc.Index = l.expr(a.Index)
			}
			if a.End != nil {
				acc.End = l.expr(a.End)
			}
			if a.LeadEnd != nil {
				acc.End = l.expr(a.LeadEnd)
			}
			out.Path = append(out.Path, acc)
		default:
			out.Path = append(out.Path, l.bracketAccessor(p, a.Wild, a.Index, a.Args))
		}
	}
	return out
}

// bracketAccessor lowers the accessors written with brackets, shared by
// expressions and template interpolations: `[*]`, `[index]` or `(args)`.
// The grammar guarantees exactly one of them is present.
func (l *lowerer) bracketAccessor(p ast.Pos, wild bool, index *expr, args []*callArg) ast.Accessor {
	switch {
	case wild:
		return ast.Accessor{Pos: p, Kind: ast.AccessWildcard}
	case index != nil:
		return ast.Accessor{Pos: p, Kind: ast.AccessIndex, Index: l.expr(index)}
	}
	acc := ast.Accessor{Pos: p, Kind: ast.AccessCall, Args: make([]ast.Expr, 0, len(args))}
	for _, x := range args {
		acc.Args = append(acc.Args, l.callArg(x))
	}
	return acc
}

// callArg lowers a call's argument; a bare word is its text (mlld's raw
// argument).
func (l *lowerer) callArg(a *callArg) ast.Expr {
	if a.Bare != nil {
		p := l.pos(a.Pos)
		first, last := a.Tokens[0], a.Tokens[len(a.Tokens)-1]
		text := strings.Join(a.Bare, " ")
		if end := last.Pos.Offset + len(last.Value); first.Pos.Offset >= 0 && end <= len(l.text) && first.Pos.Offset < end {
			text = l.text[first.Pos.Offset:end]
		}
		return &ast.StringLit{Pos: p, Kind: ast.DoubleQuote, Raw: text, Parts: []ast.TemplatePart{&ast.TextPart{Pos: p, Text: text}}}
	}
	if a.Expr != nil && len(a.Expr.Steps) > 0 {
		// As in mlld 2.0.5, whose grammar has no pipelines in arguments.
		l.fail(a.Expr.Steps[0].Pos, "Pipe expressions are not supported inside function arguments. Assign the result to a variable first",
			l.snippet(a.Expr.Steps[0].Pos), "write var @v = @x | @f before the call and pass @v")
	}
	return l.expr(a.Expr)
}

func (l *lowerer) array(a *array) *ast.ArrayLit {
	out := &ast.ArrayLit{Pos: l.pos(a.Pos), Items: []ast.ArrayItem{}}
	for _, it := range a.Items {
		if it.Effect != nil {
			l.fail(it.Pos, "an effect ("+it.Effect.Kind+") is only allowed in a pipeline", it.Effect.Kind, "use it inside with { pipeline: [...] } or after |")
			continue
		}
		if it.Spread {
			l.failArraySpread(it.Pos)
		}
		out.Items = append(out.Items, ast.ArrayItem{Value: l.expr(it.Value), Spread: it.Spread, Optional: it.Optional})
	}
	return out
}

// failArraySpread rejects `[...@a]`: as in mlld 2.0.5, only objects
// spread (`{ ...@o }`); its docs say spreading an array throws.
func (l *lowerer) failArraySpread(p lexer.Position) {
	l.fail(p, "Parse error: Unknown operator \"..\" in a spread expression: only objects spread ({ ...@o })", "...",
		"join arrays with a method: @a.concat(@b)")
}

func (l *lowerer) object(o *object) *ast.ObjectLit {
	out := &ast.ObjectLit{Pos: l.pos(o.Pos), Entries: []ast.ObjectEntry{}}
	for _, en := range o.Entries {
		out.Entries = append(out.Entries, l.entry(en))
	}
	return out
}

func (l *lowerer) entry(en *entry) ast.ObjectEntry {
	p := l.pos(en.Pos)
	if en.Spread != nil {
		return ast.ObjectEntry{Pos: p, Spread: true, Value: l.ternary(en.Spread)}
	}
	key := ""
	if en.KeyIdent != nil {
		key = *en.KeyIdent
	} else {
		key = l.keyString(en.KeyStr)
	}
	return ast.ObjectEntry{Pos: p, Key: key, Value: l.expr(en.Value), Optional: en.Optional}
}

func (l *lowerer) keyString(s *strLit) string {
	if v, ok := l.plainString(s); ok {
		return v
	}
	return l.rawString(s)
}

// plainString returns the value of a quoted string with no
// interpolation.
func (l *lowerer) plainString(s *strLit) (string, bool) {
	return l.str(s).PlainText()
}

// loadTemplate lowers the part of a <…> token from byte from to to as a
// template (paths and section selectors interpolate @variables).
func (l *lowerer) loadTemplate(tok string, pos lexer.Position, from, to int) *ast.StringLit {
	inner := tok[from:to]
	sub := &lowerer{src: l.src, base: l.base + pos.Offset + from, text: inner}
	lit := sub.cmdTemplate(inner, pos)
	if sub.err != nil && l.err == nil {
		l.err = sub.err
	}
	return lit
}

func (l *lowerer) code(c *codeBlock) *ast.CodeExpr {
	// The captured tokens may start with line breaks the parser elided
	// (a block's statement on its own line): the opener is the first
	// CodeOpen or PipeCode.
	open := c.Tokens[0]
	for _, t := range c.Tokens {
		if t.Type == tCodeOpen || t.Type == tPipeCode {
			open = t
			break
		}
	}
	last := c.Tokens[len(c.Tokens)-1]
	start := open.Pos.Offset + len(open.Value)
	raw := l.text[start:last.Pos.Offset]
	head := strings.TrimSuffix(strings.TrimPrefix(open.Value, "|"), "{")
	var dir *ast.StringLit
	if i := strings.LastIndexByte(head, ':'); i >= 0 && strings.IndexByte(head[i:], ')') < 0 {
		// The working directory, read as a command template so that
		// @references interpolate.
		text := strings.TrimSpace(head[i+1:])
		from := len(open.Value) - len(strings.TrimPrefix(open.Value, "|")) + i + 1
		from += len(head[i+1:]) - len(strings.TrimLeft(head[i+1:], " \t"))
		sub := &lowerer{src: l.src, base: l.base + open.Pos.Offset + from, text: text}
		dir = sub.cmdTemplate(text, open.Pos)
		if sub.err != nil && l.err == nil {
			l.err = sub.err
		}
		head = head[:i]
	}
	var args []string
	if i := strings.IndexByte(head, '('); i >= 0 {
		for _, a := range strings.Split(strings.Trim(head[i:], "() \t"), ",") {
			if a = strings.TrimPrefix(strings.TrimSpace(a), "@"); a != "" {
				args = append(args, a)
			}
		}
		head = head[:i]
	}
	words := strings.Fields(head)
	out := &ast.CodeExpr{Pos: l.pos(c.Pos), Lang: "cmd", Code: raw, Args: args, Dir: dir}
	if len(words) > 0 && words[0] == "run" {
		out.Run = true
		words = words[1:]
	}
	if len(words) > 0 {
		out.Lang = normalLang(words[0])
	}
	if out.Lang == "cmd" {
		if off, op := forbiddenShellOperator(raw); op != "" {
			l.failAt(l.base+start+off, cmdOperatorMessage(op), op, "cmd { … } runs a single pipeline (only | is allowed); use sh { … } for shell syntax such as &&, ;, redirects or &")
			return out
		}
		sub := &lowerer{src: l.src, base: l.base + start, text: raw}
		out.Command = sub.cmdTemplate(raw, c.Pos)
		if sub.err != nil && l.err == nil {
			l.err = sub.err
		}
	}
	return out
}

func normalLang(s string) string {
	switch s {
	case "javascript":
		return "js"
	case "python":
		return "py"
	}
	return s
}

// ask lowers `ask "question" [with { … }]`; the question is literal text
// or a template, like a deny reason.
func (l *lowerer) ask(a *askX, at ast.Pos) ast.Expr {
	if a.Question != nil && a.Question.Str != nil && (a.Question.Str.DQ || a.Question.Str.SQ != nil) {
		return &ast.AskExpr{Pos: at, Question: l.rawString(a.Question.Str), With: l.actionWith(a.With, "ask")}
	}
	if t := l.reasonTemplate(a.Question); t != nil {
		return &ast.AskExpr{Pos: at, Template: t, With: l.actionWith(a.With, "ask")}
	}
	found, pos := "ask", a.Pos
	if a.Question != nil {
		found, pos = l.snippet(a.Question.Pos), a.Question.Pos
	}
	l.fail(pos, `Guard ask actions require a quoted question: ask "question"`, found, "write ask \"Run this command?\", or a template to quote values: ask `Send @mx.args.amount?`")
	return &ast.AskExpr{Pos: at}
}

// actionKeys reports whether key is a with-clause key of deny, retry and
// ask (allow also takes addLabels and removeLabels).
func actionKeys(key string) bool {
	return key == "context" || key == "message" || key == "warning"
}

// actionWith lowers the with-clause of a deny, retry or ask action: only
// `context`, `message` and `warning` mean something there, and a key that
// would be silently ignored is an error.
func (l *lowerer) actionWith(o *object, action string) *ast.ObjectLit {
	if o == nil {
		return nil
	}
	lit := l.object(o)
	for i, e := range lit.Entries {
		if e.Spread || !actionKeys(e.Key) {
			key, at := e.Key, o.Pos
			if e.Spread {
				key = "..."
			}
			if i < len(o.Entries) {
				at = o.Entries[i].Pos
			}
			l.fail(at, fmt.Sprintf("%s with-clause key %q is not supported", action, key), key,
				"the "+action+" action takes with { context: \"…\", message: \"…\", warning: \"…\" }")
			break
		}
	}
	return lit
}

// whileStage lowers `while(cap[, rate]) @processor`. The rate is a
// duration: a number with a unit (ms, s, m, h; seconds without one).
func (l *lowerer) whileStage(w *whileStage) *ast.WhileStage {
	out := &ast.WhileStage{Proc: l.ref(w.Proc)}
	n, err := strconv.Atoi(w.Cap)
	if err != nil || n < 0 {
		l.fail(w.Pos, "Syntax error: while(cap) needs a whole number", w.Cap, "write while(10) @processor")
		return out
	}
	out.Cap = n
	if w.Rate != nil {
		r, err := strconv.ParseFloat(*w.Rate, 64)
		unit := ""
		if w.RateUnit != nil {
			unit = *w.RateUnit
		}
		scale := map[string]float64{"ms": 1, "": 1000, "s": 1000, "sec": 1000, "seconds": 1000, "m": 60000, "min": 60000, "minutes": 60000, "h": 3600000, "hours": 3600000}
		f, ok := scale[unit]
		if err != nil || !ok {
			l.fail(w.Pos, "Syntax error: while(cap, rate) needs a duration such as 1s or 500ms", *w.Rate+unit, "write while(10, 1s) @processor")
			return out
		}
		out.RateMs = int(r * f)
	}
	return out
}
