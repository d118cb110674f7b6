package interp

import (
	"errors"
	"strconv"
	"time"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/interp/value"
)

// Policy error kinds.
const (
	// KindPolicy is a policy denial: a label-flow rule or a capability
	// refused an operation.
	KindPolicy ErrorKind = "PolicyError"
	// KindPolicyConfig is a malformed policy, reported when the policy is
	// declared or imported: a policy is never partly applied.
	KindPolicyConfig ErrorKind = "PolicyConfigError"
)

// policySource is one policy object of a directive with the means to
// point at its keys.
type policySource struct {
	data any
	loc  policy.Locator
}

// execPolicy evaluates `policy @name = <object | @ref | union(…)>`: each
// object is validated into a layer, and the layers join the run's policy
// set before the next directive runs.
func (in *interp) execPolicy(e *env, d *ast.PolicyDirective) error {
	srcs, err := in.policySources(e, d.Value)
	if err != nil {
		return err
	}
	layers := make([]*policy.Config, 0, len(srcs))
	for _, s := range srcs {
		cfg, err := policy.Parse(s.data, s.loc)
		if err != nil {
			return policyConfigError(err, "policy @"+d.Name, d.Pos)
		}
		layers = append(layers, cfg)
	}
	if err := in.checkGuardExcepts(e, "policy @"+d.Name, layers, false); err != nil {
		return err
	}
	return in.addPolicy(e, d.Name, d.Pos, layers)
}

// importPolicy runs `import policy @name from "module"`: the module's
// exported @config (or an export named like the policy) is the policy.
// The module's guards come with it: importing a policy module asks to be
// governed by all of it.
func (in *interp) importPolicy(e *env, d *ast.ImportDirective) error {
	mod, err := in.loadModule(e, d, nil)
	if err != nil {
		return err
	}
	if err := in.importGuards(e, mod, d.Pos); err != nil {
		return err
	}
	exports := mod.exported()
	name := "config"
	v, ok := exports[name]
	if !ok {
		name = d.Namespace
		v, ok = exports[name]
	}
	if !ok {
		return newError(KindPolicyConfig, d.Pos, "define `var @config = { … }` in the module and export it",
			"module %s exports no @config to import as policy @%s", d.Path, d.Namespace)
	}
	lit := findVarObject(mod.doc, name)
	cfg, err := policy.Parse(v.Data, objectLocator(lit, d.Pos))
	if err != nil {
		return policyConfigError(err, "policy @"+d.Namespace+" (from "+d.Path+")", d.Pos)
	}
	if err := in.checkGuardExcepts(e, "policy @"+d.Namespace+" (from "+d.Path+")", []*policy.Config{cfg}, true); err != nil {
		return err
	}
	return in.addPolicy(e, d.Namespace, d.Pos, []*policy.Config{cfg})
}

// addPolicy activates layers under name and binds @name to their merged
// configuration.
func (in *interp) addPolicy(e *env, name string, pos ast.Pos, layers []*policy.Config) error {
	if resolverName(name) {
		return reservedError(name, pos)
	}
	own := &policy.Set{}
	own.Add(name, layers...)
	if err := in.define(e, name, value.New(own.Configs()), pos); err != nil {
		return err
	}
	in.policy.Add(name, layers...)
	in.policyMx = nil
	if ms := in.policy.Timeout(); ms > 0 {
		in.codeEngine().CapTimeout(time.Duration(ms * float64(time.Millisecond)))
	}
	return nil
}

// policySources lists the policy objects of a directive's value.
func (in *interp) policySources(e *env, x ast.Expr) ([]policySource, error) {
	if r, ok := x.(*ast.Ref); ok && r.Name == "union" && len(r.Path) == 1 && r.Path[0].Kind == ast.AccessCall {
		if _, user := e.lookup("union"); !user {
			if len(r.Path[0].Args) == 0 {
				return nil, newError(KindPolicyConfig, r.Pos, "pass the policy objects to combine: union(@a, @b)",
					"Policy union requires at least one reference")
			}
			var out []policySource
			for _, a := range r.Path[0].Args {
				s, err := in.policySource(e, a)
				if err != nil {
					return nil, err
				}
				out = append(out, s)
			}
			return out, nil
		}
	}
	s, err := in.policySource(e, x)
	if err != nil {
		return nil, err
	}
	return []policySource{s}, nil
}

// policySource evaluates one policy object. Its keys are located in the
// object literal that wrote it: inline, or the `var` that defined the
// referenced variable in this module.
func (in *interp) policySource(e *env, x ast.Expr) (policySource, error) {
	v, err := in.evalExpr(e, x)
	if err != nil {
		return policySource{}, err
	}
	var lit *ast.ObjectLit
	switch x := x.(type) {
	case *ast.ObjectLit:
		lit = x
	case *ast.Ref:
		if len(x.Path) == 0 {
			lit = findVarObject(e.mod.doc, x.Name)
		}
	}
	return policySource{data: v.Data, loc: objectLocator(lit, x.Position())}, nil
}

// findVarObject returns the object literal a top-level `var @name = {…}`
// of doc assigns, or nil.
func findVarObject(doc *ast.Document, name string) *ast.ObjectLit {
	if doc == nil {
		return nil
	}
	for _, n := range doc.Body {
		if d, ok := n.(*ast.VarDirective); ok && d.Name == name {
			lit, _ := d.Value.(*ast.ObjectLit)
			return lit
		}
	}
	return nil
}

// objectLocator finds policy keys in lit: the position of the deepest
// entry of the path it can follow, else fallback.
func objectLocator(lit *ast.ObjectLit, fallback ast.Pos) policy.Locator {
	return func(path []string) ast.Pos {
		if lit == nil {
			return fallback
		}
		pos := lit.Pos
		var cur ast.Expr = lit
		for _, k := range path {
			switch x := cur.(type) {
			case *ast.ObjectLit:
				found := false
				for _, en := range x.Entries {
					if !en.Spread && en.Key == k {
						pos, cur, found = en.Pos, en.Value, true
						break
					}
				}
				if !found {
					return pos
				}
			case *ast.ArrayLit:
				i, err := strconv.Atoi(k)
				if err != nil || i < 0 || i >= len(x.Items) || x.Items[i].Spread {
					return pos
				}
				cur = x.Items[i].Value
				pos = cur.Position()
			default:
				return pos
			}
		}
		return pos
	}
}

// policyConfigError positions a malformed-policy error at its key.
func policyConfigError(err error, what string, pos ast.Pos) error {
	var ce *policy.ConfigError
	if !errors.As(err, &ce) {
		return atPos(err, KindPolicyConfig, pos)
	}
	if ce.Pos.Line != 0 {
		pos = ce.Pos
	}
	hint := ce.Hint
	if hint == "" {
		hint = "fix the policy object; a policy is applied whole or not at all"
	}
	return &Error{Kind: KindPolicyConfig, Pos: pos, Message: "invalid " + what + ": " + ce.Message, Hint: hint, Err: err}
}

// policyObject is `@mx.policy`: the merged configuration of the active
// policies and their names. It is rebuilt only when a policy is added.
func (in *interp) policyObject() *value.Object {
	if in.policyMx == nil {
		o := value.NewObject()
		o.Set("configs", in.policy.Configs())
		names := in.policy.Names()
		list := make([]any, len(names))
		for i, n := range names {
			list[i] = n
		}
		o.Set("activePolicies", list)
		in.policyMx = o
	}
	return in.policyMx
}
