package policytest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/policytest"
	"github.com/stretchr/testify/require"
)

// TestReadmeEventTests runs the README's `guardrun-test` blocks as test
// files next to the sample agent policy, so the documented format stays
// the one the parser reads.
func TestReadmeEventTests(t *testing.T) {
	src, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	policy, err := os.ReadFile("../examples/policy-tests/agent-session.guard")
	require.NoError(t, err)
	blocks := guardrunTestBlocks(string(src))
	require.NotEmpty(t, blocks, "README.md has no guardrun-test block")
	for i, b := range blocks {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "agent-session.guard"), policy, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "readme.test.mld"), []byte(b), 0o644))
		rs, err := policytest.Run(context.Background(), []string{dir}, policytest.Options{})
		require.NoError(t, err, "README block %d", i+1)
		require.NotEmpty(t, rs)
		for _, r := range rs {
			require.True(t, r.Pass, "README block %d: %s: %s", i+1, r.Name, strings.Join(r.Failures, "\n"))
		}
	}
}

// guardrunTestBlocks returns the bodies of the ```guardrun-test fences,
// dedented (the README indents them inside a list item).
func guardrunTestBlocks(md string) []string {
	var out []string
	var cur []string
	in, indent := false, ""
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && trimmed == "```guardrun-test":
			in, indent, cur = true, line[:len(line)-len(strings.TrimLeft(line, " "))], nil
		case in && trimmed == "```":
			in = false
			out = append(out, strings.Join(cur, "\n")+"\n")
		case in:
			cur = append(cur, strings.TrimPrefix(line, indent))
		}
	}
	return out
}
