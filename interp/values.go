package interp

import (
	"sort"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/lang"
)

// retrySignal is the value of a `retry` action: it asks the pipeline to
// re-run the previous stage.
type retrySignal struct{ hint *value.Variable }

// skipSignal is the value of a `skip` action: `for` drops the element.
type skipSignal struct{}

func undefined() *value.Variable { return value.New(value.Undefined{}) }

// missingArgSource marks the value of a parameter its call gave no
// argument for (missingArg).
const missingArgSource = "missing argument"

// missingArg is the value of a parameter the call gave no argument for.
// mlld leaves such a parameter unbound: a template shows it as written
// (`@t`) and passing it on is "Undefined variable '@t' passed to function
// @f". guardrun binds it to undefined, marked, and reads it that way in
// those two places; it stays bound, so the name never reaches a module
// variable of the same name (which a guard's helper exe must not see).
func missingArg() *value.Variable {
	v := undefined()
	v.Source = missingArgSource
	return v
}

// isMissingArg reports whether v is a parameter's missing argument.
func isMissingArg(v *value.Variable) bool {
	return v != nil && v.Source == missingArgSource && isUndefined(v)
}

// unboundName reports whether name reads as not defined in a template
// or an argument list: not resolvable, or a parameter with no argument.
func (e *env) unboundName(name string) bool {
	if v, ok := e.lookup(name); ok {
		return isMissingArg(v)
	}
	return !builtinNames(name)
}

func isUndefined(v *value.Variable) bool {
	if v == nil {
		return true
	}
	_, ok := v.Data.(value.Undefined)
	return ok
}

func isNullish(v *value.Variable) bool {
	return v == nil || v.Data == nil || isUndefined(v)
}

func isRetry(v *value.Variable) bool {
	if v == nil {
		return false
	}
	_, ok := v.Data.(retrySignal)
	return ok
}

func isSkip(v *value.Variable) bool {
	if v == nil {
		return false
	}
	_, ok := v.Data.(skipSignal)
	return ok
}

// derived makes a new value whose descriptor is the union of the inputs'.
func derived(data any, from ...*value.Variable) *value.Variable {
	v := value.New(data)
	for _, f := range from {
		if f != nil {
			v.Security = v.Security.Merge(f.Security)
		}
	}
	return v
}

// isStructured reports whether data is an array or object.
func isStructured(data any) bool {
	switch data.(type) {
	case []any, *value.Object:
		return true
	}
	return false
}

// rawText is the text a value stands for when it leaves the language
// (command arguments, stdin, run output): the original text of parsed
// output, strings as-is, everything else as interpolation text.
func rawText(v *value.Variable) string {
	if v == nil {
		return ""
	}
	if v.Text != nil {
		return *v.Text
	}
	return value.Text(v.Data)
}

// runText is what `run` prints for a value.
func runText(v *value.Variable) string {
	if v == nil {
		return ""
	}
	if v.Text != nil {
		return *v.Text
	}
	switch d := v.Data.(type) {
	case string:
		return d
	case value.Undefined:
		return ""
	case []any, *value.Object:
		return value.Display(d)
	}
	return value.Text(v.Data)
}

// displayText is what `show` prints for a value. Rendering a large
// structure stops at the run's deadline.
func (in *interp) displayText(v *value.Variable) string {
	if v == nil {
		return ""
	}
	if (v.Source == sourceParallel || v.Source == sourceGlob) && v.Text != nil {
		return *v.Text
	}
	if v.Data == nil {
		// mlld shows null as an empty line (templates still say "null").
		return ""
	}
	return value.DisplayContext(in.ctx, v.Data)
}

const sourceParallel = "parallel"

// sourceJSON marks @json's result: templates show its text (pretty JSON),
// commands get its data as compact JSON.
const sourceJSON = "json"

// sourceOutput marks a command's output that parsed as JSON: as in mlld,
// a js or node block receives it parsed (a loaded file's text stays text).
const sourceOutput = "output"

// textOutput wraps the text output of a command or code block. Output that
// holds a JSON object or array keeps its text but exposes the parsed data,
// so fields can be read and templates see the structure.
func textOutput(s string) *value.Variable {
	t := strings.TrimSpace(s)
	if len(t) >= 2 && (t[0] == '{' || t[0] == '[') {
		if parsed, err := value.ParseJSON(t); err == nil && isStructured(parsed) {
			v := value.New(parsed)
			v.Text = &s
			v.Source = sourceOutput
			return v
		}
	}
	return value.New(s)
}

// structuredData returns the data to read fields from: strings holding a
// JSON object or array are parsed on demand.
func structuredData(data any) any {
	if s, ok := data.(string); ok {
		t := strings.TrimSpace(s)
		if len(t) >= 2 && (t[0] == '{' || t[0] == '[') {
			if parsed, err := value.ParseJSON(t); err == nil {
				return parsed
			}
		}
	}
	return data
}

// typeName is `.mx.type`.
func typeName(data any) string {
	switch data.(type) {
	case nil:
		return "null"
	case value.Undefined:
		return "undefined"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case *value.Object:
		return "object"
	case value.Callable:
		return "executable"
	}
	return "unknown"
}

func stringList(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// mxKeys are the fields of `.mx`, in the order `show @x.mx` prints them
// (lang.ValueMxShown). "tokens" is a real cl100k_base count of
// `.mx.text`; "tokest" is mlld's cheap estimate ceil(len/4) (SPEC §4.4),
// which mlld itself calls `.mx.tokens` (SPEC §10 P8) — guardrun diverges
// on purpose.
var mxKeys = lang.ValueMxShown

// mxFor is the `.mx` object of v as the rest of a path reads it. When the
// next step reads one plain field, only that field is computed, so that
// `@x.mx.labels` never loads the tokenizer (about 100 ms); anything else
// (`show @x.mx`, a method on it, an index) gets the whole object.
func mxFor(v *value.Variable, rest []ast.Accessor, pos ast.Pos) (*value.Object, error) {
	if len(rest) > 0 && rest[0].Kind == ast.AccessField && (len(rest) == 1 || rest[1].Kind != ast.AccessCall) {
		o := value.NewObject()
		x, ok, err := mxField(v, rest[0].Name, pos)
		if err != nil {
			return nil, err
		}
		if ok {
			o.Set(rest[0].Name, x)
		}
		return o, nil
	}
	return mxOf(v, pos)
}

// mxOf is the whole `.mx` metadata object of a value. It counts tokens.
func mxOf(v *value.Variable, pos ast.Pos) (*value.Object, error) {
	o := value.NewObject()
	for _, k := range mxKeys {
		x, ok, err := mxField(v, k, pos)
		if err != nil {
			return nil, err
		}
		if ok {
			o.Set(k, x)
		}
	}
	if v.Meta != nil {
		for _, k := range v.Meta.Keys {
			if _, ok := o.Get(k); !ok {
				o.Set(k, v.Meta.Values[k])
			}
		}
	}
	return o, nil
}

// mxField is one field of `.mx`; ok is false for a field v does not have.
func mxField(v *value.Variable, name string, pos ast.Pos) (any, bool, error) {
	if v.Meta != nil {
		// A loaded file's metadata; `.mx.data` stays the parsed data.
		if x, ok := v.Meta.Get(name); ok && name != "data" {
			return x, true, nil
		}
	}
	switch name {
	case "key":
		if v.Iter != nil {
			return v.Iter.KeyValue(), true, nil
		}
	case "index":
		if v.Iter != nil && v.Iter.Array {
			return float64(v.Iter.Index), true, nil
		}
	case "keys", "values", "entries":
		// Object utilities: `.mx.keys`, `.mx.values`, `.mx.entries`.
		o, ok := structuredData(v.Data).(*value.Object)
		if !ok {
			return nil, false, nil
		}
		return objectParts(o, name), true, nil
	case "labels":
		return stringList(v.Security.Labels()), true, nil
	case "taint":
		return stringList(v.Security.Taint()), true, nil
	case "sources":
		return stringList(v.Security.Sources()), true, nil
	case "tools":
		return toolHistory(v.Security.Tools()), true, nil
	case "text":
		return mxText(v), true, nil
	case "data":
		return v.Data, true, nil
	case "type":
		return typeName(v.Data), true, nil
	case "tokens":
		// Cached per Variable and keyed by the text, so re-reading a
		// value's count does not encode it again and a shallow copy with
		// other data cannot see a stale count.
		count := value.RegisteredTokenCounter()
		if count == nil {
			return nil, false, tokensNotLinked(pos)
		}
		n, err := count(v, mxText(v))
		if err != nil {
			// Fail closed: a guard comparing token counts must not see 0.
			return nil, false, &Error{Kind: KindUnexpected, Pos: pos, Err: err,
				Message: "cannot count tokens: " + err.Error(),
				Hint:    "use .mx.tokest for the length-based estimate"}
		}
		return float64(n), true, nil
	case "tokest":
		return float64(value.Tokens(mxText(v))), true, nil
	case "length":
		switch d := v.Data.(type) {
		case string:
			l, _ := value.Property(d, "length")
			return l, true, nil
		case []any:
			return float64(len(d)), true, nil
		}
	}
	return nil, false, nil
}

// mxText is `.mx.text`: the original text of parsed output, structured
// values as indented JSON, anything else as its interpolation text.
func mxText(v *value.Variable) string {
	switch {
	case v.Text != nil:
		return *v.Text
	case isStructured(v.Data):
		return value.ToJSON(v.Data, true)
	}
	return value.Text(v.Data)
}

func sortStrings(s []string) { sort.Strings(s) }
