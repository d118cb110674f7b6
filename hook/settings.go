package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"
)

// Host describes how `guardrun init` wires guardrun into one agent.
type Host struct {
	// Settings is the settings file, relative to the home directory.
	Settings string
	// Events are the host events guardrun is registered for.
	Events []string
	// handler is guardrun's hook entry for command on event.
	handler func(event, command string) *jsonObject
	// cursor: entries are handlers directly under the event, and the file
	// has a version.
	flat bool
}

// Hosts are the agents `guardrun init` knows.
var Hosts = map[string]Host{
	"claude": {Settings: ".claude/settings.json",
		Events: []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SubagentStop", "SessionStart", "SessionEnd", "PreCompact", "Notification"},
		handler: func(_, cmd string) *jsonObject {
			// onFailure "block" (Claude Code ≥ 2.1.295): a hook that cannot
			// start or times out blocks instead of letting the call through.
			return obj("type", "command", "command", cmd, "timeout", 30, "onFailure", "block")
		}},
	"codex": {Settings: ".codex/hooks.json",
		Events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop", "PreCompact", "SessionEnd"},
		handler: func(event, cmd string) *jsonObject {
			if event == "SessionEnd" {
				// Codex clamps a SessionEnd timeout to 3 s, and warns
				// about a longer one on every run.
				return obj("type", "command", "command", cmd, "timeout", codexSessionEndMax)
			}
			return obj("type", "command", "command", cmd, "timeout", 30)
		}},
	"gemini": {Settings: ".gemini/settings.json",
		Events: []string{"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel", "SessionStart", "SessionEnd", "PreCompress", "Notification"},
		handler: func(_, cmd string) *jsonObject {
			// Gemini CLI's timeout is in milliseconds.
			return obj("type", "command", "command", cmd, "name", "guardrun", "timeout", 10000)
		}},
	"cursor": {Settings: ".cursor/hooks.json", flat: true,
		Events: []string{"beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "beforeSubmitPrompt", "afterShellExecution", "afterMCPExecution", "afterFileEdit", "stop"},
		handler: func(_, cmd string) *jsonObject {
			// failClosed: a crash or timeout denies instead of allowing.
			return obj("command", cmd, "timeout", 10, "failClosed", true)
		}},
}

func obj(kv ...any) *jsonObject {
	o := newObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

// ours reports whether a handler is guardrun's hook for agent: its
// command runs a guardrun binary with `hook AGENT`, or a guardrun-hook
// binary with `AGENT`. Both forms are recognised so that init, run again
// after guardrun-hook was installed or removed, replaces its entry
// instead of adding a second one.
func ours(h any, agent string) bool {
	o, ok := h.(*jsonObject)
	if !ok {
		return false
	}
	cmd, _ := o.vals["command"].(string)
	f := strings.Fields(cmd)
	if len(f) < 2 {
		return false
	}
	switch strings.TrimSuffix(filepath.Base(f[0]), ".exe") {
	case "guardrun":
		return len(f) >= 3 && f[1] == "hook" && f[2] == agent
	case "guardrun-hook":
		return f[1] == agent
	}
	return false
}

// MergeSettings returns settings (the file's current content, nil when
// it does not exist) with guardrun's hook entries for agent: existing
// guardrun entries are updated in place, other settings and hooks are
// kept as they are (key order included), and merging twice changes
// nothing.
func MergeSettings(agent string, settings []byte, command string) ([]byte, error) {
	b, _, err := MergeSettingsNotes(agent, settings, command)
	return b, err
}

// MergeSettingsNotes is MergeSettings, and says what it changed in
// guardrun's existing entries that the user should know about: guardrun
// must see every tool call, so a matcher on guardrun's own group (which
// made the host run guardrun only for the tools it names) is removed, or,
// when the group also holds other hooks, guardrun's handler moves to a
// group of its own without a matcher; others' hooks keep theirs.
func MergeSettingsNotes(agent string, settings []byte, command string) ([]byte, []string, error) {
	var notes []string
	h, ok := Hosts[agent]
	if !ok {
		return nil, nil, fmt.Errorf("unknown agent %q", agent)
	}
	root := newObject()
	if len(strings.TrimSpace(string(settings))) > 0 {
		v, err := parseOrdered(settings)
		if err != nil {
			if merged, hnotes, herr := mergeCommented(agent, settings, command); herr == nil {
				return merged, append(hnotes, notes...), nil
			}
			return nil, nil, fmt.Errorf("%s is not valid JSON (%v); fix it first, guardrun will not overwrite it", h.Settings, err)
		}
		o, ok := v.(*jsonObject)
		if !ok {
			return nil, nil, fmt.Errorf("%s is not a JSON jsonObject", h.Settings)
		}
		root = o
	}
	if h.flat {
		if _, ok := root.get("version"); !ok {
			root.set("version", 1)
		}
	}
	hv, ok := root.get("hooks")
	if !ok {
		hv = newObject()
		root.set("hooks", hv)
	}
	hooks, ok := hv.(*jsonObject)
	if !ok {
		return nil, nil, errors.New(`"hooks" is not an jsonObject`)
	}
	for _, ev := range h.Events {
		want := h.handler(ev, command)
		list, _ := hooks.vals[ev].([]any)
		if _, present := hooks.get(ev); present && list == nil {
			return nil, nil, fmt.Errorf(`"hooks.%s" is not a list`, ev)
		}
		var found bool
		list, found = widenOurs(list, agent, ev, h.flat, &notes)
		if !replaceOurs(list, agent, want, h.flat) && !found {
			if h.flat {
				list = append(list, want)
			} else {
				list = append(list, obj("hooks", []any{want}))
			}
		}
		hooks.set(ev, list)
	}
	return writeOrdered(root), notes, nil
}

// narrow reports whether a group's matcher limits it to some tools: any
// matcher but none, "" and "*".
func narrow(g *jsonObject) (string, bool) {
	m, ok := g.vals["matcher"]
	if !ok {
		return "", false
	}
	ms, isStr := m.(string)
	if isStr && (ms == "" || ms == "*") {
		return "", false
	}
	return fmt.Sprint(m), true
}

// widenOurs makes every group holding guardrun's handler for agent match
// all tools: a group of guardrun's handlers alone loses its matcher; from
// a group shared with other hooks guardrun's handler moves to a new group
// without one (appended), the others keep their matcher. found says
// whether list holds guardrun's handler.
func widenOurs(list []any, agent, event string, flat bool, notes *[]string) ([]any, bool) {
	if flat {
		for _, x := range list {
			if ours(x, agent) {
				return list, true
			}
		}
		return list, false
	}
	found := false
	var moved []any
	for _, x := range list {
		g, ok := x.(*jsonObject)
		if !ok {
			continue
		}
		hs, _ := g.vals["hooks"].([]any)
		var mine, theirs []any
		for _, hx := range hs {
			if ours(hx, agent) {
				mine = append(mine, hx)
			} else {
				theirs = append(theirs, hx)
			}
		}
		if len(mine) == 0 {
			continue
		}
		found = true
		m, isNarrow := narrow(g)
		if !isNarrow {
			continue
		}
		if len(theirs) == 0 {
			g.del("matcher")
			*notes = append(*notes, fmt.Sprintf("%s: guardrun's entry had the matcher %q, so guardrun saw only those tools; the matcher is removed: guardrun now decides every tool call", event, m))
			continue
		}
		g.set("hooks", theirs)
		moved = append(moved, mine...)
		*notes = append(*notes, fmt.Sprintf("%s: guardrun's handler shared a group with the matcher %q, so guardrun saw only those tools; it is moved to a group of its own without a matcher (the other hooks there keep theirs): guardrun now decides every tool call", event, m))
	}
	if len(moved) > 0 {
		list = append(list, obj("hooks", moved))
	}
	return list, found
}

// replaceOurs updates guardrun's handler in list in place; false when
// there is none.
func replaceOurs(list []any, agent string, want *jsonObject, flat bool) bool {
	for i, x := range list {
		if flat {
			if ours(x, agent) {
				list[i] = mergeHandler(x.(*jsonObject), want)
				return true
			}
			continue
		}
		g, ok := x.(*jsonObject)
		if !ok {
			continue
		}
		hs, _ := g.vals["hooks"].([]any)
		for j, hx := range hs {
			if ours(hx, agent) {
				hs[j] = mergeHandler(hx.(*jsonObject), want)
				return true
			}
		}
	}
	return false
}

// mergeHandler sets want's fields on an existing handler, keeping
// fields the user added.
func mergeHandler(old, want *jsonObject) *jsonObject {
	for _, k := range want.keys {
		if k == "command" {
			// The user may have pointed it at another guardrun binary or
			// added flags.
			continue
		}
		old.set(k, want.vals[k])
	}
	return old
}

// lineDiff is a unified-style diff of two texts, for --dry-run.
func lineDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	// Longest common subsequence; settings files are small.
	n, m := len(x), len(y)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			out.WriteString("  " + x[i] + "\n")
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out.WriteString("+ " + y[j] + "\n")
			j++
		default:
			out.WriteString("- " + x[i] + "\n")
			i++
		}
	}
	return out.String()
}

// Diff is lineDiff, exported for the init command.
func Diff(old, new []byte) string { return lineDiff(string(old), string(new)) }

// mergeCommented is MergeSettingsNotes for a settings file in JSON with
// comments and trailing commas (Gemini CLI and Claude Code read such
// files): the merge is made on the standard JSON, and only guardrun's
// changes (its event lists under "hooks", Cursor's version) are patched
// into the file, so comments elsewhere are kept. The file is then laid
// out again by hujson's formatter (comments kept); comments inside an
// event list that guardrun rewrites are lost, and a note says so.
func mergeCommented(agent string, settings []byte, command string) ([]byte, []string, error) {
	v, err := hujson.Parse(settings)
	if err != nil {
		return nil, nil, err
	}
	std := v.Clone()
	std.Standardize()
	if bytes.Equal(std.Pack(), settings) {
		// Standard JSON already: its error is not about comments.
		return nil, nil, errors.New("not JSON with comments")
	}
	merged, notes, err := MergeSettingsNotes(agent, std.Pack(), command)
	if err != nil {
		return nil, nil, err
	}
	var after, before map[string]json.RawMessage
	if err := json.Unmarshal(merged, &after); err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(std.Pack(), &before); err != nil {
		return nil, nil, err
	}
	type op struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	var ops []op
	if _, ok := before["version"]; !ok && after["version"] != nil {
		ops = append(ops, op{"add", "/version", after["version"]})
	}
	if _, ok := before["hooks"]; !ok {
		ops = append(ops, op{"add", "/hooks", after["hooks"]})
	} else {
		var hooksAfter, hooksBefore map[string]json.RawMessage
		if err := json.Unmarshal(after["hooks"], &hooksAfter); err != nil {
			return nil, nil, err
		}
		_ = json.Unmarshal(before["hooks"], &hooksBefore)
		for _, ev := range Hosts[agent].Events {
			path := "/hooks/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(ev)
			old, had := hooksBefore[ev]
			switch {
			case !had:
				ops = append(ops, op{"add", path, hooksAfter[ev]})
			case !jsonEqual(old, hooksAfter[ev]):
				if x := v.Find(path); x != nil && hasComments(x.Pack(), std.Find(path).Pack()) {
					notes = append(notes, fmt.Sprintf("%s: the comments inside hooks.%s are not kept (guardrun rewrote that list)", ev, ev))
				}
				ops = append(ops, op{"replace", path, hooksAfter[ev]})
			}
		}
	}
	if len(ops) == 0 {
		return settings, notes, nil
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return nil, nil, err
	}
	if err := v.Patch(patch); err != nil {
		return nil, nil, err
	}
	v.Format()
	return v.Pack(), notes, nil
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// hasComments reports whether the JSON-with-comments text orig holds
// comments: whether it differs from its standardized form std by more
// than whitespace and (trailing) commas.
func hasComments(orig, std []byte) bool {
	strip := func(b []byte) []byte {
		return bytes.Map(func(r rune) rune {
			if r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, b)
	}
	return !bytes.Equal(strip(orig), strip(std))
}
