package interp

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
)

// guardHelper is a helper function bound inside guard bodies (SPEC §5.6):
// @opIs, @opHas, @opHasAny, @opHasAll, @inputHas, @prefixWith, @tagValue.
type guardHelper struct {
	name  string
	op    *hooks.OperationContext
	input *value.Variable
}

// CallableName implements value.Callable.
func (h *guardHelper) CallableName() string { return h.name }

// bindGuardHelpers adds the helpers to a guard's scope. They are always
// the builtins (the deciding ones are reserved names, reserved.go), except
// @tagValue, which gives way to a user exe of the guard's own scope
// (SPEC §5.6).
func bindGuardHelpers(ge *env, ev *guard.Evaluation, base *value.Variable) {
	bindHelpers(ge, ev, base, guardHelperNames)
}

// bindHelpers binds the named helpers (those a guard's rules mention).
func bindHelpers(ge *env, ev *guard.Evaluation, base *value.Variable, names []string) {
	for _, name := range names {
		if name == "tagValue" {
			if _, ok := ge.lookup(name); ok {
				continue
			}
		}
		ge.sc.vars[name] = value.New(&guardHelper{name: name, op: ev.Call.Op, input: base})
	}
}

func (in *interp) callGuardHelper(h *guardHelper, args []*value.Variable, pos ast.Pos) (*value.Variable, error) {
	arg := func(i int) *value.Variable {
		if i < len(args) {
			return args[i]
		}
		return undefined()
	}
	opHas := func(l string) bool {
		if h.op == nil {
			return false
		}
		for _, x := range h.op.AllLabels() {
			if x == l {
				return true
			}
		}
		return false
	}
	switch h.name {
	case "opIs":
		return value.New(h.op != nil && (h.op.Type == value.Text(arg(0).Data) || h.op.Subtype == value.Text(arg(0).Data))), nil
	case "opHas":
		return value.New(opHas(value.Text(arg(0).Data))), nil
	case "opHasAny", "opHasAll":
		list, _ := arg(0).Data.([]any)
		all := h.name == "opHasAll"
		res := all
		for _, l := range list {
			has := opHas(value.Text(l))
			if all && !has {
				res = false
				break
			}
			if !all && has {
				res = true
				break
			}
		}
		return value.New(res), nil
	case "inputHas":
		return value.New(h.input != nil && h.input.Security.HasLabel(value.Text(arg(0).Data))), nil
	case "prefixWith":
		return derived(value.Text(arg(0).Data)+":"+jsString(arg(1)), arg(1)), nil
	case "tagValue":
		v := arg(1)
		if isNullish(v) {
			v = arg(2)
		}
		return derived(value.Text(arg(0).Data)+":"+jsString(v), v), nil
	}
	return nil, newError(KindCall, pos, "", "unknown guard helper @%s", h.name)
}

// jsString is the text JavaScript's String() gives a value, which the
// helpers use: an array (a per-operation @input) joins its elements with
// commas.
func jsString(v *value.Variable) string {
	if arr, ok := v.Data.([]any); ok {
		parts := make([]string, len(arr))
		for i, x := range arr {
			parts[i] = value.Text(x)
		}
		return strings.Join(parts, ",")
	}
	return rawText(v)
}
