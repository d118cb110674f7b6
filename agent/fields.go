package agent

import (
	"strings"

	"github.com/guardrun/guardrun/interp/value"
)

// Field provenance. A tool collection may give the values in named
// fields of a tool's output labels of their own:
//
//	"get_received_emails": { returns: ["known"], fields: { body: ["untrusted"], subject: ["untrusted"] } }
//
// The values in those fields are indexed for their field's labels
// instead of the output's trust labels, so an address in an email's
// sender field is known while one an email's body names is not. The
// output is read as structured data (a JSON tool result: every key of
// that name, at any depth) or, when it is text, as the YAML a Python
// agent prints (`key: value` lines; the lines indented under a key, a
// list's items or a multi-line string, belong to it). Lines a field
// holds can never start another field: text injected into a body that
// looks like `sender: …` is still the body.

// splitFields separates the declared fields of an output from the rest:
// rest is the output without them, parts each field's text.
func splitFields(data any, fields map[string][]string) (any, map[string][]string) {
	if len(fields) == 0 {
		return data, nil
	}
	parts := map[string][]string{}
	switch x := data.(type) {
	case string:
		return splitYAML(x, fields, parts), parts
	case []any, *value.Object:
		return splitData(x, fields, parts, 0), parts
	}
	return data, nil
}

func splitData(data any, fields map[string][]string, parts map[string][]string, depth int) any {
	if depth > 32 {
		return data
	}
	switch x := data.(type) {
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = splitData(el, fields, parts, depth+1)
		}
		return out
	case *value.Object:
		o := value.NewObject()
		for _, k := range x.Keys {
			if _, ok := fields[k]; ok {
				parts[k] = append(parts[k], value.Text(x.Values[k]))
				continue
			}
			o.Set(k, splitData(x.Values[k], fields, parts, depth+1))
		}
		return o
	}
	return data
}

// yamlKey reads a `key: value` line (after an optional list dash): the
// key, the column it starts at and the text after the colon.
func yamlKey(line string) (key string, col int, rest string, ok bool) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if strings.HasPrefix(line[i:], "- ") {
		i += 2
		for i < len(line) && line[i] == ' ' {
			i++
		}
	}
	j := i
	for j < len(line) && (line[j] == '_' || line[j] >= 'a' && line[j] <= 'z' || line[j] >= 'A' && line[j] <= 'Z' || j > i && line[j] >= '0' && line[j] <= '9') {
		j++
	}
	if j == i || j >= len(line) || line[j] != ':' || j+1 < len(line) && line[j+1] != ' ' {
		return "", 0, "", false
	}
	return line[i:j], i, strings.TrimSpace(line[j+1:]), true
}

func indentOf(line string) int {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	return n
}

func splitYAML(text string, fields map[string][]string, parts map[string][]string) string {
	var rest strings.Builder
	cur, col := "", -1 // the declared field being read, and its key's column
	for _, line := range strings.Split(text, "\n") {
		if cur != "" {
			// A field's value goes on while lines are indented past its
			// key, or are its list's items at the key's own column.
			in := indentOf(line)
			if strings.TrimSpace(line) == "" || in > col || in == col && strings.HasPrefix(line[in:], "- ") && !isKeyItem(line) {
				parts[cur] = append(parts[cur], line)
				continue
			}
			cur = ""
		}
		if k, c, v, ok := yamlKey(line); ok {
			if _, declared := fields[k]; declared {
				cur, col = k, c
				parts[k] = append(parts[k], v)
				// The key and the dash stay: the rest still reads as the
				// list of records it was.
				rest.WriteString(line[:c] + k + ":\n")
				continue
			}
		}
		rest.WriteString(line)
		rest.WriteByte('\n')
	}
	return rest.String()
}

// isKeyItem reports a list item that opens a record ("- key: value").
func isKeyItem(line string) bool {
	_, _, _, ok := yamlKey(line)
	return ok
}
