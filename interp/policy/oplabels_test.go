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
