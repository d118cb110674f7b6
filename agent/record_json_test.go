package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRecordDecisionWords: a log line's decision reads as the action its
// word names; an earlier release's empty decision (events decided
// nothing) reads as allow; any other word is an error, never an allow.
func TestRecordDecisionWords(t *testing.T) {
	for word, want := range map[string]Outcome{"allow": Allow, "deny": Deny, "ask": Ask, "retry": Retry, "": Allow} {
		var r Record
		line := `{"time":"2026-11-29T10:00:00Z","session":"s","event":"tool.before","tool":"Bash","decision":"` + word + `","reason":"r"}`
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", word, err)
		}
		if r.Decision != want || r.Session != "s" || r.Tool != "Bash" || r.Reason != "r" {
			t.Fatalf("%q read as %+v", word, r)
		}
		if word == "" {
			continue
		}
		b, err := json.Marshal(r)
		if err != nil || !strings.Contains(string(b), `"decision":"`+word+`"`) {
			t.Fatalf("%q written back as %s (%v)", word, b, err)
		}
	}
	for _, word := range []string{"Allow", "permit", "continue", " deny"} {
		var r Record
		err := json.Unmarshal([]byte(`{"session":"s","decision":"`+word+`"}`), &r)
		if err == nil {
			t.Errorf("decision %q was read (as %v)", word, r.Decision)
		}
	}
}
