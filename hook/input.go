package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DefaultMaxInput caps the event read from stdin (bytes).
const DefaultMaxInput = 1 << 20

// MaxAnswer caps what guardrun prints; a longer answer is a failure.
const MaxAnswer = 1 << 20

// maxReason caps a reason or message in an answer: hosts cap their hook
// output strings (Claude Code at 10,000 characters).
const maxReason = 4000

var bom = []byte{0xEF, 0xBB, 0xBF}

// readEvent reads stdin to EOF (hosts may block until it is drained),
// refusing more than max bytes, and decodes the one JSON object it holds.
// Byte-order marks (Windows hosts send one, sometimes two) are skipped.
func readEvent(r io.Reader, max int) (map[string]any, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read the event on stdin: %v", err)
	}
	if len(b) > max {
		return nil, fmt.Errorf("event too large: over the %d-byte limit", max)
	}
	b = bytes.TrimLeft(b, " \t\r\n")
	for bytes.HasPrefix(b, bom) {
		b = bytes.TrimLeft(b[len(bom):], " \t\r\n")
	}
	if len(b) == 0 {
		return nil, errors.New("malformed event: stdin is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("malformed event: %v", err)
	}
	if dec.More() {
		return nil, errors.New("malformed event: more than one JSON value on stdin")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("malformed event: not a JSON object")
	}
	return plain(m).(map[string]any), nil
}

// plain turns json.Numbers into float64 (or int64 when exact), the types
// the engine expects.
func plain(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = plain(x)
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = plain(x)
		}
		return t
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return float64(i)
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

// str is a string field; anything else is "".
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// boolean is a bool field; anything else is false.
func boolean(m map[string]any, key string) bool {
	b, _ := m[key].(bool)
	return b
}

// object reads a field that holds an object or a JSON string of one
// (Cursor's MCP tool_input). A missing field is an empty object.
func object(m map[string]any, key string) (map[string]any, error) {
	switch t := m[key].(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return t, nil
	case string:
		if strings.TrimSpace(t) == "" {
			return map[string]any{}, nil
		}
		var v any
		dec := json.NewDecoder(strings.NewReader(t))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("malformed event: %s is a string that is not JSON: %v", key, err)
		}
		o, ok := plain(v).(map[string]any)
		if !ok {
			return nil, fmt.Errorf("malformed event: %s is not an object", key)
		}
		return o, nil
	}
	return nil, fmt.Errorf("malformed event: %s is not an object", key)
}

// maybeJSON decodes a string that holds JSON (Cursor's tool_output,
// result_json), keeping other values as they are.
func maybeJSON(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return v
	}
	var x any
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	if dec.Decode(&x) != nil || dec.More() {
		return v
	}
	return plain(x)
}

// flatten joins the strings of a JSON value (an LLM request or response)
// into text, so fingerprints match what the model saw rather than its
// JSON escaping.
func flatten(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t)
		case []any:
			for _, x := range t {
				walk(x)
			}
		case map[string]any:
			for _, k := range sortedKeys(t) {
				walk(t[k])
			}
		}
	}
	walk(v)
	return b.String()
}

func cut(s string) string {
	if len(s) <= maxReason {
		return s
	}
	n := maxReason - len("…")
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// encode is the JSON of an answer, HTML characters left alone.
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only values we build are encoded; they always encode.
		return []byte("{}\n")
	}
	return b.Bytes()
}
