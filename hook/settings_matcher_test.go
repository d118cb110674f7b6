package hook

import (
	"strings"
	"testing"
)

// TestMergeSettingsWidensOurMatcher (init-narrow-matcher): a guardrun
// entry with "matcher": "Bash" from an older init or a hand edit would let
// Read, Write, WebFetch and MCP calls past guardrun. init drops the
// matcher of guardrun's own group, and moves guardrun's handler out of a
// group it shares with another hook (whose matcher stays), saying so.
func TestMergeSettingsWidensOurMatcher(t *testing.T) {
	old := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guardrun hook claude"}]}],
  "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guardrun hook claude"}, {"type": "command", "command": "theirs"}]}],
  "Stop": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "other"}]}]}}`
	got, err := MergeSettings("claude", []byte(old), "guardrun hook claude")
	if err != nil {
		t.Fatal(err)
	}
	v, err := parseOrdered(got)
	if err != nil {
		t.Fatal(err)
	}
	hooks := v.(*jsonObject).vals["hooks"].(*jsonObject)
	for _, ev := range []string{"PreToolUse", "PostToolUse"} {
		for _, x := range hooks.vals[ev].([]any) {
			g := x.(*jsonObject)
			for _, h := range g.vals["hooks"].([]any) {
				if m, ok := g.vals["matcher"]; ours(h, "claude") && ok {
					t.Errorf("%s: guardrun's group still has the matcher %v:\n%s", ev, m, got)
				}
				if c := h.(*jsonObject).vals["command"]; c == "theirs" && g.vals["matcher"] != "Bash" {
					t.Errorf("%s: the other hook lost its matcher:\n%s", ev, got)
				}
			}
		}
	}
	if !strings.Contains(string(got), `"command": "other"`) || strings.Count(string(got), `"matcher": "Bash"`) != 2 {
		t.Errorf("other hooks' matchers changed:\n%s", got)
	}
	_, notes, err := MergeSettingsNotes("claude", []byte(old), "guardrun hook claude")
	if err != nil || len(notes) != 2 || !strings.Contains(notes[0], `"Bash"`) || !strings.Contains(notes[0], "every tool call") {
		t.Errorf("notes %q, %v", notes, err)
	}
	again, err := MergeSettings("claude", got, "guardrun hook claude")
	if err != nil || string(again) != string(got) {
		t.Errorf("merging again changed the settings:\n%s", again)
	}
}
