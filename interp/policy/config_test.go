package policy

import (
	"github.com/guardrun/guardrun/internal/editdist"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want *Config
	}{
		{"empty", obj(), &Config{}},
		{"locked and rules deduplicated", obj("locked", true, "defaults", obj("rules", arr("no-secret-exfil", obj("rule", "no-sensitive-exfil"), "no-secret-exfil"), "unlabeled", "untrusted")),
			&Config{Locked: true, Rules: []string{"no-secret-exfil", "no-sensitive-exfil"}, Unlabeled: "untrusted"}},
		{"labels in key order", obj("labels", obj("secret", obj("deny", arr("op:show", "op:show")), "pii", obj("deny", arr("op:cmd"), "allow", arr("op:cmd:git")))),
			&Config{Labels: []LabelRule{{Label: "secret", Deny: []string{"op:show"}}, {Label: "pii", Deny: []string{"op:cmd"}, Allow: []string{"op:cmd:git"}}}}},
		{"operations", obj("operations", obj("exfil", arr("net:w"), "destructive", arr("tool:w", "fs:w"))),
			&Config{Operations: []Operation{{Category: "exfil", Labels: []string{"net:w"}}, {Category: "destructive", Labels: []string{"tool:w", "fs:w"}}}}},
		{"allow array", obj("allow", arr("cmd:echo:*", "op:cmd:git:status", "sh", "node", "network")),
			&Config{Allow: &Capabilities{Cmd: []string{"echo:*", "git:status"}, HasCmd: true, Sh: true, JS: true, Network: true}}},
		{"allow true is no list", obj("allow", true), &Config{}},
		{"allow star is no list", obj("allow", arr("*")), &Config{}},
		{"allow object", obj("allow", obj("cmd", arr("echo", "cmd:jq:*", "/usr/bin/Git:status"), "sh", true, "js", arr("*"))),
			&Config{Allow: &Capabilities{Cmd: []string{"echo", "jq:*", "git:status"}, HasCmd: true, Sh: true, JS: true}}},
		{"allow cmd star", obj("allow", obj("cmd", "*")), &Config{Allow: &Capabilities{Cmd: []string{"*"}, HasCmd: true}}},
		{"allow cmd true", obj("allow", obj("cmd", true)), &Config{Allow: &Capabilities{Cmd: []string{"*"}, HasCmd: true}}},
		{"allow bare cmd entry", obj("allow", arr("cmd")), &Config{Allow: &Capabilities{Cmd: []string{"*"}, HasCmd: true}}},
		{"allow without cmd", obj("allow", obj("sh", true)), &Config{Allow: &Capabilities{Sh: true}}},
		{"allow and capabilities.allow intersect", obj("allow", arr("cmd:echo", "cmd:jq", "sh"), "capabilities", obj("allow", arr("cmd:echo", "js"))),
			&Config{Allow: &Capabilities{Cmd: []string{"echo"}, HasCmd: true}}},
		{"deny true", obj("deny", true), &Config{DenyAll: true}},
		{"deny star", obj("deny", arr("*")), &Config{DenyAll: true}},
		{"deny sources unite", obj("deny", obj("cmd", arr("rm"), "sh", true), "deny_cmd", arr("mv", "cmd:git:push"), "capabilities", obj("deny", arr("network", "js"))),
			&Config{Deny: &Capabilities{Cmd: []string{"rm", "mv", "git:push"}, HasCmd: true, Sh: true, Network: true, JS: true}}},
		{"danger top level and capabilities", obj("danger", arr("cmd:git:push:*:--force"), "capabilities", obj("danger", arr("op:cmd:rm:*:-rf", "cmd:git:push:*:--force"))),
			&Config{Danger: []string{"git:push:*:--force", "rm:*:-rf"}}},
		{"limits", obj("limits", obj("timeout", 1500.0)), &Config{Timeout: 1500}},
		{"config wrapper", obj("config", obj("locked", true)), &Config{Locked: true}},
		{"deny sh false", obj("deny", obj("sh", false)), &Config{Deny: &Capabilities{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, mustParse(t, tc.in))
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        any
		path, msg string
		hint      string // substring
		posFile   string
	}{
		{"not an object", "x", "", "a policy must be an object", "got string", "/"},
		{"typo top-level", obj("lables", obj()), "lables", "unknown policy key 'lables'", "did you mean 'labels'?", "/lables"},
		{"far unknown key", obj("zzzzzzzz", 1.0), "zzzzzzzz", "unknown policy key 'zzzzzzzz'", "supported keys: locked, defaults", "/zzzzzzzz"},
		{"unsupported auth", obj("auth", obj()), "auth", "policy key 'auth' is not supported by guardrun", "remove it", "/auth"},
		{"unsupported env", obj("env", obj()), "env", "policy key 'env' is not supported by guardrun", "silently ignored", "/env"},
		{"unsupported autosign", obj("defaults", obj("autosign", arr())), "defaults.autosign", "policy key 'defaults.autosign' is not supported by guardrun", "remove it", "/defaults/autosign"},
		{"unsupported maxTokens", obj("limits", obj("maxTokens", 5.0)), "limits.maxTokens", "policy key 'limits.maxTokens' is not supported by guardrun", "remove it", "/limits/maxTokens"},
		{"unsupported fs capability", obj("allow", arr("cmd:echo", "fs:r:**")), "allow[1]", "policy capability 'fs:r:**' is not supported by guardrun", "filesystem", "/allow/1"},
		{"unsupported filesystem key", obj("deny", obj("filesystem", true)), "deny.filesystem", "policy key 'deny.filesystem' is not supported by guardrun", "remove it", "/deny/filesystem"},
		{"unsupported danger keychain", obj("danger", arr("@keychain")), "danger[0]", "danger entry '@keychain' is not supported by guardrun", "cmd:", "/danger/0"},
		{"rules string", obj("defaults", obj("rules", "no-secret-exfil")), "defaults.rules", "policy key 'defaults.rules' must be an array of rule names, got string", "rules: [", "/defaults/rules"},
		{"unknown rule typo", rules("no-secret-exfil", "no-secret-exfill"), "defaults.rules[1]", "unknown built-in rule 'no-secret-exfill' in defaults.rules", "did you mean 'no-secret-exfil'?", "/defaults/rules/1"},
		{"unknown rule far", rules("allow-everything-please"), "defaults.rules[0]", "unknown built-in rule 'allow-everything-please' in defaults.rules", "known rules: no-secret-exfil", "/defaults/rules/0"},
		{"no-novel-urls", rules("no-novel-urls"), "defaults.rules[0]", "built-in rule 'no-novel-urls' is not supported by guardrun", "remove it", "/defaults/rules/0"},
		{"empty rule", rules(" "), "defaults.rules[0]", "policy key 'defaults.rules[0]' is an empty rule name", "known rules", "/defaults/rules/0"},
		{"non-string rule", rules(3.0), "defaults.rules[0]", "policy key 'defaults.rules[0]' must be a rule name, got number", "strings", "/defaults/rules/0"},
		{"rule object extra key", rules(obj("rule", "no-secret-exfil", "mode", "x")), "defaults.rules[0].mode", "unknown policy key 'defaults.rules[0].mode'", "rule", "/defaults/rules/0/mode"},
		{"rule object taintFacts", rules(obj("rule", "no-secret-exfil", "taintFacts", true)), "defaults.rules[0].taintFacts", "policy key 'defaults.rules[0].taintFacts' is not supported by guardrun", "remove it", "/defaults/rules/0/taintFacts"},
		{"rule object unknown rule", rules(obj("rule", "nope")), "defaults.rules[0].rule", "unknown built-in rule 'nope' in defaults.rules", "known rules", "/defaults/rules/0/rule"},
		{"unlabeled bad", obj("defaults", obj("unlabeled", "maybe")), "defaults.unlabeled", `policy key 'defaults.unlabeled' must be "trusted" or "untrusted", got "maybe"`, "untrusted", "/defaults/unlabeled"},
		{"defaults typo", obj("defaults", obj("rule", arr())), "defaults.rule", "unknown policy key 'defaults.rule'", "did you mean 'rules'?", "/defaults/rule"},
		{"labels not object", obj("labels", arr()), "labels", "policy key 'labels' must be an object, got array", "secret", "/labels"},
		{"label deny string", obj("labels", obj("secret", obj("deny", "op:show"))), "labels.secret.deny", "policy key 'labels.secret.deny' must be an array of strings, got string", `deny: ["op:show"]`, "/labels/secret/deny"},
		{"label rule typo", obj("labels", obj("secret", obj("denny", arr()))), "labels.secret.denny", "unknown policy key 'labels.secret.denny'", "did you mean 'deny'?", "/labels/secret/denny"},
		{"label empty entry", obj("labels", obj("secret", obj("deny", arr("")))), "labels.secret.deny[0]", "policy key 'labels.secret.deny[0]' is an empty string", "op:show", "/labels/secret/deny/0"},
		{"label non-string entry", obj("labels", obj("secret", obj("allow", arr(true)))), "labels.secret.allow[0]", "policy key 'labels.secret.allow[0]' must be a string, got boolean", "allow", "/labels/secret/allow/0"},
		{"operations bare string", obj("operations", obj("exfil", "net:w")), "operations.exfil", "policy key 'operations.exfil' must be an array of strings, got string", `use exfil: ["net:w"]`, "/operations/exfil"},
		{"allow false", obj("allow", false), "allow", "policy key 'allow' must be true, an array of capabilities or an object, got false", "cmd:echo", "/allow"},
		{"unknown capability", obj("deny", arr("shh")), "deny[0]", "unknown capability 'shh' in deny", "did you mean 'sh'?", "/deny/0"},
		{"capability not string", obj("deny", arr(1.0)), "deny[0]", "policy key 'deny[0]' must be a string, got number", "cmd:echo", "/deny/0"},
		{"cap object typo", obj("allow", obj("cmds", arr("echo"))), "allow.cmds", "unknown policy key 'allow.cmds'", "did you mean 'cmd'?", "/allow/cmds"},
		{"cap object danger", obj("allow", obj("danger", arr("cmd:rm"))), "allow.danger", "unknown policy key 'allow.danger'", "capabilities.danger", "/allow/danger"},
		{"cap cmd number", obj("allow", obj("cmd", 1.0)), "allow.cmd", "policy key 'allow.cmd' must be true, \"*\" or an array of command patterns, got number", "cmd: [", "/allow/cmd"},
		{"cap cmd entry empty", obj("allow", obj("cmd", arr(""))), "allow.cmd[0]", "policy key 'allow.cmd[0]' is an empty command pattern", "echo", "/allow/cmd/0"},
		{"cap network domains", obj("allow", obj("network", arr("example.com"))), "allow.network", "policy key 'allow.network' only supports true, false or [\"*\"]; finer lists are not supported by guardrun", "network: true", "/allow/network"},
		{"cap sh string", obj("deny", obj("sh", "yes")), "deny.sh", "policy key 'deny.sh' must be a boolean, got string", "sh: true", "/deny/sh"},
		{"deny_cmd string", obj("deny_cmd", "rm"), "deny_cmd", "policy key 'deny_cmd' must be an array of commands, got string", `deny_cmd: ["rm"]`, "/deny_cmd"},
		{"capabilities typo", obj("capabilities", obj("alow", arr())), "capabilities.alow", "unknown policy key 'capabilities.alow'", "did you mean 'allow'?", "/capabilities/alow"},
		{"danger string", obj("danger", "cmd:rm"), "danger", "policy key 'danger' must be an array of command patterns, got string", `danger: ["cmd:rm"]`, "/danger"},
		{"limits negative", obj("limits", obj("timeout", -1.0)), "limits.timeout", "policy key 'limits.timeout' must be a positive number of milliseconds, got -1", "5000", "/limits/timeout"},
		{"limits string", obj("limits", obj("timeout", "5s")), "limits.timeout", `policy key 'limits.timeout' must be a positive number of milliseconds, got "5s"`, "5000", "/limits/timeout"},
		{"locked string", obj("locked", "yes"), "locked", "policy key 'locked' must be a boolean, got string", "locked: true", "/locked"},
		{"config not object", obj("config", true), "config", "policy key 'config' must be an object, got boolean", "config:", "/config"},
		{"config with sibling", obj("config", obj(), "locked", true), "locked", "unknown policy key 'locked' next to 'config'", "inside config", "/locked"},
		{"error inside config", obj("config", obj("lables", obj())), "config.lables", "unknown policy key 'config.lables'", "did you mean 'labels'?", "/config/lables"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.in, pathLocator)
			require.Error(t, err)
			var ce *ConfigError
			require.ErrorAs(t, err, &ce)
			require.Equal(t, tc.path, ce.Path)
			require.Equal(t, tc.msg, ce.Message)
			require.Equal(t, tc.msg, ce.Error())
			require.Contains(t, ce.Hint, tc.hint)
			require.Equal(t, tc.posFile, ce.Pos.File)
		})
	}
}

func TestParseNilLocator(t *testing.T) {
	_, err := Parse(obj("lables", obj()), nil)
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, 0, ce.Pos.Line)
}

func TestSuggest(t *testing.T) {
	require.Equal(t, "did you mean 'labels'?", suggest("lables", topKeys, "keys"))
	require.Equal(t, "keys: a, b", suggest("zzzzzz", []string{"a", "b"}, "keys"))
	require.Equal(t, 3, editdist.Distance("kitten", "sitting"))
}
