package guardrun

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
)

func TestModeMapsOntoParserModes(t *testing.T) {
	for m, want := range map[Mode]ast.Mode{Markdown: ast.Markdown, Strict: ast.Strict} {
		got, ok := m.astMode()
		require.True(t, ok, m.String())
		require.Equal(t, want, got, m.String())
	}
	require.Equal(t, "strict", Strict.String())
	require.Equal(t, "Mode(7)", Mode(7).String())
}

func TestCompileRejectsUnknownMode(t *testing.T) {
	_, err := Compile("x.mld", []byte("show \"1\"\n"), WithMode(Mode(7)))
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "UsageError", e.Name)
	require.Contains(t, e.Message, "Mode(7)")
	require.NotEmpty(t, e.Hint)
}

func TestGuardFilesAreStrict(t *testing.T) {
	require.Equal(t, Strict, ModeForName("policy.guard"))
	require.Equal(t, Strict, ModeForName("dir/x.mld"))
	require.Equal(t, Markdown, ModeForName("notes.md"))
}
