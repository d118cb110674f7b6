package agent

import (
	"strings"

	"github.com/guardrun/guardrun/toolschema"
)

// cmdFields are the input fields a command tool's host may put its
// command line in, in the order looked at: Claude's and Gemini's
// `command`, Codex's `cmd`, and argv forms (`["bash", "-lc", "…"]`).
// The roles come from toolschema's one table.
var cmdFields = toolschema.FieldsWith(toolschema.RoleCommand)

// commandOf finds a command tool's command line in its input: a string
// field, or an argv array of strings joined with shell quoting (so
// `["bash", "-lc", "sudo reboot"]` reads as `bash -lc 'sudo reboot'`,
// whose inner command the analysis then sees). field names where it was
// found; ok is false when no field holds a command (the call must be
// refused: a command the policy cannot read cannot be checked).
func commandOf(input map[string]any) (line, field string, ok bool) {
	for _, f := range cmdFields {
		switch v := input[f].(type) {
		case string:
			return v, f, true
		case []any:
			if len(v) == 0 {
				continue
			}
			words := make([]string, len(v))
			for i, w := range v {
				s, isStr := w.(string)
				if !isStr {
					return "", f, false
				}
				words[i] = shellQuote(s)
			}
			return strings.Join(words, " "), f, true
		}
	}
	return "", "", false
}

// shellQuote quotes a word for a POSIX shell: bare when it holds only
// characters no shell treats specially, else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// withCommand is a command tool's input as guards see it: when the host
// put the command line somewhere other than a string `command` field,
// a copy with `command` set to it, so every rule reading
// @mx.args.command sees the command. The host's own input is unchanged.
func withCommand(input map[string]any, line, field string) map[string]any {
	if s, ok := input["command"].(string); ok && s == line && field == "command" {
		return input
	}
	c := make(map[string]any, len(input)+1)
	for k, v := range input {
		c[k] = v
	}
	c["command"] = line
	return c
}

// hostInput maps an input guards rewrote back to the host's shape: the
// command guards saw in `command` goes back to the field the host used
// (an argv field gets `["sh", "-c", line]`).
func hostInput(rewritten, orig map[string]any, field string) map[string]any {
	if _, isStr := orig[field].(string); field == "" || field == "command" && isStr {
		return rewritten
	}
	out := make(map[string]any, len(rewritten))
	for k, v := range rewritten {
		out[k] = v
	}
	line, _ := out["command"].(string)
	if field != "command" {
		if c, had := orig["command"]; had {
			out["command"] = c
		} else {
			delete(out, "command")
		}
	}
	if _, isArgv := orig[field].([]any); isArgv {
		out[field] = []any{"sh", "-c", line}
	} else {
		out[field] = line
	}
	return out
}

// guardInput is a tool call's input as guards see it (withCommand for a
// command tool), its command line, the field the host put it in, and
// whether a command tool's command was found (always true for other
// tools).
func guardInput(t toolDef, input map[string]any) (in map[string]any, line, field string, ok bool) {
	if !contains(t.labels, "cmd") {
		return input, "", "", true
	}
	line, field, ok = commandOf(input)
	if !ok {
		return input, "", "", false
	}
	return withCommand(input, line, field), line, field, true
}
