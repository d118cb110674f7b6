package interp

import (
	"sort"
	"strings"

	"github.com/guardrun/guardrun/interp/value"
)

// retrySignal is the value of a `retry` action: it asks the pipeline to
// re-run the previous stage.
type retrySignal struct{ hint *value.Variable }

// skipSignal is the value of a `skip` action: `for` drops the element.
type skipSignal struct{}

func undefined() *value.Variable { return value.New(value.Undefined{}) }

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
			v.Security = mergeDesc(v.Security, f.Security)
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

// displayText is what `show` prints for a value.
func displayText(v *value.Variable) string {
	if v == nil {
		return ""
	}
	if v.Source == sourceParallel && v.Text != nil {
		return *v.Text
	}
	return value.Display(v.Data)
}

const sourceParallel = "parallel"

// textOutput wraps the text output of a command or code block. Output that
// holds a JSON object or array keeps its text but exposes the parsed data,
// so fields can be read and templates see the structure.
func textOutput(s string) *value.Variable {
	t := strings.TrimSpace(s)
	if len(t) >= 2 && (t[0] == '{' || t[0] == '[') {
		if parsed, err := value.ParseJSON(t); err == nil && isStructured(parsed) {
			v := value.New(parsed)
			v.Text = &s
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

// mxOf is the `.mx` metadata object of a value.
func mxOf(v *value.Variable) *value.Object {
	o := value.NewObject()
	o.Set("labels", stringList(v.Security.Labels()))
	o.Set("taint", stringList(v.Security.Taint()))
	o.Set("sources", stringList(v.Security.Sources()))
	var text string
	switch {
	case v.Text != nil:
		text = *v.Text
	case isStructured(v.Data):
		text = value.ToJSON(v.Data, true)
	default:
		text = value.Text(v.Data)
	}
	o.Set("text", text)
	o.Set("data", v.Data)
	o.Set("type", typeName(v.Data))
	o.Set("tokens", float64(value.Tokens(text)))
	switch d := v.Data.(type) {
	case string:
		l, _ := value.Property(d, "length")
		o.Set("length", l)
	case []any:
		o.Set("length", float64(len(d)))
	}
	return o
}

func sortStrings(s []string) { sort.Strings(s) }
