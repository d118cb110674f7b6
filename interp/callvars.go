package interp

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/lang"
	"github.com/guardrun/guardrun/taint"
)

// Var is a value an embedder hands a script with its labels and
// sources: a per-call variable (Options.Vars, Operation.Vars) or a Go
// function's argument or result. Labels make it labelled data, exactly as
// `var secret @x = …` does; Sources are provenance entries
// (`@x.mx.sources`).
type Var struct {
	Value   any
	Labels  []string
	Sources []string
}

// PrepareVars checks and converts per-call variables: each name must be
// one a script can write (`@name`) and not one the language reserves;
// each value a Go value the language has (nil, bool, numbers, strings,
// slices and arrays, maps with string keys, of those), or a Var
// (*Var) with labels. The error names the variable, and the key or
// index where a value cannot be converted, with its Go type.
func PrepareVars(vars map[string]any) (map[string]*value.Variable, error) {
	if len(vars) == 0 {
		return nil, nil
	}
	out := make(map[string]*value.Variable, len(vars))
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	// In order, so that of several mistakes the same one is reported.
	sort.Strings(names)
	for _, name := range names {
		if err := CheckEmbedderName("variable", name); err != nil {
			return nil, err
		}
		v, err := GoVariable(vars[name], "@"+name)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}

// CheckEmbedderName reports why name cannot be the name of an embedder's
// per-call variable or Go function (what is "variable" or "function"):
// not an identifier, or a name the language gives a meaning (@mx, @p,
// @input, guard and policy helpers, builtins).
func CheckEmbedderName(what, name string) error {
	if !isIdent(name) {
		return fmt.Errorf("%s name %q is not a name a script can write as @name (letters, digits, _ and inner -, not starting with a digit)", what, name)
	}
	why := ""
	switch {
	case slices.Contains(lang.Ambient, name):
		why = "the language defines it (@mx, @p, @pipeline, @fm, @input, @output)"
	case slices.Contains(lang.GuardHelpers, name):
		why = "it is a guard helper"
	case slices.Contains(lang.PolicyHelpers, name):
		why = "it is a policy helper"
	case lang.IsBuiltin(name):
		why = "it is a builtin"
	}
	if why != "" {
		return fmt.Errorf("%s @%s is reserved: %s; choose another name", what, name, why)
	}
	return nil
}

// isIdent reports whether s is a whole identifier as the lexer reads one
// after @ (grammar's identLen).
func isIdent(s string) bool {
	if s == "" || !(isASCIIAlpha(s[0]) || s[0] == '_') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case isASCIIAlpha(c) || c >= '0' && c <= '9' || c == '_':
		case c == '-' && i+1 < len(s) && (isASCIIAlpha(s[i+1]) || s[i+1] >= '0' && s[i+1] <= '9'):
		default:
			return false
		}
	}
	return true
}

func isASCIIAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// GoVariable converts x, a Go value or a Var, into a variable; where
// names it in errors (`@req`, `@f's result`).
func GoVariable(x any, where string) (*value.Variable, error) {
	var lv *Var
	switch t := x.(type) {
	case Var:
		lv = &t
	case *Var:
		if t == nil {
			return nil, fmt.Errorf("%s: a nil *Var", where)
		}
		lv = t
	}
	if lv == nil {
		data, err := goData(x, where, 0)
		if err != nil {
			return nil, err
		}
		return value.New(data), nil
	}
	data, err := goData(lv.Value, where, 0)
	if err != nil {
		return nil, err
	}
	for _, l := range lv.Labels {
		if err := checkLabel(l); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	}
	v := value.New(data)
	v.Security = taint.Make(lv.Labels, nil, lv.Sources)
	return v, nil
}

// checkLabel refuses what is not a plain data label: label modifiers
// (`!secret`, `trusted!`, `clear!`) are a script's, under its policy, and
// operation labels (`op:…`) describe operations, not data.
func checkLabel(l string) error {
	switch {
	case l == "" || strings.TrimSpace(l) != l:
		return fmt.Errorf("label %q is empty or has surrounding spaces", l)
	case strings.HasPrefix(l, "!") || strings.HasSuffix(l, "!"):
		return fmt.Errorf("label %q is a label modification; give the labels the value has", l)
	case strings.HasPrefix(l, "op:"):
		return fmt.Errorf("label %q is an operation label, which data cannot carry", l)
	}
	return nil
}

// maxGoDepth bounds the nesting of a converted Go value (a cycle through
// pointers or interfaces would never end).
const maxGoDepth = 100

// goData converts a Go value into the language's data: nil, bool,
// float64, string, []any or *value.Object. at says where x is, for errors.
func goData(x any, at string, depth int) (any, error) {
	if depth > maxGoDepth {
		return nil, fmt.Errorf("%s: nested more than %d levels deep", at, maxGoDepth)
	}
	switch t := x.(type) {
	case nil:
		return nil, nil
	case bool, string:
		return t, nil
	case float64:
		return number(t, at)
	case float32:
		return number(float64(t), at)
	case int:
		return float64(t), nil
	case int64:
		return float64(t), nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			d, err := goData(e, at+"["+strconv.Itoa(i)+"]", depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := value.NewObject()
		for _, k := range keys {
			d, err := goData(t[k], at+"."+k, depth+1)
			if err != nil {
				return nil, err
			}
			o.Set(k, d)
		}
		return o, nil
	case Var, *Var:
		return nil, fmt.Errorf("%s: a labelled value (Var) can only be a whole variable, argument or result, not part of one", at)
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return number(rv.Float(), at)
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil, nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			d, err := goData(rv.Index(i).Interface(), at+"["+strconv.Itoa(i)+"]", depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		if rv.IsNil() {
			return nil, nil
		}
		keys := make([]string, 0, rv.Len())
		for _, k := range rv.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		o := value.NewObject()
		for _, k := range keys {
			d, err := goData(rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key())).Interface(), at+"."+k, depth+1)
			if err != nil {
				return nil, err
			}
			o.Set(k, d)
		}
		return o, nil
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, nil
		}
		return goData(rv.Elem().Interface(), at, depth+1)
	}
	return nil, fmt.Errorf("%s: a Go %T has no value in the language (use nil, bool, numbers, strings, slices or maps with string keys)", at, x)
}

// number refuses what JSON has no number for.
func number(f float64, at string) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%s: %v is not a number the language has", at, f)
	}
	return f, nil
}

// topNames are the names the main script's top level defines, with
// where: what a per-call variable or Go function may not also be.
func topNames(doc *ast.Document) map[string]ast.Pos {
	out := map[string]ast.Pos{}
	add := func(name string, pos ast.Pos) {
		if _, ok := out[name]; !ok && name != "" {
			out[name] = pos
		}
	}
	for _, n := range doc.Body {
		switch d := n.(type) {
		case *ast.VarDirective:
			add(d.Name, d.Pos)
		case *ast.ExeDirective:
			add(d.Name, d.Pos)
		case *ast.PolicyDirective:
			add(d.Name, d.Pos)
		case *ast.ImportDirective:
			add(d.Namespace, d.Pos)
			for _, in := range d.Names {
				name := in.Name
				if in.Alias != "" {
					name = in.Alias
				}
				add(name, in.Pos)
			}
		}
	}
	return out
}

// CheckClashes reports the first per-call variable or Go function (what,
// by name) that doc's top level defines too: the script's own would hide
// the embedder's, so the call is refused, pointing at the script's.
func CheckClashes(doc *ast.Document, what string, names []string) error {
	if doc == nil || len(names) == 0 {
		return nil
	}
	top := topNames(doc)
	sort.Strings(names)
	for _, n := range names {
		if pos, ok := top[n]; ok {
			return clashError(what, n, pos)
		}
	}
	return nil
}

func clashError(what, name string, pos ast.Pos) error {
	return newError(KindVariable, pos, "rename the script's @"+name+" or the embedder's "+what,
		"the embedder's %s @%s clashes with the script's own @%s defined here", what, name, name)
}

// embedderName is the error for a definition of name at the main
// script's top level (e's scope) that an embedder's per-call variable or
// Go function already holds; nil when there is none.
func (in *interp) embedderName(e *env, name string, pos ast.Pos) error {
	if in.main == nil || e.sc != in.main.root {
		return nil
	}
	if _, ok := in.vars[name]; ok {
		return clashError("per-call variable", name, pos)
	}
	if _, ok := in.opts.Funcs.lookup(name); ok {
		return clashError("Go function", name, pos)
	}
	return nil
}
