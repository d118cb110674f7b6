package agent

import (
	"path/filepath"
	"testing"

	"github.com/guardrun/guardrun/internal/protect"
)

// TestMayMentionCoversMentions: whatever text the protected set finds a
// protected root in, the cheap test before it says may; so skipping the
// set when it says no never skips a mention.
func TestMayMentionCoversMentions(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	env := map[string]string{"CLAUDE_CONFIG_DIR": "/opt/cc", "CODEX_HOME": "/opt/cx", "XDG_CONFIG_HOME": "/x/cfg"}
	set := protect.ForAgent(func(k string) string { return env[k] }, home, ws)
	texts := []string{
		"open('" + filepath.Join(home, ".config/guardrun/exfil.guard") + "','w')",
		"~/.config/guardrun/policy.guard", "$HOME/.claude/settings.json", "${HOME}/.gemini/settings.json",
		"/opt/cc/settings.json", "/opt/cx/hooks.json", "/opt/cx/config.toml", "/x/cfg/guardrun/trust.json",
		".guardrun/policy.guard", filepath.Join(ws, ".cursor/hooks.json"), "~/.local/state/guardrun/sessions",
		"~/.codex/config.toml", "rm -r ~/.config", "~/.cache/guardrun/ast", "x = '~/.claude/settings.local.json'",
	}
	for _, text := range texts {
		if _, ok := set.Mentions(text); ok && !mayMention(text) {
			t.Errorf("Mentions finds a root in %q, mayMention says no", text)
		}
	}
	for _, text := range []string{"go test ./...", "npm run build", "python3 tools/report.py", "make -j4"} {
		if mayMention(text) {
			t.Errorf("mayMention(%q) = true", text)
		}
	}
}
