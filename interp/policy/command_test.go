package policy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplitCommands(t *testing.T) {
	tests := []struct {
		line string
		want [][]string // tokens per simple command
	}{
		{"", nil},
		{"echo hi", [][]string{{"echo", "hi"}}},
		{`echo "a;b" 'c|d'`, [][]string{{"echo", "a;b", "c|d"}}},
		{"echo ok; rm x", [][]string{{"echo", "ok"}, {"rm", "x"}}},
		{"a && b || c | d & e\nf", [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"f"}}},
		{"echo $(rm x)", [][]string{{"rm", "x"}, {"echo", "$(rm x)"}}},
		{"echo \"$(rm x)\"", [][]string{{"rm", "x"}, {"echo", "$(rm x)"}}},
		{"echo `rm x`", [][]string{{"rm", "x"}, {"echo", "`rm x`"}}},
		{"echo $(echo $(rm y))", [][]string{{"rm", "y"}, {"echo", "$(rm y)"}, {"echo", "$(echo $(rm y))"}}},
		{"echo $((1 + 2))", [][]string{{"echo", "$((1 + 2))"}}},
		{"echo $(( $(rm x) + 1 ))", [][]string{{"rm", "x"}, {"echo", "$(( $(rm x) + 1 ))"}}},
		{"FOO=1 BAR=2 /usr/bin/Git status", [][]string{{"git", "status"}}},
		{"echo x > /tmp/out 2>&1 < in", [][]string{{"echo", "x"}}},
		{"echo x >>log 2>err &>all", [][]string{{"echo", "x"}}},
		{"(cd /tmp && rm -rf x)", [][]string{{"cd", "tmp"}, {"rm", "-rf", "x"}}},
		{"{ rm x; }", [][]string{{"rm", "x"}}},
		{"if true; then rm x; fi", [][]string{{"true"}, {"rm", "x"}}},
		{"echo a\\;b", [][]string{{"echo", "a;b"}}},
		{"echo hi # ; rm x", [][]string{{"echo", "hi"}}},
		{"echo a#b", [][]string{{"echo", "a#b"}}},
		{"diff <(rm x) y", [][]string{{"rm", "x"}, {"diff", "<(rm x)", "y"}}},
		{"sh -c 'rm -rf x'", [][]string{{"sh", "-c", "rm -rf x"}, {"rm", "-rf", "x"}}},
		{"eval rm x", [][]string{{"eval", "rm", "x"}, {"rm", "x"}}},
		{"cat <<EOF\nrm x\n$(wget y)\nEOF\necho done", [][]string{{"cat"}, {"wget", "y"}, {"echo", "done"}}},
		{"cat <<'EOF'\n$(wget y)\nEOF", [][]string{{"cat"}}},
		{`echo "unterminated`, [][]string{{"echo", "unterminated"}}},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			var got [][]string
			for _, c := range splitCommands(tc.line) {
				got = append(got, c.tokens)
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestMatchesPattern(t *testing.T) {
	tests := []struct {
		tokens  []string
		pattern string
		want    bool
	}{
		{[]string{"echo", "hi"}, "echo", true},
		{[]string{"echo"}, "echo", true},
		{[]string{"echoes"}, "echo", false},
		{[]string{"echo", "hi"}, "echo:*", true},
		{[]string{"git", "status"}, "git:status", true},
		{[]string{"git", "status", "-s"}, "git:status", false},
		{[]string{"git", "push", "origin", "main", "--force"}, "git:push:*:--force", true},
		{[]string{"git", "push", "--force", "origin"}, "git:push:*:--force", true},
		{[]string{"git", "push", "origin"}, "git:push:*:--force", false},
		{[]string{"rm", "-rf", "x"}, "rm:*:-rf", true},
		{[]string{"rm", "x"}, "rm:*:-rf", false},
		{[]string{"anything"}, "*", true},
		{[]string{"npm", "install", "x"}, "npm:install:*", true},
		{[]string{"npm", "run"}, "npm:install:*", false},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, matchesPattern(tc.tokens, tc.pattern), "%v ~ %s", tc.tokens, tc.pattern)
	}
}

func TestCheckCommand(t *testing.T) {
	echoOnly := obj("allow", arr("cmd:echo:*"))
	tests := []struct {
		name     string
		policies []any
		line     string
		reason   string // "" = allowed
		rule     string
		command  string
		policy   []string
	}{
		{"allow list passes", []any{"p", echoOnly}, `echo "hello"`, "", "", "", nil},
		{"allow list denies", []any{"p", echoOnly}, "ls -la", "Command 'ls' denied by policy", "capabilities.allow.cmd", "ls -la", []string{"p"}},
		{"allow list without cmd", []any{"p", obj("allow", obj("sh", true))}, "echo hi", "Command 'echo' denied by policy", "capabilities.allow.cmd", "echo hi", []string{"p"}},
		{"allow cmd star", []any{"p", obj("allow", obj("cmd", "*"))}, "ls", "", "", "", nil},
		{"intersection: common command", []any{"a", obj("capabilities", obj("allow", arr("cmd:echo:*", "cmd:git:*"))), "b", obj("capabilities", obj("allow", arr("cmd:echo:*", "cmd:node:*")))}, "echo intersection-pass", "", "", "", nil},
		{"intersection: only in one layer", []any{"a", obj("capabilities", obj("allow", arr("cmd:echo:*", "cmd:git:*"))), "b", obj("capabilities", obj("allow", arr("cmd:echo:*", "cmd:node:*")))}, "git status", "Command 'git' denied by policy", "capabilities.allow.cmd", "git status", []string{"b"}},
		{"deny cmd", []any{"p", obj("deny", obj("cmd", arr("echo")))}, "echo blocked", "Command 'echo' denied by policy", "capabilities.deny.cmd", "echo blocked", []string{"p"}},
		{"deny_cmd pattern", []any{"p", obj("deny_cmd", arr("git:push"))}, "git push origin", "", "", "", nil},
		{"deny_cmd pattern exact", []any{"p", obj("deny_cmd", arr("git:push"))}, "git push", "Command 'git' denied by policy", "capabilities.deny.cmd", "git push", []string{"p"}},
		{"deny cmd through wrapper", []any{"p", obj("deny", obj("cmd", arr("mv")))}, "env FOO=1 mv a b", "Command 'mv' denied by policy", "capabilities.deny.cmd", "env FOO=1 mv a b", []string{"p"}},
		{"deny cmd star", []any{"p", obj("deny", arr("cmd"))}, "true", "Command 'true' denied by policy", "capabilities.deny.cmd", "true", []string{"p"}},
		{"deny sh", []any{"p", obj("deny", obj("sh", true))}, `sh -c "echo should not run"`, "Shell access denied by policy", "capabilities.deny.sh", "sh -c echo should not run", []string{"p"}},
		{"deny sh via env", []any{"p", obj("deny", arr("sh"))}, "env sh -c 'echo x'", "Shell access denied by policy", "capabilities.deny.sh", "env sh -c echo x", []string{"p"}},
		{"deny sh via timeout", []any{"p", obj("deny", arr("sh"))}, "timeout 5 bash script.sh", "Shell access denied by policy", "capabilities.deny.sh", "timeout 5 bash script.sh", []string{"p"}},
		{"deny sh via nice -n", []any{"p", obj("deny", arr("sh"))}, "nice -n 5 /bin/zsh", "Shell access denied by policy", "capabilities.deny.sh", "nice -n 5 /bin/zsh", []string{"p"}},
		{"deny sh in pipe", []any{"p", obj("deny", arr("sh"))}, "echo ok | sh", "Shell access denied by policy", "capabilities.deny.sh", "sh", []string{"p"}},
		{"deny sh, plain echo", []any{"p", obj("deny", arr("sh"))}, "echo sh", "", "", "", nil},
		{"deny network", []any{"p", obj("capabilities", obj("deny", arr("network")))}, "curl https://example.com", "Network access denied by policy", "capabilities.deny.network", "curl https://example.com", []string{"p"}},
		{"deny network via env", []any{"p", obj("deny", obj("network", true))}, "env curl https://example.com", "Network access denied by policy", "capabilities.deny.network", "env curl https://example.com", []string{"p"}},
		{"deny network, local command", []any{"p", obj("deny", obj("network", true))}, "echo curl", "", "", "", nil},
		{"danger rm -rf", []any{"p", obj("locked", false)}, "rm -rf x", "Dangerous capability requires allow.danger", "capabilities.danger", "rm -rf x", []string{"p"}},
		{"danger force push", []any{"p", obj()}, "git push origin main --force", "Dangerous capability requires allow.danger", "capabilities.danger", "git push origin main --force", []string{"p"}},
		{"danger opted in", []any{"p", obj("danger", arr("cmd:git:push:*:--force"))}, "git push origin main --force", "", "", "", nil},
		{"danger opted in by one layer only", []any{"a", obj("danger", arr("cmd:git:push:*:--force")), "b", obj()}, "git push origin main --force", "Dangerous capability requires allow.danger", "capabilities.danger", "git push origin main --force", []string{"b"}},
		{"danger behind wrapper", []any{"p", obj()}, "nohup sudo reboot", "Dangerous capability requires allow.danger", "capabilities.danger", "nohup sudo reboot", []string{"p"}},
		{"plain rm is not dangerous", []any{"p", obj()}, "rm x", "", "", "", nil},
		{"chained: echo then rm", []any{"p", echoOnly}, "echo ok; rm x", "Command 'rm' denied by policy", "capabilities.allow.cmd", "rm x", []string{"p"}},
		{"chained: substitution", []any{"p", echoOnly}, "echo $(rm x)", "Command 'rm' denied by policy", "capabilities.allow.cmd", "rm x", []string{"p"}},
		{"chained: pipe to sh", []any{"p", echoOnly}, "echo ok | sh", "Command 'sh' denied by policy", "capabilities.allow.cmd", "sh", []string{"p"}},
		{"chained: and-list", []any{"p", echoOnly}, "echo ok && curl x", "Command 'curl' denied by policy", "capabilities.allow.cmd", "curl x", []string{"p"}},
		{"quoted separator is one command", []any{"p", echoOnly}, `echo "a;b" 'c && rm x'`, "", "", "", nil},
		{"sh -c script checked against deny", []any{"p", obj("deny", obj("cmd", arr("rm")))}, `bash -lc "rm x"`, "Command 'rm' denied by policy", "capabilities.deny.cmd", "rm x", []string{"p"}},
		{"deny all", []any{"a", obj(), "b", obj("deny", true)}, "echo hi", "All operations denied by policy", "deny", "echo hi", []string{"b"}},
		{"empty line passes", []any{"p", echoOnly}, "   ", "", "", "", nil},
		{"assignment only passes", []any{"p", echoOnly}, "FOO=1", "", "", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := setOf(t, tc.policies...).CheckCommand(tc.line)
			requireDenial(t, d, tc.reason, tc.rule, tc.policy, true)
			if d != nil {
				require.Equal(t, tc.command, d.Command)
			}
		})
	}
}

func TestCheckCommandNesting(t *testing.T) {
	line := "echo "
	for range maxNesting + 2 {
		line += "$("
	}
	d := setOf(t, "p", obj("deny", obj("cmd", arr("rm")))).CheckCommand(line + "rm x")
	require.NotNil(t, d)
	require.Equal(t, "Command nesting too deep for policy check", d.Reason)
}

func TestCheckCommandNoPolicy(t *testing.T) {
	require.Nil(t, (&Set{}).CheckCommand("rm -rf /"))
	var s *Set
	require.Nil(t, s.CheckCommand("rm -rf /"))
}

func TestCheckCode(t *testing.T) {
	tests := []struct {
		name   string
		policy any
		lang   string
		reason string
		rule   string
	}{
		{"deny js", obj("capabilities", obj("deny", arr("js"))), "js", "JavaScript access denied by policy", "capabilities.deny.js"},
		{"deny node covers javascript", obj("deny", obj("node", true)), "javascript", "JavaScript access denied by policy", "capabilities.deny.js"},
		{"deny js, node lang", obj("deny", arr("js")), "node", "JavaScript access denied by policy", "capabilities.deny.js"},
		{"deny js, sh runs", obj("deny", arr("js")), "sh", "", ""},
		{"deny sh", obj("deny", obj("sh", true)), "bash", "Shell access denied by policy", "capabilities.deny.sh"},
		{"allow list without sh", obj("allow", arr("cmd:echo:*")), "sh", "Shell access denied by policy", "capabilities.allow.sh"},
		{"allow list with sh", obj("allow", arr("cmd:echo:*", "sh")), "sh", "", ""},
		{"allow list, js runs", obj("allow", arr("cmd:echo:*")), "js", "", ""},
		{"deny all", obj("deny", true), "python", "All operations denied by policy", "deny"},
		{"other language", obj("deny", arr("js", "sh")), "python", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := setOf(t, "p", tc.policy).CheckCode(tc.lang)
			requireDenial(t, d, tc.reason, tc.rule, []string{"p"}, true)
		})
	}
}

func FuzzSplitCommands(f *testing.F) {
	for _, seed := range []string{"echo hi", "echo $(rm x) `y` \"$(z)\"", "cat <<EOF\nx\nEOF", "a && b || c", "$((1+$(x)))", "'", "\"\\", "<(", "2>&1", "eval sh -c 'x'", "env -u X timeout -s 9 5 sh"} {
		f.Add(seed)
	}
	s := &Set{}
	s.Add("p", &Config{Allow: &Capabilities{Cmd: []string{"echo"}, HasCmd: true}, Deny: &Capabilities{Sh: true, Network: true}})
	f.Fuzz(func(t *testing.T, line string) {
		for _, c := range splitCommands(line) {
			if c.unchecked == "" && (len(c.tokens) != len(c.raw) || len(c.dyn) != len(c.raw)) {
				t.Fatalf("tokens and raw words out of step: %q", line)
			}
		}
		_ = s.CheckCommand(line)
	})
}
