package hook_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

// TestInitCommentedSettings: Gemini CLI (and Claude Code) accept JSON
// with comments and trailing commas; init merges into such a file and
// keeps the comments.
func TestInitCommentedSettings(t *testing.T) {
	e := newEnv(t)
	settings := filepath.Join(e.home, "settings.json")
	before := `{
  // my theme
  "theme": "dark",
  "hooks": {
    /* a linter */
    "BeforeTool": [
      {"matcher": "write_file", "hooks": [{"type": "command", "command": "lint.sh"}]},
    ],
  },
}
`
	os.WriteFile(settings, []byte(before), 0o600)
	r := e.run(t, nil, "init", "gemini", "--settings", settings, "--command", "guardrun hook gemini")
	if r.code != 0 {
		t.Fatalf("init: got\n%s", r)
	}
	after, _ := os.ReadFile(settings)
	for _, keep := range []string{"// my theme", "/* a linter */", `"lint.sh"`, `"theme": "dark"`, "guardrun hook gemini"} {
		if !strings.Contains(string(after), keep) {
			t.Errorf("lost %q:\n%s", keep, after)
		}
	}
	if strings.Contains(r.stdout, "not kept") {
		t.Errorf("a note says comments were lost, and none were:\n%s", r)
	}
	if _, err := hujson.Standardize(after); err != nil {
		t.Errorf("not JSON with comments: %v\n%s", err, after)
	}
	again := e.run(t, nil, "init", "gemini", "--settings", settings, "--command", "guardrun hook gemini")
	if again.code != 0 || !strings.Contains(again.stdout, "already set up") {
		t.Errorf("second init: got\n%s", again)
	}
}

// TestInitSymlinkedSettings: a settings file that is a symlink (a
// dotfile manager's) stays one; its target is written.
func TestInitSymlinkedSettings(t *testing.T) {
	e := newEnv(t)
	dots := filepath.Join(e.home, "dotfiles", "claude-settings.json")
	os.MkdirAll(filepath.Dir(dots), 0o700)
	os.WriteFile(dots, []byte(`{"model": "opus"}`), 0o600)
	settings := filepath.Join(e.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	if err := os.Symlink("../dotfiles/claude-settings.json", settings); err != nil {
		t.Fatal(err)
	}
	r := e.run(t, nil, "init", "claude", "--settings", settings, "--command", "guardrun hook claude")
	if r.code != 0 || !strings.Contains(r.stdout, "a symlink; its target") {
		t.Fatalf("init: got\n%s", r)
	}
	if st, err := os.Lstat(settings); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the settings file is no longer a symlink")
	}
	if b, _ := os.ReadFile(dots); !strings.Contains(string(b), "guardrun hook claude") || !strings.Contains(string(b), `"model": "opus"`) {
		t.Errorf("target:\n%s", b)
	}
}

// TestInitUnattended: init --unattended writes the hook command with
// --unattended.
func TestInitUnattended(t *testing.T) {
	e := newEnv(t)
	settings := filepath.Join(e.home, "settings.json")
	r := e.run(t, nil, "init", "gemini", "--unattended", "--settings", settings, "--command", "guardrun hook gemini")
	if r.code != 0 {
		t.Fatalf("init: got\n%s", r)
	}
	b, _ := os.ReadFile(settings)
	if n := strings.Count(string(b), `"guardrun hook gemini --unattended"`); n != len(hookEvents(t, "gemini")) {
		t.Errorf("%d unattended commands:\n%s", n, b)
	}
	again := e.run(t, nil, "init", "gemini", "--unattended", "--settings", settings, "--command", "guardrun hook gemini --unattended")
	if !strings.Contains(again.stdout, "already set up") {
		t.Errorf("second init: got\n%s", again)
	}
}

func hookEvents(t *testing.T, agent string) []string {
	switch agent {
	case "gemini":
		return []string{"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel", "SessionStart", "SessionEnd", "PreCompress", "Notification"}
	}
	t.Fatal("no events for " + agent)
	return nil
}

// TestInitCodexTrust: init codex leaves Codex guarded: each of
// guardrun's handlers has its trust entry in Codex's config.toml (Codex
// skips untrusted hooks in silence), SessionEnd's timeout is the 3 s
// Codex accepts, and running init again changes nothing.
func TestInitCodexTrust(t *testing.T) {
	e := newEnv(t)
	codexHome := filepath.Join(e.home, "codex-home")
	e.extra = append(e.extra, "CODEX_HOME="+codexHome)
	os.MkdirAll(codexHome, 0o700)
	config := filepath.Join(codexHome, "config.toml")
	os.WriteFile(config, []byte("model = \"o3\"\n"), 0o600)
	r := e.run(t, nil, "init", "codex", "--command", "guardrun hook codex")
	if r.code != 0 || !strings.Contains(r.stdout, "Codex hooks trusted") {
		t.Fatalf("init: got\n%s", r)
	}
	hooks, _ := os.ReadFile(filepath.Join(codexHome, "hooks.json"))
	if !regexp.MustCompile(`"SessionEnd": \[\s*\{\s*"hooks": \[\s*\{\s*"type": "command",\s*"command": "guardrun hook codex",\s*"timeout": 3\s*\}`).Match(hooks) {
		t.Errorf("SessionEnd timeout is not 3:\n%s", hooks)
	}
	toml, _ := os.ReadFile(config)
	if !strings.HasPrefix(string(toml), "model = \"o3\"\n") {
		t.Errorf("config.toml lost its content:\n%s", toml)
	}
	for _, ev := range []string{"session_start", "user_prompt_submit", "pre_tool_use", "post_tool_use", "stop", "subagent_stop", "pre_compact", "session_end"} {
		header := `[hooks.state."` + filepath.Join(codexHome, "hooks.json") + ":" + ev + `:0:0"]` + "\ntrusted_hash = \"sha256:"
		if !strings.Contains(string(toml), header) {
			t.Errorf("no trust entry for %s:\n%s", ev, toml)
		}
	}
	again := e.run(t, nil, "init", "codex", "--command", "guardrun hook codex")
	if b, _ := os.ReadFile(config); string(b) != string(toml) || !strings.Contains(again.stdout, "already trusted") {
		t.Errorf("second init: got\n%s\nconfig.toml:\n%s", again, b)
	}
}
