package interp

import (
	"errors"
	"strconv"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/lang"
)

// builtinNames reports whether name is a builtin reachable as `@name`:
// a transformer or a builtin function of the language's name table
// (lang.Builtins), which check reads too.
func builtinNames(name string) bool { return lang.IsBuiltin(name) }

// builtin is a builtin transformer used as a value (`@json`, `@parse.loose`).
type builtin struct{ name string }

// CallableName implements value.Callable.
func (b builtin) CallableName() string { return b.name }

// resolvable reports whether a ref's root names something.
func (e *env) resolvable(name string) bool {
	if _, ok := e.lookup(name); ok {
		return true
	}
	return builtinNames(name)
}

func (in *interp) evalRef(e *env, r *ast.Ref) (*value.Variable, error) {
	if v, rest, ok, err := in.pipelineIndex(e, r); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return in.applyPath(e, v, rest, r)
	}
	if r.Name == "mx" {
		if v, ok, err := in.evalMxField(e, r); ok {
			return v, err
		}
	}
	root, ok := e.lookup(r.Name)
	if ok && root.Namespace != "" && !e.lenient {
		if err := namespaceField(root, r); err != nil {
			return nil, err
		}
	}
	return in.evalRefRoot(e, r, root, ok)
}

// evalMxField evaluates `@mx.key…` from the one member read (mxMember)
// instead of the whole @mx: most reads (`@mx.op.type`, `@mx.labels`,
// `@mx.try`) need one namespace of it. ok is false when r is another
// shape (`@mx`, a method of @mx, `@mx.mx`, a key @mx lacks, `@mx.guard`
// outside a guard): evalRefRoot reads the whole object and reports the
// errors.
func (in *interp) evalMxField(e *env, r *ast.Ref) (*value.Variable, bool, error) {
	if len(r.Path) == 0 {
		return nil, false, nil
	}
	acc := r.Path[0]
	if acc.Kind != ast.AccessField || acc.Name == "mx" || (len(r.Path) > 1 && r.Path[1].Kind == ast.AccessCall) {
		return nil, false, nil
	}
	if acc.Name == "guard" && !in.mx.InGuard() {
		return nil, false, nil
	}
	if len(r.Path) > 1 && e.in != nil {
		// `@mx.op.type`, `@mx.op.labels.includes(…)`: one field of the
		// operation object (which carries no descriptor).
		f := r.Path[1]
		if f.Kind == ast.AccessField && f.Name != "mx" && !(len(r.Path) > 2 && r.Path[2].Kind == ast.AccessCall) {
			if d, ok := e.in.mx.OpField(acc.Name, f.Name); ok {
				v := value.New(d)
				if check := in.opts.paths.mxMember; check != nil {
					check(e, []string{acc.Name, f.Name}, v)
				}
				v, err := in.applyPath(e, v, r.Path[2:], r)
				return v, true, err
			}
		}
	}
	m, ok := e.mxMember(acc.Name)
	if !ok {
		return nil, false, nil
	}
	// A copy, as a member read of the whole object gives.
	c := *m
	if check := in.opts.paths.mxMember; check != nil {
		check(e, []string{acc.Name}, &c)
	}
	v, err := in.applyPath(e, &c, r.Path[1:], r)
	return v, true, err
}

// evalRefRoot is evalRef once r's root has been looked up (root, ok: the
// result of e.lookup(r.Name)) and r is known not to index a pipeline
// stage (pipelineIndex): callers that had to look the root up anyway
// (evalArgs, interpolate) spare the second lookup.
func (in *interp) evalRefRoot(e *env, r *ast.Ref, root *value.Variable, ok bool) (*value.Variable, error) {
	if ok && root.Deferred != nil {
		var err error
		if root, err = in.renderDeferred(e, root); err != nil {
			return nil, err
		}
	}
	if ok && r.Name == "mx" && len(r.Path) > 0 && r.Path[0].Kind == ast.AccessField && r.Path[0].Name == "guard" {
		if !e.in.mx.InGuard() {
			return nil, newError(KindVariable, r.Pos, "@mx.guard exists only inside guards and denied handlers",
				`Variable "mx" has no field "guard"`)
		}
	}
	if !ok {
		switch {
		case builtinNames(r.Name):
			root = value.New(builtin{name: r.Name})
		case probesDefined(r):
			// `@missing.isDefined()` asks the question instead of failing.
			return value.New(false), nil
		case e.lenient && !e.strictRefs && calledName(r) != "":
			// A condition reads an undefined variable as undefined, but
			// calling an undefined function, or a method of an undefined
			// variable, is an error, as in mlld.
			return nil, newError(KindVariable, r.Pos, "define it before the condition that calls it",
				"Failed to evaluate function in condition: %s", calledName(r))
		case e.lenient && !(e.strictRefs && r.Name != "p" && r.Name != "pipeline"):
			return undefined(), nil
		default:
			return nil, newError(KindVariable, r.Pos, "define it with var (or let inside a block) before using it",
				"Variable not found: %s", r.Name)
		}
	}
	return in.applyPath(e, root, r.Path, r)
}

func (in *interp) applyPath(e *env, cur *value.Variable, path []ast.Accessor, r *ast.Ref) (*value.Variable, error) {
	// inMeta is set once `.mx` was taken: a further `.mx` (inside
	// `.mx.data`) is a user field.
	inMeta := false
	for i := 0; i < len(path); i++ {
		acc := path[i]
		if acc.Optional && isNullish(cur) {
			return undefined(), nil
		}
		if cur.Items != nil && !inMeta {
			res, next, done, handled, err := in.listAccess(e, cur, path, i, r)
			if err != nil {
				return nil, err
			}
			if handled {
				if done {
					return res, nil
				}
				cur = res
				if acc.Kind == ast.AccessField && acc.Name == "mx" {
					inMeta = true
				}
				i = next - 1
				continue
			}
		}
		switch acc.Kind {
		case ast.AccessField:
			if i+1 < len(path) && path[i+1].Kind == ast.AccessCall {
				res, err := in.callMember(e, cur, acc.Name, path[i+1], r)
				if err != nil {
					return nil, err
				}
				cur = res
				i++
				continue
			}
			if acc.Name == "mx" && !inMeta {
				inMeta = true
				mx, err := mxFor(cur, path[i+1:], acc.Pos)
				if err != nil {
					return nil, err
				}
				cur = derived(mx, cur)
				continue
			}
			if b, ok := cur.Data.(builtin); ok {
				cur = value.New(builtin{name: b.name + "." + acc.Name})
				continue
			}
			if acc.Name == "keep" && hasFileMeta(cur) {
				// `.keep` hands a loaded file to code with its metadata.
				c := *cur
				c.Keep = true
				cur = &c
				continue
			}
			if err := fieldOnText(e, cur, acc); err != nil {
				return nil, err
			}
			cur = fieldOf(cur, acc.Name)
		case ast.AccessIndex:
			idx, err := in.evalExpr(e.withLenient(false), acc.Index)
			if err != nil {
				return nil, err
			}
			cur = keyed(indexOf(cur, idx.Data), idx)
		case ast.AccessSlice:
			res, err := in.sliceOf(e, cur, acc)
			if err != nil {
				return nil, err
			}
			cur = res
		case ast.AccessWildcard:
			arr, ok := structuredData(cur.Data).([]any)
			if !ok {
				return undefined(), nil
			}
			// The projection covers the plain field and index steps that
			// follow; a method call after them applies to the projected array.
			j := i + 1
			for j < len(path) && (path[j].Kind == ast.AccessField || path[j].Kind == ast.AccessIndex) &&
				!(j+1 < len(path) && path[j+1].Kind == ast.AccessCall) {
				j++
			}
			out := make([]any, 0, len(arr))
			for _, el := range arr {
				v, err := in.applyPath(e, derived(el, cur), path[i+1:j], r)
				if err != nil {
					return nil, err
				}
				out = append(out, v.Data)
			}
			cur = derived(out, cur)
			i = j - 1
		case ast.AccessCall:
			if x, ok := cur.Data.(*exe); ok && len(acc.Args) <= len(exeFrame{}.args) {
				// An exe call: its frame is made first and the arguments
				// are evaluated into it, one allocation instead of two.
				f := &exeFrame{}
				args, err := in.evalArgsInto(e, acc.Args, x.name, f.args[:0])
				if err != nil {
					return nil, err
				}
				res, err := in.callExeIn(e, x, args, callOpts{pos: acc.Pos}, f)
				if err != nil {
					return nil, err
				}
				cur = res
				continue
			}
			if b, ok := cur.Data.(builtin); ok && (b.name == "exists" || b.name == "fileExists") {
				res, err := in.existsCall(e, b.name, acc.Args, acc.Pos)
				if err != nil {
					return nil, err
				}
				cur = res
				continue
			}
			args, err := in.evalArgs(e, acc.Args, calleeName(cur, r))
			if err != nil {
				return nil, err
			}
			res, err := in.callValue(e, cur, args, acc.Pos, r)
			if err != nil {
				return nil, err
			}
			cur = res
		}
	}
	return cur, nil
}

func calleeName(v *value.Variable, r *ast.Ref) string {
	if c, ok := v.Data.(value.Callable); ok {
		return c.CallableName()
	}
	if r != nil {
		return r.Name
	}
	return "?"
}

// fieldOf reads `.name`; the result carries the container's descriptor,
// or, for a container assembled from members (`@mx`, `@p`), the
// descriptor of the member read.
func fieldOf(cur *value.Variable, name string) *value.Variable {
	if m, ok := cur.Member(name); ok {
		return m
	}
	switch cur.Data.(type) {
	case nil:
		return derived(nil, cur)
	case value.Undefined:
		return undefined()
	}
	d, ok := value.Property(structuredData(cur.Data), name)
	if !ok {
		return derived(value.Undefined{}, cur)
	}
	return derived(d, cur)
}

// indexOf reads `[idx]` like fieldOf.
func indexOf(cur *value.Variable, idx any) *value.Variable {
	if cur.Members != nil {
		if m, ok := cur.Member(memberKey(cur.Data, idx)); ok {
			return m
		}
	}
	switch cur.Data.(type) {
	case nil:
		return derived(nil, cur)
	case value.Undefined:
		return undefined()
	}
	d, ok := value.Index(structuredData(cur.Data), idx)
	if !ok {
		return derived(value.Undefined{}, cur)
	}
	return withItemMeta(derived(d, cur), cur, idx)
}

// keyed gives the result of a lookup the descriptor of its key too: which
// value a computed index selects depends on the key, so `@t[@secret]`
// over a table is as secret as the key itself.
func keyed(res, key *value.Variable) *value.Variable {
	if key == nil || key.Security.IsZero() || res.Security.Contains(key.Security) {
		return res
	}
	c := *res
	c.Security = res.Security.Merge(key.Security)
	return &c
}

// memberKey is the Members key `[idx]` reads in data: an object's key, or
// an array position in decimal (negative positions count from the end);
// "" when no member can match.
func memberKey(data, idx any) string {
	switch d := data.(type) {
	case *value.Object:
		return value.Text(idx)
	case []any:
		if k, ok := idx.(float64); ok && k == float64(int(k)) {
			i := int(k)
			if i < 0 {
				i += len(d)
			}
			if i >= 0 {
				return strconv.Itoa(i)
			}
		}
	}
	return ""
}

// evalArgs evaluates call arguments. A bare reference to an unknown
// variable is an error naming the function.
func (in *interp) evalArgs(e *env, args []ast.Expr, fn string) ([]*value.Variable, error) {
	return in.evalArgsInto(e, args, fn, make([]*value.Variable, 0, len(args)))
}

// evalArgsInto is evalArgs appending to out.
func (in *interp) evalArgsInto(e *env, args []ast.Expr, fn string, out []*value.Variable) ([]*value.Variable, error) {
	for _, a := range args {
		var v *value.Variable
		var err error
		if r, ok := a.(*ast.Ref); ok {
			var root *value.Variable
			var found bool
			if r.Name == "mx" {
				// Always defined; evalRef reads one member of it.
				v, err = in.evalRef(e.withLenient(false), r)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
				continue
			}
			if !indexesPipeline(e, r) {
				root, found = e.lookup(r.Name)
			}
			if !found && !e.resolvable(r.Name) || found && isMissingArg(root) {
				return nil, newError(KindVariable, r.Pos, "define the variable before passing it",
					"Undefined variable '@%s' passed to function @%s", r.Name, fn)
			}
			if found {
				// The root was just looked up: evaluate from it.
				v, err = in.evalRefRoot(e.withLenient(false), r, root, true)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
				continue
			}
		}
		v, err = in.evalExpr(e.withLenient(false), a)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// callMember handles `.name(args)`: an exe stored in an object field, or a
// builtin method.
func (in *interp) callMember(e *env, cur *value.Variable, name string, call ast.Accessor, r *ast.Ref) (*value.Variable, error) {
	if b, ok := cur.Data.(builtin); ok {
		args, err := in.evalArgs(e, call.Args, b.name+"."+name)
		if err != nil {
			return nil, err
		}
		return in.callValue(e, value.New(builtin{name: b.name + "." + name}), args, call.Pos, r)
	}
	if o, ok := structuredData(cur.Data).(*value.Object); ok {
		if f, ok := o.Get(name); ok {
			if _, callable := f.(value.Callable); callable {
				args, err := in.evalArgs(e, call.Args, name)
				if err != nil {
					return nil, err
				}
				return in.callValue(e, derived(f, cur), args, call.Pos, r)
			}
		}
	}
	args, err := in.evalArgs(e, call.Args, name)
	if err != nil {
		return nil, err
	}
	argData := make([]any, len(args))
	for i, a := range args {
		argData[i] = a.Data
	}
	recv := cur.Data
	if cur.Text != nil && isStructured(recv) && isStringMethod(name) {
		recv = *cur.Text
	} else if t, ok := loadedText(cur); ok && isStructured(recv) && isStringMethod(name) {
		recv = t
	}
	res, err := value.CallMethod(recv, name, argData)
	if err != nil {
		if errors.Is(err, value.ErrNoMethod) {
			return nil, newError(KindType, call.Pos, "check the method name; see the list of builtin methods",
				"Unknown method .%s() on %s", name, typeName(cur.Data))
		}
		return nil, valueError(err, call.Pos)
	}
	if s, ok := res.(string); ok {
		if err := in.stringFits(call.Pos, "."+name+"()", 0, len(s)); err != nil {
			return nil, err
		}
	}
	return derived(res, append([]*value.Variable{cur}, args...)...), nil
}

func isStringMethod(name string) bool {
	switch name {
	case "trim", "toUpperCase", "toLowerCase", "split", "replace", "replaceAll", "startsWith", "endsWith",
		"padStart", "padEnd", "repeat", "substring", "match":
		return true
	}
	return false
}

// callValue calls an exe or builtin transformer.
func (in *interp) callValue(e *env, callee *value.Variable, args []*value.Variable, pos ast.Pos, r *ast.Ref) (*value.Variable, error) {
	switch f := callee.Data.(type) {
	case *exe:
		return in.callExe(e, f, args, callOpts{pos: pos})
	case *guardHelper:
		return in.callGuardHelper(f, args, pos)
	case *goFunc:
		return in.callGoFunc(e, f, args, pos)
	case builtin:
		if v, ok, err := in.callBuiltinFunc(e, f.name, args, pos); ok {
			return v, err
		}
		var input any = ""
		var extra []any
		if len(args) > 0 {
			input = callInput(args[0])
			for _, a := range args[1:] {
				extra = append(extra, a.Data)
			}
		}
		return in.transform(f.name, input, extra, pos, args...)
	}
	name := "value"
	if r != nil {
		name = "@" + r.Name
	}
	return nil, newError(KindCall, pos, "only executables defined with exe can be called",
		"%s is not executable (type: %s)", name, typeName(callee.Data))
}

// transformInput is what a builtin transformer receives: parsed command
// output as its text, everything else as data.
// callInput is the input of a transformer called as a function,
// `@upper(@v)`: as in mlld, an array or object argument (not text that
// holds one) reaches it as empty text, so `@upper([1])` is "" and
// `@json(@list)` fails to parse. A pipe (`@v | @upper`) passes the value.
func callInput(v *value.Variable) any {
	in := transformInput(v)
	switch in.(type) {
	case []any, *value.Object:
		return ""
	}
	return in
}

func transformInput(v *value.Variable) any {
	if v.Text != nil {
		return *v.Text
	}
	return v.Data
}

func (in *interp) transform(name string, input any, args []any, pos ast.Pos, from ...*value.Variable) (*value.Variable, error) {
	out, ok, err := value.Transform(name, input, args)
	if !ok {
		return nil, newError(KindVariable, pos, "the builtin transformers are @json, @parse, @trim, @upper, @lower, @pretty, @sort, @xml, @csv and @md; or define an exe with that name",
			"Unknown transformer @%s", name)
	}
	if err != nil {
		return nil, valueError(err, pos)
	}
	if s, ok := out.(string); ok {
		if err := in.stringFits(pos, "@"+name, 0, len(s)); err != nil {
			return nil, err
		}
	}
	res := derived(out, from...)
	if s, ok := out.(string); ok && name == "json" {
		// As in mlld, @json's result is structured: its text, and its data
		// where a command interpolates it (as compact JSON).
		if t := textOutput(s); t.Text != nil {
			res.Data, res.Text, res.Source = t.Data, t.Text, sourceJSON
		}
	}
	return res, nil
}

// refText reconstructs how a reference was written, for undefined
// references that templates keep literally.
func refText(r *ast.Ref) string {
	var b strings.Builder
	b.WriteString("@" + r.Name)
	for _, a := range r.Path {
		switch a.Kind {
		case ast.AccessField:
			b.WriteString("." + a.Name)
		case ast.AccessIndex:
			switch ix := a.Index.(type) {
			case *ast.NumberLit:
				b.WriteString("[" + ix.Raw + "]")
			case *ast.StringLit:
				b.WriteString("[\"")
				for _, p := range ix.Parts {
					if t, ok := p.(*ast.TextPart); ok {
						b.WriteString(t.Text)
					}
				}
				b.WriteString("\"]")
			default:
				b.WriteString("[…]")
			}
		case ast.AccessWildcard:
			b.WriteString("[*]")
		case ast.AccessCall:
			b.WriteString("()")
		}
	}
	return b.String()
}

// indexesPipeline reports whether pipelineIndex may apply to r, in which
// case r must go through evalRef.
func indexesPipeline(e *env, r *ast.Ref) bool {
	return e.pipe != nil && (r.Name == "p" || r.Name == "pipeline") && len(r.Path) > 0 && r.Path[0].Kind == ast.AccessIndex
}

// pipelineIndex resolves `@p[i]` / `@pipeline[i]` to the stage output
// itself, so that its descriptor (`@p[1].mx.labels`) survives.
func (in *interp) pipelineIndex(e *env, r *ast.Ref) (*value.Variable, []ast.Accessor, bool, error) {
	if !indexesPipeline(e, r) {
		return nil, nil, false, nil
	}
	if v, _ := e.sc.lookup(r.Name); v != nil {
		return nil, nil, false, nil
	}
	idx, err := in.evalExpr(e.withLenient(false), r.Path[0].Index)
	if err != nil {
		return nil, nil, false, err
	}
	n, ok := idx.Data.(float64)
	if !ok {
		return nil, nil, false, nil
	}
	return keyed(e.pipe.output(int(n)), idx), r.Path[1:], true, nil
}

// fieldOnText is mlld's FieldAccess error: a field that is not a string
// property (`.length`) read from a string, as in `@name.first` where
// @name = "Ada". Conditions and guards (lenient) still read it as
// undefined, and so does text that holds JSON or a loaded file.
func fieldOnText(e *env, cur *value.Variable, acc ast.Accessor) error {
	s, ok := cur.Data.(string)
	if !ok || e.lenient || e.strictRefs || cur.Meta != nil || cur.Members != nil || e.in.mx.InGuard() {
		return nil
	}
	if _, ok := value.Property(s, acc.Name); ok {
		return nil
	}
	if _, isData := structuredData(s).(string); !isData {
		return nil
	}
	return newError(KindType, acc.Pos, "a string has no fields; check the variable holds an object",
		"Cannot access field %q on non-object value (string)", acc.Name)
}

// calledName is the function a reference calls first (`@f(…)`: f;
// `@x.includes(…)`: includes), or "" when it calls nothing.
func calledName(r *ast.Ref) string {
	for i, acc := range r.Path {
		if acc.Kind != ast.AccessCall {
			continue
		}
		if i == 0 {
			return r.Name
		}
		return r.Path[i-1].Name
	}
	return ""
}
