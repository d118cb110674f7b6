package conformance

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCopyCaseLeavesDefinitionFilesOut(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	writeTree(t, src, map[string]string{
		"example.md":        "script",
		"example.mld":       "strict script",
		"expected.md":       "",
		"expected-x.md":     "",
		"error.md":          "",
		"error-contains.md": "",
		"warning.md":        "",
		"lib.mld":           "module",
		"notes.md":          "data",
		"sub/example.md":    "nested definition",
		"sub/data.txt":      "nested data",
	})
	require.NoError(t, CopyCase(src, dst))
	var got []string
	require.NoError(t, filepath.Walk(dst, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dst, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	}))
	sort.Strings(got)
	require.Equal(t, []string{"example.mld", "lib.mld", "notes.md", "sub/data.txt"}, got)
	b, err := os.ReadFile(filepath.Join(dst, "sub", "data.txt"))
	require.NoError(t, err)
	require.Equal(t, "nested data", string(b))
}
