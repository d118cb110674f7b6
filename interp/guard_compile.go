package interp

import (
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/lang"
	"github.com/guardrun/guardrun/taint"
)

// evalPaths choose between the evaluator's equivalent paths, for the
// tests that prove them equivalent (Options.paths, never set outside
// this package's tests). The zero value takes the fast paths the plans
// allow: compiled guard arms, a guard context built as far as the plan
// reads it, @mx members built alone.
type evalPaths struct {
	// wholeGuards interprets every guard over its whole context, as if
	// every rule could read all of it (no compiled arms, no lazy parts).
	wholeGuards bool
	// mxMember, when set, sees every member (keys: one, or the operation
	// object's key and a field of it) evalMxField built alone, to compare
	// it with what a read of the whole @mx object gives.
	mxMember func(e *env, keys []string, member *value.Variable)
}

// guardPlan is what evalGuard knows about a guard's rules, worked out once
// when the guard registers (guard.Guard.Plan).
//
// Guards whose every rule has one of the common shapes (`*`, comparisons
// of `@mx.op.type|subtype|name` with a literal, label and taint tests on
// @input, its quantifiers, @mx and @mx.op.labels, string tests
// (includes, startsWith, endsWith of a literal) on @input and @output,
// combined with &&, || and !; actions allow, deny "…", retry "…" and
// allow of a string method of @input or @output with literal arguments)
// are compiled to Go closures that decide without an environment, @mx
// objects or trace objects. Any other guard
// is interpreted, and the analysis tells the interpreter which of the
// costly parts of a guard's context (the @mx.guard object, the ambient
// @mx keys, @input, @output, helpers) its rules can reach.
type guardPlan struct {
	// arms are the compiled rules; nil when some rule does not compile.
	arms []compiledArm
	// perInput and perOperation say in which scopes the compiled rules
	// mean what the interpreter would compute (quantifiers only exist on
	// a per-operation @input).
	perInput, perOperation bool
	// firstPos is the position of the first rule (interrupt errors).
	firstPos ast.Pos

	// opaque is set when the rules can run code this analysis cannot see
	// in the guard's own scope (code, pipelines, nested when/for, let
	// arms): the interpreter then builds the full context.
	opaque bool
	// calls is set when the rules call an exe. An exe's body sees its own
	// (lexical) scope, not the guard's @input, @output or helpers, but it
	// may read any of `@mx`: the guard's @mx keys are then all there.
	calls bool
	// fields and ambient: the rules read @mx.guard, or the ambient @mx
	// keys (labels, taint, sources, args).
	fields, ambient bool
	// usesInput and usesOutput: the rules mention @input, @output.
	usesInput, usesOutput bool
	// inputText and outputText: the compiled rules call string methods
	// on @input, @output; an evaluation where that value is not a string
	// is left to the interpreter.
	inputText, outputText bool
	// helpers are the guard helpers the rules call or mention.
	helpers []string
}

// compiledArm is one compiled rule: when cond holds (nil: always), the
// guard decides out, or what act computes (an `allow @value`).
type compiledArm struct {
	cond condFn
	out  guard.Outcome
	// act computes the outcome when the action needs the evaluation; ok
	// false leaves the guard to the interpreter.
	act func(ev *guard.Evaluation) (out guard.Outcome, ok bool)
}

// condFn is a compiled condition. It gets the evaluation itself, which
// lives in the engine's scratch space, so calling it allocates nothing.
type condFn func(ev *guard.Evaluation) bool

// guardHelperNames are the helpers bound inside guard bodies.
var guardHelperNames = lang.GuardHelpers

func isGuardHelper(name string) bool {
	for _, h := range guardHelperNames {
		if h == name {
			return true
		}
	}
	return false
}

// planGuard analyses and, where it can, compiles a guard's rules.
func planGuard(w *ast.WhenExpr) *guardPlan {
	p := &guardPlan{perInput: true, perOperation: true}
	if w == nil {
		p.opaque = true
		return p
	}
	p.analyse(w)
	if len(w.Arms) > 0 {
		p.firstPos = w.Arms[0].Pos
	}
	if w.Subject != nil {
		return p
	}
	arms := make([]compiledArm, 0, len(w.Arms))
	for _, arm := range w.Arms {
		if arm.Let {
			return p
		}
		var a compiledArm
		if arm.Kind == ast.ArmCond {
			c := p.compileCond(arm.Cond)
			if c == nil {
				return p
			}
			a.cond = c
		}
		out, ok := compileAction(arm.Action)
		if !ok {
			if a.act = p.compileAllowValue(arm.Action); a.act == nil {
				return p
			}
		}
		a.out = out
		arms = append(arms, a)
	}
	if p.perInput || p.perOperation {
		p.arms = arms
	}
	return p
}

// analyse walks the rules for what the interpreter must prepare.
func (p *guardPlan) analyse(w *ast.WhenExpr) {
	ast.Inspect(w, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil:
			// The end of a node's children.
		case *ast.WhenExpr:
			if n != w {
				p.opaque = true
			}
		case *ast.WhenArm:
			if n.Let {
				p.opaque = true
			}
		case *ast.Ref:
			p.analyseRef(n)
		case *ast.NullLit, *ast.BoolLit, *ast.NumberLit, *ast.StringLit, *ast.TextPart, *ast.InterpPart,
			*ast.ArrayLit, *ast.ObjectLit, *ast.UnaryExpr, *ast.BinaryExpr, *ast.TernaryExpr,
			*ast.AllowExpr, *ast.DenyExpr, *ast.RetryExpr, *ast.LabelExpr, *ast.ExprStmt, *ast.DeniedExpr:
		default:
			// Code, pipelines, loops, directives, file loads: anything
			// that may run code reading the guard's context.
			p.opaque = true
		}
		return true
	})
}

func (p *guardPlan) analyseRef(r *ast.Ref) {
	switch r.Name {
	case "input":
		p.usesInput = true
	case "output":
		p.usesOutput = true
	case "mx":
		if len(r.Path) == 0 || r.Path[0].Kind != ast.AccessField {
			p.fields, p.ambient = true, true
			break
		}
		switch r.Path[0].Name {
		case "guard":
			p.fields = true
		case "labels", "taint", "sources", "args", "tools":
			p.ambient = true
		}
	}
	for i, acc := range r.Path {
		if acc.Kind != ast.AccessCall {
			continue
		}
		switch {
		case i == 0 && isGuardHelper(r.Name):
			// A helper (a user @tagValue may replace that one; evalGuard
			// checks when it runs).
			if !containsString(p.helpers, r.Name) {
				p.helpers = append(p.helpers, r.Name)
			}
		case i > 0 && r.Path[i-1].Kind == ast.AccessField && (r.Name == "input" || r.Name == "output" || r.Name == "mx"):
			// A builtin method on the guard's own values.
		default:
			p.calls = true
		}
	}
	if isGuardHelper(r.Name) && !containsString(p.helpers, r.Name) {
		p.helpers = append(p.helpers, r.Name)
	}
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// compileAction compiles `allow`, `deny "reason"` and `retry "hint"`.
func compileAction(a ast.Node) (guard.Outcome, bool) {
	if s, ok := a.(*ast.ExprStmt); ok {
		a = s.Value
	}
	switch a := a.(type) {
	case *ast.AllowExpr:
		if a.Value != nil || a.With != nil {
			return guard.Outcome{}, false
		}
		return guard.Outcome{Action: guard.Allow, Matched: true}, true
	case *ast.DenyExpr:
		if a.With != nil || a.Template != nil {
			return guard.Outcome{}, false
		}
		return guard.Outcome{Action: guard.Deny, Matched: true, Reason: a.Reason}, true
	case *ast.RetryExpr:
		if a.Hint == nil || a.With != nil {
			return guard.Outcome{}, false
		}
		h, ok := literalString(a.Hint)
		if !ok {
			return guard.Outcome{}, false
		}
		return guard.Outcome{Action: guard.Retry, Matched: true, Hint: h}, true
	}
	return guard.Outcome{}, false
}

// literalString is the text of a quoted string without interpolation.
func literalString(x ast.Expr) (string, bool) {
	s, ok := x.(*ast.StringLit)
	if !ok || (s.Kind != ast.SingleQuote && s.Kind != ast.DoubleQuote) {
		return "", false
	}
	return s.PlainText()
}

// compileCond compiles a rule's condition; nil when it has another shape.
func (p *guardPlan) compileCond(x ast.Expr) condFn {
	switch x := x.(type) {
	case *ast.BoolLit:
		v := x.Value
		return func(*guard.Evaluation) bool { return v }
	case *ast.UnaryExpr:
		if x.Op != "!" {
			return nil
		}
		c := p.compileCond(x.X)
		if c == nil {
			return nil
		}
		return func(ev *guard.Evaluation) bool { return !c(ev) }
	case *ast.BinaryExpr:
		switch x.Op {
		case "&&", "||":
			l, r := p.compileCond(x.Left), p.compileCond(x.Right)
			if l == nil || r == nil {
				return nil
			}
			if x.Op == "&&" {
				return func(ev *guard.Evaluation) bool { return l(ev) && r(ev) }
			}
			return func(ev *guard.Evaluation) bool { return l(ev) || r(ev) }
		case "==", "!=":
			return p.compileOpCompare(x)
		}
	case *ast.Ref:
		if c := p.compileTextTest(x); c != nil {
			return c
		}
		return p.compileLabelTest(x)
	}
	return nil
}

// textTests reports whether method is a string method a compiled
// condition may call on @input or @output with one literal string: with a
// string receiver they cannot fail.
func textTests(method string) bool {
	return method == "includes" || method == "startsWith" || method == "endsWith"
}

// textMethods reports whether method is a string method a compiled
// `allow` may call on @input or @output with literal string arguments.
func textMethods(method string) bool {
	switch method {
	case "replace", "replaceAll", "trim", "toUpperCase", "toLowerCase",
		"slice", "substring":
		return true
	}
	return false
}

// textCall matches `@input|@output.method("lit", …)` and returns the
// method and its literal arguments.
func textCall(r *ast.Ref) (method string, args []any, ok bool) {
	if (r.Name != "input" && r.Name != "output") || len(r.Path) != 2 {
		return "", nil, false
	}
	m, call := r.Path[0], r.Path[1]
	if m.Kind != ast.AccessField || m.Optional || call.Kind != ast.AccessCall || call.Optional {
		return "", nil, false
	}
	args = make([]any, len(call.Args))
	for i, a := range call.Args {
		s, ok := literalString(a)
		if !ok {
			return "", nil, false
		}
		args[i] = s
	}
	return m.Name, args, true
}

// useText records that the compiled rules read r's root as a string.
func (p *guardPlan) useText(r *ast.Ref) {
	if r.Name == "input" {
		// A per-operation @input is the list of inputs.
		p.inputText, p.perOperation = true, false
	} else {
		p.outputText = true
	}
}

// compileTextTest compiles `@input|@output.includes|startsWith|endsWith("x")`.
func (p *guardPlan) compileTextTest(r *ast.Ref) condFn {
	method, args, ok := textCall(r)
	if !ok || !textTests(method) || len(args) != 1 {
		return nil
	}
	p.useText(r)
	text := guardOutputData
	if r.Name == "input" {
		text = guardInputData
	}
	return func(ev *guard.Evaluation) bool {
		res, err := value.CallMethod(text(ev), method, args)
		return err == nil && value.Truthy(res)
	}
}

// compileAllowValue compiles `allow @input|@output.method("lit", …)` for
// the string methods of textMethods: the replacement evalGuard would make,
// with the same descriptor (replacementOf over the method's result, which
// carries the receiver's).
func (p *guardPlan) compileAllowValue(a ast.Node) func(ev *guard.Evaluation) (guard.Outcome, bool) {
	if s, ok := a.(*ast.ExprStmt); ok {
		a = s.Value
	}
	al, ok := a.(*ast.AllowExpr)
	if !ok || al.Value == nil || al.With != nil {
		return nil
	}
	r, ok := al.Value.(*ast.Ref)
	if !ok {
		return nil
	}
	method, args, ok := textCall(r)
	if !ok || !textMethods(method) {
		return nil
	}
	p.useText(r)
	isInput := r.Name == "input"
	return func(ev *guard.Evaluation) (guard.Outcome, bool) {
		var recv *value.Variable
		if isInput {
			recv = ev.Input
		} else {
			recv = guardOutput(ev)
		}
		if _, ok := recv.Data.(string); !ok {
			return guard.Outcome{}, false
		}
		res, err := value.CallMethod(recv.Data, method, args)
		if err != nil {
			return guard.Outcome{}, false
		}
		gx := guardCtx{ev: ev}
		// What derived(res, recv) makes, on the stack: replacementOf copies it.
		v := value.Variable{Data: res}
		v.Security = v.Security.Merge(recv.Security)
		rep := replacementOf(gx.base(), &v, ev)
		return guard.Outcome{Action: guard.Allow, Matched: true, Replacement: rep}, true
	}
}

// guardInputText is @input's string, for a per-input guard whose value is
// a string; ok is false otherwise.
func guardInputText(ev *guard.Evaluation) (string, bool) {
	if ev.Scope != guard.PerInput || ev.Input == nil || ev.Input.Items != nil {
		return "", false
	}
	s, ok := ev.Input.Data.(string)
	return s, ok
}

// guardInputData and guardOutputData are what guardInputText and
// guardOutputText check, as the data a method call receives: the value's
// own data where it is one (converting a string to an interface would
// allocate).
func guardInputData(ev *guard.Evaluation) any { return ev.Input.Data }

func guardOutputData(ev *guard.Evaluation) any {
	if ev.Phase == guard.After && ev.Output != nil {
		return ev.Output.Data
	}
	s, _ := guardOutputText(ev)
	return s
}

// guardOutputText is @output's string (guardOutput) without building
// it; ok is false when @output is not a string.
func guardOutputText(ev *guard.Evaluation) (string, bool) {
	if ev.Phase == guard.After && ev.Output != nil {
		if ev.Output.Items != nil {
			return "", false
		}
		s, ok := ev.Output.Data.(string)
		return s, ok
	}
	src := ev.Input
	if src == nil && len(ev.Inputs) > 0 {
		src = ev.Inputs[0]
	}
	if src == nil {
		return "", true
	}
	return rawText(src), true
}

// compileOpCompare compiles `@mx.op.type|subtype|name == "lit"` (either
// side, or !=). `==` of two strings is plain string equality.
func (p *guardPlan) compileOpCompare(x *ast.BinaryExpr) condFn {
	ref, lit := x.Left, x.Right
	if _, ok := ref.(*ast.Ref); !ok {
		ref, lit = lit, ref
	}
	r, ok := ref.(*ast.Ref)
	if !ok || r.Name != "mx" || len(r.Path) != 2 || !plainFields(r.Path) ||
		(r.Path[0].Name != "op" && r.Path[0].Name != "operation") {
		return nil
	}
	want, ok := literalString(lit)
	if !ok {
		return nil
	}
	var field func(ev *guard.Evaluation) string
	switch r.Path[1].Name {
	case "type":
		field = func(ev *guard.Evaluation) string { return ev.Call.Op.Type }
	case "subtype":
		field = func(ev *guard.Evaluation) string { return ev.Call.Op.Subtype }
	case "name":
		field = func(ev *guard.Evaluation) string { return ev.Call.Op.Name }
	default:
		return nil
	}
	if x.Op == "!=" {
		return func(ev *guard.Evaluation) bool { return field(ev) != want }
	}
	return func(ev *guard.Evaluation) bool { return field(ev) == want }
}

func plainFields(path []ast.Accessor) bool {
	for _, a := range path {
		if a.Kind != ast.AccessField || a.Optional {
			return false
		}
	}
	return true
}

// includesArg matches `.labels|taint.includes("lit")` at the end of path
// and returns which list and the literal.
func includesArg(path []ast.Accessor) (list, want string, ok bool) {
	n := len(path)
	if n < 3 {
		return "", "", false
	}
	l, inc, call := path[n-3], path[n-2], path[n-1]
	if l.Kind != ast.AccessField || l.Optional || (l.Name != "labels" && l.Name != "taint") ||
		inc.Kind != ast.AccessField || inc.Optional || inc.Name != "includes" ||
		call.Kind != ast.AccessCall || call.Optional || len(call.Args) != 1 {
		return "", "", false
	}
	want, ok = literalString(call.Args[0])
	return l.Name, want, ok
}

// compileLabelTest compiles `@input.mx.labels.includes("x")`,
// `@input.any|all|none.mx.labels.includes("x")` and
// `@mx.labels.includes("x")`, and the same over taint.
func (p *guardPlan) compileLabelTest(r *ast.Ref) condFn {
	list, want, ok := includesArg(r.Path)
	if !ok {
		return nil
	}
	head := r.Path[:len(r.Path)-3]
	if !plainFields(head) {
		return nil
	}
	taintList := list == "taint"
	switch {
	case r.Name == "mx" && len(head) == 0:
		return func(ev *guard.Evaluation) bool { return baseHas(ev, taintList, want) }
	case r.Name == "mx" && len(head) == 1 && (head[0].Name == "op" || head[0].Name == "operation") && !taintList:
		// `@mx.op.labels` is the operation's labels then its operation
		// labels (OperationContext.AllLabels).
		return func(ev *guard.Evaluation) bool {
			return containsString(ev.Call.Op.Labels, want) || containsString(ev.Call.Op.OpLabels, want)
		}
	case r.Name == "input" && len(head) == 1 && head[0].Name == "mx":
		return func(ev *guard.Evaluation) bool {
			if ev.Scope == guard.PerInput {
				return has(ev.Input.Security, taintList, want)
			}
			return unionHas(ev.Inputs, taintList, want)
		}
	case r.Name == "input" && len(head) == 2 && head[1].Name == "mx":
		// Quantifiers exist only on the per-operation @input list.
		p.perInput = false
		switch head[0].Name {
		case "any":
			return func(ev *guard.Evaluation) bool {
				for _, it := range ev.Inputs {
					if has(it.Security, taintList, want) {
						return true
					}
				}
				return false
			}
		case "all":
			return func(ev *guard.Evaluation) bool {
				for _, it := range ev.Inputs {
					if !has(it.Security, taintList, want) {
						return false
					}
				}
				return true
			}
		case "none":
			return func(ev *guard.Evaluation) bool {
				for _, it := range ev.Inputs {
					if has(it.Security, taintList, want) {
						return false
					}
				}
				return true
			}
		}
	}
	return nil
}

// has reports whether d's labels (or taint) include x.
func has(d taint.Descriptor, taintList bool, x string) bool {
	if taintList {
		return d.HasTaint(x)
	}
	return d.HasLabel(x)
}

// unionHas is has on the union of the inputs' descriptors, as
// inputList builds it: a merge appends every label to taint as well.
func unionHas(inputs []*value.Variable, taintList bool, x string) bool {
	for _, it := range inputs {
		if it.Security.HasLabel(x) || (taintList && it.Security.HasTaint(x)) {
			return true
		}
	}
	return false
}

// baseHas is has on the value `@mx.labels` and `@mx.taint` describe in a
// guard (guardBase), without building it.
func baseHas(ev *guard.Evaluation, taintList bool, x string) bool {
	if ev.Phase == guard.After && ev.Output != nil {
		if ev.Scope == guard.PerInput && ev.Input != nil {
			return has(ev.Input.Security, taintList, x)
		}
		return has(ev.Output.Security, taintList, x)
	}
	if ev.Input != nil {
		return has(ev.Input.Security, taintList, x)
	}
	if len(ev.Inputs) > 0 {
		if ev.Scope == guard.PerOperation {
			return unionHas(ev.Inputs, taintList, x)
		}
		return has(ev.Inputs[0].Security, taintList, x)
	}
	return false
}

// runCompiled decides a guard with its compiled rules. handled is false
// when this evaluation is one the compiled form does not cover (the
// interpreter then runs the guard).
func (in *interp) runCompiled(p *guardPlan, ev *guard.Evaluation) (out guard.Outcome, handled bool, err error) {
	switch ev.Scope {
	case guard.PerInput:
		if !p.perInput || ev.Input == nil || ev.Input.Items != nil {
			return out, false, nil
		}
	default:
		if !p.perOperation || ev.Inputs == nil {
			return out, false, nil
		}
	}
	// The interpreter fails on inputs it cannot list; let it.
	for _, it := range ev.Inputs {
		if it == nil || it.Items != nil {
			return out, false, nil
		}
	}
	if p.inputText {
		if _, ok := guardInputText(ev); !ok {
			return out, false, nil
		}
	}
	if p.outputText {
		if _, ok := guardOutputText(ev); !ok {
			return out, false, nil
		}
	}
	if in.ctx.Err() != nil {
		return out, true, in.checkCtx(p.firstPos)
	}
	for i := range p.arms {
		a := &p.arms[i]
		if a.cond == nil || a.cond(ev) {
			if a.act != nil {
				out, ok := a.act(ev)
				return out, ok, nil
			}
			return a.out, true, nil
		}
	}
	return guard.Outcome{Action: guard.Allow}, true, nil
}
