package interp

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/interp/value"
)

// Go values convert to the language's data, and back; what has no value
// in the language is an error naming where it is and its Go type.
func TestGoVariable(t *testing.T) {
	type rec struct{ A int }
	n := 7
	for _, c := range []struct {
		in   any
		want string
	}{
		{nil, "null"},
		{uint8(3), "3"},
		{float32(1.5), "1.5"},
		{&n, "7"},
		{[2]bool{true, false}, "[true,false]"},
		{map[string][]string{"b": {"x"}, "a": nil}, `{"a":null,"b":["x"]}`},
		{[]any{map[string]any{"k": int64(1)}}, `[{"k":1}]`},
	} {
		v, err := GoVariable(c.in, "@x")
		require.NoError(t, err, "%#v", c.in)
		require.Equal(t, c.want, value.ToJSON(v.Data, false), "%#v", c.in)
		require.True(t, v.Security.IsZero())
	}
	for _, c := range []struct {
		in   any
		want string
	}{
		{rec{1}, "@x: a Go interp.rec has no value"},
		{map[int]string{1: "a"}, "@x: a Go map[int]string has no value"},
		{map[string]any{"f": math.NaN()}, "@x.f: NaN is not a number"},
		{[]any{Var{Value: 1}}, "@x[0]: a labelled value (Var) can only be a whole"},
		{Var{Value: 1, Labels: []string{"clear!"}}, "label modification"},
	} {
		_, err := GoVariable(c.in, "@x")
		require.ErrorContains(t, err, c.want)
	}
	v, err := GoVariable(&Var{Value: "k", Labels: []string{"secret"}, Sources: []string{"vault"}}, "@x")
	require.NoError(t, err)
	require.Equal(t, []string{"secret"}, v.Security.Labels())
	require.Equal(t, []string{"vault"}, v.Security.Sources())
}

func TestIsIdent(t *testing.T) {
	for s, want := range map[string]bool{
		"req": true, "_x": true, "my-var": true, "a1": true, "a-1": true,
		"": false, "1a": false, "-a": false, "a-": false, "a--b": false, "a b": false, "é": false, "a.b": false,
	} {
		require.Equal(t, want, isIdent(s), s)
	}
}
