package hook

import (
	"strings"
	"testing"
)

// TestCodexHookHash: the trust hash of a handler is Codex's (sha256 of
// the normalized identity as key-sorted compact JSON, serde_json's
// escaping); the vectors were computed apart from this code, from the
// algorithm in codex-rs (discovery.rs command_hook_hash,
// fingerprint.rs version_for_toml).
func TestCodexHookHash(t *testing.T) {
	cases := []struct {
		event   string
		matcher any
		handler *jsonObject
		want    string
	}{
		{"PreToolUse", nil, obj("type", "command", "command", "guardrun hook codex", "timeout", 30), "sha256:968d6ad687ba83127f798143c833d514228ffc300d857eda98e8753c1b70f036"},
		// SessionEnd's timeout is clamped to 3 s.
		{"SessionEnd", nil, obj("type", "command", "command", "guardrun hook codex", "timeout", 30), "sha256:90d17fdbe3bb995fa1f05f2d212f984237271c08e2975e58244c9abb04c790ea"},
		// No timeout is 600 s; an empty matcher is kept; & < > are
		// not escaped.
		{"PreToolUse", "", obj("type", "command", "command", "/opt/g&r <x>/guardrun hook codex"), "sha256:2147fe1cd81a2b3b77e448eb8c3a4922ba94037fcc67ffc3d34e1ce9a002f325"},
		// Stop takes no matcher.
		{"Stop", "x", obj("type", "command", "command", "guardrun hook codex", "timeout", 30), ""},
	}
	for _, c := range cases {
		g := newObject()
		if c.matcher != nil {
			g.set("matcher", c.matcher)
		}
		got, err := codexHookHash(c.event, g, c.handler)
		if err != nil {
			t.Fatal(err)
		}
		if c.want == "" {
			noMatcher, _ := codexHookHash(c.event, newObject(), c.handler)
			if got != noMatcher {
				t.Errorf("%s: the matcher changed the hash", c.event)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.event, got, c.want)
		}
	}
}

// TestTrustCodexHooks: trust entries are added once, a stale hash is
// replaced in its table, and the rest of config.toml is kept.
func TestTrustCodexHooks(t *testing.T) {
	before := "model = \"o3\"\n\n[hooks.state.\"/h/hooks.json:stop:0:0\"]\nenabled = true\ntrusted_hash = \"sha256:old\"\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n"
	entries := []CodexTrust{{Key: "/h/hooks.json:stop:0:0", Hash: "sha256:new"}, {Key: `/h "q"/hooks.json:pre_tool_use:0:0`, Hash: "sha256:pre"}}
	got := string(TrustCodexHooks([]byte(before), entries))
	want := "model = \"o3\"\n\n[hooks.state.\"/h/hooks.json:stop:0:0\"]\nenabled = true\ntrusted_hash = \"sha256:new\"\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"/h \\\"q\\\"/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:pre\"\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if again := string(TrustCodexHooks([]byte(got), entries)); again != got {
		t.Errorf("not idempotent:\n%s", again)
	}
	if !strings.HasPrefix(string(TrustCodexHooks(nil, entries[:1])), "[hooks.state.") {
		t.Errorf("a new config.toml starts with the table")
	}
}
