package interp

import (
	"errors"
	"io/fs"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// The builtin functions that are not transformers: @typeof(value) and
// @exists(path), listed in builtinNames. A variable of the same name
// shadows them, as any builtin.

// callBuiltinFunc calls @typeof or @exists; ok is false for any other
// builtin (a transformer).
func (in *interp) callBuiltinFunc(e *env, name string, args []*value.Variable, pos ast.Pos) (*value.Variable, bool, error) {
	switch name {
	case "typeof":
		if len(args) == 0 {
			return value.New("undefined"), true, nil
		}
		return derived(typeofName(args[0].Data), args[0]), true, nil
	case "exists":
		if len(args) == 0 {
			return value.New(false), true, nil
		}
		_, _, err := in.files.read(e.mod.dir, value.Text(args[0].Data), pos)
		switch {
		case err == nil:
			return derived(true, args[0]), true, nil
		case errors.Is(err, fs.ErrNotExist):
			return derived(false, args[0]), true, nil
		}
		// Outside the base directory or unreadable: not an existing file
		// the script may use.
		return derived(false, args[0]), true, nil
	}
	return in.callWorkspaceBuiltin(e, name, args, pos)
}

// typeofName is what @typeof says of a value: value.KindName's names,
// but mlld calls an exe "executable", and anything else "unknown".
func typeofName(d any) string {
	switch d.(type) {
	case nil, value.Undefined, bool, float64, string, []any, *value.Object:
		return value.KindName(d)
	case value.Callable:
		return "executable"
	}
	return "unknown"
}

// probesDefined reports whether r is `@name.isDefined()`.
func probesDefined(r *ast.Ref) bool {
	return len(r.Path) == 2 && r.Path[0].Kind == ast.AccessField && r.Path[0].Name == "isDefined" &&
		r.Path[1].Kind == ast.AccessCall && len(r.Path[1].Args) == 0
}

// objectParts is `.mx.keys`, `.mx.values` or `.mx.entries` of o.
func objectParts(o *value.Object, which string) []any {
	out := make([]any, 0, len(o.Keys))
	for _, k := range o.Keys {
		switch which {
		case "keys":
			out = append(out, k)
		case "values":
			out = append(out, o.Values[k])
		default:
			out = append(out, []any{k, o.Values[k]})
		}
	}
	return out
}
