package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExplainLineage runs each testdata/lineage/<case>/example.mld with
// --explain: the lineage lines of its explanations must be lineage.txt.
// The cases go multi-hop, through js, through a file written and read
// back, through a pipeline to a guard, and through a for loop to a
// command.
func TestExplainLineage(t *testing.T) {
	dirs, err := filepath.Glob("testdata/lineage/*")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(dirs), 5)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, "lineage.txt"))
			require.NoError(t, err)
			work := t.TempDir()
			src, err := os.ReadFile(filepath.Join(dir, "example.mld"))
			require.NoError(t, err)
			script := filepath.Join(work, "example.mld")
			require.NoError(t, os.WriteFile(script, src, 0o644))
			_, _, stderr := runCLI("--explain", script)
			var got []string
			for _, line := range strings.Split(stderr, "\n") {
				if l, ok := strings.CutPrefix(line, "    lineage: "); ok {
					got = append(got, "lineage: "+l)
				}
			}
			require.Equal(t, strings.TrimSpace(string(want)), strings.Join(got, "\n"), stderr)
		})
	}
}

func TestExplainLineageJSON(t *testing.T) {
	src, err := os.ReadFile("testdata/lineage/through-js/example.mld")
	require.NoError(t, err)
	_, stdout, _ := runCLI("--json", "--explain", writeScript(t, string(src)))
	var got struct {
		Explain []struct{ Lineage []string }
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	require.Len(t, got.Explain, 1)
	require.Equal(t, []string{"secret from @token (line 2) → @summarize(t) (js) → @summary → @post"}, got.Explain[0].Lineage)
}
