package hook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// Codex CLI runs a hook from a user's hooks.json only once the user has
// trusted it: its `/hooks` review writes, in config.toml,
//
//	[hooks.state."<hooks.json's absolute path>:<event>:<group>:<handler>"]
//	trusted_hash = "sha256:…"
//
// and a hook whose hash is not there is skipped in silence (`codex exec`
// then runs unguarded). The hash is Codex's trust identity of the
// handler (codex-rs/hooks/src/engine/discovery.rs command_hook_hash and
// codex-rs/config/src/fingerprint.rs version_for_toml): the event's
// snake_case label, the group's matcher and the one handler, normalized
// (timeout materialized, unset fields dropped), as JSON with sorted keys
// and no spaces, hashed with SHA-256. `guardrun init codex` writes these
// entries for guardrun's own handlers, so the hooks it adds run.

// CodexTrust is the trust entry of one of guardrun's Codex handlers.
type CodexTrust struct {
	// Key is the hooks.state key; Hash the trusted_hash.
	Key, Hash string
}

// codexSessionEndMax is the longest SessionEnd timeout Codex accepts
// (seconds): it clamps a longer one and warns on every run.
const codexSessionEndMax = 3

// CodexHome is Codex's home directory: $CODEX_HOME, else ~/.codex.
func CodexHome() (string, error) {
	if d := os.Getenv("CODEX_HOME"); d != "" {
		return filepath.Abs(d)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".codex"), nil
}

// CodexTrustEntries lists the trust entries of guardrun's handlers in a
// Codex hooks.json (settings, at path).
func CodexTrustEntries(path string, settings []byte) ([]CodexTrust, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	v, err := parseOrdered(settings)
	if err != nil {
		return nil, err
	}
	root, _ := v.(*jsonObject)
	if root == nil {
		return nil, fmt.Errorf("%s is not a JSON object", path)
	}
	hooks, _ := root.vals["hooks"].(*jsonObject)
	if hooks == nil {
		return nil, nil
	}
	var out []CodexTrust
	for _, ev := range hooks.keys {
		groups, _ := hooks.vals[ev].([]any)
		for gi, gx := range groups {
			g, _ := gx.(*jsonObject)
			if g == nil {
				continue
			}
			hs, _ := g.vals["hooks"].([]any)
			for hi, hx := range hs {
				if !ours(hx, "codex") {
					continue
				}
				hash, err := codexHookHash(ev, g, hx.(*jsonObject))
				if err != nil {
					return nil, err
				}
				out = append(out, CodexTrust{Key: fmt.Sprintf("%s:%s:%d:%d", abs, snake(ev), gi, hi), Hash: hash})
			}
		}
	}
	return out, nil
}

// codexHookHash is Codex's trust hash of handler h in group g of event.
func codexHookHash(event string, g, h *jsonObject) (string, error) {
	timeout := int64(600)
	if event == "SessionEnd" {
		timeout = 1
	}
	if t, ok := h.vals["timeout"].(json.Number); ok {
		if n, err := t.Int64(); err == nil {
			timeout = n
		}
	} else if n, ok := h.vals["timeout"].(int); ok {
		timeout = int64(n)
	}
	timeout = max(timeout, 1)
	if event == "SessionEnd" {
		timeout = min(timeout, codexSessionEndMax)
	}
	async, _ := h.vals["async"].(bool)
	handler := map[string]any{"type": "command", "command": h.vals["command"], "timeout": timeout, "async": async}
	if sm, ok := h.vals["statusMessage"].(string); ok {
		handler["statusMessage"] = sm
	}
	identity := map[string]any{"event_name": snake(event), "hooks": []any{handler}}
	if m, ok := g.vals["matcher"].(string); ok && event != "UserPromptSubmit" && event != "Stop" {
		identity["matcher"] = m
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// serde_json escapes neither <, > nor &.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(identity); err != nil {
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// snake is Codex's label of an event: PreToolUse → pre_tool_use.
func snake(event string) string {
	var b strings.Builder
	for i, r := range event {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TrustCodexHooks returns config (Codex's config.toml, nil when it does
// not exist) with a [hooks.state."KEY"] trusted_hash for each entry:
// an existing table's trusted_hash is replaced, a missing one added;
// everything else in the file is kept as it is.
func TrustCodexHooks(config []byte, entries []CodexTrust) []byte {
	text := string(config)
	for _, e := range entries {
		header := `[hooks.state.` + tomlString(e.Key) + `]`
		line := `trusted_hash = ` + tomlString(e.Hash)
		lines := strings.Split(text, "\n")
		at := -1
		for i, l := range lines {
			if strings.TrimSpace(l) == header {
				at = i
				break
			}
		}
		if at < 0 {
			if text != "" && !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			if text != "" {
				text += "\n"
			}
			text += header + "\n" + line + "\n"
			continue
		}
		end := len(lines)
		for j := at + 1; j < len(lines); j++ {
			if strings.HasPrefix(strings.TrimSpace(lines[j]), "[") {
				end = j
				break
			}
		}
		replaced := false
		for j := at + 1; j < end; j++ {
			if k, _, ok := strings.Cut(lines[j], "="); ok && strings.TrimSpace(k) == "trusted_hash" {
				lines[j] = line
				replaced = true
			}
		}
		if !replaced {
			lines = append(lines[:at+1], append([]string{line}, lines[at+1:]...)...)
		}
		text = strings.Join(lines, "\n")
	}
	return []byte(text)
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
