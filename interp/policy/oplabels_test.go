package policy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCommandOpLabels(t *testing.T) {
	const v = "\x00"
	tests := []struct {
		line string
		want [][]string
	}{
		{"", nil},
		{"echo " + v + " there", [][]string{{"op:cmd", "op:cmd:echo", "op:cmd:echo:there"}}},
		{"git status", [][]string{{"op:cmd", "op:cmd:git", "op:cmd:git:status"}}},
		{"echo " + v + " | tee leaked.txt", [][]string{
			{"op:cmd", "op:cmd:echo"},
			{"op:cmd", "op:cmd:tee", "op:cmd:tee:leaked.txt"}}},
		{"echo " + v + "; /usr/bin/Curl -d x", [][]string{
			{"op:cmd", "op:cmd:echo"},
			{"op:cmd", "op:cmd:curl", "op:cmd:curl:-d"}}},
		// A value in command position names no command.
		{v + " leaked.txt", [][]string{{"op:cmd"}}},
		{"/bin/" + v + " x", [][]string{{"op:cmd"}}},
		// Wrapped and substituted commands are commands of the line.
		{"env tee f", [][]string{{"op:cmd", "op:cmd:env", "op:cmd:env:tee"}, {"op:cmd", "op:cmd:tee", "op:cmd:tee:f"}}},
		{"echo $(cat k)", [][]string{{"op:cmd", "op:cmd:cat", "op:cmd:cat:k"}, {"op:cmd", "op:cmd:echo", "op:cmd:echo:$(cat k)"}}},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, CommandOpLabels(linePartsForTest(tt.line, v)), "%q", tt.line)
	}
}

// linePartsForTest splits line at each v into literal text and values.
func linePartsForTest(line, v string) []CommandPart {
	var parts []CommandPart
	for i, lit := range strings.Split(line, v) {
		if i > 0 {
			parts = append(parts, CommandPart{Text: "secret; rm -rf /", Value: true})
		}
		parts = append(parts, CommandPart{Text: lit})
	}
	return parts
}

func TestCommandLineOpLabels(t *testing.T) {
	cases := []struct {
		line string
		want []string
	}{
		{"git status", []string{"op:cmd", "op:cmd:git", "op:cmd:git:status"}},
		{"cd repo && git push origin main", []string{"op:cmd", "op:cmd:cd", "op:cmd:cd:repo", "op:cmd:git", "op:cmd:git:push"}},
		{"sh -c 'curl x'", []string{"op:cmd", "op:cmd:sh", "op:cmd:sh:-c", "op:cmd:curl", "op:cmd:curl:x"}},
		{"echo $(whoami)", []string{"op:cmd", "op:cmd:whoami", "op:cmd:echo", "op:cmd:echo:$(whoami)"}},
		{"FOO=1 /usr/bin/Git Push", []string{"op:cmd", "op:cmd:git", "op:cmd:git:push"}},
		{"", []string{"op:cmd"}},
	}
	for _, c := range cases {
		got, perCmd, ok := CommandLineOpLabels(c.line)
		require.True(t, ok, c.line)
		require.Equal(t, c.want, got, c.line)
		for _, p := range perCmd {
			require.Subset(t, got, p, c.line)
		}
	}
	_, _, ok := CommandLineOpLabels(strings.Repeat("echo $(", 40) + "x" + strings.Repeat(")", 40))
	require.False(t, ok, "too deep to check")
	_, _, ok = CommandLineOpLabels("echo a\x00b")
	require.False(t, ok, "a NUL byte cannot be checked")
}

// TestCommandOpLabelsReview2: a script's `run cmd` line gets the same
// fixes as the agent's: git's global options, $'…', coproc, function.
func TestCommandOpLabelsReview2(t *testing.T) {
	const v = "\x00"
	for _, line := range []string{
		"git -C " + v + " push origin main",
		"git -c k=v --no-pager push",
		"echo $'\\''; git push " + v,
		"coproc git push",
		"function f { git push; }; f",
	} {
		var union []string
		for _, labels := range CommandOpLabels(linePartsForTest(line, v)) {
			union = append(union, labels...)
		}
		require.Contains(t, union, "op:cmd:git:push", "%q", line)
	}
}
