package hook_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A recursive delete of the root or the home directory is denied as a
// delete, by the starter's delete guards, and the opt-in it names is
// theirs: on main `rm -rf /` and `rm -rf ~` were denied "because
// guardrun protects its own files", with an opt-in that un-protected
// guardrun's files (issue 40).
func TestDeleteOfRootOrHomeIsADelete(t *testing.T) {
	e := newEnv(t)
	if r := e.run(t, nil, "init", "claude", "--settings", filepath.Join(e.home, "settings.json")); r.code != 0 {
		t.Fatalf("init: %s", r)
	}
	ws := filepath.Join(e.home, "proj")
	write(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	for i, cmd := range []string{"rm -rf /", "rm -rf ~", "rm -rf $HOME", "rm -rf ~/", "rm -rf " + e.home, "rm -fr /*"} {
		ev := claudeEvent("del"+string(rune('a'+i)), ws, "PreToolUse", "Bash", map[string]any{"command": cmd, "description": "run"}, nil)
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		r := e.run(t, b, "hook", "claude")
		out := r.stdout + r.stderr
		if verdictOf(r) != "deny" {
			t.Errorf("%s: not denied: %s", cmd, r)
			continue
		}
		if !strings.Contains(out, "delete") || !strings.Contains(out, "guard @delete") {
			t.Errorf("%s: not denied as a delete by a delete guard: %s", cmd, out)
		}
		if strings.Contains(out, "protects its own files") || strings.Contains(out, "protected: { except") {
			t.Errorf("%s: denied as a protected path, or its opt-in un-protects guardrun's files: %s", cmd, out)
		}
	}
}
