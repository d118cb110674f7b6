package grammar_test

import (
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/stretchr/testify/require"
)

// A guard rule's action is one of the guard actions; a typo is a parse
// error with a did-you-mean, never a label change of text (which the hook
// answered as an allow with the text as the new command, issue 31).
func TestGuardActionTypos(t *testing.T) {
	cases := []struct{ action, msg, hint string }{
		{`block "Push to the remote?"`, "Unknown guard action block", `did you mean deny "reason"?`},
		{`reject "no"`, "Unknown guard action reject", "did you mean deny"},
		{`prompt "Push?"`, "Unknown guard action prompt", "did you mean ask?"},
		{`confirm "Push?"`, "Unknown guard action confirm", "did you mean ask?"},
		{`aks "Push?"`, "Unknown guard action aks", "did you mean ask?"},
		{`dney "no"`, "Unknown guard action dney", "did you mean deny"},
		{`alow @input`, "Unknown guard action alow", "did you mean allow?"},
		{`rety "again"`, "Unknown guard action rety", "did you mean retry?"},
		{`permit @input`, "Unknown guard action permit", "did you mean allow?"},
		{`pii "redacted"`, "label change must name a value", "deny"},
		{`"Push to the remote?"`, "cannot end with bare text", `did you mean deny "…" or ask "…"?`},
		{`@input`, "cannot end with a bare value", "did you mean allow @input"},
	}
	for _, c := range cases {
		src := "guard @g before op:cmd:git = when [\n  @mx.args.command.includes(\"push\") => " + c.action + "\n  * => allow\n]\n"
		_, err := grammar.Parse("p.guard", []byte(src), ast.Strict)
		require.Error(t, err, c.action)
		var pe *grammar.Error
		require.ErrorAs(t, err, &pe)
		require.Equal(t, 2, pe.Pos.Line, c.action)
		require.Equal(t, 40, pe.Pos.Col, c.action)
		require.Contains(t, pe.Message, c.msg, c.action)
		require.Contains(t, pe.Hint, c.hint, c.action)
	}
}

// The actions and label changes guards really use still parse.
func TestGuardActionsAccepted(t *testing.T) {
	for _, action := range []string{
		`allow`, `allow @input.trim()`, `allow "echo safe"`, `allow with { addLabels: ["pii"] }`,
		`deny "no"`, `ask "Push?"`, `retry "shorter"`, `pii @input`, `trusted!,!secret @output`,
		`clear! @output`, `!secret @input`, `untrusted @input`,
	} {
		src := "guard privileged @g after secret = when [\n  @input.includes(\"x\") => " + action + "\n  * => allow\n]\n"
		_, err := grammar.Parse("p.guard", []byte(src), ast.Strict)
		require.NoError(t, err, action)
	}
}
