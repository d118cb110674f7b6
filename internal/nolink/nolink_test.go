package nolink_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/internal/teststate"
	"github.com/guardrun/guardrun/interp/code"
	"github.com/guardrun/guardrun/interp/value"
)

func TestMain(m *testing.M) { teststate.Main(m) }

func TestNothingIsLinked(t *testing.T) {
	require.False(t, code.HasJS(), "this test binary must not link the JavaScript engine")
	require.Nil(t, value.RegisteredTokenCounter(), "this test binary must not link the token counter")
}

// A script that needs a missing engine is refused by Compile, at the
// construct, with the import that fixes it.
func TestCompileRefusesWhatCannotRun(t *testing.T) {
	tests := []struct {
		name, src string
		line, col int
		msg, hint string
	}{
		{"js block", "var @x = 1\nexe @f(s) = js { return s }\n", 2, 13, "js block needs the JavaScript engine", `import _ "github.com/guardrun/guardrun/js"`},
		{"node block", "run node { console.log(1) }\n", 1, 1, "node block needs the JavaScript engine", `import _ "github.com/guardrun/guardrun/js"`},
		{"js in a guard", "guard @g before op:run = when [\n  @f(@input) => deny \"x\"\n  * => allow\n]\nexe @f(x) = js { return true }\n", 5, 13, "js block", "guardrun/js"},
		{"shadow env", "exe @h(x) = cmd {echo @x}\nexe js = { h }\n", 2, 1, "the js shadow environment needs the JavaScript engine", "guardrun/js"},
		{"token count", "var @s = \"abc\"\nshow @s.mx.tokens\n", 2, 6, "token count (.mx.tokens) needs the token counter", `import _ "github.com/guardrun/guardrun/tokens"`},
		{"whole mx", "var @s = \"abc\"\nvar @m = @s.mx\n", 2, 10, "token count", ".mx.tokest"},
		{"mx in a template", "var @s = \"abc\"\nshow `n=@s.mx.tokens`\n", 2, 9, "token count", "guardrun/tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prg, err := guardrun.Compile("p.mld", []byte(tt.src))
			require.Nil(t, prg)
			require.ErrorIs(t, err, guardrun.ErrNotLinked)
			var ge *guardrun.Error
			require.True(t, errors.As(err, &ge))
			require.Contains(t, ge.Message, tt.msg)
			require.Contains(t, ge.Hint, tt.hint)
			require.Equal(t, tt.line, ge.Pos.Line, "%v", ge)
			require.Equal(t, tt.col, ge.Pos.Col, "%v", ge)
		})
	}
}

// What needs no engine still compiles and runs: shell, .mx fields other
// than tokens, the length-based estimate, and an @mx.tokens that is the
// ambient @mx, not a value's metadata.
func TestScriptsWithoutEnginesRun(t *testing.T) {
	src := "var secret @s = \"hello world\"\nshow `@s.mx.labels @s.mx.tokest @s.mx.text`\nrun sh { echo hi }\n"
	prg, err := guardrun.Compile("ok.mld", []byte(src))
	require.NoError(t, err)
	res, err := prg.Run(context.Background(), guardrun.WithDir(t.TempDir()))
	require.NoError(t, err)
	require.Equal(t, "[\"secret\"] 3 hello world\nhi\n", res.Document)
}

// An imported module is checked when it is imported, before any of its
// directives run, so a policy is refused while it loads.
func TestImportedModuleIsRefusedWhenLoaded(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "helpers.mld"),
		[]byte("run sh { touch ran }\nexe @up(s) = js { return s.toUpperCase() }\nexport { @up }\n"), 0o600))
	prg, err := guardrun.Compile(filepath.Join(dir, "main.mld"), []byte("import { @up } from \"./helpers.mld\"\nshow @up(\"x\")\n"))
	require.NoError(t, err, "the main document itself needs nothing")
	_, err = prg.Load(context.Background(), guardrun.WithDir(dir))
	require.ErrorIs(t, err, guardrun.ErrNotLinked)
	require.Contains(t, err.Error(), "helpers.mld:2:")
	_, statErr := os.Stat(filepath.Join(dir, "ran"))
	require.True(t, os.IsNotExist(statErr), "the module's first directive ran before it was refused")

	_, err = prg.Run(context.Background(), guardrun.WithDir(dir))
	require.ErrorIs(t, err, guardrun.ErrNotLinked)
}

// The run-time guard, for what the syntax does not show: an Engine asked
// to run JS without one fails closed.
func TestEngineFailsClosedAtRunTime(t *testing.T) {
	_, err := code.NewEngine(code.Options{}).RunJS(context.Background(), "return 1", nil)
	require.ErrorIs(t, err, guardrun.ErrNotLinked)
}
