package interp

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// KindHook is the error kind of a hook directive that cannot be
// registered.
const KindHook ErrorKind = "HookError"

// The `hook` directive (mlld's user hooks) observes and transforms
// operations; it never stops one. It runs on the hook manager as an open
// hook, registered after the taint and policy-label post-hooks and before
// the guards, which fixes what it can do:
//
//   - before hooks run ahead of the guard and policy pre-hook, so guards
//     and label-flow rules decide on the inputs the operation will really
//     get: a hook's transform is checked like any input, and a denial
//     comes after every hook has run, so no hook can lift it;
//   - after hooks run once the result carries its labels and ahead of the
//     after-guards, which see the transformed result;
//   - a transform never launders labels: a before hook's new inputs carry
//     the descriptors of all the inputs it saw plus its result's, an after
//     hook's result the operation result's plus its own (the taint
//     post-hook's model);
//   - the hook's body is script code that the guards see like any other
//     (open hooks do not count as running), while the hooks themselves are
//     non-reentrant: operations a hook body causes, or a guard's helpers
//     cause, skip every user hook;
//   - a body's error is kept in `@mx.hooks.errors` for the hooks after it
//     and the operation goes on, except the errors that end the run
//     (limits, interruption).
//
// Hooks of an imported module stay inactive, as its guards do: importing
// a helper never installs a transform on the importer's operations.

// userHook is one registered hook directive.
type userHook struct {
	d   *ast.HookDirective
	env *env
}

// userHooks is the run's hook directives and their state.
type userHooks struct {
	list  []*userHook
	names map[string]bool
	// depth counts hook bodies running: operations they cause skip hooks.
	depth int
	// errs holds, per operation, the errors of its hooks so far (its
	// before hooks' errors are still there for its after hooks).
	errs map[*hooks.Call][]any
	// current is the error list the running body sees.
	current []any
}

// setupUserHooks registers the hook directive's pre- and post-hook. It is
// called before setupGuards (see the order above).
func (in *interp) setupUserHooks() {
	in.hooks.RegisterPreOpen("hook-directive", in.userPreHook)
	in.hooks.RegisterPostOpen("hook-directive", in.userPostHook)
}

// execHook registers a hook directive of the main script.
func (in *interp) execHook(e *env, d *ast.HookDirective) error {
	if e.mod != in.main {
		return nil
	}
	u := &in.userHooks
	if d.Name != "" {
		if u.names[d.Name] {
			return newError(KindHook, d.Pos, "give each hook its own name", "Hook with name @%s already exists", d.Name)
		}
		if u.names == nil {
			u.names = map[string]bool{}
		}
		u.names[d.Name] = true
	}
	u.list = append(u.list, &userHook{d: d, env: e})
	return nil
}

func (in *interp) userPreHook(c *hooks.Call) (hooks.Decision, error) {
	u := &in.userHooks
	if len(u.list) == 0 || u.depth > 0 || c.Op == nil || isDefinition(c) {
		return hooks.Decision{Action: hooks.Continue}, nil
	}
	inputs := c.Inputs
	changed := false
	for _, h := range u.list {
		if h.d.Timing != "before" || !h.matches(c.Op, inputs) {
			continue
		}
		v, transformed, err := in.runUserHook(h, c, inputs, nil)
		if err != nil {
			return hooks.Decision{}, err
		}
		if transformed {
			inputs = hookInputs(inputs, v)
			changed = true
		}
	}
	if !changed {
		return hooks.Decision{Action: hooks.Continue}, nil
	}
	return hooks.Decision{Action: hooks.Continue, Inputs: inputs}, nil
}

func (in *interp) userPostHook(c *hooks.Call, res *value.Variable) (*value.Variable, error) {
	u := &in.userHooks
	if len(u.list) == 0 || u.depth > 0 || c.Op == nil || isDefinition(c) {
		return res, nil
	}
	defer delete(u.errs, c)
	cur := res
	for _, h := range u.list {
		if h.d.Timing != "after" || !h.matches(c.Op, c.Inputs) {
			continue
		}
		v, transformed, err := in.runUserHook(h, c, c.Inputs, cur)
		if err != nil {
			return nil, err
		}
		if transformed {
			out := *v
			out.Security = cur.Security.Merge(v.Security)
			cur = &out
		}
	}
	return cur, nil
}

// isDefinition reports an exe definition: an operation for guards, but
// `op:exe` and function hooks are about calls.
func isDefinition(c *hooks.Call) bool {
	_, ok := c.Node.(*ast.ExeDirective)
	return ok
}

// matches reports whether the hook's filter selects the operation.
func (h *userHook) matches(op *hooks.OperationContext, inputs []*value.Variable) bool {
	d := h.d
	switch d.Kind {
	case ast.HookFunction:
		name := op.Name
		switch op.Type {
		case "exe":
		case "pipeline-stage":
			// A stage names its exe in Subtype.
			name = op.Subtype
		default:
			return false
		}
		if name != d.Filter && !strings.HasSuffix(d.Filter, "."+name) {
			return false
		}
		if !d.HasPrefix {
			return true
		}
		first := ""
		if len(inputs) > 0 && inputs[0] != nil {
			first = value.Text(inputs[0].Data)
		}
		return strings.HasPrefix(first, d.Prefix)
	case ast.HookOperation:
		return op.Type == d.Filter || op.Subtype == d.Filter ||
			slices.Contains(op.OpLabels, "op:"+d.Filter) || slices.Contains(op.Labels, d.Filter)
	default:
		if slices.Contains(op.Labels, d.Filter) {
			return true
		}
		for _, v := range inputs {
			if v != nil && v.Security.HasLabel(d.Filter) {
				return true
			}
		}
	}
	return false
}

// runUserHook runs one hook's body for the operation op. transformed reports a value
// the body returned. A body's error is recorded for the hooks after it;
// err is only an error that must end the run.
func (in *interp) runUserHook(h *userHook, op *hooks.Call, inputs []*value.Variable, output *value.Variable) (v *value.Variable, transformed bool, err error) {
	u := &in.userHooks
	he := h.env.child()
	he.in = in
	if h.d.Kind == ast.HookFunction && h.d.Timing == "before" || len(inputs) != 1 {
		he.sc.vars["input"] = value.ListOf(inputs)
	} else {
		he.sc.vars["input"] = inputs[0]
	}
	if output != nil {
		he.sc.vars["output"] = output
	}
	saved := u.current
	u.current = u.errs[op]
	u.depth++
	defer func() {
		u.depth--
		u.current = saved
	}()
	v, transformed, bodyErr := in.hookBody(he, h.d.Body)
	if bodyErr == nil {
		return v, transformed, nil
	}
	if fatalHookError(in, bodyErr) {
		return nil, false, bodyErr
	}
	if u.errs == nil {
		u.errs = map[*hooks.Call][]any{}
	}
	u.errs[op] = append(u.errs[op], hookErrorObject(h.d, bodyErr))
	return nil, false, nil
}

// hookBody evaluates a hook's body; a panic is an error of the body.
func (in *interp) hookBody(e *env, body ast.Expr) (v *value.Variable, transformed bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			switch x := r.(type) {
			case *value.LimitError:
				err = x
			case *value.InterruptedError:
				err = x
			default:
				err = fmt.Errorf("internal error in hook: %v", r)
			}
		}
	}()
	switch b := body.(type) {
	case *ast.WhenExpr:
		v, matched, isValue, err := in.evalWhen(e, b, false)
		if err != nil {
			return nil, false, err
		}
		return v, matched && isValue && v != nil && !isUndefined(v), nil
	case *ast.BlockExpr:
		v, returned, err := in.runBlock(e, b, false)
		if err != nil {
			return nil, false, err
		}
		return v, returned && v != nil, nil
	}
	return nil, false, nil
}

// fatalHookError reports an error no hook may keep from ending the run:
// a resource limit, an interruption, a cancelled run.
func fatalHookError(in *interp, err error) bool {
	var le *value.LimitError
	var ie *value.InterruptedError
	return errors.As(err, &le) || errors.As(err, &ie) || in.ctx.Err() != nil
}

// hookErrorObject is one entry of `@mx.hooks.errors`.
func hookErrorObject(d *ast.HookDirective, err error) *value.Object {
	o := value.NewObject()
	if d.Name != "" {
		o.Set("hookName", d.Name)
	} else {
		o.Set("hookName", nil)
	}
	o.Set("timing", d.Timing)
	o.Set("filterKind", d.Kind)
	o.Set("filter", d.Filter)
	msg := err.Error()
	var pe *Error
	var ge *guard.Error
	switch {
	case errors.As(err, &ge):
		msg = ge.Reason
	case errors.As(err, &pe):
		msg, _, _ = strings.Cut(pe.Message, "\n")
	}
	o.Set("message", msg)
	return o
}

// hooksMx is `@mx.hooks`, nil outside a hook body.
func (in *interp) hooksMx() *value.Object {
	u := &in.userHooks
	if u.depth == 0 {
		return nil
	}
	o := value.NewObject()
	errs := make([]any, len(u.current))
	copy(errs, u.current)
	o.Set("errors", errs)
	return o
}

// hookInputs are the inputs a before hook's returned value gives: an
// array's elements, or the value alone. Each carries the descriptors of
// all the inputs the hook saw and of what it returned: the hook may have
// built it from any of them.
func hookInputs(old []*value.Variable, v *value.Variable) []*value.Variable {
	var c taint.Collector
	for _, in := range old {
		if in != nil {
			c.Add(in.Security)
		}
	}
	c.Add(v.Security)
	base := c.Descriptor()
	var out []*value.Variable
	if arr, ok := v.Data.([]any); ok {
		out = make([]*value.Variable, len(arr))
		for i, el := range arr {
			item, ok := v.Member(strconv.Itoa(i))
			if !ok {
				item = &value.Variable{Data: el, Security: v.Security}
			} else {
				cp := *item
				item = &cp
			}
			item.Security = item.Security.Merge(base)
			out[i] = item
		}
		return out
	}
	cp := *v
	cp.Security = base
	return []*value.Variable{&cp}
}
