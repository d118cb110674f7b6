package interp

import (
	"math"
	"strconv"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// evalExpr evaluates an expression to a value.
func (in *interp) evalExpr(e *env, x ast.Expr) (*value.Variable, error) {
	if x == nil {
		return undefined(), nil
	}
	switch x := x.(type) {
	case *ast.NullLit:
		return value.New(nil), nil
	case *ast.BoolLit:
		return value.New(x.Value), nil
	case *ast.NumberLit:
		return value.New(x.Value), nil
	case *ast.StringLit:
		return in.evalString(e, x)
	case *ast.Ref:
		return in.evalRef(e, x)
	case *ast.ArrayLit:
		return in.evalArray(e, x)
	case *ast.ObjectLit:
		return in.evalObject(e, x)
	case *ast.UnaryExpr:
		return in.evalUnary(e, x)
	case *ast.BinaryExpr:
		return in.evalBinary(e, x)
	case *ast.TernaryExpr:
		c, sec, err := in.evalCondSec(e, x.Cond)
		if err != nil {
			return nil, err
		}
		var v *value.Variable
		if c {
			v, err = in.evalExpr(operandEnv(e, x.Then), x.Then)
		} else {
			v, err = in.evalExpr(operandEnv(e, x.Else), x.Else)
		}
		return implicitFlow(v, sec), err
	case *ast.CodeExpr:
		return in.runCode(e, x, nil)
	case *ast.PipelineExpr:
		return in.evalPipeline(e, x)
	case *ast.WhenExpr:
		return in.evalWhenExpr(e, x)
	case *ast.ForExpr:
		return in.evalFor(e, x, true)
	case *ast.ForeachExpr:
		return in.evalForeach(e, x)
	case *ast.BlockExpr:
		v, _, err := in.runBlock(e, x, false)
		return v, err
	case *ast.LoopExpr:
		return in.evalLoop(e, x)
	case *ast.LoopCtlExpr:
		return in.evalLoopCtl(e, x)
	case *ast.ShowJoin:
		return in.evalShowJoin(e, x)
	case *ast.LeadParallel:
		v, err := in.evalExpr(e, x.Pipeline)
		if err != nil {
			return nil, err
		}
		c := *v
		c.Source = ""
		return &c, nil
	case *ast.TemplateFile:
		return in.evalTemplateFile(e, x)
	case *ast.RetryExpr:
		var hint *value.Variable
		if x.Hint != nil {
			h, err := in.evalExpr(e, x.Hint)
			if err != nil {
				return nil, err
			}
			hint = h
		}
		return value.New(retrySignal{hint: hint}), nil
	case *ast.SkipExpr:
		return value.New(skipSignal{}), nil
	case *ast.DeniedExpr:
		return value.New(e.denied), nil
	case *ast.DenyExpr:
		// Outside a guard nothing would act on the decision; stopping is the
		// only reading of `deny` that cannot let data through.
		return nil, newError(KindUnenforced, x.Pos, "deny, allow and retry-with-reason are guard decisions; inside an exe, return a value or use a denied => arm",
			"deny %s outside a guard stops the run", reasonSource(x.Reason, x.Template))
	case *ast.AskExpr:
		return nil, newError(KindUnenforced, x.Pos, "ask is a guard decision; use it inside a guard's when block",
			"ask %s outside a guard stops the run", reasonSource(x.Question, x.Template))
	case *ast.AllowExpr:
		return nil, newError(KindUnenforced, x.Pos, "allow is a guard decision; use it inside a guard's when block",
			"allow outside a guard is not supported")
	case *ast.FileLoad:
		return in.evalFileLoad(e, x)
	}
	return nil, newError(KindUnexpected, x.Position(), "", "unsupported expression %T", x)
}

// evalCond evaluates a condition: unknown variables are undefined (falsy)
// rather than an error.
func (in *interp) evalCond(e *env, x ast.Expr) (bool, error) {
	v, err := in.evalExpr(e.withLenient(true), x)
	if err != nil {
		return false, err
	}
	return value.Truthy(v.Data), nil
}

// evalCondSec is evalCond that also returns the labels the condition's
// value carried: a value chosen by it carries them too (implicit flow).
func (in *interp) evalCondSec(e *env, x ast.Expr) (bool, taint.Descriptor, error) {
	v, err := in.evalExpr(e.withLenient(true), x)
	if err != nil {
		return false, taint.Descriptor{}, err
	}
	return value.Truthy(v.Data), v.Security, nil
}

// implicitFlow gives v, a value a condition chose, the labels of the
// conditions that chose it, as CaMeL's interpreter does: rebuilding a
// secret character by character through `when`, a ternary or a match
// keeps it secret.
func implicitFlow(v *value.Variable, sec taint.Descriptor) *value.Variable {
	if v == nil || sec.IsZero() || v.Security.Contains(sec) {
		return v
	}
	c := *v
	c.Security = c.Security.Merge(sec)
	return &c
}

func (in *interp) evalArray(e *env, x *ast.ArrayLit) (*value.Variable, error) {
	out := make([]any, 0, len(x.Items))
	res := value.New(nil)
	for _, it := range x.Items {
		if !it.Spread && !it.Optional {
			// Literal items carry no descriptor: their data is all the
			// array needs, without a Variable per item.
			if d, ok := literalData(it.Value); ok {
				out = append(out, d)
				continue
			}
			if t, ok := plainText(it.Value); ok {
				// So does a string with no interpolation (a guard's
				// ["op:cmd:curl", "op:cmd:wget"], on every call).
				if err := in.stringFits(t.Pos, "the template", 0, len(t.Text)); err != nil {
					return nil, err
				}
				out = append(out, t.Text)
				continue
			}
		}
		ie := e
		if it.Optional {
			// `@x?` leaves a missing variable out, as any falsy value.
			ie = e.withLenient(true)
		}
		v, err := in.evalExpr(ie, it.Value)
		if err != nil {
			return nil, err
		}
		res.Security = res.Security.Merge(v.Security)
		switch {
		case it.Spread:
			if arr, ok := structuredData(v.Data).([]any); ok {
				out = append(out, arr...)
			} else if !isNullish(v) {
				out = append(out, v.Data)
			}
		case it.Optional && !value.Truthy(v.Data):
		default:
			out = append(out, v.Data)
		}
	}
	res.Data = out
	return res, nil
}

// plainText is the text of a string literal with no interpolation.
func plainText(x ast.Expr) (*ast.TextPart, bool) {
	if s, ok := x.(*ast.StringLit); ok && len(s.Parts) == 1 {
		t, ok := s.Parts[0].(*ast.TextPart)
		return t, ok
	}
	return nil, false
}

// literalData is the value of a null, boolean or number literal, which
// evalExpr would wrap in a Variable with an empty descriptor.
func literalData(x ast.Expr) (any, bool) {
	switch x := x.(type) {
	case *ast.NullLit:
		return nil, true
	case *ast.BoolLit:
		return x.Value, true
	case *ast.NumberLit:
		return x.Value, true
	}
	return nil, false
}

func (in *interp) evalObject(e *env, x *ast.ObjectLit) (*value.Variable, error) {
	o := value.NewObject()
	res := value.New(o)
	for _, en := range x.Entries {
		ee := e
		if en.Optional {
			// `key?: @x` leaves the pair out when @x is missing or falsy.
			ee = e.withLenient(true)
		}
		v, err := in.evalExpr(ee, en.Value)
		if err != nil {
			return nil, err
		}
		res.Security = res.Security.Merge(v.Security)
		switch {
		case en.Spread:
			if so, ok := structuredData(v.Data).(*value.Object); ok {
				for _, k := range so.Keys {
					o.Set(k, so.Values[k])
				}
			}
		case en.Optional && !value.Truthy(v.Data):
		default:
			o.Set(en.Key, v.Data)
		}
	}
	return res, nil
}

// operandEnv is the environment an operator's operand is evaluated in.
// As in mlld, a variable that does not exist is undefined inside an
// expression (`@a && @b`, `!@a`, `@a == 1`, a ternary's branches) rather
// than an error; only a bare reference (`var @x = @a`) must exist. Calling
// an exe that does not exist stays an error.
func operandEnv(e *env, x ast.Expr) *env {
	if r, ok := x.(*ast.Ref); ok {
		for _, a := range r.Path {
			if a.Kind == ast.AccessCall {
				return e
			}
		}
	}
	return e.withLenient(true)
}

func (in *interp) evalUnary(e *env, x *ast.UnaryExpr) (*value.Variable, error) {
	v, err := in.evalExpr(operandEnv(e, x.X), x.X)
	if err != nil {
		return nil, err
	}
	switch x.Op {
	case "!":
		return derived(!value.Truthy(v.Data), v), nil
	case "-":
		return derived(-jsNumber(v.Data), v), nil
	}
	return nil, newError(KindUnexpected, x.Pos, "", "unknown operator %s", x.Op)
}

// jsNumber is JavaScript's Number(d), which mlld's operators use.
func jsNumber(d any) float64 {
	switch n := d.(type) {
	case nil:
		return 0
	case string:
		t := strings.TrimSpace(n)
		if t == "" {
			return 0
		}
		if len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X' || t[1] == 'o' || t[1] == 'O' || t[1] == 'b' || t[1] == 'B') {
			base := map[byte]int{'x': 16, 'o': 8, 'b': 2}[t[1]|0x20]
			if u, err := strconv.ParseUint(t[2:], base, 64); err == nil {
				return float64(u)
			}
			return math.NaN()
		}
		if f, ok := value.ParseNumber(t); ok {
			return f
		}
		return math.NaN()
	}
	if f, ok := toNumber(d); ok {
		return f
	}
	return math.NaN()
}

func toNumber(d any) (float64, bool) {
	switch n := d.(type) {
	case float64:
		return n, true
	case string:
		return value.ParseNumber(n)
	case bool:
		if n {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func (in *interp) evalBinary(e *env, x *ast.BinaryExpr) (*value.Variable, error) {
	switch x.Op {
	case "&&", "||", "??":
		l, err := in.evalExpr(operandEnv(e, x.Left), x.Left)
		if err != nil {
			return nil, err
		}
		switch x.Op {
		case "&&":
			if !value.Truthy(l.Data) {
				return l, nil
			}
		case "||":
			if value.Truthy(l.Data) {
				return l, nil
			}
		case "??":
			if !isNullish(l) {
				return l, nil
			}
		}
		return in.evalExpr(operandEnv(e, x.Right), x.Right)
	}
	l, err := in.evalExpr(operandEnv(e, x.Left), x.Left)
	if err != nil {
		return nil, err
	}
	r, err := in.evalExpr(operandEnv(e, x.Right), x.Right)
	if err != nil {
		return nil, err
	}
	return in.binaryOp(x.Op, l, r, x.Pos)
}

func (in *interp) binaryOp(op string, l, r *value.Variable, pos ast.Pos) (*value.Variable, error) {
	switch op {
	case "==":
		return derived(value.Equal(l.Data, r.Data), l, r), nil
	case "!=":
		return derived(!value.Equal(l.Data, r.Data), l, r), nil
	case "~=":
		return derived(value.TolerantMatch(l.Data, r.Data), l, r), nil
	case "!~=":
		return derived(!value.TolerantMatch(l.Data, r.Data), l, r), nil
	case "<", ">", "<=", ">=":
		c, err := value.Compare(l.Data, r.Data)
		if err != nil {
			// Comparisons with undefined or mismatched kinds are false so that
			// `@missing < 3` in a when arm simply does not match.
			return derived(false, l, r), nil
		}
		var b bool
		switch op {
		case "<":
			b = c < 0
		case ">":
			b = c > 0
		case "<=":
			b = c <= 0
		case ">=":
			b = c >= 0
		}
		return derived(b, l, r), nil
	case "+", "-", "*", "/", "%":
		// JavaScript arithmetic, as in mlld: operands become numbers
		// (null is 0, a non-numeric string, undefined, an array or an
		// object is NaN), except that + of two strings that are not
		// numbers is an error rather than concatenation.
		ln, rn := jsNumber(l.Data), jsNumber(r.Data)
		if op == "+" && math.IsNaN(ln) && math.IsNaN(rn) {
			_, ls := l.Data.(string)
			_, rs := r.Data.(string)
			if ls && rs {
				return nil, newError(KindType, pos, "write `@a@b` in a template instead",
					"String concatenation with + is not supported. Use template strings instead.")
			}
		}
		var n float64
		switch op {
		case "+":
			n = ln + rn
		case "-":
			n = ln - rn
		case "*":
			n = ln * rn
		case "/":
			n = ln / rn
		case "%":
			n = math.Mod(ln, rn)
		}
		return derived(n, l, r), nil
	}
	return nil, newError(KindUnexpected, pos, "", "unknown operator %s", op)
}
