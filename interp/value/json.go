package value

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"
)

// ToJSON encodes data as JSON the way JavaScript's JSON.stringify does:
// object keys in insertion order, no HTML escaping, undefined and callables
// dropped from objects and written as null in arrays. indent selects the
// two-space indented form. A top-level undefined encodes as "".
//
// Output larger than MaxString panics with a *LimitError (see CatchLimit).
func ToJSON(data any, indent bool) string {
	return toJSON(nil, data, indent)
}

// toJSON is ToJSON stopping when ctx (if not nil) ends.
func toJSON(ctx context.Context, data any, indent bool) string {
	b := cappedBuilder{what: "JSON text", ctx: ctx}
	if !writeJSON(&b, data, indent, 0) {
		return ""
	}
	return b.String()
}

// writeJSON appends data and reports whether anything was written (false
// for values JSON.stringify skips: undefined and functions).
func writeJSON(b *cappedBuilder, data any, indent bool, depth int) bool {
	defer b.check()
	switch v := data.(type) {
	case nil:
		b.WriteString("null")
	case Undefined, Callable:
		return false
	case bool:
		if v {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b.WriteString("null")
		} else {
			b.WriteString(FormatNumber(v))
		}
	case string:
		if b.Len()+len(v) > MaxString {
			panic(StringLimitError(b.what, MaxString))
		}
		b.WriteString(quoteJSON(v))
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return true
		}
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, indent, depth+1)
			if !writeJSON(b, e, indent, depth+1) {
				b.WriteString("null")
			}
		}
		newline(b, indent, depth)
		b.WriteByte(']')
	case *Object:
		if v == nil {
			b.WriteString("null")
			return true
		}
		b.WriteByte('{')
		n := 0
		for _, k := range v.Keys {
			e := v.Values[k]
			switch e.(type) {
			case Undefined, Callable:
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			newline(b, indent, depth+1)
			b.WriteString(quoteJSON(k))
			b.WriteByte(':')
			if indent {
				b.WriteByte(' ')
			}
			writeJSON(b, e, indent, depth+1)
		}
		if n > 0 {
			newline(b, indent, depth)
		}
		b.WriteByte('}')
	default:
		return writeJSON(b, FromGo(v), indent, depth)
	}
	return true
}

func newline(b *cappedBuilder, indent bool, depth int) {
	if !indent {
		return
	}
	if b.Len()+1+2*depth > MaxString {
		panic(StringLimitError(b.what, MaxString))
	}
	b.WriteByte('\n')
	for n := 2 * depth; n > 0; n -= len(spaces) {
		b.WriteString(spaces[:min(n, len(spaces))])
	}
}

// spaces is indentation written a slice at a time.
const spaces = "                                                                "

// quoteJSON quotes s as a JSON string with JSON.stringify's escapes.
func quoteJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\u%04x`, s[i])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// ParseJSON parses s as strict JSON into value kinds: objects keep their
// key order, numbers become float64. Arrays and objects may nest at most
// MaxNesting deep.
func ParseJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: unexpected data after the value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, errors.New("invalid JSON: unexpected end of input")
		}
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= MaxNesting && (t == '{' || t == '[') {
			return nil, nestingError(dec.InputOffset())
		}
		switch t {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("invalid JSON: %v", err)
				}
				key, ok := kt.(string)
				if !ok {
					return nil, errors.New("invalid JSON: object key is not a string")
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.Set(key, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("invalid JSON: %v", err)
			}
			return o, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("invalid JSON: %v", err)
			}
			return arr, nil
		}
		return nil, fmt.Errorf("invalid JSON: unexpected %q", t.String())
	case json.Number:
		f, err := t.Float64()
		if err != nil {
			return nil, fmt.Errorf("invalid JSON number %s", t)
		}
		return f, nil
	case string, bool:
		return t, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("invalid JSON token %v", tok)
}

// nestingError is the error for JSON nested deeper than MaxNesting; at
// is the byte offset of the opening bracket that went too deep.
func nestingError(at int64) error {
	return fmt.Errorf("invalid JSON: arrays and objects nested more than %d deep (at byte %d)", MaxNesting, at)
}

// FromGo converts Go values as produced by encoding/json or written in
// tests (maps with sorted keys, slices, ints, json.Number…) into value
// kinds. Values already of a value kind are returned unchanged at the top
// and converted recursively inside slices.
func FromGo(v any) any {
	switch t := v.(type) {
	case nil:
		return nil
	case Undefined, bool, float64, string, *Object, Callable:
		return t
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = FromGo(e)
		}
		return out
	case []string:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = e
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := NewObject()
		for _, k := range keys {
			o.Set(k, FromGo(t[k]))
		}
		return o
	case json.Number:
		f, err := t.Float64()
		if err != nil {
			return t.String()
		}
		return f
	case int:
		return float64(t)
	case int8:
		return float64(t)
	case int16:
		return float64(t)
	case int32:
		return float64(t)
	case int64:
		return float64(t)
	case uint:
		return float64(t)
	case uint8:
		return float64(t)
	case uint16:
		return float64(t)
	case uint32:
		return float64(t)
	case uint64:
		return float64(t)
	case float32:
		return float64(t)
	case *Variable:
		if t == nil {
			return nil
		}
		return FromGo(t.Data)
	case []byte:
		return string(t)
	case error:
		return t.Error()
	case fmt.Stringer:
		return t.String()
	}
	return fromReflect(reflect.ValueOf(v))
}

// fromReflect handles typed slices and maps the switch above cannot name.
func fromReflect(rv reflect.Value) any {
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = FromGo(rv.Index(i).Interface())
		}
		return out
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		keys := make([]string, 0, rv.Len())
		for _, k := range rv.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		o := NewObject()
		for _, k := range keys {
			o.Set(k, FromGo(rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key())).Interface()))
		}
		return o
	case reflect.Pointer:
		if rv.IsNil() {
			return nil
		}
		return FromGo(rv.Elem().Interface())
	}
	// Last resort: anything encoding/json can marshal.
	if raw, err := json.Marshal(rv.Interface()); err == nil {
		if v, err := ParseJSON(string(bytes.TrimSpace(raw))); err == nil {
			return v
		}
	}
	return fmt.Sprint(rv.Interface())
}
