package serve

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzRequest: whatever line a client sends, the server answers with one
// line holding one JSON object whose "continue" is a boolean, never
// crashes, and echoes a valid id. Requests that decide (allowed, refused)
// run the whole path: the event's reading, the engine, the log.
func FuzzRequest(f *testing.F) {
	home(f, "")
	s, err := New(Config{Policy: "../examples/agentdojo/policy.guard", MaxInput: 1 << 16})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	for _, l := range session("fuzz") {
		f.Add([]byte(l))
	}
	f.Add([]byte(`{"id":1,"event":"prompt.submit","data":{"session":"f","text":"hi"}}`))
	f.Add([]byte(`{"id":"a\"b","event":"tool.before","data":{"session":"f","tool":"send_money","input":{"recipient":"x"}}}`))
	f.Add([]byte(`{"id":[1],"event":"tool.before"}`))
	f.Add([]byte(`{"id":1e400}`))
	f.Add([]byte("\xef\xbb\xbf{\"event\":\"prompt.submit\",\"data\":{}}"))
	f.Add([]byte(`{"id":-0.5,"event":"tool.after","data":{"session":"f","tool":"read_file","output":{"a":[1,{"b":null}]}}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		// A request is one line: the connection loop splits at newlines.
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		reply := s.Handle(line)
		if len(reply) == 0 || reply[len(reply)-1] != '\n' || bytes.IndexByte(reply[:len(reply)-1], '\n') >= 0 {
			t.Fatalf("reply is not one line: %q", reply)
		}
		var m map[string]any
		if err := json.Unmarshal(reply, &m); err != nil {
			t.Fatalf("reply is not a JSON object: %q: %v", reply, err)
		}
		if _, ok := m["continue"].(bool); !ok {
			t.Fatalf("reply without a boolean continue: %q", reply)
		}
		id, err := RequestID(line)
		if err == nil && id != nil {
			var want, got any
			json.Unmarshal(id, &want)
			rawGot, _ := json.Marshal(m["id"])
			json.Unmarshal(rawGot, &got)
			if _, has := m["id"]; !has || !jsonEqual(want, got) {
				t.Fatalf("id %s not echoed: %q", id, reply)
			}
		}
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
