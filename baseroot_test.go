package guardrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// WithBaseAsRoot presents loaded files' paths rooted at the base
// directory; without it they are host paths.
func TestWithBaseAsRoot(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a", "b", "f.txt"), []byte("x"), 0o644))
	src := "var @f = <a/b/f.txt>\nshow `@f.mx.absolute @f.mx.taint @f.mx.sources`\n"
	prg, err := Compile("t.mld", []byte(src))
	require.NoError(t, err)

	res, err := prg.Run(context.Background(), WithDir(dir), WithStateDir(t.TempDir()), WithBaseAsRoot())
	require.NoError(t, err)
	require.Equal(t, `/a/b/f.txt ["src:file","dir:/a/b","dir:/a"] ["/a/b/f.txt"]`, strings.TrimSpace(res.Document))

	res, err = prg.Run(context.Background(), WithDir(dir), WithStateDir(t.TempDir()))
	require.NoError(t, err)
	require.Contains(t, res.Document, filepath.Join(dir, "a", "b", "f.txt"))
}
