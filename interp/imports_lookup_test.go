package interp_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
)

// importTree writes a base directory with a module, a directory of
// modules (one subdirectory without an index.mld) and a directory whose
// name looks like a module's.
func importTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
	write("m.mld", "var @x = \"mx\"\nexport { @x }\n")
	write("mods/a/index.mld", "---\ntitle: A\n---\nvar @y = \"ay\"\nexport { @y }\n")
	write("mods/b/readme.txt", "no index\n")
	write("mods/c/index.mld", "var @z = \"cz\"\n")
	write("lib.mld/a/index.mld", "var @w = \"lw\"\n")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "empty"), 0o755))
	return dir
}

// Files and directories an import names are told apart as before the
// import looked the path up once: directories are imported as directories
// (whatever their name), files as modules (again from the module cache),
// and what is missing fails at the import with the same message.
func TestImportLooksUpFilesAndDirectories(t *testing.T) {
	dir := importTree(t)
	out := mustRunIn(t, dir, `import { @x } from "./m.mld"
import { @x as @x2 } from "./m.mld"
import "./mods" as @mods
import { a } from "./mods"
import "./lib.mld" as @lib
show @x
show @x2
show @mods.a.y
show @mods.a.__meta__.title
show @mods.c.z
show @a.y
show @lib.a.w`)
	require.Equal(t, "mx\nmx\nay\nA\ncz\nay\nlw\n", out)

	_, err := runIn(t, dir, `import { @x } from "./absent.mld"`)
	require.Error(t, err)
	ie, ok := err.(*interp.Error)
	require.True(t, ok, "%T %v", err, err)
	require.Equal(t, "File not found: ./absent.mld", ie.Message)
	require.Equal(t, 1, ie.Pos.Line)

	_, err = runIn(t, dir, `import { nope } from "./mods"`)
	require.ErrorContains(t, err, "Import 'nope' not found in ./mods")
}

// Without a parser a directory of no modules is still imported, and a
// module's import fails for the parser, not the lookup.
func TestImportWithoutParser(t *testing.T) {
	dir := importTree(t)
	run := func(src string) (*interp.Result, error) {
		doc, err := grammar.Parse(filepath.Join(dir, "example.mld"), []byte(src+"\n"), ast.Strict)
		require.NoError(t, err)
		return interp.Run(context.Background(), doc, interp.Options{Dir: dir})
	}
	res, err := run("import \"./empty\" as @e\nshow @e")
	require.NoError(t, err)
	require.Equal(t, "{}\n", res.Document)
	_, err = run(`import { @x } from "./m.mld"`)
	require.ErrorContains(t, err, "no parser configured")
}
