package hook

import (
	"bytes"
	"encoding/json"

	"github.com/guardrun/guardrun/agent"
)

// salvage reads what it can of an event the hook refuses before deciding
// it (over the size cap, or malformed): the top-level fields of the JSON
// object that come whole before the damage (hosts send the session id,
// event name and tool before the tool's output). Nil when not even that
// much is an object.
func salvage(b []byte) map[string]any {
	b = bytes.TrimLeft(b, " \t\r\n")
	for bytes.HasPrefix(b, bom) {
		b = bytes.TrimLeft(b[len(bom):], " \t\r\n")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	m := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			break
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		m[key] = v
	}
	return plain(m).(map[string]any)
}

// undecidedCall is the call of an event the hook refuses before deciding
// it, as far as it can be read: decoded whole, or else from its string
// fields alone (a tool_input that is not an object, …). Nil when the
// event has no tool.after with a session id: then nothing can be
// recorded, there being no session to record it in.
func undecidedCall(a Adapter, raw map[string]any) *Call {
	if raw == nil {
		return nil
	}
	call, err := a.Decode(raw)
	if err != nil {
		strs := map[string]any{}
		for k, v := range raw {
			if s, ok := v.(string); ok {
				strs[k] = s
			}
		}
		if call, err = a.Decode(strs); err != nil {
			return nil
		}
	}
	for _, ev := range call.Events {
		if ev.Kind == agent.ToolAfter && ev.Session != "" {
			return call
		}
	}
	return nil
}
