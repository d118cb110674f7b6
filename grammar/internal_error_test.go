package grammar

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/stretchr/testify/require"
)

// panicLexer stands in for a participle failure: it panics on first use.
type panicLexer struct{}

func (panicLexer) Next() (lexer.Token, error) { panic("lexer exploded") }

func TestParserPanicIsAnInternalError(t *testing.T) {
	_, _, err := parseSpan(panicLexer{})
	var ierr *InternalError
	require.True(t, errors.As(err, &ierr), "%T %v", err, err)
	require.Equal(t, "lexer exploded", ierr.Value)
	require.Equal(t, "internal parser error: lexer exploded", ierr.Error())
	require.Contains(t, string(ierr.Stack), "parseSpan")

	// Converted for the caller, it keeps its position and stays findable.
	src := newSource("f.mld", "var @x = 1\nshow @x")
	perr := convertParseError(src, 11, "show @x", scanResult{}, err)
	require.Equal(t, 2, perr.Pos.Line)
	require.Equal(t, internalHint, perr.Hint)
	require.True(t, errors.As(error(perr), &ierr))
}

// nilMapWrite is the runtime error a nil-map write panics with, as a
// lowering bug would; panicking with it directly keeps the test free of a
// deliberate bug that linters rightly flag.
type nilMapWrite struct{}

func (nilMapWrite) RuntimeError() {}
func (nilMapWrite) Error() string { return "assignment to entry in nil map" }

var _ runtime.Error = nilMapWrite{}

func TestParsePanicIsAnInternalError(t *testing.T) {
	err := func() (err error) {
		defer recoverInternal("f.mld", &err)
		panic(nilMapWrite{})
	}()
	var perr *Error
	require.True(t, errors.As(err, &perr), "%T %v", err, err)
	require.Equal(t, "f.mld", perr.Pos.File)
	require.Equal(t, 1, perr.Pos.Line)
	require.True(t, strings.HasPrefix(perr.Message, "internal parser error: assignment to entry in nil map"), perr.Message)
	var ierr *InternalError
	require.True(t, errors.As(err, &ierr))
	require.NotEmpty(t, ierr.Stack)
	require.Equal(t, nilMapWrite{}, ierr.Value)
}

func TestOrdinaryParseErrorsAreNotInternal(t *testing.T) {
	for _, src := range []string{"var @x = [1,", "show `a", "var = 1", "run cmd {echo @a[}"} {
		perr := requireParseError(t, src)
		require.Nil(t, perr.Cause, src)
	}
}
