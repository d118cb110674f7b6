package check_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/check"
)

// @input of a guard on an operation is the list of its inputs: a field
// it does not have is null at run time (the guard fails open), and .all
// in a denying arm lets one matching input among others pass. Check says
// so; on main it said nothing.
func TestInputQuantifiersAndFields(t *testing.T) {
	src := `guard @a before op:exe = when [
  @input.all.mx.labels.includes("secret") => deny "no secrets"
  * => allow
]
guard @b before op:exe = when [
  @input.some.mx.labels.includes("secret") => deny "no secrets"
  @input.bogus => deny "bogus"
  * => allow
]
guard @c before op:exe = when [
  @input.any.mx.labels.includes("secret") && @input.length > 0 && !@input.none.mx.labels.includes("x") => deny "ok"
  @input.all.mx.labels.includes("trusted") => allow
  @input.mx.labels.includes("pii") => deny "ok"
  * => allow
]
guard @d before secret = when [
  @input.bogus => deny "a value's own field"
  * => allow
]
`
	findings, err := check.Source("p.mld", []byte(src), ast.Strict)
	require.NoError(t, err)
	var got []string
	for _, f := range findings {
		if f.Kind == check.KindQuantifier || f.Kind == check.KindUnknownField {
			got = append(got, f.String())
		}
	}
	require.Equal(t, []string{
		"p.mld:2:9: warning: @input.all in an arm that stops the operation matches only when every input does: one matching input among others passes; did you mean .any?",
		`p.mld:6:9: warning: @input of guard @b is the list of the operation's inputs; it has no field "some"; did you mean .any? (at run time it is null: the condition is false)`,
		`p.mld:7:9: warning: @input of guard @b is the list of the operation's inputs; it has no field "bogus" (its fields: .any, .all, .none, .mx, .length) (at run time it is null: the condition is false)`,
	}, got, strings.Join(got, "\n"))
}
