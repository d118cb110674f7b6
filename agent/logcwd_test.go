package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// TestLogRecordsCwd: each decision on the log records its event's working
// directory, so a replay decides the event where it happened.
func TestLogRecordsCwd(t *testing.T) {
	var buf bytes.Buffer
	e, err := New(context.Background(), Config{Store: NewMemoryStore(), Log: &buf,
		Policies: []Policy{{Name: "p.guard", Source: []byte(`var tools @agent = { Bash: { labels: ["cmd"] } }` + "\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Cwd: "/work/repo/sub", Input: map[string]any{"command": "ls"}})
	var r Record
	if err := json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &r); err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	if r.Cwd != "/work/repo/sub" {
		t.Fatalf("cwd %q in %s", r.Cwd, buf.Bytes())
	}
}
