package grammar

import (
	"errors"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/stretchr/testify/require"
)

// requireParseError parses src in strict mode and returns the *Error.
func requireParseError(t *testing.T, src string) *Error {
	t.Helper()
	_, err := Parse("t.mld", []byte(src), ast.Strict)
	require.Error(t, err)
	var perr *Error
	require.True(t, errors.As(err, &perr), "%T %v", err, err)
	var ierr *InternalError
	require.False(t, errors.As(err, &ierr), "%v", err)
	return perr
}

func TestDeepNestingIsAnError(t *testing.T) {
	const n = 200_000
	tests := []struct {
		name, src string
		col       int // column of the opener past the limit
	}{
		{"brackets", "var @x = " + strings.Repeat("[", n), 10 + maxNesting},
		{"parens", "var @x = " + strings.Repeat("(", n), 10 + maxNesting},
		{"braces", "var @x = " + strings.Repeat("{a: ", n), 10 + 4*maxNesting},
		{"balanced", "var @x = " + strings.Repeat("[", n) + strings.Repeat("]", n), 10 + maxNesting},
		{"template calls", "var @x = " + strings.Repeat("`@f(", n), 10 + 2*maxNesting},
		{"strings in template index", "var @x = " + strings.Repeat("\"@a[", n), 10 + 2*maxNesting},
		// The cmd body is parsed on its own, so its depth starts at zero.
		{"cmd body", "run cmd {echo " + strings.Repeat("@a[", n) + "}", 17 + 3*maxNesting},
		{"code braces", "var @x = js {" + strings.Repeat("{", n) + "}", 13 + maxNesting},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			perr := requireParseError(t, tc.src+"\n")
			require.Equal(t, "nesting deeper than 200 levels", perr.Message)
			require.Equal(t, "split the expression into variables", perr.Hint)
			require.Equal(t, 1, perr.Pos.Line)
			require.Equal(t, tc.col, perr.Pos.Col)
		})
	}
}

func TestLongOperatorAndKeywordChainsAreAnError(t *testing.T) {
	const n = 200_000
	for name, src := range map[string]string{
		"not":      "var @x = " + strings.Repeat("!", n) + "1",
		"negation": "var @x = " + strings.Repeat("-", n) + "1",
		"when":     "var @x = " + strings.Repeat("when @a => ", n) + "1",
		"ternary":  "var @x = " + strings.Repeat("@a ? 1 : ", n) + "1",
		"run":      "var @x = " + strings.Repeat("run ", n) + "@a",
		"else if":  "if @a [ show \"1\" ]" + strings.Repeat(" else if @a [ show \"1\" ]", n),
		"newlines": "var @x = [" + strings.Repeat("!\n", n) + "1]",
		"mixed":    "var @x = " + strings.Repeat("!(-[when @a => ", maxNesting/3) + strings.Repeat("!", n),
	} {
		t.Run(name, func(t *testing.T) {
			perr := requireParseError(t, src+"\n")
			require.Contains(t, perr.Message, "nested deeper than 2000 levels")
			require.Equal(t, nestingHint, perr.Hint)
		})
	}
}

func TestNestingJustBelowTheLimitsParses(t *testing.T) {
	const d = maxNesting - 1
	for name, src := range map[string]string{
		"brackets":  "var @x = " + strings.Repeat("[", d) + "1" + strings.Repeat("]", d),
		"calls":     "var @x = " + strings.Repeat("@f(", d) + "1" + strings.Repeat(")", d),
		"templates": "var @x = " + strings.Repeat("`@f(", d/2) + "1" + strings.Repeat(")`", d/2),
		"cmd":       "run cmd {echo " + strings.Repeat("@a[", d-1) + "1" + strings.Repeat("]", d-1) + "}",
		"not":       "var @x = " + strings.Repeat("!", maxRecursion-10) + "1",
		"ternary":   "var @x = " + strings.Repeat("@a ? 1 : ", maxRecursion-10) + "1",
		"when":      "var @x = " + strings.Repeat("when @a => ", maxRecursion-10) + "1",
	} {
		t.Run(name, func(t *testing.T) {
			parseStrict(t, src)
		})
	}
}

// Separators end a recursion chain, binary minus is not one, and field
// names that are keywords are plain names: none of these nest.
func TestFlatRepetitionIsNotNesting(t *testing.T) {
	const n = 3 * maxRecursion
	for name, src := range map[string]string{
		"negative items": "var @x = [" + strings.Repeat("-1, ", n) + "-1]",
		"negated args":   "var @x = @f(" + strings.Repeat("!@a, ", n) + "1)",
		"subtraction":    "var @x = 1" + strings.Repeat(" - 1", n),
		"keyword fields": "var @x = @a" + strings.Repeat(".if", n),
		"block":          "exe @f() = [" + strings.Repeat("let @a = run @f(); ", n) + "=> 1]",
	} {
		t.Run(name, func(t *testing.T) {
			parseStrict(t, src)
		})
	}
}

func TestLongBinaryChainLowersLeftDeep(t *testing.T) {
	const terms = 20_000
	doc := parseMD(t, string(longLine(terms)))
	e := doc.Body[0].(*ast.VarDirective).Value
	depth := 0
	for {
		b, ok := e.(*ast.BinaryExpr)
		if !ok {
			break
		}
		require.IsType(t, &ast.NumberLit{}, b.Right)
		e = b.Left
		depth++
	}
	require.Equal(t, terms-1, depth)
	last := doc.Body[0].(*ast.VarDirective).Value.(*ast.BinaryExpr).Right
	require.Equal(t, len("/var @x = 1")+4*(terms-1), last.Position().Col)
}
