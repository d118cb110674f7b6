package policy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCommandOpLabels(t *testing.T) {
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
		got, ok := CommandOpLabels(c.line)
		require.True(t, ok, c.line)
		require.Equal(t, c.want, got, c.line)
	}
	_, ok := CommandOpLabels(strings.Repeat("echo $(", 40) + "x" + strings.Repeat(")", 40))
	require.False(t, ok, "too deep to check")
}
