package interp

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

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
	case "keep", "keepStructured":
		// mlld's @keep(value): the value itself, structured; a loaded
		// file keeps its metadata for code, as with `.keep`.
		if len(args) == 0 {
			return undefined(), true, nil
		}
		c := *args[0]
		c.Keep = hasFileMeta(&c)
		return &c, true, nil
	case "exists", "fileExists":
		// Reached with evaluated arguments (a pipe stage): the path.
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

// pathExists reports whether path names an existing file or directory in
// the base directory, or, for a glob, whether it matches any file.
func (in *interp) pathExists(e *env, path string, pos ast.Pos) bool {
	path = strings.TrimSpace(path)
	if path == "" {
		return false
	}
	if isGlobPattern(path) {
		rel, _, err := in.files.resolve(e.mod.dir, path, pos)
		if err != nil {
			return false
		}
		root, err := in.files.open()
		if err != nil {
			return false
		}
		return len(globMatches(root, filepath.ToSlash(rel))) > 0
	}
	return in.files.exists(e.mod.dir, path, pos) == nil
}

// existsCall is `@exists(x)` and `@fileExists(x)` as mlld evaluates them,
// from the argument as written (exec-invocation.ts):
//   - @exists(@var…) is true when the variable is defined and its fields
//     are there (whatever the value, null and "" included);
//   - @exists("path"), @exists(<path>) are true when the file loads (a
//     glob: when it matches a file);
//   - @exists(@f(…)) is true when the call succeeds; anything else is true.
//   - @fileExists(x) evaluates x to a path and checks the file system;
//     an undefined variable or missing field is false.
func (in *interp) existsCall(e *env, name string, args []ast.Expr, pos ast.Pos) (*value.Variable, error) {
	if len(args) == 0 {
		return value.New(false), nil
	}
	arg := args[0]
	if fl, ok := arg.(*ast.FileLoad); ok && fl.Path != nil {
		arg = fl.Path
	}
	if r, ok := arg.(*ast.Ref); ok && r.Name != "mx" && !hasCall(r) {
		root, found := e.lookup(r.Name)
		if !found {
			return value.New(false), nil
		}
		v, err := in.evalRefRoot(e.withLenient(true), r, root, true)
		if err != nil || isUndefined(v) {
			return value.New(false), nil
		}
		if name == "exists" {
			return derived(true, v), nil
		}
		return derived(in.pathExists(e, value.Text(v.Data), pos), v), nil
	}
	v, err := in.evalExpr(e, arg)
	if err != nil {
		if ie, ok := err.(*Error); ok && ie.Kind == KindInterrupt {
			return nil, err
		}
		return value.New(false), nil
	}
	if _, ok := arg.(*ast.StringLit); ok || name == "fileExists" {
		return derived(in.pathExists(e, value.Text(v.Data), pos), v), nil
	}
	return derived(true, v), nil
}

// hasCall reports whether r calls something.
func hasCall(r *ast.Ref) bool {
	for _, a := range r.Path {
		if a.Kind == ast.AccessCall {
			return true
		}
	}
	return false
}
