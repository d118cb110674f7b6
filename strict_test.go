package guardrun_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun"
)

const tpyoScript = "var secret @k = \"s\"\nguard @g before secret = when [\n  @tpyo == 1 => deny \"typo\"\n  * => allow\n]\nshow \"ok\"\n"

// WithStrictCheck refuses at Compile a guard using a name that does not
// exist, which at run time would fail closed on every operation it
// covers; without it the script compiles (and the guard fails when it
// runs).
func TestStrictCheck(t *testing.T) {
	_, err := guardrun.Compile("t.mld", []byte(tpyoScript))
	require.NoError(t, err, "nothing is checked unless asked")

	_, err = guardrun.Compile("t.mld", []byte(tpyoScript), guardrun.WithStrictCheck())
	var e *guardrun.Error
	require.True(t, errors.As(err, &e), "%v", err)
	require.Equal(t, guardrun.CheckErrorName, e.Name)
	require.Equal(t, "t.mld", e.Pos.File)
	require.Equal(t, 3, e.Pos.Line)
	require.Equal(t, 3, e.Pos.Col)
	require.Contains(t, e.Message, "unknown variable @tpyo in a guard")
	require.Equal(t, "  @tpyo == 1 => deny \"typo\"", e.SourceLine)
	require.NotEmpty(t, e.Hint)
	require.Len(t, e.Findings, 1)

	// The embedder's names are defined names.
	src := "guard @g before op:exe = when [\n  @lookup(@req.user) == \"x\" => deny \"no\"\n  * => allow\n]\nshow \"ok\"\n"
	_, err = guardrun.Compile("t.mld", []byte(src), guardrun.WithStrictCheck())
	require.Error(t, err)
	_, err = guardrun.Compile("t.mld", []byte(src), guardrun.WithStrictCheck(), guardrun.DeclareVars("req"), guardrun.WithFunctions(lookup))
	require.NoError(t, err)
}

// A declared per-call variable the script defines too is refused at
// Compile, at the script's definition.
func TestDeclareVarsClash(t *testing.T) {
	_, err := guardrun.Compile("t.mld", []byte("show \"1\"\nvar @req = 2\n"), guardrun.DeclareVars("req"))
	var e *guardrun.Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, guardrun.VariableErrorName, e.Name)
	require.Equal(t, 2, e.Pos.Line)
	_, err = guardrun.Compile("t.mld", []byte("show \"1\"\n"), guardrun.DeclareVars("mx"))
	require.True(t, errors.As(err, &e))
	require.Equal(t, guardrun.UsageErrorName, e.Name)
}

// A missing import fails at Compile for a script read from a file, with
// the import's position; a script compiled from memory fails at Load, or
// at Run before its first directive runs (on main it ran the directives
// before the import first).
func TestMissingImportFailsEarly(t *testing.T) {
	dir := t.TempDir()
	src := "show \"before\"\nimport { @x } from \"./nope.mld\"\nshow @x\n"
	path := filepath.Join(dir, "t.mld")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))

	_, err := guardrun.CompileFile(path)
	var e *guardrun.Error
	require.True(t, errors.As(err, &e), "CompileFile must refuse the missing import: %v", err)
	require.Equal(t, guardrun.FileErrorName, e.Name)
	require.Equal(t, path, e.Pos.File)
	require.Equal(t, 2, e.Pos.Line)
	require.Equal(t, 1, e.Pos.Col)
	require.Contains(t, e.Message, "File not found: ./nope.mld")

	prg, err := guardrun.Compile("t.mld", []byte(src))
	require.NoError(t, err, "from memory there is no directory to look in yet")
	res, err := prg.Run(context.Background(), guardrun.WithDir(dir))
	require.True(t, errors.As(err, &e))
	require.Equal(t, 2, e.Pos.Line)
	require.Empty(t, res.Document, "nothing ran before the missing import was found")

	_, err = prg.Load(context.Background(), guardrun.WithDir(dir))
	require.True(t, errors.As(err, &e))
	require.Equal(t, 2, e.Pos.Line)
	require.Contains(t, e.Message, "File not found")

	// A present import compiles and runs.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nope.mld"), []byte("var @x = \"there\"\nexport { @x }\n"), 0o644))
	prg, err = guardrun.CompileFile(path)
	require.NoError(t, err)
	res, err = prg.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, "before\nthere\n", res.Document)
}
