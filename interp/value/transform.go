package value

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Transform applies the builtin transformer name (`@json`, `@parse.loose`,
// `@upper`…) to in. ok is false when name is not a builtin transformer.
//
// `@json` and the `@parse` family parse a string into data (invalid JSON
// is an error); given data already structured, `@json` returns its
// indented JSON text, which is what the next stage of `@data | @json |
// @f` receives and what `show … | @json` prints.
func Transform(name string, in any, args []any) (out any, ok bool, err error) {
	switch name {
	case "parse.fromlist", "json.fromlist":
		// One array element per non-blank line, trimmed.
		out := []any{}
		for _, line := range strings.Split(Text(in), "\n") {
			if t := strings.TrimSpace(line); t != "" {
				out = append(out, t)
			}
		}
		return out, true, nil
	case "json", "parse", "parse.strict", "json.strict", "JSON":
		s, isStr := in.(string)
		if !isStr {
			if name == "json" || name == "JSON" {
				s, err := CatchLimit(func() string { return ToJSON(in, true) })
				return s, true, err
			}
			return in, true, nil
		}
		v, err := ParseJSON(strings.TrimSpace(s))
		if err != nil {
			return nil, true, inputError("check the input is valid JSON, or use @parse.loose for relaxed JSON",
				"@%s: %v", name, err)
		}
		return v, true, nil
	case "parse.loose", "json.loose":
		s, isStr := in.(string)
		if !isStr {
			return in, true, nil
		}
		v, err := ParseLooseJSON(s)
		if err != nil {
			return nil, true, inputError("check the brackets and quotes of the input; use @parse.llm to pull JSON out of surrounding text",
				"@%s: %v", name, err)
		}
		return v, true, nil
	case "parse.llm", "json.llm":
		s, isStr := in.(string)
		if !isStr {
			return in, true, nil
		}
		v, err := extractLLMJSON(s)
		if err != nil {
			return nil, true, inputError("make sure the text contains a JSON object or array, or a ```json fenced block",
				"@%s: %v", name, err)
		}
		return v, true, nil
	case "trim":
		return strings.TrimSpace(Text(in)), true, nil
	case "upper":
		return strings.ToUpper(Text(in)), true, nil
	case "lower":
		return strings.ToLower(Text(in)), true, nil
	case "pretty":
		if s, isStr := in.(string); isStr {
			v, err := ParseLooseJSON(s)
			if err != nil {
				return s, true, nil
			}
			in = v
		}
		s, err := CatchLimit(func() string { return ToJSON(in, true) })
		return s, true, err
	case "sort":
		return sortValue(in), true, nil
	case "xml":
		s, err := CatchLimit(func() string { return toXML(structured(in)) })
		return s, true, err
	case "csv":
		s, err := toCSV(structured(in))
		if err != nil {
			return nil, true, inputError("pass an array of objects (one row each) or an array of arrays",
				"@csv: %v", err)
		}
		return s, true, nil
	case "md":
		return in, true, nil
	}
	return nil, false, nil
}

// structured parses a JSON string into data and leaves anything else as
// it is, for transformers that work on data.
func structured(in any) any {
	if s, ok := in.(string); ok {
		t := strings.TrimSpace(s)
		if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			if v, err := ParseJSON(t); err == nil {
				return v
			}
		}
	}
	return in
}

// Compiled on first use: a hook process must not pay for patterns it
// never matches.
var fencePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)```[a-zA-Z0-9_-]*[ \t]*\r?\n(.*?)```") })

// extractLLMJSON finds JSON in model output: the first fenced block that
// parses, else the first balanced {...} or [...] that parses.
func extractLLMJSON(s string) (any, error) {
	for _, m := range fencePattern().FindAllStringSubmatch(s, -1) {
		if v, err := ParseLooseJSON(strings.TrimSpace(m[1])); err == nil {
			return v, nil
		}
	}
	if v, err := ParseLooseJSON(strings.TrimSpace(s)); err == nil {
		return v, nil
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		if end := MatchingBracket(s, i); end > 0 {
			if v, err := ParseLooseJSON(s[i : end+1]); err == nil {
				return v, nil
			}
		}
	}
	return nil, fmt.Errorf("no JSON found in the input")
}

// sortValue sorts arrays (numbers numerically before strings, strings by
// code point), object keys, and the lines of a string.
func sortValue(in any) any {
	switch v := in.(type) {
	case []any:
		out := append([]any{}, v...)
		sort.SliceStable(out, func(i, j int) bool {
			a, aNum := out[i].(float64)
			b, bNum := out[j].(float64)
			switch {
			case aNum && bNum:
				return a < b || math.IsNaN(b) && !math.IsNaN(a)
			case aNum != bNum:
				return aNum
			}
			return sortKey(out[i]) < sortKey(out[j])
		})
		return out
	case *Object:
		keys := append([]string{}, v.Keys...)
		sort.Strings(keys)
		o := NewObject()
		for _, k := range keys {
			o.Set(k, v.Values[k])
		}
		return o
	case string:
		if parsed := structured(v); !isString(parsed) {
			return sortValue(parsed)
		}
		lines := strings.Split(v, "\n")
		sort.Strings(lines)
		return strings.Join(lines, "\n")
	}
	return in
}

func toXML(in any) string {
	b := cappedBuilder{what: "XML text"}
	switch v := in.(type) {
	case *Object:
		writeXMLFields(&b, v, 0)
	case []any:
		writeXMLItems(&b, v, 0)
	default:
		b.WriteString(xmlEscape(Text(in)))
	}
	return strings.TrimRight(b.String(), "\n")
}

func writeXMLFields(b *cappedBuilder, o *Object, depth int) {
	for _, k := range o.Keys {
		writeXMLElement(b, xmlName(k), o.Values[k], depth)
	}
}

func writeXMLItems(b *cappedBuilder, arr []any, depth int) {
	for _, e := range arr {
		writeXMLElement(b, "item", e, depth)
	}
}

func writeXMLElement(b *cappedBuilder, name string, v any, depth int) {
	defer b.check()
	ind := strings.Repeat("  ", depth)
	switch x := v.(type) {
	case *Object:
		fmt.Fprintf(b, "%s<%s>\n", ind, name)
		writeXMLFields(b, x, depth+1)
		fmt.Fprintf(b, "%s</%s>\n", ind, name)
	case []any:
		fmt.Fprintf(b, "%s<%s>\n", ind, name)
		writeXMLItems(b, x, depth+1)
		fmt.Fprintf(b, "%s</%s>\n", ind, name)
	default:
		fmt.Fprintf(b, "%s<%s>%s</%s>\n", ind, name, xmlEscape(Text(v)), name)
	}
}

var xmlNameBad = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_.-]`) })

func xmlName(k string) string {
	n := xmlNameBad().ReplaceAllString(k, "_")
	if n == "" || !(n[0] == '_' || n[0] >= 'A' && n[0] <= 'Z' || n[0] >= 'a' && n[0] <= 'z') {
		n = "_" + n
	}
	return strings.ToUpper(n)
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// toCSV writes an array of objects (header = keys in first-seen order) or
// an array of arrays as CSV.
func toCSV(in any) (string, error) {
	arr, ok := in.([]any)
	if !ok {
		if o, isObj := in.(*Object); isObj {
			arr = []any{o}
		} else {
			return "", fmt.Errorf("expected an array of objects or arrays, got %s", KindName(in))
		}
	}
	var rows [][]string
	var header []string
	seen := map[string]bool{}
	for _, e := range arr {
		if o, isObj := e.(*Object); isObj {
			for _, k := range o.Keys {
				if !seen[k] {
					seen[k] = true
					header = append(header, k)
				}
			}
		}
	}
	if header != nil {
		rows = append(rows, header)
	}
	for _, e := range arr {
		switch x := e.(type) {
		case *Object:
			row := make([]string, len(header))
			for i, k := range header {
				if v, ok := x.Values[k]; ok {
					row[i] = csvCell(v)
				}
			}
			rows = append(rows, row)
		case []any:
			row := make([]string, len(x))
			for i, v := range x {
				row[i] = csvCell(v)
			}
			rows = append(rows, row)
		default:
			rows = append(rows, []string{csvCell(x)})
		}
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		for j, c := range r {
			r[j] = csvQuote(c)
		}
		lines[i] = strings.Join(r, ",")
	}
	return strings.Join(lines, "\n"), nil
}

func csvCell(v any) string {
	switch v.(type) {
	case nil, Undefined:
		return ""
	}
	return Text(v)
}

func csvQuote(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}
